// SPDX-License-Identifier: MIT
/*
 * A will-it-scale tlb_flush2-style loop: each thread touches every page of
 * its mapping (or of the process's shared one, workload.shared) and zaps
 * it with madvise(MADV_DONTNEED), a shootdown under the mmap lock's read
 * side.
 */
#include "sim/machine.h"
#include "sim/mm.h"
#include "sim/workload.h"

void sim_madvise_op(struct task *t, uint32_t *own, uint64_t i)
{
	(void)i;
	sim_user_work(t);
	sim_touch(t, *own, HVTLB_SIM_TOUCH_ALL, 0);
	sim_do_madvise(t, *own);
	sim_maybe_sleep(t);
}

const struct sim_workload sim_workload_MADVISE = {
	.own_slot = true,
	.op = sim_madvise_op,
};
