// SPDX-License-Identifier: MIT
/*
 * Hardware broadcast invalidation (AMD INVLPGB + TLBSYNC, Linux 6.15): no
 * IPIs. Each INVLPGB invalidates at most broadcast_max_pages pages on every
 * CPU, the initiator included, asynchronously; one TLBSYNC then waits for
 * all of them. A full flush (asked for or over the ceiling) is one
 * INVLPGB. Without the hint or the ops: IPIs.
 */
#include "core/core-private.h"

static void broadcast(struct hvtlb_flusher *f,
		      const struct hvtlb_flush_range *r)
{
	struct hvtlb_trace_event e = {
		.kind = HVTLB_TRACE_BROADCAST,
		.range = r,
	};

	f->ops->broadcast_invalidate(f->user, r);
	core_trace(f, &e);
}

static int broadcast_flush(struct hvtlb_flusher *f, const struct core_work *w)
{
	struct hvtlb_hints hints;
	struct hvtlb_trace_event e = { .kind = HVTLB_TRACE_BROADCAST_SYNC };
	struct hvtlb_flush_range chunk = w->range;
	uint64_t left = w->pages;
	unsigned shift = w->range.stride_shift;

	core_get_hints(f, &hints);
	if (!f->ops->broadcast_invalidate || !hints.broadcast)
		return core_ipi_shootdown(f, w, &w->remote, true);

	if (w->range.all) {
		broadcast(f, &w->range);
	} else {
		while (left) {
			uint64_t n = left < f->cfg.broadcast_max_pages
					     ? left
					     : f->cfg.broadcast_max_pages;

			chunk.end = chunk.start + (n << shift);
			broadcast(f, &chunk);
			chunk.start = chunk.end;
			left -= n;
		}
	}
	f->ops->broadcast_sync(f->user);
	core_trace(f, &e);
	return 0;
}

const struct core_strategy core_strategy_BROADCAST = {
	.kind = HVTLB_STRATEGY_BROADCAST,
	.flush = broadcast_flush,
	.needs = { .broadcast = true },
};
