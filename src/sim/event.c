// SPDX-License-Identifier: MIT
/* The event queue (event.h). */
#include <stdlib.h>

#include "sim/event.h"

void evq_heap_push(struct evq *q, const struct event *e)
{
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
	size_t i = q->n++;

	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!ev_less(e, &q->heap[p]))
			break;
		q->heap[i] = q->heap[p];
		i = p;
	}
	q->heap[i] = *e;
}

/*
 * Floyd's bottom-up deletion: the hole left by the top goes down to a leaf
 * along the smaller children (one compare per level, not two), then the
 * last event climbs from there. The last event usually belongs near the
 * bottom, so it climbs little; the order is the same as a classic pop.
 */
struct event evq_heap_pop(struct evq *q)
{
	struct event top = q->heap[0];
	struct event last = q->heap[--q->n];
	struct event *h = q->heap;
	size_t i = 0, n = q->n;

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

void evq_finish(struct evq *q)
{
	free(q->heap);
	q->heap = NULL;
	q->n = q->cap = 0;
	q->held = false;
}
