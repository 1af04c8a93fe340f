// SPDX-License-Identifier: MIT
/*
 * The naive event queue of bench-sim's baseline: the engine compiled with
 * HVTLB_SIM_EVQ_NAIVE keeps its events in an unsorted array (struct evq's
 * heap[0..n), no held event), appends each push and finds the earliest
 * (time, sequence) key by a linear scan. Keys are unique, so events pop
 * in exactly the order of the heap in src/sim/event.c.
 */
#include <stdlib.h>

#include "sim/event.h"

static size_t earliest(const struct evq *q)
{
	size_t m = 0;

	for (size_t i = 1; i < q->n; i++)
		if (ev_less(&q->heap[i], &q->heap[m]))
			m = i;
	return m;
}

void evq_push_seq(struct evq *q, simtime now, simtime t, uint64_t seq,
		  enum ev_kind k, uint32_t obj, uint64_t arg)
{
	struct event e = { t < now ? now : t, seq, k, obj, arg };

	if (q->n == q->cap) {
		size_t n = q->cap ? q->cap * 2 : 1024;
		struct event *h = realloc(q->heap, n * sizeof(*h));

		if (!h) {
			q->failed = true;
			return;
		}
		q->heap = h;
		q->cap = n;
	}
	q->heap[q->n++] = e;
}

bool evq_pending(const struct evq *q)
{
	return q->n != 0;
}

simtime evq_next_time(const struct evq *q)
{
	return q->n ? q->heap[earliest(q)].t : SIM_NEVER;
}

struct event evq_pop(struct evq *q)
{
	size_t m = earliest(q);
	struct event e = q->heap[m];

	q->heap[m] = q->heap[--q->n];
	return e;
}
