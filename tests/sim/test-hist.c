// SPDX-License-Identifier: MIT
/*
 * The shootdown latency histogram (src/sim/hist.c): every quantile it
 * reports lies within 1 % of the exact nearest-rank quantile of the values
 * recorded (the documented bound is 1/256), for seeded random values of
 * several shapes, and never above the largest value.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/hist.h"

#define NVALUES 20000

static uint64_t xs_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Value @p i of shape @p shape. */
static uint64_t draw(unsigned shape, uint64_t *x)
{
	uint64_t r = xs_next(x);

	switch (shape) {
	case 0: /* log-uniform over 2^0 .. 2^40 */
		return (r >> 24) >> (r % 41);
	case 1: /* a narrow cluster: 1,000,000 .. 1,010,000 cycles */
		return 1000000 + r % 10001;
	case 2: /* bimodal: a few microseconds, or a host slice */
		return r % 8 ? 2000 + r % 3000 : 7200000 + r % 400000;
	default: /* small values, counted exactly */
		return r % 200;
	}
}

static void check_shape(unsigned shape, uint64_t seed)
{
	static const double qs[] = { 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1.0 };
	uint64_t *hist = calloc(HIST_BUCKETS, sizeof(*hist));
	uint64_t *v = malloc(NVALUES * sizeof(*v));
	uint64_t x = seed, max = 0;

	assert_non_null(hist);
	assert_non_null(v);
	for (size_t i = 0; i < NVALUES; i++) {
		v[i] = draw(shape, &x);
		sim_hist_record(hist, v[i]);
		if (v[i] > max)
			max = v[i];
	}
	qsort(v, NVALUES, sizeof(*v), cmp_u64);
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		size_t rank = (size_t)ceil(qs[k] * NVALUES);
		double exact = (double)v[rank - 1];
		double got = (double)sim_hist_quantile(hist, max, qs[k]);

		if (fabs(got - exact) > 0.01 * exact ||
		    fabs(got - exact) > exact / 256 + 0.5)
			fail_msg("shape %u seed %llu q %.3f: %.0f, exact %.0f",
				 shape, (unsigned long long)seed, qs[k], got,
				 exact);
		assert_true(got <= (double)max);
	}
	free(v);
	free(hist);
}

static void test_quantiles(void **state)
{
	(void)state;
	for (unsigned shape = 0; shape < 4; shape++)
		for (uint64_t seed = 1; seed <= 8; seed++)
			check_shape(shape, seed * 0x9e3779b97f4a7c15ULL);
}

static void test_empty_and_extremes(void **state)
{
	uint64_t *hist = calloc(HIST_BUCKETS, sizeof(*hist));

	(void)state;
	assert_non_null(hist);
	assert_int_equal(sim_hist_quantile(hist, 0, 0.5), 0);
	sim_hist_record(hist, UINT64_MAX);
	sim_hist_record(hist, 0);
	assert_int_equal(sim_hist_quantile(hist, UINT64_MAX, 0.5), 0);
	assert_true(sim_hist_quantile(hist, UINT64_MAX, 1.0) >=
		    UINT64_MAX - (UINT64_MAX >> 8));
	free(hist);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_empty_and_extremes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
