/*
 * proofs/latr.pml: the lazy strategy ("lazy", after LATR, ASPLOS 2018):
 * post the invalidation to the targets, flush locally and return; the
 * targets apply it at their next tick or context switch; the memory is
 * reused only once every target has passed the returned epoch. Freed page
 * tables never go lazy: they take the IPI path.
 *
 * Models, in the C:
 *   src/core/strategy-lazy.c:lazy_flush   lazy_post unless freed_tables,
 *       then the local flush; freed tables: core_ipi_shootdown
 *   src/sim/backend.c:op_lazy_post   a new epoch; each target records the
 *       invalidation, and the first epoch it has not applied (not when
 *       halted: it applies everything at its wake-up context switch)
 *   src/sim/guest-irq.c:sim_lazy_apply   at ticks and context switches
 *   src/sim/guest-mm.c:lazy_epoch_done   the memory (a quarantined slot,
 *       or the range a madvise refaults) is reused only when no vCPU has
 *       an unapplied epoch at or before the flush's
 *
 * Abstraction as in ipi.pml, with one difference: a lazy flush does not
 * complete when it returns but when its epoch is done, so done (the
 * generation no vCPU may use any more) is set there: that is when the
 * frame goes back to the allocator. Page tables are numbered; a walker
 * (also speculative) asserts that its table is not freed.
 *
 * The simulator runs op_lazy_post and the halt and wake of a vCPU as
 * single events; the model does too (one atomic step per target). The
 * variant SPLIT_HALT_CHECK reads "halted" in one step and records in the
 * next, as a real-threaded port would without a lock: Spin shows the
 * halted exemption then needs that lock.
 *
 * Properties: no running vCPU uses a translation of a page whose frame was
 * reused (assert); no walk reads a freed table (assert); no deadlock;
 * liveness (ltl live): every posted invalidation is applied and the
 * initiator finishes, under weak fairness (each target's tick fires).
 *
 * Bounds: 3 vCPUs (0 initiates; 1 and 2 run, halt and wake at will, so
 * that the epoch waits for more than one), FLUSHES = 2 in a row, each a
 * plain unmap or one that frees a page table. FAULT_SKIP_LAZY_FREED
 * (freed tables posted lazily) needs one freeing flush and one target
 * that walks before its tick.
 *
 * Variants: FAULT_SKIP_LAZY_FREED SPLIT_HALT_CHECK
 */
#define N 3
#define FLUSHES 2
#define NONE 0     /* epochs start at 1 */

byte pt, done, epoch;
byte tlb[N];
bool lz[N];         /* an invalidation is recorded, not yet applied */
byte lz_min[N];     /* first epoch not applied (NONE: holds nothing back) */
bool halted[N];
bool tick[N];       /* the timer interrupt is pending */
bool ipi[N];
byte acks;
byte cur_tbl, pwc[N];
bool freed[FLUSHES + 1];
bool finished;

/* sim_lazy_apply, or a flush in the IPI handler: drop the entry and the
 * cached walk, reload from the current tables */
inline apply(t)
{
	tlb[t] = pt; pwc[t] = cur_tbl; lz[t] = false; lz_min[t] = NONE
}

active proctype initiator()
{
	byte f, t, gen, e, old;
	bool frees, h;

	do
	:: f < FLUSHES ->
		if
		:: frees = false
		:: frees = true
		fi;
		atomic {
			pt++; gen = pt; old = cur_tbl;
			if
			:: frees -> cur_tbl++
			:: else -> skip
			fi
		};
#ifndef FAULT_SKIP_LAZY_FREED
		if
		:: frees ->
			/* freed tables are never lazy: core_ipi_shootdown */
			t = 1;
			do
			:: t < N -> atomic { ipi[t] = true; acks++ }; t++
			:: else -> break
			od;
			tlb[0] = pt; pwc[0] = cur_tbl;
			(acks == 0);
			done = gen;
			freed[old] = true;
			goto next
		:: else -> skip
		fi;
#endif
		/* lazy_post */
		epoch++; e = epoch;
		t = 1;
		do
		:: t < N ->
#ifdef SPLIT_HALT_CHECK
			h = halted[t];
			atomic {
				lz[t] = true;
				if
				:: lz_min[t] == NONE && !h -> lz_min[t] = e
				:: else -> skip
				fi
			};
#else
			atomic {
				lz[t] = true;
				if
				:: lz_min[t] == NONE && !halted[t] -> lz_min[t] = e
				:: else -> skip
				fi
			};
#endif
			t++
		:: else -> break
		od;
		tlb[0] = pt; pwc[0] = cur_tbl; /* the local flush; return */
		/* a page table goes back at once (free_pgtables): only the
		 * data frames are quarantined (reached only under the fault) */
		if
		:: frees -> freed[old] = true
		:: else -> skip
		fi;
		/* the frame is reused when the epoch is done: lazy_epoch_done */
		(lz_min[1] == NONE || lz_min[1] > e) && (lz_min[2] == NONE || lz_min[2] > e);
		done = gen;
next:		f++
	:: else -> break
	od;
	finished = true
}

proctype cpu(byte t)
{
end:	do
	:: atomic { !halted[t] && !tick[t] && !ipi[t] -> assert(tlb[t] >= done) } /* user code */
	:: atomic { !halted[t] && !tick[t] && !ipi[t] -> assert(!freed[pwc[t]]) } /* a walk */
	:: atomic { !halted[t] && !tick[t] && !ipi[t] -> halted[t] = true } /* HLT */
	:: atomic { tick[t] && !ipi[t] ->
		/* the tick, after a pending IPI (it wakes a halted vCPU:
		 * context switch) */
		halted[t] = false;
		if
		:: lz[t] -> apply(t)
		:: else -> skip
		fi;
		tick[t] = false }
	:: atomic { ipi[t] ->
		if
		:: halted[t] -> halted[t] = false; /* the wake-up's switch */
			if
			:: lz[t] -> apply(t)
			:: else -> skip
			fi
		:: else -> skip
		fi;
		tlb[t] = pt; pwc[t] = cur_tbl;
		ipi[t] = false; acks-- }
	od
}

/* The timer of vCPU t. */
proctype timer(byte t)
{
end:	do
	:: !tick[t] -> tick[t] = true
	od
}

init
{
	atomic {
		run cpu(1); run cpu(2); run timer(1); run timer(2)
	}
}

ltl live { ([] (lz[1] -> <> !lz[1])) && ([] (lz[2] -> <> !lz[2])) && <> finished }
