// SPDX-License-Identifier: MIT
/*
 * ebizzy, as the program does it (ebizzy 0.3, Linux Test Project
 * utils/benchmark/ebizzy-0.3/ebizzy.c). Before the threads start, the main
 * thread allocates workload.ebizzy_chunks (-n) chunks of workload.pages
 * pages (-s) and writes them: they stay mapped and present (the reserved
 * slots). Each operation of a thread (search_mem()):
 *
 *   - picks a chunk and a key with rand_num(), which starts from state 0
 *     and multiplies, so it returns 0 forever: every operation copies
 *     chunk 0 and looks up key 0;
 *   - allocates a copy (alloc_mem): mmap with -m
 *     (workload.ebizzy_always_mmap), otherwise malloc();
 *   - memcpy()s the chunk into it, in user space, without any lock of the
 *     program: a read of each source page and a write of each copy page
 *     (a fault, under the mmap lock's read side, where the page is not
 *     mapped), cost.copy_page per 4 KiB;
 *   - bsearch()es the key in the copy (log2(records) + 1 probes);
 *   - frees the copy: munmap with -m, otherwise free().
 *
 * glibc's malloc (malloc/malloc.c, malloc/arena.c) decides what malloc
 * and free do. Each thread gets an arena of its own (arena_get2: up to 8
 * per core on 64-bit), whose heap is the thread's own slot; the copy
 * occupies pages 0..pages of it (page 0 also holds the arena's header).
 *   - A request of mp_.mmap_threshold or more is mmapped (sysmalloc). The
 *     threshold starts at 128 KiB (DEFAULT_MMAP_THRESHOLD_MIN); the first
 *     free() of a mapped chunk of at most 32 MiB (DEFAULT_MMAP_THRESHOLD_MAX)
 *     raises it to that chunk's size and the trim threshold to twice that
 *     (the dynamic threshold in free(), munmap_chunk), for the whole
 *     process. So by default the first copies of a process are mapped and
 *     unmapped; after that the copies come from the heaps.
 *   - -M (workload.ebizzy_never_mmap) calls mallopt(M_MMAP_MAX, 0): no
 *     chunk is ever mapped, and the thresholds stay fixed
 *     (no_dyn_threshold).
 *   - free() merges the copy into the heap's top; a freed chunk of 64 KiB
 *     or more (ATTEMPT_TRIMMING_THRESHOLD) tries heap_trim(), which, when
 *     the top is at least M_TRIM_THRESHOLD (128 KiB, or twice the raised
 *     mmap threshold) and more than M_TOP_PAD (0) plus a page, gives back
 *     everything above the first page with madvise(MADV_DONTNEED)
 *     (shrink_heap). With -M and a chunk of 128 KiB or more that is every
 *     operation: the copy faults its pages in again each time. After the
 *     dynamic raise it never happens: the copy reuses mapped pages and the
 *     operation makes no system call at all.
 *   - glibc before 2.22 (workload.glibc_trim_all) applied the trim
 *     threshold only to the main arena: a thread's heap was trimmed
 *     whenever a page was free at its top (commit c26efef979, BZ #17195).
 */
#include "sim/guest.h"
#include "sim/machine.h"
#include "sim/mm.h"
#include "sim/workload.h"

/* mm->wl_flags: the process's mmap threshold was raised (dynamic). */
#define EB_RAISED 1u
/* sizeof(record_t) (size_t) */
#define RECORD_BYTES 8u
/* glibc's defaults (malloc/malloc.c, 64-bit) */
#define MMAP_THRESHOLD_MIN (128u * 1024u)
#define MMAP_THRESHOLD_MAX (32ull << 20)
#define TRIM_THRESHOLD (128u * 1024u)
#define ATTEMPT_TRIMMING (64u * 1024u)
/* the malloc chunk header a request grows by (2 x SIZE_SZ) */
#define CHUNK_OVERHEAD 16u

static uint32_t ebizzy_reserved(const struct hvtlb_sim_config *c)
{
	return c->wl_ebizzy_chunks;
}

static uint64_t chunk_bytes(const struct sim *s, const struct mm *m)
{
	return (uint64_t)s->c->wl_pages << m->shift;
}

/* malloc() of the copy maps it (sysmalloc's mmap path). */
static bool copy_mapped(const struct sim *s, const struct mm *m)
{
	const struct hvtlb_sim_config *c = s->c;

	if (c->wl_ebizzy_always_mmap)
		return true;
	if (c->wl_ebizzy_never_mmap || (m->wl_flags & EB_RAISED))
		return false;
	return chunk_bytes(s, m) + CHUNK_OVERHEAD >= MMAP_THRESHOLD_MIN;
}

/* free() of the copy from the heap trims the heap (heap_trim). */
static bool heap_trims(const struct sim *s, const struct mm *m)
{
	uint64_t b = chunk_bytes(s, m);

	if (b < ATTEMPT_TRIMMING)
		return false;
	if (s->c->wl_glibc_trim_all)
		return true;
	/* raised: the trim threshold is twice the mapped chunk, above the
	 * top this free leaves */
	return !(m->wl_flags & EB_RAISED) && b >= TRIM_THRESHOLD;
}

/* memcpy(copy, src, chunk): each source page read, each copy page
 * written (pages 0..pages of the copy: it starts past a header). */
static void copy_chunk(struct task *t, uint32_t src, uint32_t dst)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	uint32_t n = s->c->wl_pages;
	simtime user = 0, sys = 0;

	for (uint32_t p = 0; p <= n; p++) {
		if (p < n)
			sim_t_touch(t,
				    slot_va(m, src) + ((uint64_t)p << m->shift),
				    &user, &sys);
		sim_t_touch(t, slot_va(m, dst) + ((uint64_t)p << m->shift),
			    &user, &sys);
	}
	user += (simtime)(s->cost[SIM_COST_copy_page] *
			  (double)(chunk_bytes(s, m) >> 12));
	sim_t_work(t, sys, ACCT_SYS);
	sim_t_work(t, user, ACCT_USER);
}

/* bsearch() of key 0 among the copy's records (record j holds j): the
 * probes halve down to record 0. */
static void search_copy(struct task *t, uint32_t dst)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	uint64_t lo = 0, hi = chunk_bytes(s, m) / RECORD_BYTES;
	simtime user = 0, sys = 0;

	while (lo < hi) {
		uint64_t mid = (lo + hi) / 2;
		uint64_t off = CHUNK_OVERHEAD + mid * RECORD_BYTES;

		sim_t_touch(t,
			    slot_va(m, dst) + (off & ~((1ULL << m->shift) - 1)),
			    &user, &sys);
		if (mid == 0)
			break;
		hi = mid;
	}
	sim_t_work(t, sys, ACCT_SYS);
	sim_t_work(t, user, ACCT_USER);
}

static void ebizzy_op(struct task *t, uint32_t *heap, uint64_t i)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	/* rand_num() is 0: chunk 0, the first reserved slot */
	uint32_t src = m->rbase;
	uint32_t dst = *heap;
	bool mapped = copy_mapped(s, m);

	(void)i;
	sim_user_work(t);
	if (mapped)
		sim_do_mmap(t, &dst);
	copy_chunk(t, src, dst);
	search_copy(t, dst);
	if (mapped) {
		sim_do_munmap(t, dst);
		/* free() of a mapped chunk raises the dynamic threshold */
		if (!s->c->wl_ebizzy_always_mmap &&
		    chunk_bytes(s, m) + CHUNK_OVERHEAD <= MMAP_THRESHOLD_MAX)
			m->wl_flags |= EB_RAISED;
	} else if (heap_trims(s, m)) {
		sim_do_madvise_range(t, *heap, 1, s->c->wl_pages);
	}
	sim_maybe_sleep(t);
}

const struct sim_workload sim_workload_EBIZZY = {
	.own_slot = true,
	.never_shared = true,
	.extra_pages = 1,
	.reserved_slots = ebizzy_reserved,
	.op = ebizzy_op,
};
