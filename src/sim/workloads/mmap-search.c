// SPDX-License-Identifier: MIT
/*
 * mmap-search: an allocator and searcher loosely after ebizzy (the
 * simulator's "ebizzy" before workloads/ebizzy.c modelled the program):
 * each operation maps a record chunk (mmap, the lock's write side) and
 * fills it, searches random pages of every thread's live chunks (faults
 * under the read side), and unmaps the chunk (munmap, write side).
 */
#include "sim/guest.h"
#include "sim/machine.h"
#include "sim/mm.h"
#include "sim/workload.h"

/* Reads @p n random pages of random live chunks (own chunk if none). */
static void search(struct task *t, uint32_t own, uint32_t n)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	simtime user = 0, sys = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t slot = (uint32_t)sim_rng_below(&t->rng, m->nslots);
		uint64_t p = sim_rng_below(&t->rng, m->pages);

		if (!m->live[slot])
			slot = own;
		sim_t_touch(t, slot_va(m, slot) + (p << m->shift), &user, &sys);
	}
	sim_t_work(t, sys, ACCT_SYS);
	sim_t_work(t, user, ACCT_USER);
}

void sim_mmap_search_op(struct task *t, uint32_t *own, uint64_t i)
{
	struct sim *s = t->s;
	uint32_t slot;

	(void)own;
	(void)i;
	/* Allocate a record chunk and fill it, search records of every
	 * thread (ebizzy's records are shared), free the chunk. */
	sim_user_work(t);
	sim_do_mmap(t, &slot);
	sim_touch(t, slot, HVTLB_SIM_TOUCH_ALL, 0);
	search(t, slot, s->c->wl_search_pages);
	sim_do_munmap(t, slot);
	sim_maybe_sleep(t);
}

const struct sim_workload sim_workload_MMAP_SEARCH = {
	.op = sim_mmap_search_op,
};
