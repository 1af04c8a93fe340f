// SPDX-License-Identifier: MIT
/*
 * An ebizzy-style allocator and searcher: each operation allocates a
 * record chunk (mmap) and fills it, searches random pages of every
 * thread's live chunks (the records are shared), and frees the chunk
 * (munmap).
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
		t_touch(t, slot_va(m, slot) + (p << m->shift), &user, &sys);
	}
	t_work(t, sys, ACCT_SYS);
	t_work(t, user, ACCT_USER);
}

void ebizzy_op(struct task *t, uint32_t own)
{
	struct sim *s = t->s;
	uint32_t slot;

	(void)own;
	/* Allocate a record chunk and fill it, search records of every
	 * thread (ebizzy's records are shared), free the chunk. */
	user_work(t);
	do_mmap(t, &slot);
	touch(t, slot, HVTLB_SIM_TOUCH_ALL, 0);
	search(t, slot, s->c->wl_search_pages);
	do_munmap(t, slot);
	maybe_sleep(t);
}

const struct sim_workload sim_workload_ebizzy = {
	.op = ebizzy_op,
};
