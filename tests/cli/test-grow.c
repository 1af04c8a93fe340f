// SPDX-License-Identifier: MIT
/* Unit tests for grow() (tools/hvtlb/common/grow.c), the growing arrays
 * of the tool: room for one more, doubling, and a size that would overflow
 * refused without losing the array. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "grow.h"

/* 100 elements one at a time: each written where grow() made room, the
 * capacity 4, 8, ... 128, and every element still there at the end. */
static void test_grows_by_doubling(void **state)
{
	int *v = NULL;
	size_t cap = 0, reallocs = 0;

	(void)state;
	for (size_t n = 0; n < 100; n++) {
		size_t before = cap;
		int *nv = grow(v, n, &cap, sizeof(*v), 4);

		assert_non_null(nv);
		assert_true(n < cap);
		if (before != cap) {
			assert_int_equal(cap, before ? 2 * before : 4);
			reallocs++;
		}
		v = nv;
		v[n] = (int)n;
	}
	assert_int_equal(cap, 128);
	assert_int_equal(reallocs, 6);
	for (size_t n = 0; n < 100; n++)
		assert_int_equal(v[n], (int)n);
	free(v);
}

/* An array whose doubled size passes SIZE_MAX: NULL, and the array and
 * its capacity as they were (the caller still frees it). */
static void test_overflow_refused(void **state)
{
	char *v = malloc(8);
	size_t cap = SIZE_MAX / 16 + 2;
	void *r;

	(void)state;
	assert_non_null(v);
	/* 2 cap elements of 16 bytes: 2^65 + 32 bytes, 32 once wrapped */
	r = grow(v, cap, &cap, 16, 1);
	if (r) {
		free(r);
		fail_msg("grew to %zu elements of 16 bytes", cap);
	}
	assert_int_equal(cap, SIZE_MAX / 16 + 2);
	/* twice the capacity itself passes SIZE_MAX (8 once wrapped) */
	cap = SIZE_MAX / 2 + 5;
	r = grow(v, cap, &cap, 1, 1);
	if (r) {
		free(r);
		fail_msg("grew to %zu elements of 1 byte", cap);
	}
	assert_int_equal(cap, SIZE_MAX / 2 + 5);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grows_by_doubling),
		cmocka_unit_test(test_overflow_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
