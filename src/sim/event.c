// SPDX-License-Identifier: MIT
/* The event queue (event.h). */
#include <stdlib.h>
#include <string.h>

#include "sim/event.h"

static void heap_push(struct event *h, size_t n, const struct event *e)
{
	size_t i = n;

	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!ev_less(e, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = *e;
}

/*
 * Floyd's bottom-up deletion from the heap h[0..n]: the hole left by the
 * top goes down to a leaf along the smaller children (one compare per
 * level, not two), then h[n] climbs from there. The last event usually
 * belongs near the bottom, so it climbs little; the order is the same as
 * a classic pop.
 */
static struct event heap_pop(struct event *h, size_t n)
{
	struct event top = h[0];
	struct event last = h[n];
	size_t i = 0;

	if (!n)
		return top;
	for (;;) {
		size_t l = 2 * i + 1;

		if (l >= n)
			break;
		if (l + 1 < n && ev_less(&h[l + 1], &h[l]))
			l++;
		h[i] = h[l];
		i = l;
	}
	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!ev_less(&last, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = last;
	return top;
}

bool sim_evq_far_reserve(struct evq *q)
{
	if (q->nfar == q->far_cap) {
		size_t n = q->far_cap ? q->far_cap * 2 : 1024;
		struct event *h = realloc(q->far, n * sizeof(*h));

		if (!h) {
			q->failed = true;
			return false;
		}
		q->far = h;
		q->far_cap = n;
	}
	return true;
}

/* Queues @p e in the heap. */
static void far_push(struct evq *q, const struct event *e)
{
	if (sim_evq_far_reserve(q))
		heap_push(q->far, q->nfar++, e);
}

void sim_evq_insert(struct evq *q, const struct event *e)
{
	size_t i;

	if (q->nfar && !ev_less(e, &q->far[0])) {
		far_push(q, e);
		return;
	}
	if (!q->ev) {
		q->ev = malloc((EVQ_NEAR + 1) * sizeof(*q->ev));
		if (!q->ev) {
			q->failed = true;
			return;
		}
	}
	for (i = q->n; i > 0 && ev_less(&q->ev[i - 1], e); i--)
		q->ev[i] = q->ev[i - 1];
	q->ev[i] = *e;
	if (++q->n <= EVQ_NEAR)
		return;
	/* Full: its later half goes to the heap. */
	for (i = 0; i < EVQ_NEAR / 2; i++)
		far_push(q, &q->ev[i]);
	q->n -= EVQ_NEAR / 2;
	memmove(q->ev, &q->ev[EVQ_NEAR / 2], q->n * sizeof(*e));
}

void sim_evq_refill(struct evq *q)
{
	size_t m = q->nfar < EVQ_NEAR / 2 ? q->nfar : EVQ_NEAR / 2;

	for (size_t i = m; i > 0; i--)
		q->ev[i - 1] = heap_pop(q->far, --q->nfar);
	q->n = m;
}

void sim_evq_finish(struct evq *q)
{
	free(q->ev);
	free(q->far);
	q->ev = q->far = NULL;
	q->n = q->nfar = q->far_cap = 0;
	q->held = false;
}
