// SPDX-License-Identifier: MIT
/*
 * Growing a process's slot pool (lazy strategy only). An munmap under
 * lazy coherence keeps its range out of reuse until every CPU has applied
 * the posted invalidation (the quarantine, guest-mm.c). Nothing in LATR
 * makes mmap wait for that: in its prototype (Kumar et al., ASPLOS 2018;
 * Linux 4.10 at github.com/sslab-gatech/latr, CONFIG_LAZY_MEM_FREE)
 * munmap clears the PTEs and parks the unmapped areas and their pages on
 * per-process lazy lists that a kernel thread frees later, and mmap just
 * takes another free range of the address space. So a process whose
 * mmap finds every freed slot still waiting gets a new slot, appended
 * after the existing ones (and after the workload's reserved slots, which
 * keep their indexes), with everything indexed by slot grown to match.
 * (The prototype holds back the pages, not the range, which it detaches
 * at once; keeping the range out of reuse too is the stricter rule: no
 * stale translation of the old mapping can serve a new one.)
 *
 * Bounded by what a process may map: Linux refuses an mmap beyond
 * vm.max_map_count mappings (DEFAULT_MAX_MAP_COUNT, USHRT_MAX - 5, in
 * include/linux/mm.h) and beyond the user address space (x86-64 with
 * 4-level paging: TASK_SIZE_MAX, 2^47 minus a guard page).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/contention.h"
#include "sim/machine.h"
#include "sim/mm.h"
#include "sim/workload.h"

/* Reallocates *@p p from @p old_n to @p new_n elements of @p size bytes,
 * zeroing the new ones; on failure *@p p is left as it was. */
static int grow_array(void **p, size_t old_n, size_t new_n, size_t size)
{
	char *q = realloc(*p, new_n * size);

	if (!q)
		return -ENOMEM;
	memset(q + old_n * size, 0, (new_n - old_n) * size);
	*p = q;
	return 0;
}

uint32_t sim_mm_max_slots(const struct mm *m)
{
	uint64_t bytes = (uint64_t)m->pages << m->shift;
	uint64_t by_va = bytes ? (MM_TASK_SIZE_MAX - GVA_BASE) / bytes : 0;

	return by_va < MM_MAX_MAP_COUNT ? (uint32_t)by_va : MM_MAX_MAP_COUNT;
}

/* The quarantine is a ring of nslots entries from qhead: its entries are
 * copied in order to the front of a ring of @p nslots. */
static int grow_ring(struct mm *m, uint32_t nslots)
{
	struct qslot *q = calloc(nslots, sizeof(*q));

	if (!q)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->qn; i++)
		q[i] = m->quar[(m->qhead + i) % m->nslots];
	free(m->quar);
	m->quar = q;
	m->qhead = 0;
	return 0;
}

int sim_mm_grow_slots(struct sim *s, uint32_t mmi)
{
	struct mm *m = &s->mm[mmi];
	uint32_t old = m->nslots, max = sim_mm_max_slots(m), add, n;
	size_t pages = m->pages;

	if (old >= max)
		return -ENOSPC;
	/* double the slots that come and go (not the reserved ones) */
	add = old - sim_workload_reserved_slots(s->c);
	add = add > 1 ? add : 1;
	n = max - old < add ? max : old + add;
	if (grow_array((void **)&m->pte, old * pages, n * pages,
		       sizeof(*m->pte)) ||
	    grow_array((void **)&m->plist, old * pages, n * pages,
		       sizeof(*m->plist)) ||
	    grow_array((void **)&m->pn, old, n, sizeof(*m->pn)) ||
	    grow_array((void **)&m->free_stack, old, n,
		       sizeof(*m->free_stack)) ||
	    grow_array((void **)&m->live, old, n, sizeof(*m->live)) ||
	    grow_array((void **)&m->fillers, old, n, sizeof(*m->fillers)) ||
	    sim_ct_mm_grow(s, mmi, n) || grow_ring(m, n))
		return -ENOMEM;
	for (uint32_t k = n; k-- > old;)
		m->free_stack[m->nfree++] = k; /* lowest on top */
	m->nslots = n;
	return 0;
}
