// SPDX-License-Identifier: MIT
/* Nearest-rank percentiles of TSC samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "stats.h"

static void test_empty(void **state)
{
	struct kvmvmm_dist d;

	(void)state;
	kvmvmm_dist_compute(NULL, 0, &d);
	assert_int_equal(d.n, 0);
	assert_int_equal(d.p50, 0);
	assert_int_equal(kvmvmm_percentile(NULL, 0, 50), 0);
}

static void test_one(void **state)
{
	uint64_t s[] = { 42 };
	struct kvmvmm_dist d;

	(void)state;
	kvmvmm_dist_compute(s, 1, &d);
	assert_int_equal(d.min, 42);
	assert_int_equal(d.p10, 42);
	assert_int_equal(d.p99, 42);
	assert_int_equal(d.max, 42);
}

static void test_ten_unsorted(void **state)
{
	uint64_t s[] = { 7, 3, 10, 1, 9, 2, 8, 4, 6, 5 };
	struct kvmvmm_dist d;

	(void)state;
	kvmvmm_dist_compute(s, 10, &d);
	assert_int_equal(d.n, 10);
	assert_int_equal(d.min, 1);
	assert_int_equal(d.p10, 1);
	assert_int_equal(d.p50, 5);
	assert_int_equal(d.p90, 9);
	assert_int_equal(d.p99, 10);
	assert_int_equal(d.max, 10);
	assert_int_equal(s[0], 1); /* sorted in place */
}

static void test_thousand(void **state)
{
	static uint64_t s[1000];
	struct kvmvmm_dist d;
	size_t i;

	(void)state;
	for (i = 0; i < 1000; i++)
		s[i] = 1000 - i;
	kvmvmm_dist_compute(s, 1000, &d);
	assert_int_equal(d.p10, 100);
	assert_int_equal(d.p50, 500);
	assert_int_equal(d.p90, 900);
	assert_int_equal(d.p99, 990);
	assert_int_equal(kvmvmm_percentile(s, 1000, 100), 1000);
	assert_int_equal(kvmvmm_percentile(s, 1000, 250), 1000);
	assert_int_equal(kvmvmm_percentile(s, 1000, 0), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_one),
		cmocka_unit_test(test_ten_unsorted),
		cmocka_unit_test(test_thousand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
