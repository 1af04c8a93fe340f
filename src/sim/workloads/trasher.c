// SPDX-License-Identifier: MIT
/*
 * The seeds' TLB trasher (Kuznetsov's pthread_mmap): each operation maps
 * a file (or anonymous memory), touches it, unmaps it (a shootdown of its
 * pages) and optionally sleeps a random time.
 */
#include "sim/machine.h"
#include "sim/mm.h"
#include "sim/workload.h"

void sim_trasher_op(struct task *t, uint32_t *own, uint64_t i)
{
	struct sim *s = t->s;
	uint32_t slot;

	(void)own;
	(void)i;
	sim_user_work(t);
	sim_do_mmap(t, &slot);
	sim_touch(t, slot, s->c->wl_touch, s->c->wl_search_pages);
	sim_do_munmap(t, slot);
	sim_maybe_sleep(t);
}

const struct sim_workload sim_workload_TRASHER = {
	.op = sim_trasher_op,
};
