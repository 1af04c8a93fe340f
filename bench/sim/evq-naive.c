// SPDX-License-Identifier: MIT
/*
 * The naive event queue of bench-sim's baseline: the engine compiled with
 * HVTLB_SIM_EVQ_NAIVE keeps every event unsorted in struct evq's far
 * array (nfar of them; no held event, no near array), appends each push
 * and finds the earliest (time, sequence) key by a linear scan. Keys are
 * unique, so events pop in exactly the order of src/sim/event.c.
 */
#include "sim/event.h"

static size_t earliest(const struct evq *q)
{
	size_t m = 0;

	for (size_t i = 1; i < q->nfar; i++)
		if (ev_less(&q->far[i], &q->far[m]))
			m = i;
	return m;
}

void evq_push_seq(struct evq *q, simtime now, simtime t, uint64_t seq,
		  enum ev_kind k, uint32_t obj, uint64_t arg)
{
	struct event e = { t < now ? now : t, seq, k, obj, arg };

	if (sim_evq_far_reserve(q))
		q->far[q->nfar++] = e;
}

bool evq_pending(const struct evq *q)
{
	return q->nfar != 0;
}

simtime evq_next_time(const struct evq *q)
{
	return q->nfar ? q->far[earliest(q)].t : SIM_NEVER;
}

struct event evq_pop(struct evq *q)
{
	size_t m = earliest(q);
	struct event e = q->far[m];

	q->far[m] = q->far[--q->nfar];
	return e;
}
