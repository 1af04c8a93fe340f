/*
 * proofs/broadcast.pml: hardware broadcast invalidation (strategy
 * "broadcast": AMD INVLPGB + TLBSYNC, as Linux 6.15 uses them).
 *
 * Models, in the C:
 *   src/core/strategy-broadcast.c:broadcast_flush, broadcast   a range
 *       is cut into chunks of at most broadcast_max_pages pages, one
 *       INVLPGB each; a full flush is one INVLPGB; then one TLBSYNC.
 *       No IPIs, and no separate local flush: INVLPGB reaches the
 *       initiator's own TLB too
 *   src/sim/backend.c:op_broadcast_invalidate, op_broadcast_sync   the
 *       simulator applies an INVLPGB on every vCPU at once and charges
 *       TLBSYNC its cost; the model lets each CPU's invalidation
 *       complete at its own moment, as the hardware may
 * and Linux's arch/x86/mm/tlb.c:broadcast_tlb_flush (a loop of
 * invlpgb_flush_user_nr_nosync, at most invlpgb_count_max pages each,
 * then __tlbsync) and flush_tlb_kernel_range -> invlpgb_kernel_range_flush
 * (with INVLPGB_FLAG_INCLUDE_GLOBAL, for kernel mappings).
 *
 * The hardware (AMD APM vol. 3, INVLPGB and TLBSYNC): INVLPGB starts an
 * invalidation on every processor and does not wait for it (it is weakly
 * ordered, several may be in flight); TLBSYNC waits until every INVLPGB
 * issued by this processor has completed on all of them. pend[v] holds
 * the pages whose invalidation is in flight at CPU v (a bit each); the
 * process tlbhw(v) completes them, in any order, at any moment.
 *
 * Faults:
 *   FAULT_GLOBAL_SURVIVES  the invalidation keeps global entries (the
 *       oracle's fault; here the kernel page's INVLPGB with the global
 *       flag does not drop the global entry)
 *   NO_TLBSYNC        the initiator returns after its INVLPGBs without
 *       the TLBSYNC (not an oracle fault: the simulator's INVLPGB is
 *       synchronous, so it could not show this)
 *   SKIP_LAST_CHUNK   the chunking loop's off-by-one: it stops while
 *       fewer than a chunk's worth of pages remain (`while (left > max)`
 *       for `while (left)`), so the tail of the range is not invalidated
 *
 * Abstraction as in ipi.pml, per page: pt[p] page p's generation,
 * tlb[v].p[p] what CPU v caches, done[p] the newest generation whose
 * flush returned. Pages 0..2 are user pages of one range; page KERN is a
 * global kernel page.
 *
 * Properties: guest code on any CPU never uses a translation older than
 * a returned flush (assert at every use, on every CPU, the initiator
 * after each return included); no deadlock (invalid end states);
 * liveness (ltl live): every invalidation in flight completes, and the
 * initiator finishes, under weak fairness.
 *
 * Bounds: N = 3 CPUs (CPU 0 initiates), 3 user pages with a chunk of
 * MAXP = 2 pages (so a range is two INVLPGBs, the second shorter: the
 * off-by-one has a tail to lose), FLUSHES = 2 flushes in a row, each
 * nondeterministically the user range, a full flush of the user pages
 * (one INVLPGB), or the kernel page (one INVLPGB with the global flag).
 * Each fault needs one flush and one CPU still holding an old entry at
 * the return; the second flush finds in-flight state of the first (in a
 * broken variant) and reuses the pending bits.
 *
 * Variants: FAULT_GLOBAL_SURVIVES NO_TLBSYNC SKIP_LAST_CHUNK
 */
#define N 3
#define FLUSHES 2
#define UPAGES 3      /* user pages in the range */
#define MAXP 2        /* broadcast_max_pages */
#define KERN 3        /* the global kernel page */
#define NP 4

typedef pages { byte p[NP] };
pages tlb[N];
byte pt[NP];
byte done[NP];
byte pend[N];         /* bit p: invalidation of page p in flight at v */
bool finished;

#define USE(v) assert(tlb[v].p[0] >= done[0] && tlb[v].p[1] >= done[1] && \
	tlb[v].p[2] >= done[2] && tlb[v].p[KERN] >= done[KERN])

/* INVLPGB of the pages in mask m: started on every CPU at once, the
 * initiator's included; each completes later, in tlbhw(). */
#define INVLPGB(m) atomic { pend[0] = pend[0] | (m); pend[1] = pend[1] | (m); \
	pend[2] = pend[2] | (m) }

/* The range [s, s + n) as a bit mask. */
#define MASK(s, n) ((((1 << (n)) - 1)) << (s))

active proctype initiator()
{
	byte f, p, left, n, start, kind;

	do
	:: f < FLUSHES ->
		if
		:: kind = 0 /* a range of user pages, chunked */
		:: kind = 1 /* a full flush of the user pages */
		:: kind = 2 /* a kernel range: the global page */
		fi;
		/* The PTE changes, then the flush (flush_tlb_mm_range). */
		atomic {
			if
			:: kind == 2 -> pt[KERN]++
			:: else -> pt[0]++; pt[1]++; pt[2]++
			fi
		};
		if
		:: kind == 0 ->
			left = UPAGES; start = 0;
			do
#ifdef SKIP_LAST_CHUNK
			:: left > MAXP ->
#else
			:: left > 0 ->
#endif
				if
				:: left < MAXP -> n = left
				:: else -> n = MAXP
				fi;
				INVLPGB(MASK(start, n));
				start = start + n;
				left = left - n
			:: else -> break
			od
		:: kind == 1 -> INVLPGB(MASK(0, UPAGES))
		:: kind == 2 -> INVLPGB(1 << KERN)
		fi;
#ifndef NO_TLBSYNC
		/* TLBSYNC: every INVLPGB this CPU issued has completed */
		(pend[0] == 0 && pend[1] == 0 && pend[2] == 0);
#endif
		atomic {
			if
			:: kind == 2 -> done[KERN] = pt[KERN]
			:: else -> p = 0;
				do
				:: p < UPAGES -> done[p] = pt[p]; p++
				:: else -> break
				od
			fi;
			p = 0
		};
		USE(0);
		f++
	:: else -> break
	od;
	finished = true
}

/* Guest code on CPU v (1 and 2): it uses every page, at any moment. */
proctype cpu(byte v)
{
end:	do
	:: USE(v)
	od
}

/* CPU v's TLB completing an invalidation in flight: drop page p's entry
 * (the next access reloads pt[p]); the global kernel entry survives it
 * under the fault. */
proctype tlbhw(byte v)
{
	byte p;
end:	do
	:: pend[v] != 0 ->
		atomic {
			if
			:: pend[v] & 1 -> p = 0
			:: pend[v] & 2 -> p = 1
			:: pend[v] & 4 -> p = 2
			:: pend[v] & 8 -> p = KERN
			fi;
#ifdef FAULT_GLOBAL_SURVIVES
			if
			:: p != KERN -> tlb[v].p[p] = pt[p]
			:: else -> skip
			fi;
#else
			tlb[v].p[p] = pt[p];
#endif
			pend[v] = pend[v] & ~(1 << p);
			p = 0
		}
	od
}

init
{
	atomic {
		run cpu(1); run cpu(2);
		run tlbhw(0); run tlbhw(1); run tlbhw(2)
	}
}

ltl live { ([] ((pend[0] != 0) -> <> (pend[0] == 0))) &&
	([] ((pend[1] != 0) -> <> (pend[1] == 0))) &&
	([] ((pend[2] != 0) -> <> (pend[2] == 0))) && <> finished }
