// SPDX-License-Identifier: MIT
/* A random mix: each operation is a trasher, madvise or mmap-search one
 * (the workload that was called ebizzy before the program was modelled). */
#include "sim/machine.h"
#include "sim/workload.h"

static void mix_op(struct task *t, uint32_t *own, uint64_t i)
{
	switch (sim_rng_below(&t->rng, 3)) {
	case 0:
		sim_trasher_op(t, own, i);
		break;
	case 1:
		sim_madvise_op(t, own, i);
		break;
	default:
		sim_mmap_search_op(t, own, i);
		break;
	}
}

const struct sim_workload sim_workload_MIX = {
	.own_slot = true,
	.op = mix_op,
};
