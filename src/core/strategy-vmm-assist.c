// SPDX-License-Identifier: MIT
/*
 * VMM-assisted flush (Shoot4U, VEE 2016): one call asks the hypervisor to
 * invalidate the targets' TLBs on their pCPUs; preempted targets cost
 * nothing. Without the hint or the op, or when the call fails: IPIs
 * (core_vmm_flush()).
 */
#include "core/core-private.h"

static int vmm_assist_flush(struct hvtlb_flusher *f, const struct core_work *w)
{
	return core_vmm_flush(f, w, &w->range);
}

const struct core_strategy core_strategy_VMM_ASSIST = {
	.kind = HVTLB_STRATEGY_VMM_ASSIST,
	.flush = vmm_assist_flush,
	.needs = { .vmm_assist = true },
};
