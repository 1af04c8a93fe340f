// SPDX-License-Identifier: MIT
/*
 * Native IPI shootdown: flush locally and interrupt every remote target,
 * serially (local flush, IPIs, wait) or concurrently (IPIs, local flush,
 * wait). Preempted targets get their IPI too: the initiator then waits for
 * the host to run them again, which is what the other strategies avoid.
 */
#include "core/core-private.h"

static int ipi_flush(struct hvtlb_flusher *f, const struct core_work *w)
{
	return core_ipi_shootdown(f, w, &w->remote, true);
}

const struct core_strategy core_strategy_IPI = {
	.kind = HVTLB_STRATEGY_IPI,
	.flush = ipi_flush,
};
