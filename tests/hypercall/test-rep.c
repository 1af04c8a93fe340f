// SPDX-License-Identifier: MIT
/*
 * The rep loop (docs/wire-format.md, "The result word" and
 * "Rep calls"): partial completion resumes from the absolute
 * reps completed, a failure stops, a host that makes no progress or goes
 * backwards gets -EPROTO after a bounded number of calls. The host is a
 * cmocka mock: every call is checked (control word, input, length).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hc-test.h"

static const uint8_t input[32] = { 1, 2, 3 };
static unsigned calls;

static uint64_t mock_host(void *data, uint64_t control, const void *in,
			  size_t len)
{
	calls++;
	assert_ptr_equal(data, &calls);
	check_expected(control);
	assert_ptr_equal(in, input);
	assert_int_equal(len, sizeof(input));
	return mock_type(uint64_t);
}

/* Expect one call with @p control and answer @p result. */
static void host_step(uint64_t control, uint64_t result)
{
	expect_value(mock_host, control, control);
	will_return(mock_host, result);
}

static int run(uint64_t control, uint64_t *result)
{
	calls = 0;
	*result = 0xdeadbeef;
	return hvtlb_rep_call(control, input, sizeof(input), mock_host, &calls,
			      result);
}

#define OK(reps) hvtlb_result_pack(HVTLB_STATUS_SUCCESS, reps)

static void test_simple_call_once(void **state)
{
	uint64_t r;

	host_step(0x2, OK(0));
	assert_int_equal(run(0x2, &r), 0);
	assert_int_equal(r, OK(0));
	assert_int_equal(calls, 1);

	/* A failure on a simple call is the host's answer, not an error. */
	host_step(0x13 | (2ULL << 17), 5);
	assert_int_equal(run(0x13 | (2ULL << 17), &r), 0);
	assert_int_equal(r, 5);
	assert_int_equal(calls, 1);
}

static void test_rep_all_at_once(void **state)
{
	uint64_t r;

	host_step(0x0000001900000003ULL, OK(25));
	assert_int_equal(run(0x0000001900000003ULL, &r), 0);
	assert_int_equal(hvtlb_result_status(r), 0);
	assert_int_equal(hvtlb_result_reps(r), 25);
	assert_int_equal(calls, 1);
}

static void test_rep_resumes_absolute(void **state)
{
	/* docs/wire-format.md, "The control word": resuming a 25-rep List
	 * after 20 reps. */
	const uint64_t ctl = 0x0000001900000003ULL;
	uint64_t r;

	host_step(ctl, OK(20));
	host_step(0x0014001900000003ULL, OK(24));
	host_step(0x0018001900000003ULL, OK(25));
	assert_int_equal(run(ctl, &r), 0);
	assert_int_equal(r, OK(25));
	assert_int_equal(calls, 3);

	/* ListEx with varhead and fast bits: only the start index moves. */
	const uint64_t ex = 0x14 | HVTLB_CTL_FAST | (3ULL << 17) | (9ULL << 32);
	host_step(ex, OK(1));
	host_step(ex | (1ULL << 48), OK(8));
	host_step(ex | (8ULL << 48), OK(9));
	assert_int_equal(run(ex, &r), 0);
	assert_int_equal(r, OK(9));
	assert_int_equal(calls, 3);
}

static void test_rep_start_given(void **state)
{
	/* The caller already did 5 of 9: the loop starts there. */
	const uint64_t ctl = 0x0005000900000003ULL;
	uint64_t r;

	host_step(ctl, OK(7));
	host_step(0x0007000900000003ULL, OK(9));
	assert_int_equal(run(ctl, &r), 0);
	assert_int_equal(r, OK(9));
	assert_int_equal(calls, 2);
}

static void test_rep_failure_stops(void **state)
{
	const uint64_t ctl = 0x0000001900000003ULL;
	const uint64_t fail =
		hvtlb_result_pack(HVTLB_STATUS_INVALID_PARAMETER, 10);
	uint64_t r;

	host_step(ctl, OK(4));
	host_step(0x0004001900000003ULL, fail);
	assert_int_equal(run(ctl, &r), 0);
	assert_int_equal(r, fail);
	assert_int_equal(calls, 2);

	/* A failure with no progress at all stops too. */
	host_step(ctl, hvtlb_result_pack(HVTLB_STATUS_TIME_OUT, 0));
	assert_int_equal(run(ctl, &r), 0);
	assert_int_equal(hvtlb_result_status(r), HVTLB_STATUS_TIME_OUT);
	assert_int_equal(calls, 1);
}

static void test_rep_reserved_result_bits_ignored(void **state)
{
	const uint64_t ctl = 0x0000000300000003ULL;
	uint64_t r;

	host_step(ctl, OK(1) | 0xf000f000ffff0000ULL);
	host_step(0x0001000300000003ULL, OK(3) | (1ULL << 63));
	assert_int_equal(run(ctl, &r), 0);
	assert_int_equal(hvtlb_result_status(r), 0);
	assert_int_equal(hvtlb_result_reps(r), 3);
	assert_int_equal(calls, 2);
}

static void test_rep_backwards(void **state)
{
	const uint64_t ctl = 0x0000001900000003ULL;
	uint64_t r;

	host_step(ctl, OK(20));
	host_step(0x0014001900000003ULL, OK(10));
	assert_int_equal(run(ctl, &r), -HVTLB_EPROTO);
	assert_int_equal(r, OK(10));
	assert_int_equal(calls, 2);

	/* Below the start index given by the caller is backwards too. */
	host_step(0x0005001900000003ULL, OK(3));
	assert_int_equal(run(0x0005001900000003ULL, &r), -HVTLB_EPROTO);
	assert_int_equal(calls, 1);
}

static void test_rep_beyond_count(void **state)
{
	const uint64_t ctl = 0x0000001900000003ULL;
	uint64_t r;

	host_step(ctl, OK(26));
	assert_int_equal(run(ctl, &r), -HVTLB_EPROTO);
	assert_int_equal(r, OK(26));
	assert_int_equal(calls, 1);

	host_step(ctl, OK(4095));
	assert_int_equal(run(ctl, &r), -HVTLB_EPROTO);
}

static void test_rep_no_progress_bounded(void **state)
{
	const uint64_t ctl = 0x0000001900000003ULL;
	uint64_t r;

	for (unsigned i = 0; i < HVTLB_REP_MAX_STALLS; i++)
		host_step(ctl, OK(0));
	assert_int_equal(run(ctl, &r), -HVTLB_EPROTO);
	assert_int_equal(r, OK(0));
	assert_int_equal(calls, HVTLB_REP_MAX_STALLS);

	/* Stalls after some progress, at the resumed index. */
	host_step(ctl, OK(7));
	for (unsigned i = 0; i < HVTLB_REP_MAX_STALLS; i++)
		host_step(0x0007001900000003ULL, OK(7));
	assert_int_equal(run(ctl, &r), -HVTLB_EPROTO);
	assert_int_equal(r, OK(7));
	assert_int_equal(calls, HVTLB_REP_MAX_STALLS + 1);
}

static void test_rep_progress_resets_stalls(void **state)
{
	const uint64_t ctl = 0x0000000300000003ULL;
	uint64_t r;

	/* One stall short of the limit, progress, again, then done. */
	for (unsigned i = 0; i < HVTLB_REP_MAX_STALLS - 1; i++)
		host_step(ctl, OK(0));
	host_step(ctl, OK(1));
	for (unsigned i = 0; i < HVTLB_REP_MAX_STALLS - 1; i++)
		host_step(0x0001000300000003ULL, OK(1));
	host_step(0x0001000300000003ULL, OK(3));
	assert_int_equal(run(ctl, &r), 0);
	assert_int_equal(r, OK(3));
	assert_int_equal(calls, 2 * HVTLB_REP_MAX_STALLS);
}

static void test_rep_count_4095(void **state)
{
	const uint64_t ctl = ctl_word(HVTLB_CALL_FLUSH_LIST, false, 0, 4095, 0);
	uint64_t r;

	host_step(ctl, OK(4094));
	host_step(ctl | (4094ULL << 48), OK(4095));
	assert_int_equal(run(ctl, &r), 0);
	assert_int_equal(r, OK(4095));
	assert_int_equal(calls, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simple_call_once),
		cmocka_unit_test(test_rep_all_at_once),
		cmocka_unit_test(test_rep_resumes_absolute),
		cmocka_unit_test(test_rep_start_given),
		cmocka_unit_test(test_rep_failure_stops),
		cmocka_unit_test(test_rep_reserved_result_bits_ignored),
		cmocka_unit_test(test_rep_backwards),
		cmocka_unit_test(test_rep_beyond_count),
		cmocka_unit_test(test_rep_no_progress_bounded),
		cmocka_unit_test(test_rep_progress_resets_stalls),
		cmocka_unit_test(test_rep_count_4095),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
