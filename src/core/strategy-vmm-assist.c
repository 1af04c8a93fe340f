// SPDX-License-Identifier: MIT
/*
 * VMM-assisted flush (Shoot4U, VEE 2016): one call asks the hypervisor to
 * invalidate the targets' TLBs on their pCPUs; preempted targets cost
 * nothing. Without the hint or the op, or when the call fails: IPIs.
 */
#include "core/core-private.h"

static int vmm_assist_flush(struct hvtlb_flusher *f, const struct core_work *w)
{
	struct hvtlb_hints hints;
	struct hvtlb_trace_event e = {
		.kind = HVTLB_TRACE_VMM_FLUSH,
		.targets = &w->remote,
		.range = &w->range,
	};
	int rc;

	core_get_hints(f, &hints);
	if (!f->ops->vmm_flush || !hints.vmm_assist)
		return core_ipi_shootdown(f, w, &w->remote, true);

	if (w->local)
		core_local_flush(f, w);
	rc = f->ops->vmm_flush(f->user, &w->remote, &w->range);
	core_trace(f, &e);
	if (rc < 0)
		return core_fall_back(f, w);
	return 0;
}

const struct core_strategy core_strategy_VMM_ASSIST = {
	.kind = HVTLB_STRATEGY_VMM_ASSIST,
	.flush = vmm_assist_flush,
	.needs = { .vmm_assist = true },
};
