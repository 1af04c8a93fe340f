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

struct event evq_heap_pop(struct evq *q)
{
	struct event top = q->heap[0];
	struct event last = q->heap[--q->n];
	size_t i = 0, n = q->n;

	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l >= n)
			break;
		m = l;
		if (l + 1 < n && ev_less(&q->heap[l + 1], &q->heap[l]))
			m = l + 1;
		if (!ev_less(&q->heap[m], &last))
			break;
		q->heap[i] = q->heap[m];
		i = m;
	}
	if (n)
		q->heap[i] = last;
	return top;
}

void evq_finish(struct evq *q)
{
	free(q->heap);
	q->heap = NULL;
	q->n = q->cap = 0;
	q->held = false;
}
