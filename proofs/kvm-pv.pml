/*
 * proofs/kvm-pv.pml: KVM's paravirtual flush (strategy "kvm-pv"), the
 * host's steal-time update at entry, and a lockless page-table walker
 * (GUP-fast) on the vCPU whose IPI the flush skips.
 *
 * Models, in the C:
 *   src/core/strategy-kvm-pv.c:kvm_pv_flush   read the preempted byte; if
 *       PREEMPTED, compare-and-swap FLUSH_TLB into it and drop the vCPU
 *       from the IPI mask; the rest is core_ipi_shootdown (ipi.pml)
 *   src/runtime/flushq.c:hvtlb_kvm_steal_host_preempt   the host sets
 *       PREEMPTED when the vCPU is put (fetch-or; the fault
 *       HVTLB_KVM_STEAL_FAULT_OVERWRITE stores PREEMPTED instead)
 *   src/runtime/flushq.c:hvtlb_kvm_steal_host_enter, and
 *   src/sim/hypervisor.c:sim_hv_vcpu_entry   at entry, exchange the byte
 *       with 0 and flush if FLUSH_TLB was in it
 *   src/runtime/flushq.c:hvtlb_kvm_steal_guest_defer_flush   the guest's CAS
 * and Linux's kvm_flush_tlb_multi (arch/x86/kernel/kvm.c), KVM's
 * kvm_steal_time_set_preempted and record_steal_time (arch/x86/kvm/x86.c).
 *
 * The fault lose-deferred (FAULT_LOSE_DEFERRED) is the bug fixed by
 * Linux b043138246a4 (part of the CVE-2019-3016 fixes): the host wrote
 * PREEMPTED over the byte each time it put the vCPU, so a second put while
 * still preempted erased a FLUSH_TLB the guest had set in between.
 *
 * GUP-fast: vCPU 1's guest runs get_user_pages_fast, which walks the page
 * tables with interrupts off and no lock: it reads the pointer to a page
 * table, then the table. Native Linux relies on the flush IPI: an
 * initiator that frees a table waits for every CPU to take the IPI, which
 * cannot happen inside the interrupts-off walk. The PV flush skips the IPI
 * of a preempted vCPU, and the host may preempt the walker in the middle
 * of its walk (guest interrupts-off does not stop the host). Linux frees
 * page tables after an RCU grace period (MMU_GATHER_RCU_TABLE_FREE, which
 * x86 selects with PARAVIRT); an interrupts-off section is an RCU read
 * side, so the table outlives the walk. The variant PV_NO_RCU frees the
 * table as soon as the flush returns; Spin must refute it. The same
 * reliance on the IPI is why Linux turned the PV flush off on i386-PAE
 * in 2022 (a check of CONFIG_GUP_GET_PTE_LOW_HIGH): there GUP-fast reads
 * a PTE in two halves and counts on the flush IPI to keep them from
 * tearing; that torn read is not modelled here, the freed table is.
 *
 * Abstraction: as in ipi.pml, pt is the page's generation, tlb[v] what
 * vCPU v caches, done the newest generation whose flush returned. Page
 * tables are numbered: the walker finds table cur_tbl; each flush of
 * this model unlinks the current table (a munmap that frees it), links
 * table cur_tbl + 1 and, once the flush returned, frees the old one.
 *
 * Properties: a running vCPU never uses a translation older than a
 * returned flush (assert); the walker never reads a freed table
 * (assert); no deadlock (invalid end states); liveness (ltl live): every
 * deferred flush and every IPI is eventually taken, and the initiator
 * finishes.
 *
 * Fairness assumptions for liveness: the host puts vCPU 1 only after
 * it ran a step (a time slice), puts it at most twice per preemption,
 * and a running vCPU takes a pending IPI before its next walk or use.
 *
 * Bounds: 2 vCPUs (0 initiates, 1 is the target the host preempts and
 * runs again, any number of times), FLUSHES = 2 flushes in a row. The
 * lost flag needs one flush and two puts of the target between its CAS
 * and the next entry; the freed table needs one flush and one walk cut by
 * a preemption: both within these bounds.
 *
 * Variants: FAULT_LOSE_DEFERRED PV_NO_RCU
 */
#define FLUSHES 2
#define PREEMPTED 1
#define FLUSH_TLB 2

byte pt;            /* the page's generation */
byte tlb[2];        /* what each vCPU's TLB caches */
byte done;          /* newest generation whose flush returned */
byte steal;         /* vCPU 1's preempted byte (steal-time area) */
bool running = true;/* vCPU 1 is in guest mode */
bool ipi;           /* flush IPI pending at vCPU 1 */
byte acks;
byte cur_tbl;       /* the page table the walker finds */
bool freed[FLUSHES + 1]; /* page table i was freed */
bool walking;       /* vCPU 1 is inside GUP-fast, interrupts off */
byte walk_tbl;      /* the table the walk found */
bool finished;
bool ran;           /* vCPU 1 ran an instruction since it was last put */
bool put_again;     /* the host has put the preempted vCPU a second time */

active proctype initiator()
{
	byte f, gen, old, state;
	bool deferred;

	do
	:: f < FLUSHES ->
		/* munmap: clear the PTE, unlink the page table */
		atomic { pt++; gen = pt; old = cur_tbl; cur_tbl++ };
		tlb[0] = pt; /* local flush */
		/* kvm_flush_tlb_multi: state = READ_ONCE(preempted) */
		state = steal;
		deferred = false;
		if
		:: state & PREEMPTED ->
			atomic { /* try_cmpxchg(&preempted, &state, state | FLUSH_TLB) */
				if
				:: steal == state -> steal = state | FLUSH_TLB; deferred = true
				:: else -> skip
				fi
			}
		:: else -> skip
		fi;
		if
		:: !deferred -> atomic { ipi = true; acks++ }
		:: else -> skip
		fi;
		(acks == 0); /* native_flush_tlb_multi waits */
		done = gen;
#ifdef PV_NO_RCU
		freed[old] = true;
#else
		/* tlb_remove_table -> call_rcu: free after a grace period,
		 * which an interrupts-off section that may hold the old
		 * table holds off (preempted or not) */
		(!walking || walk_tbl != old);
		freed[old] = true;
#endif
		f++
	:: else -> break
	od;
	finished = true
}

/* vCPU 1's guest code: runs only while the host runs it. */
active proctype guest()
{
end:	do
	/* Each step is one instruction of vCPU 1: it runs only while the
	 * host has it in guest mode (hence atomic with the test). */
	:: atomic { running && !walking && !ipi -> assert(tlb[1] >= done); ran = true } /* uses the page */
	:: atomic { running && !walking && ipi ->
		/* flush_tlb_func, then acknowledge */
		tlb[1] = pt; ipi = false; acks--; ran = true }
	:: atomic { running && !walking && !ipi ->
		/* gup_fast: local_irq_save, read the table pointer */
		walking = true; walk_tbl = cur_tbl; ran = true }
	:: atomic { running && walking ->
		/* read the table's entry, local_irq_restore */
		assert(!freed[walk_tbl]); walking = false; ran = true }
	od
}

/* The host's scheduler and KVM for vCPU 1. */
active proctype host()
{
	byte old;

end:	do
	:: running && ran ->
		/* vcpu_put -> kvm_steal_time_set_preempted (after the
		 * vCPU ran at least one step: a time slice) */
		atomic {
			running = false;
			ran = false;
			put_again = false;
#ifdef FAULT_LOSE_DEFERRED
			steal = PREEMPTED
#else
			steal = steal | PREEMPTED
#endif
		}
	:: !running && !put_again ->
		/* put again while still out (another vcpu_put on the way,
		 * for instance a userspace exit before the next KVM_RUN) */
		atomic {
			put_again = true;
#ifdef FAULT_LOSE_DEFERRED
			steal = PREEMPTED
#else
			steal = steal | PREEMPTED
#endif
		}
	:: !running ->
		/* vcpu_enter_guest -> record_steal_time: xchg(preempted, 0);
		 * flush the guest's TLB if FLUSH_TLB was set */
		atomic { old = steal; steal = 0 };
		if
		:: old & FLUSH_TLB -> tlb[1] = pt
		:: else -> skip
		fi;
		running = true
	od
}

ltl live { ([] (ipi -> <> !ipi)) && ([] ((steal & FLUSH_TLB) -> <> !(steal & FLUSH_TLB))) && <> finished }
