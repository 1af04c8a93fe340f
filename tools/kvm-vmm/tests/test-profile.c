// SPDX-License-Identifier: MIT
/* The calibrated profile: measured lines replace the base profile's. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "profile.h"

static const char base_text[] =
	"# a base profile\n"
	"cpu_mhz = 2400 ; source: assumption\n"
	"vmexit = 1540 ; source: kvm-unit-tests\n"
	"\n"
	"  kick   = default\n"
	"hypercall = 1540 ; range 1300..2500 ; source: as vmexit\n"
	"touch = 4 ; source: manual";

/* Runs the writer on @p base; returns its result, output in @p out. */
static int write_to(const char *base, const struct kvmvmm_profile_line *l,
		    size_t n, char *out, size_t size)
{
	FILE *b = base ? fmemopen((void *)base, strlen(base), "r") : NULL;
	FILE *o = fmemopen(out, size, "w");
	int ret;

	assert_non_null(o);
	ret = kvmvmm_profile_write(o, b, "# header\n", l, n);
	fclose(o);
	if (b)
		fclose(b);
	return ret;
}

static void test_replace_copy_append(void **state)
{
	static char out[4096];
	const struct kvmvmm_profile_line l[] = {
		{ "vmexit", 52000, 51000, 54000, "measured on h (c, k, d)" },
		{ "kick", 70000, 60000, 90000, "derived" },
		{ "halt_poll_us", 200, 200, 200, "read on h" },
	};

	(void)state;
	assert_int_equal(write_to(base_text, l, 3, out, sizeof(out)), 0);
	assert_string_equal(
		out,
		"# header\n"
		"# a base profile\n"
		"cpu_mhz = 2400 ; source: assumption\n"
		"vmexit = 52000 ; range 51000..54000 ; source: measured on "
		"h (c, k, d)\n"
		"\n"
		"kick = 70000 ; range 60000..90000 ; source: derived\n"
		"hypercall = 1540 ; range 1300..2500 ; source: as vmexit\n"
		"touch = 4 ; source: manual\n"
		"halt_poll_us = 200 ; source: read on h\n");
}

static void test_no_base(void **state)
{
	static char out[512];
	const struct kvmvmm_profile_line l[] = {
		{ "vmexit", 5, 4, 6, "m" },
	};

	(void)state;
	assert_int_equal(write_to(NULL, l, 1, out, sizeof(out)), 0);
	assert_string_equal(out, "# header\nvmexit = 5 ; range 4..6 ; "
				 "source: m\n");
}

static void expect_refused(const struct kvmvmm_profile_line *l, size_t n)
{
	static char out[512];

	memset(out, 0, sizeof(out));
	assert_int_equal(write_to(base_text, l, n, out, sizeof(out)), -EINVAL);
	assert_string_equal(out, "");
}

static void test_refuses_bad_lines(void **state)
{
	const struct kvmvmm_profile_line outside[] = { { "a", 9, 1, 5, "s" } };
	const struct kvmvmm_profile_line reversed[] = { { "a", 3, 5, 1, "s" } };
	const struct kvmvmm_profile_line exact_off[] = { { "a", 3, 5, 5,
							   "s" } };
	const struct kvmvmm_profile_line newline[] = { { "a", 3, 1, 5,
							 "s\nb = 1" } };
	const struct kvmvmm_profile_line bad_key[] = { { "a b", 3, 1, 5,
							 "s" } };
	const struct kvmvmm_profile_line no_source[] = { { "a", 3, 1, 5, "" } };
	const struct kvmvmm_profile_line twice[] = { { "a", 3, 1, 5, "s" },
						     { "a", 3, 1, 5, "s" } };

	(void)state;
	expect_refused(outside, 1);
	expect_refused(reversed, 1);
	expect_refused(exact_off, 1);
	expect_refused(newline, 1);
	expect_refused(bad_key, 1);
	expect_refused(no_source, 1);
	expect_refused(twice, 2);
}

static void test_long_base_line(void **state)
{
	static char base[8192], out[16384];
	const struct kvmvmm_profile_line l[] = { { "a", 3, 1, 5, "s" } };

	(void)state;
	memset(base, 'x', sizeof(base) - 2);
	base[sizeof(base) - 2] = '\n';
	assert_int_equal(write_to(base, l, 1, out, sizeof(out)), -E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replace_copy_append),
		cmocka_unit_test(test_no_base),
		cmocka_unit_test(test_refuses_bad_lines),
		cmocka_unit_test(test_long_base_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
