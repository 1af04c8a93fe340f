// SPDX-License-Identifier: MIT
/*
 * The event queue (src/sim/event.c): on seeded random sequences of pushes
 * and pops every pop returns the event with the least (time, sequence)
 * key, as a linear scan of everything queued finds it, and
 * evq_next_time() and evq_pending() agree. The sequences grow the queue
 * well past EVQ_NEAR and drain it again several times (the near array
 * spills into the heap and is refilled from it), mix events due at once
 * with far ones, push many at the same time (the sequence decides), and
 * push under keys taken earlier (evq_push_seq()), as the engine does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/event.h"

#define MAXQ 2048

static uint64_t xs_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* The reference: every queued event, unsorted. */
struct ref {
	struct event ev[MAXQ];
	size_t n;
};

static size_t ref_earliest(const struct ref *r)
{
	size_t m = 0;

	for (size_t i = 1; i < r->n; i++)
		if (ev_less(&r->ev[i], &r->ev[m]))
			m = i;
	return m;
}

/* A time from @p now: at once, soon, or far (a slice, a tick). */
static simtime draw_time(simtime now, uint64_t *x)
{
	uint64_t r = xs_next(x);

	switch (r % 4) {
	case 0:
		return now;
	case 1:
		return now + (r >> 8) % 8;
	case 2:
		return now + (r >> 8) % 5000;
	default:
		return now + (r >> 8) % 2000000;
	}
}

static void run_sequence(uint64_t seed)
{
	struct evq q = { 0 };
	struct ref *r = calloc(1, sizeof(*r));
	uint64_t x = seed, taken[8];
	size_t ntaken = 0, pops = 0, spilled = 0;
	simtime now = 0;

	assert_non_null(r);
	/* target sizes: up and down across EVQ_NEAR, to empty */
	static const size_t target[] = { 40,  300, 10, 1500, 0,
					 129, 127, 64, 700,  0 };

	for (size_t phase = 0; phase < sizeof(target) / sizeof(*target);
	     phase++) {
		for (int step = 0; step < 6000; step++) {
			bool grow = r->n < target[phase];
			uint64_t c = xs_next(&x) % 10;

			if (r->n && (c < 2 || (!grow && c < 7))) {
				size_t m = ref_earliest(r);
				struct event want = r->ev[m], got;

				assert_true(evq_pending(&q));
				assert_int_equal(evq_next_time(&q), want.t);
				got = evq_pop(&q);
				assert_int_equal(got.t, want.t);
				assert_int_equal(got.seq, want.seq);
				assert_int_equal(got.obj, want.obj);
				r->ev[m] = r->ev[--r->n];
				now = got.t;
				pops++;
				continue;
			}
			if (r->n >= MAXQ - 1 || (!grow && r->n))
				continue;
			simtime t = draw_time(now, &x);
			uint32_t obj = (uint32_t)(xs_next(&x) >> 40);
			uint64_t seq;

			if (ntaken && c == 9) {
				/* a key taken earlier */
				seq = taken[--ntaken];
			} else if (ntaken < 8 && c == 8) {
				taken[ntaken++] = q.seq++;
				continue;
			} else {
				seq = q.seq++;
			}
			evq_push_seq(&q, now, t, seq, EV_RUN, obj, 0);
			r->ev[r->n++] =
				(struct event){ t, seq, EV_RUN, obj, 0 };
			if (q.nfar)
				spilled++;
		}
		if (!target[phase]) {
			while (r->n) {
				size_t m = ref_earliest(r);
				struct event got = evq_pop(&q);

				assert_int_equal(got.t, r->ev[m].t);
				assert_int_equal(got.seq, r->ev[m].seq);
				r->ev[m] = r->ev[--r->n];
				now = got.t;
			}
			assert_false(evq_pending(&q));
			assert_int_equal(evq_next_time(&q), SIM_NEVER);
		}
	}
	assert_false(q.failed);
	assert_true(pops > 10000);
	assert_true(spilled > 1000); /* the heap was used */
	sim_evq_finish(&q);
	free(r);
}

static void test_order(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 20; seed++)
		run_sequence(seed * 0x9e3779b97f4a7c15ULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
