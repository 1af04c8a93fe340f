// SPDX-License-Identifier: MIT
/* How drained flush batches accumulate in a guest mailbox. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "mailbox.h"

static struct hvtlb_flushq_batch batch(size_t n, uint64_t first_page)
{
	struct hvtlb_flushq_batch b = { .n = n };
	size_t i;

	for (i = 0; i < n; i++) {
		b.ranges[i].gva = (first_page + i) << 12;
		b.ranges[i].pages = 1 + i;
		b.ranges[i].size = HVTLB_PAGE_4K;
	}
	return b;
}

static void test_ranges_append(void **state)
{
	struct kvmvmm_mailbox mb = { 0 };
	struct hvtlb_flushq_batch a = batch(2, 0x100), b = batch(3, 0x200);

	(void)state;
	kvmvmm_mailbox_add(&mb, &a);
	kvmvmm_mailbox_add(&mb, &b);
	assert_int_equal(mb.pending, 1);
	assert_int_equal(mb.all, 0);
	assert_int_equal(mb.n, 5);
	assert_int_equal(mb.ranges[1].gva, 0x101000);
	assert_int_equal(mb.ranges[1].pages, 2);
	assert_int_equal(mb.ranges[1].shift, 12);
	assert_int_equal(mb.ranges[4].gva, 0x202000);
	assert_int_equal(mb.ranges[4].pages, 3);
}

static void test_large_pages_keep_their_shift(void **state)
{
	struct kvmvmm_mailbox mb = { 0 };
	struct hvtlb_flushq_batch b = batch(2, 0);

	(void)state;
	b.ranges[0].size = HVTLB_PAGE_2M;
	b.ranges[1].size = HVTLB_PAGE_1G;
	kvmvmm_mailbox_add(&mb, &b);
	assert_int_equal(mb.ranges[0].shift, 21);
	assert_int_equal(mb.ranges[1].shift, 30);
}

static void test_overflow_becomes_all(void **state)
{
	struct kvmvmm_mailbox mb = { 0 };
	struct hvtlb_flushq_batch a = batch(10, 0), b = batch(6, 100);

	(void)state;
	kvmvmm_mailbox_add(&mb, &a);
	kvmvmm_mailbox_add(&mb, &b);
	assert_int_equal(mb.pending, 1);
	assert_int_equal(mb.all, 1);
	assert_int_equal(mb.n, 0);
}

static void test_exactly_full_is_not_all(void **state)
{
	struct kvmvmm_mailbox mb = { 0 };
	struct hvtlb_flushq_batch a = batch(10, 0), b = batch(5, 100);

	(void)state;
	kvmvmm_mailbox_add(&mb, &a);
	kvmvmm_mailbox_add(&mb, &b);
	assert_int_equal(mb.all, 0);
	assert_int_equal(mb.n, KVMVMM_MAILBOX_RANGES);
}

static void test_all_absorbs(void **state)
{
	struct kvmvmm_mailbox mb = { 0 };
	struct hvtlb_flushq_batch all = { .all = true }, b = batch(1, 7);

	(void)state;
	kvmvmm_mailbox_add(&mb, &b);
	kvmvmm_mailbox_add(&mb, &all);
	assert_int_equal(mb.all, 1);
	kvmvmm_mailbox_add(&mb, &b);
	assert_int_equal(mb.all, 1);
	assert_int_equal(mb.n, 0);
}

static void test_empty_batch_changes_nothing(void **state)
{
	struct kvmvmm_mailbox mb = { 0 };
	struct hvtlb_flushq_batch empty = { 0 };

	(void)state;
	kvmvmm_mailbox_add(&mb, &empty);
	assert_int_equal(mb.pending, 0);
}

/* The guest owns the memory: a count it scribbled must not index past
 * the array, and the flush must still happen. */
static void test_guest_count_not_trusted(void **state)
{
	struct kvmvmm_mailbox mb = { .pending = 1, .n = 0xffffffffu };
	struct hvtlb_flushq_batch b = batch(1, 3);

	(void)state;
	kvmvmm_mailbox_add(&mb, &b);
	assert_int_equal(mb.all, 1);
	assert_int_equal(mb.n, 0);
}

/* A count left over from an applied mailbox (pending 0) is ignored. */
static void test_stale_count_ignored(void **state)
{
	struct kvmvmm_mailbox mb = { .pending = 0, .n = 12 };
	struct hvtlb_flushq_batch b = batch(4, 3);

	(void)state;
	kvmvmm_mailbox_add(&mb, &b);
	assert_int_equal(mb.all, 0);
	assert_int_equal(mb.n, 4);
	assert_int_equal(mb.ranges[0].gva, 0x3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranges_append),
		cmocka_unit_test(test_large_pages_keep_their_shift),
		cmocka_unit_test(test_overflow_becomes_all),
		cmocka_unit_test(test_exactly_full_is_not_all),
		cmocka_unit_test(test_all_absorbs),
		cmocka_unit_test(test_empty_batch_changes_nothing),
		cmocka_unit_test(test_guest_count_not_trusted),
		cmocka_unit_test(test_stale_count_ignored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
