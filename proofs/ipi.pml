/*
 * proofs/ipi.pml: the native IPI shootdown (strategy "ipi", and the IPI
 * part of every other strategy).
 *
 * Models, in the C:
 *   src/core/flusher.c:core_ipi_shootdown   local flush before the IPIs
 *       (serial) or after them (concurrent), send_ipis, wait_acks;
 *       early_ack only when no page table is freed
 *   src/core/strategy-ipi.c:ipi_flush       the strategy itself
 *   src/sim/guest-irq.c:handle_ipi          the target's handler: flush,
 *       acknowledge (early: before the flush, or after it)
 *   src/sim/guest-irq.c:sim_ack_post, sim_guest_on_ack   the initiator's wait
 *   src/sim/vcpu-tlb.c:sim_vcpu_flush_all       include_global drops global
 *       entries (the fault global-survives keeps them)
 *   src/sim/backend.c (drop-target: the highest target is not sent)
 * and Linux's flush_tlb_mm_range -> native_flush_tlb_multi ->
 * on_each_cpu_cond_mask(flush_tlb_func, wait=true).
 *
 * Abstraction. A page's translation is its page table's generation:
 * pt[p] goes up by one when the initiator changes the PTE. A vCPU's TLB
 * caches tlb[v][p], the generation it loaded; a flush of p drops the
 * entry, and the next access reloads the current pt[p]. done[p] is the
 * newest generation whose flush has returned to its initiator. Two
 * pages: USER (a normal entry) and KERN (a global kernel entry, flushed
 * only by a flush that includes globals).
 *
 * Property (safety): whenever guest code on a vCPU uses page p,
 * tlb[v][p] >= done[p] (assert in vcpu()). No deadlock: pan's invalid
 * end states. Liveness (ltl live): every IPI sent is eventually
 * handled, and the initiator finishes its flushes, under weak fairness.
 *
 * Bounds: N = 3 vCPUs (vCPU 0 initiates, 1 and 2 are targets: two so
 * that "the highest target" differs from "every target"), FLUSHES = 2
 * flushes back to back by the initiator (so acknowledgement state is
 * reused), each nondeterministically serial or concurrent, with or
 * without early acknowledgement, of the user or the kernel page. Each
 * fault needs one flush and one target still unflushed at the return:
 * FAULT_NO_WAIT, FAULT_DROP_TARGET (target 2), FAULT_GLOBAL_SURVIVES
 * (a KERN flush); the bounds cover all three.
 *
 * Variants: FAULT_NO_WAIT FAULT_DROP_TARGET FAULT_GLOBAL_SURVIVES
 *
 * Interrupts: a vCPU takes a pending IPI before its next use of a page
 * (interrupts are enabled in the modelled guest code); the handler runs
 * with interrupts off, so its own vCPU uses nothing until it returns.
 */
#define N 3
#define FLUSHES 2
#define USER 0
#define KERN 1

typedef pages { byte p[2] };
pages tlb[N];           /* generation each vCPU's TLB holds, per page */
byte pt[2];             /* current page-table generation, per page */
byte done[2];           /* newest generation whose flush returned */
bool ipi[N];            /* a flush IPI is pending at the vCPU */
byte ipi_page[N];       /* ...for this page */
bool ipi_early[N];      /* ...acknowledged before the flush */
byte acks;              /* acknowledgements the initiator still waits for */
bool finished;

/* vcpu-tlb.c:sim_vcpu_flush_all/sim_vcpu_flush_range: drop page p's entry; the
 * next access reloads it from the page table. A KERN entry is global:
 * the flush includes globals, unless the fault keeps them. */
#ifdef FAULT_GLOBAL_SURVIVES
#define FLUSH(v, page) if :: page == USER -> tlb[v].p[page] = pt[page] :: else -> skip fi
#else
#define FLUSH(v, page) tlb[v].p[page] = pt[page]
#endif

/* Guest code on vCPU v touches both pages. */
#define USE(v) assert(tlb[v].p[USER] >= done[USER] && tlb[v].p[KERN] >= done[KERN])

active proctype initiator()
{
	byte f, i, page, gen;
	bool concurrent, early;

	do
	:: f < FLUSHES ->
		/* The PTE change (set_pte, inc_mm_tlb_gen) of one page. */
		if
		:: page = USER
		:: page = KERN
		fi;
		atomic { pt[page]++; gen = pt[page] };
		if
		:: concurrent = false
		:: concurrent = true
		fi;
		/* cfg.early_ack: no page table is freed in this model. */
		if
		:: early = false
		:: early = true
		fi;
		if
		:: !concurrent -> FLUSH(0, page) /* core_local_flush first */
		:: else -> skip
		fi;
		/* send_ipis: one IPI per remote target. */
		i = 1;
		do
		:: i < N ->
#ifdef FAULT_DROP_TARGET
			if
			:: i == N - 1 -> i++; goto next
			:: else -> skip
			fi;
#endif
			/* csd_lock: the target's slot for this sender is
			 * free again (an early acknowledgement frees it
			 * before the flush: the handler copied the request) */
			(!ipi[i]);
			atomic {
				ipi_page[i] = page;
				ipi_early[i] = early;
				ipi[i] = true;
				acks++
			};
			i++;
next:			skip
		:: else -> break
		od;
		if
		:: concurrent -> FLUSH(0, page) /* after the IPIs are out */
		:: else -> skip
		fi;
#ifndef FAULT_NO_WAIT
		(acks == 0); /* wait_acks */
#endif
		done[page] = gen;
		USE(0);
		f++
	:: else -> break
	od;
	finished = true
}

proctype vcpu(byte me)
{
	byte page;
	bool early;

end:	do
	:: !ipi[me] -> USE(me) /* guest code */
	:: ipi[me] ->
		/* handle_ipi (flush_tlb_func), interrupts off: read the
		 * request, then acknowledge before or after the flush */
		atomic { page = ipi_page[me]; early = ipi_early[me] };
		if
		:: early -> atomic { acks--; ipi[me] = false };
			FLUSH(me, page)
		:: else -> FLUSH(me, page);
			atomic { acks--; ipi[me] = false }
		fi
	od
}

init
{
	atomic {
		byte v = 1;
		do
		:: v < N -> run vcpu(v); v++
		:: else -> break
		od
	}
}

ltl live { ([] (ipi[1] -> <> !ipi[1])) && ([] (ipi[2] -> <> !ipi[2])) && <> finished }
