// SPDX-License-Identifier: MIT
/* A random mix: each operation is a trasher, madvise or ebizzy one. */
#include "sim/machine.h"
#include "sim/workload.h"

static void mix_op(struct task *t, uint32_t own)
{
	switch (sim_rng_below(&t->rng, 3)) {
	case 0:
		sim_workload_trasher.op(t, own);
		break;
	case 1:
		madvise_op(t, own);
		break;
	default:
		ebizzy_op(t, own);
		break;
	}
}

const struct sim_workload sim_workload_mix = {
	.own_slot = true,
	.op = mix_op,
};
