/*
 * proofs/lazy-tlb.pml: the lazy-TLB skip, the tlb_gen catch-up and the
 * page-table-freeing exception (Linux 4.19's rule), with the batched
 * reclaim flush that carries no generation.
 *
 * Models, in the C:
 *   src/core/flusher.c:prepare_remote   skip CPUs in lazy TLB mode when
 *       lazy_skip is on and no page table is freed
 *   src/core/flusher.c:core_ipi_shootdown   IPIs and wait (see ipi.pml)
 *   src/sim/guest-irq.c:handle_ipi   flush_tlb_func: flush, and take the
 *       mm's tlb_gen unless lazy; a flush with no generation (no_gen)
 *       skipped under the fault gen-zero-skip
 *   src/sim/guest-sched.c (the switch back from lazy mode: compare the
 *       CPU's generation with the mm's tlb_gen, flush if behind)
 *   src/sim/guest-mm.c (page reclaim's batched flush: no_gen)
 * and Linux's flush_tlb_mm_range, native_flush_tlb_multi (lazy CPUs
 * skipped unless info->freed_tables), flush_tlb_func (local_tlb_gen
 * against mm_tlb_gen and f->new_tlb_gen), switch_mm_irqs_off, and
 * arch_tlbbatch_flush (TLB_GENERATION_INVALID).
 *
 * Abstraction as in ipi.pml: pt the page's generation, tlb[v] what vCPU
 * v caches, done the newest generation whose flush returned. mm_gen is
 * the mm's tlb_gen, cpu_gen[v] the generation vCPU v has flushed up to.
 * A lazy CPU (vCPU 1 running a kernel thread with the mm still loaded)
 * uses no user translation, but its page walker may still walk the
 * user page tables through its paging-structure cache (speculation):
 * pwc[v] is the table that cache points to, reloaded by each flush.
 * cur_tbl is the current page table; a flush that frees tables unlinks
 * it, links a new one and frees the old one after returning.
 *
 * Properties: a vCPU out of lazy mode never uses a translation older
 * than a returned flush (assert); no walk, lazy or not, reads a freed
 * table (assert); no deadlock; liveness (ltl live): every IPI is taken
 * and the initiator finishes. The initiator may have targets acknowledge
 * early (before they flush), except when tables are freed.
 *
 * Faults:
 *   FAULT_SKIP_LAZY_FREED  lazy CPUs skipped although tables are freed
 *   FAULT_GEN_ZERO_SKIP    flush_tlb_func takes a flush with generation 0
 *       (a batched flush) for an old one and skips it: Linux
 *       aa44284960d5, fixed by 8f1d56f64f8d
 *
 * Bounds: 2 vCPUs (0 initiates and never goes lazy, 1 enters and leaves
 * lazy mode at will); FLUSHES = 3 in a row, each normal, table-freeing
 * or batched. skip-lazy-freed needs one freeing flush while vCPU 1 is
 * lazy; gen-zero-skip one batched flush while it is not; the catch-up
 * needs one flush skipped in lazy mode, then the switch back.
 *
 * Not oracle faults, to show the model needs what it models: NO_CATCHUP
 * drops the catch-up at the switch back; EARLY_ACK_FREED acknowledges
 * early although tables are freed (core_ipi_shootdown forbids it: the
 * walker of the target may still reach the table until its flush).
 *
 * Variants: FAULT_SKIP_LAZY_FREED FAULT_GEN_ZERO_SKIP NO_CATCHUP EARLY_ACK_FREED
 */
#define FLUSHES 3
#define NORMAL 0
#define FREES 1    /* info->freed_tables */
#define BATCHED 2  /* arch_tlbbatch_flush: new_tlb_gen = 0 */

byte pt, mm_gen, done;
byte tlb[2], cpu_gen[2];
byte cur_tbl, pwc[2];
bool freed[FLUSHES + 1];
bool lazy;         /* vCPU 1 is in lazy TLB mode */
bool ipi;          /* a flush IPI is pending at vCPU 1 */
byte ipi_gen;      /* its new_tlb_gen (0: none) */
bool ipi_early;    /* ...acknowledged before the flush */
byte acks;
bool finished;

#ifdef FAULT_GEN_ZERO_SKIP
#define STALE_REQUEST(fgen, local) ((fgen) <= (local))
#else
#define STALE_REQUEST(fgen, local) ((fgen) != 0 && (fgen) <= (local))
#endif

/* flush_tlb_func on vCPU v for a request of generation fgen; atomic (the
 * handler runs with interrupts off and nobody else writes these). */
inline flush_tlb_func(v, fgen, is_lazy)
{
	atomic {
		if
		:: cpu_gen[v] == mm_gen -> skip /* up to date already */
		:: cpu_gen[v] != mm_gen && STALE_REQUEST(fgen, cpu_gen[v]) -> skip
		:: else ->
			mg = mm_gen;
			tlb[v] = pt;
			pwc[v] = cur_tbl;
			if
			:: !is_lazy -> cpu_gen[v] = mg
			:: else -> skip /* catches up when it switches back */
			fi
		fi
	}
}

active proctype initiator()
{
	byte f, kind, gen, old, mg;
	bool early;

	do
	:: f < FLUSHES ->
		if
		:: kind = NORMAL
		:: kind = FREES
		:: kind = BATCHED
		fi;
		/* the PTE change and inc_mm_tlb_gen (for a batch:
		 * set_tlb_ubc_flush_pending) */
		atomic {
			pt++;
			mm_gen++;
			gen = mm_gen;
			old = cur_tbl;
			if
			:: kind == FREES -> cur_tbl++
			:: else -> skip
			fi
		};
		if
		:: kind == BATCHED -> gen = 0
		:: else -> skip
		fi;
		flush_tlb_func(0, gen, false); /* the local flush */
		/* native_flush_tlb_multi: skip vCPU 1 if lazy, unless page
		 * tables are freed */
		if
#ifdef FAULT_SKIP_LAZY_FREED
		:: lazy -> skip
#else
		:: lazy && kind != FREES -> skip
#endif
		:: else ->
			/* cfg.early_ack, never when tables are freed */
			if
			:: early = false
#ifdef EARLY_ACK_FREED
			:: early = true
#else
			:: kind != FREES -> early = true
#endif
			fi;
			atomic { ipi_gen = gen; ipi_early = early; ipi = true; acks++ }
		fi;
		(acks == 0);
		done = pt;
		if
		:: kind == FREES -> freed[old] = true /* tlb_remove_table */
		:: else -> skip
		fi;
		f++
	:: else -> break
	od;
	finished = true
}

active proctype target()
{
	byte mg, fg;

end:	do
	:: atomic { !ipi && !lazy -> assert(tlb[1] >= done) } /* user code */
	:: atomic { !ipi && !lazy -> lazy = true } /* switch to a kernel thread */
	:: !ipi && lazy ->
		/* switch_mm_irqs_off back to the mm: leave lazy mode, then
		 * read the mm's tlb_gen and catch up if behind */
		lazy = false;
		atomic {
			if
#ifndef NO_CATCHUP
			:: cpu_gen[1] < mm_gen ->
				mg = mm_gen; tlb[1] = pt; pwc[1] = cur_tbl; cpu_gen[1] = mg
#endif
			:: else -> skip
			fi
		}
	:: ipi && ipi_early ->
		/* acknowledge, then flush (the request is read first) */
		atomic { fg = ipi_gen; ipi = false; acks-- };
		flush_tlb_func(1, fg, lazy)
	:: ipi && !ipi_early ->
		flush_tlb_func(1, ipi_gen, lazy);
		atomic { ipi = false; acks-- }
	od
}

/* the page walker of vCPU 1: it may walk (speculatively) at any moment, in
 * lazy mode, and while the IPI handler runs before its flush. */
active proctype walker()
{
end:	do
	:: assert(!freed[pwc[1]])
	od
}

ltl live { ([] (ipi -> <> !ipi)) && <> finished }
