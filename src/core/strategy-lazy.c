// SPDX-License-Identifier: MIT
/*
 * Lazy coherence (LATR, ASPLOS 2018): post the invalidation for the
 * remote targets, flush locally and return without waiting. The remote
 * CPUs apply it at their next tick or context switch; the memory may be
 * reused once every target has passed the returned epoch.
 *
 * Rule: freed page tables are never lazy. A remote CPU that has not yet
 * applied the invalidation can still walk (and cache) the freed table
 * pages, which the kernel reuses at once: only a synchronous shootdown
 * makes freeing them safe, so such requests take the IPI path.
 */
#include "core/core-private.h"

static int lazy_flush(struct hvtlb_flusher *f, const struct core_work *w)
{
	struct hvtlb_trace_event e = {
		.kind = HVTLB_TRACE_LAZY_POST,
		.targets = &w->remote,
		.range = &w->range,
	};

	if (!f->ops->lazy_post || w->req->freed_tables)
		return core_ipi_shootdown(f, w, &w->remote, true);

	f->out->reuse_epoch = f->ops->lazy_post(f->user, &w->remote, &w->range);
	core_trace(f, &e);
	if (w->local)
		core_local_flush(f, w);
	return 0;
}

const struct core_strategy core_strategy_LAZY = {
	.kind = HVTLB_STRATEGY_LAZY,
	.flush = lazy_flush,
};
