// SPDX-License-Identifier: MIT
/*
 * The decoder (strict profile) and its iterators: every call decoded from
 * hand-built bytes, VP indices at or past vp_count ignored, short spans
 * (status 3, nothing read past the span: each decode gets an allocation of
 * exactly the span, so ASan reports an over-read), GVA entries in both
 * formats, the rep start, non-canonical pages skipped page by page, and no
 * range past 2^64.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hc-test.h"

#define GIB (1ULL << 30)
#define OK(reps) hvtlb_result_pack(HVTLB_STATUS_SUCCESS, reps)

static const struct hvtlb_host strict = {
	.profile = HVTLB_PROFILE_STRICT,
	.vp_count = HVTLB_MAX_VPS,
};

static struct img im;
static struct hvtlb_decoded dec;

static uint64_t dec_with(const struct hvtlb_host *h, uint64_t ctl)
{
	return decode_buf(h, ctl, im.b, im.len, 0x10000, &dec);
}

static uint64_t dec_strict(uint64_t ctl)
{
	return dec_with(&strict, ctl);
}

/* The VPs the iterator yields, as a list; checks ascending order and
 * agreement with hvtlb_decoded_has_vp(). */
static size_t vps_of(uint32_t *out, size_t max)
{
	struct hvtlb_vp_iter it;
	uint32_t vp, prev = 0;
	size_t n = 0;

	hvtlb_vp_iter_init(&it, &dec);
	while (hvtlb_vp_iter_next(&it, &vp)) {
		assert_true(vp < dec.vp_count);
		assert_true(n == 0 || vp > prev);
		assert_true(hvtlb_decoded_has_vp(&dec, vp));
		assert_true(n < max);
		out[n++] = prev = vp;
	}
	return n;
}

static void expect_vps(size_t n, ...)
{
	uint32_t got[HVTLB_MAX_VPS];
	size_t k = vps_of(got, HVTLB_MAX_VPS);
	va_list ap;

	assert_int_equal(k, n);
	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(got[i], va_arg(ap, uint32_t));
	va_end(ap);
}

static size_t ranges_of(struct hvtlb_gva_range *out, size_t max)
{
	struct hvtlb_gva_iter it;
	struct hvtlb_gva_range r;
	size_t n = 0;

	hvtlb_gva_iter_init(&it, &dec);
	while (hvtlb_gva_iter_next(&it, &r)) {
		unsigned shift = hvtlb_page_shift(r.size);

		assert_true(r.pages > 0);
		assert_int_equal(r.gva & ((1ULL << shift) - 1), 0);
		/* Never past 2^64. */
		assert_true(r.pages - 1 <= (~r.gva >> shift));
		assert_true(n < max);
		out[n++] = r;
	}
	return n;
}

static void expect_range(const struct hvtlb_gva_range *r, uint64_t gva,
			 uint64_t pages, enum hvtlb_page_size size)
{
	if (r->gva != gva || r->pages != pages || r->size != size)
		fail_msg("range {%#llx, %llu, %d}, want {%#llx, %llu, %d}",
			 (unsigned long long)r->gva,
			 (unsigned long long)r->pages, (int)r->size,
			 (unsigned long long)gva, (unsigned long long)pages,
			 (int)size);
}

/* ----------------------------------------------------------------- */

static void test_decode_space(void **state)
{
	img_reset(&im);
	img_words(&im, 3, 0x123456000ULL, 0x4ULL, 0x8000000000000021ULL);
	assert_int_equal(dec_strict(0x2), OK(0));
	assert_int_equal(dec.call, HVTLB_CALL_FLUSH_SPACE);
	assert_int_equal(dec.ctl.code, 0x2);
	assert_int_equal(dec.address_space, 0x123456000ULL);
	assert_int_equal(dec.flags, 0x4);
	assert_true(dec.flush_all_gvas);
	assert_false(dec.all_vps);
	assert_int_equal(dec.vp_count, HVTLB_MAX_VPS);
	assert_int_equal(dec.va_bits, 48);
	expect_vps(3, 0, 5, 63);
	assert_false(hvtlb_decoded_has_vp(&dec, 1));
	assert_false(hvtlb_decoded_has_vp(&dec, 64));

	/* ALL_PROCESSORS: every VP of the partition. */
	struct hvtlb_host h = strict;
	h.vp_count = 3;
	img_reset(&im);
	img_words(&im, 3, 0ULL, 0x3ULL, 0ULL);
	assert_int_equal(dec_with(&h, 0x2), OK(0));
	assert_true(dec.all_vps);
	expect_vps(3, 0, 1, 2);
	assert_false(hvtlb_decoded_has_vp(&dec, 3));
}

static void test_decode_list(void **state)
{
	struct hvtlb_gva_range r[4];

	img_reset(&im);
	img_words(&im, 5, 0x5000ULL, 0ULL, 0x6ULL, 0x7f0000001002ULL,
		  0x400000ULL);
	assert_int_equal(dec_strict(0x0000000200000003ULL), OK(2));
	assert_int_equal(dec.call, HVTLB_CALL_FLUSH_LIST);
	assert_int_equal(dec.ctl.rep_count, 2);
	assert_false(dec.flush_all_gvas);
	assert_false(dec.extended);
	assert_int_equal(dec.gva_count, 2);
	assert_ptr_equal(dec.gva, im.b + 24);
	expect_vps(2, 1, 2);
	assert_int_equal(ranges_of(r, 4), 2);
	expect_range(&r[0], 0x7f0000001000ULL, 3, HVTLB_PAGE_4K);
	expect_range(&r[1], 0x400000ULL, 1, HVTLB_PAGE_4K);

	/* A 16 MiB entry. */
	img_reset(&im);
	img_words(&im, 4, 0ULL, 0ULL, 1ULL, 0x1000fffULL);
	assert_int_equal(dec_strict(0x0000000100000003ULL), OK(1));
	assert_int_equal(ranges_of(r, 4), 1);
	expect_range(&r[0], 0x1000000ULL, 4096, HVTLB_PAGE_4K);
}

static void test_decode_rep_start(void **state)
{
	struct hvtlb_gva_range r[4];

	img_reset(&im);
	img_words(&im, 7, 0ULL, 0ULL, 1ULL, 0x1000ULL, 0x2000ULL, 0x3000ULL,
		  0x4001ULL);
	assert_int_equal(dec_strict(0x0002000400000003ULL), OK(4));
	assert_int_equal(dec.gva_count, 2);
	assert_ptr_equal(dec.gva, im.b + 24 + 16);
	assert_int_equal(ranges_of(r, 4), 2);
	expect_range(&r[0], 0x3000, 1, HVTLB_PAGE_4K);
	expect_range(&r[1], 0x4000, 2, HVTLB_PAGE_4K);
	/* Rep start at the last entry. */
	assert_int_equal(dec_strict(0x0003000400000003ULL), OK(4));
	assert_int_equal(ranges_of(r, 4), 1);
	expect_range(&r[0], 0x4000, 2, HVTLB_PAGE_4K);
}

static void test_decode_ex(void **state)
{
	struct hvtlb_gva_range r[4];

	/* The TLFS example set. */
	img_reset(&im);
	img_words(&im, 6, 0x7000ULL, 0x1ULL << 1, 0ULL, 0x5ULL, 0x21ULL,
		  0x4ULL);
	assert_int_equal(dec_strict(0x13 | (2ULL << 17)), OK(0));
	assert_int_equal(dec.call, HVTLB_CALL_FLUSH_SPACE_EX);
	assert_int_equal(dec.valid_mask, 0x5);
	assert_int_equal(dec.nbanks, 2);
	assert_int_equal(dec.banks[0], 0x21);
	assert_int_equal(dec.banks[1], 0x4);
	assert_true(dec.flush_all_gvas);
	expect_vps(3, 0, 5, 130);
	assert_false(hvtlb_decoded_has_vp(&dec, 66));
	assert_false(hvtlb_decoded_has_vp(&dec, 129));

	/* Linux style with an empty middle bank, then two entries. */
	img_reset(&im);
	img_words(&im, 9, 0x7000ULL, 0ULL, 0ULL, 0x7ULL, 0x21ULL, 0ULL, 0x4ULL,
		  0x1000ULL, 0x10000fULL);
	assert_int_equal(dec_strict(0x14 | (3ULL << 17) | (2ULL << 32)), OK(2));
	assert_false(dec.flush_all_gvas);
	assert_ptr_equal(dec.gva, im.b + 56);
	expect_vps(3, 0, 5, 130);
	assert_int_equal(ranges_of(r, 4), 2);
	expect_range(&r[0], 0x1000, 1, HVTLB_PAGE_4K);
	expect_range(&r[1], 0x100000, 16, HVTLB_PAGE_4K);

	/* Format ALL. */
	img_reset(&im);
	img_words(&im, 4, 0x7000ULL, 0ULL, 1ULL, 0ULL);
	assert_int_equal(dec_strict(0x13), OK(0));
	assert_true(dec.all_vps);
	assert_true(hvtlb_decoded_has_vp(&dec, 4095));
}

static void test_decode_ipi(void **state)
{
	img_reset(&im);
	img_words(&im, 2, 0x2fULL | (1ULL << 32), 0x8000000000000002ULL);
	assert_int_equal(dec_strict(0xb), OK(0));
	assert_int_equal(dec.call, HVTLB_CALL_SEND_IPI);
	assert_int_equal(dec.vector, 0x2f);
	assert_int_equal(dec.target_vtl, 1);
	expect_vps(2, 1, 63);

	img_reset(&im);
	img_words(&im, 5, 0xffULL, 0ULL, 0x5ULL, 0x21ULL, 0x4ULL);
	assert_int_equal(dec_strict(0x15 | (2ULL << 17)), OK(0));
	assert_int_equal(dec.call, HVTLB_CALL_SEND_IPI_EX);
	assert_int_equal(dec.vector, 0xff);
	assert_int_equal(dec.target_vtl, 0);
	expect_vps(3, 0, 5, 130);

	img_reset(&im);
	img_words(&im, 3, 0x10ULL, 1ULL, 0ULL);
	assert_int_equal(dec_strict(0x15), OK(0));
	assert_true(dec.all_vps);
}

static void test_decode_fast(void **state)
{
	struct hvtlb_gva_range r[16];

	/* Fast List with 11 entries: exactly the 112-byte budget. */
	img_reset(&im);
	img_words(&im, 3, 0ULL, 0ULL, 1ULL);
	for (int i = 0; i < 11; i++)
		img_word(&im, 0x100000ULL * (uint64_t)(i + 1));
	assert_int_equal(im.len, HVTLB_FAST_BYTES);
	assert_int_equal(dec_strict(ctl_word(3, true, 0, 11, 0)), OK(11));
	assert_true(dec.ctl.fast);
	assert_int_equal(ranges_of(r, 16), 11);
	expect_range(&r[10], 0xb00000, 1, HVTLB_PAGE_4K);
	/* One word too long. */
	img_word(&im, 0x1000);
	assert_int_equal(
		hvtlb_result_status(dec_strict(ctl_word(3, true, 0, 12, 0))),
		HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
}

/* ----------------------------------------------------------------- */
/* Bounds                                                             */
/* ----------------------------------------------------------------- */

static void test_vp_count_bounds(void **state)
{
	struct hvtlb_host h = strict;

	/* Ex set {5, 99, 100, 4095} on a 100-VP partition. */
	img_reset(&im);
	img_words(&im, 7, 0ULL, 0ULL, 0ULL, 0x3ULL | (1ULL << 63), 1ULL << 5,
		  (1ULL << 35) | (1ULL << 36), 1ULL << 63);
	h.vp_count = 100;
	assert_int_equal(dec_with(&h, 0x13 | (3ULL << 17)), OK(0));
	expect_vps(2, 5, 99);
	assert_false(hvtlb_decoded_has_vp(&dec, 100));
	assert_false(hvtlb_decoded_has_vp(&dec, 4095));
	assert_false(hvtlb_decoded_has_vp(&dec, UINT32_MAX));
	h.vp_count = 4096;
	assert_int_equal(dec_with(&h, 0x13 | (3ULL << 17)), OK(0));
	expect_vps(4, 5, 99, 100, 4095);
	h.vp_count = 4095;
	assert_int_equal(dec_with(&h, 0x13 | (3ULL << 17)), OK(0));
	expect_vps(3, 5, 99, 100);

	/* Non-Ex mask bits past vp_count. */
	img_reset(&im);
	img_words(&im, 3, 0ULL, 0ULL, 0x8000000000000402ULL);
	h.vp_count = 10;
	assert_int_equal(dec_with(&h, 0x2), OK(0));
	expect_vps(1, 1);

	/* ALL on a 1-VP partition. */
	img_reset(&im);
	img_words(&im, 4, 0ULL, 0ULL, 1ULL, 0ULL);
	h.vp_count = 1;
	assert_int_equal(dec_with(&h, 0x13), OK(0));
	expect_vps(1, 0);
}

/* Every prefix of a valid input must be refused with status 3 without a
 * read past the prefix (exact-size heap copy under ASan). */
static void check_truncations(uint64_t ctl, const struct img *full)
{
	struct hvtlb_decoded d;

	assert_int_equal(
		decode_exact(&strict, ctl, full->b, full->len, 0x10000, &d),
		OK((uint16_t)((ctl >> 32) & 0xfff)));
	for (size_t len = 0; len < full->len; len++) {
		uint64_t r =
			decode_exact(&strict, ctl, full->b, len, 0x10000, &d);

		if (hvtlb_result_status(r) !=
		    HVTLB_STATUS_INVALID_HYPERCALL_INPUT)
			fail_msg("ctl %#llx span %zu of %zu: status %#x",
				 (unsigned long long)ctl, len, full->len,
				 hvtlb_result_status(r));
	}
}

static void test_short_span(void **state)
{
	struct img full;

	img_reset(&full);
	img_words(&full, 3, 0ULL, 0ULL, 1ULL);
	check_truncations(0x2, &full);

	img_reset(&full);
	img_words(&full, 6, 0ULL, 0ULL, 1ULL, 0x1000ULL, 0x2000ULL, 0x3000ULL);
	check_truncations(0x0000000300000003ULL, &full);
	/* The entries before rep start are still part of the input. */
	check_truncations(0x0002000300000003ULL, &full);

	img_reset(&full);
	img_words(&full, 6, 0ULL, 0ULL, 0ULL, 0x5ULL, 0x21ULL, 0x4ULL);
	check_truncations(0x13 | (2ULL << 17), &full);

	img_reset(&full);
	img_words(&full, 8, 0ULL, 0ULL, 0ULL, 0x5ULL, 0x21ULL, 0x4ULL,
		  0x1000ULL, 0x2000ULL);
	check_truncations(0x14 | (2ULL << 17) | (2ULL << 32), &full);

	img_reset(&full);
	img_words(&full, 2, 0x20ULL, 1ULL);
	check_truncations(0xb, &full);

	img_reset(&full);
	img_words(&full, 5, 0x20ULL, 0ULL, 0x5ULL, 0x21ULL, 0x4ULL);
	check_truncations(0x15 | (2ULL << 17), &full);

	/* Fast images are bounded by in->len too. */
	img_reset(&full);
	img_words(&full, 5, 0ULL, 0ULL, 1ULL, 0x1000ULL, 0x2000ULL);
	check_truncations(ctl_word(3, true, 0, 2, 0), &full);
}

/* ----------------------------------------------------------------- */
/* GVA entries                                                        */
/* ----------------------------------------------------------------- */

/* Decodes a List with the given entries under @p va_bits. */
static size_t list_ranges(unsigned va_bits, bool ext, size_t n,
			  const uint64_t *entries, struct hvtlb_gva_range *r,
			  size_t max)
{
	struct hvtlb_host h = strict;

	h.va_bits = va_bits;
	img_reset(&im);
	img_words(&im, 3, 0ULL,
		  ext ? (uint64_t)HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT : 0ULL,
		  1ULL);
	for (size_t i = 0; i < n; i++)
		img_word(&im, entries[i]);
	assert_int_equal(dec_with(&h, ctl_word(3, false, 0, (unsigned)n, 0)),
			 OK(n));
	assert_int_equal(dec.extended, ext);
	assert_int_equal(dec.va_bits, va_bits ? va_bits : 48);
	return ranges_of(r, max);
}

static void test_extended_entries(void **state)
{
	struct hvtlb_gva_range r[8];
	const uint64_t e[] = {
		0x2007ffULL,			  /* 4K form, 2048 pages */
		0x40000802ULL,			  /* 2M form, 3 pages */
		0x80001800ULL,			  /* 1G form, 1 page */
		(GIB + (2ULL << 20)) | 0x1800ULL, /* inside a 1G page */
	};

	assert_int_equal(list_ranges(57, true, 4, e, r, 8), 4);
	expect_range(&r[0], 0x200000, 2048, HVTLB_PAGE_4K);
	expect_range(&r[1], 0x40000000, 3, HVTLB_PAGE_2M);
	expect_range(&r[2], 0x80000000, 1, HVTLB_PAGE_1G);
	/* A GVA inside a large page flushes that whole page. */
	expect_range(&r[3], GIB, 1, HVTLB_PAGE_1G);

	/* Without the flag the same words are simple entries. */
	assert_int_equal(list_ranges(57, false, 2, e, r, 8), 2);
	expect_range(&r[0], 0x200000, 2048, HVTLB_PAGE_4K);
	expect_range(&r[1], 0x40000000, 0x803, HVTLB_PAGE_4K);
}

static void test_non_canonical(void **state)
{
	struct hvtlb_gva_range r[8];
	const uint64_t low_edge = 0x00007ffffffff000ULL | 2;
	const uint64_t high_edge = 0xffff7ffffffff000ULL | 2;
	const uint64_t hole = 0x0000900000000000ULL | 0xfff;
	const uint64_t e[] = { low_edge, hole, high_edge };

	/* 48 bits: the pages past 2^47 - 1 and below -2^47 are skipped. */
	assert_int_equal(list_ranges(48, false, 3, e, r, 8), 2);
	expect_range(&r[0], 0x00007ffffffff000ULL, 1, HVTLB_PAGE_4K);
	expect_range(&r[1], 0xffff800000000000ULL, 2, HVTLB_PAGE_4K);
	/* va_bits 0 means 48. */
	assert_int_equal(list_ranges(0, false, 3, e, r, 8), 2);
	expect_range(&r[0], 0x00007ffffffff000ULL, 1, HVTLB_PAGE_4K);

	/* 57 bits: all three entries are canonical. */
	assert_int_equal(list_ranges(57, false, 3, e, r, 8), 3);
	expect_range(&r[0], 0x00007ffffffff000ULL, 3, HVTLB_PAGE_4K);
	expect_range(&r[1], 0x0000900000000000ULL, 4096, HVTLB_PAGE_4K);
	expect_range(&r[2], 0xffff7ffffffff000ULL, 3, HVTLB_PAGE_4K);

	/* 57-bit edges. */
	const uint64_t e57[] = { 0x00fffffffffff000ULL | 1,
				 0xff00000000000000ULL - 0x1000 + 3 };
	assert_int_equal(list_ranges(57, false, 2, e57, r, 8), 2);
	expect_range(&r[0], 0x00fffffffffff000ULL, 1, HVTLB_PAGE_4K);
	expect_range(&r[1], 0xff00000000000000ULL, 3, HVTLB_PAGE_4K);

	/* Large pages straddling the 48-bit edge. */
	const uint64_t big[] = { 0x00007fffffe00000ULL | 0x800 | 1,
				 0x00007fffc0000000ULL | 0x1800 | 2 };
	assert_int_equal(list_ranges(48, true, 2, big, r, 8), 2);
	expect_range(&r[0], 0x00007fffffe00000ULL, 1, HVTLB_PAGE_2M);
	expect_range(&r[1], 0x00007fffc0000000ULL, 1, HVTLB_PAGE_1G);

	/* An entry of nothing but non-canonical pages yields nothing. */
	assert_int_equal(list_ranges(48, false, 1, &hole, r, 8), 0);
}

static void test_top_of_address_space(void **state)
{
	struct hvtlb_gva_range r[8];
	/* Entries that would run past 2^64 are clipped there. */
	const uint64_t e[] = { 0xfffffffffffff000ULL | 1,
			       0xfffffffffffff000ULL | 0xfff, ~0ULL };
	const uint64_t x[] = { 0xffffffffffe00000ULL | 0x800 | 5,
			       0xffffffffc0000000ULL | 0x1800 | 0x7ff };

	assert_int_equal(list_ranges(48, false, 3, e, r, 8), 3);
	for (int i = 0; i < 3; i++)
		expect_range(&r[i], 0xfffffffffffff000ULL, 1, HVTLB_PAGE_4K);
	assert_int_equal(list_ranges(48, true, 2, x, r, 8), 2);
	expect_range(&r[0], 0xffffffffffe00000ULL, 1, HVTLB_PAGE_2M);
	expect_range(&r[1], 0xffffffffc0000000ULL, 1, HVTLB_PAGE_1G);
}

static void test_rep_count_4095_decode(void **state)
{
	static uint8_t page[HVTLB_PAGE_BYTES * 9];
	struct hvtlb_input in = { .data = page, .len = sizeof(page) };
	struct hvtlb_host h = strict;

	/* 4095 entries: 32784 bytes; a memory input cannot hold them. */
	le64_put(page + 16, 1);
	in.gpa = 0x10000;
	assert_int_equal(
		hvtlb_result_status(hvtlb_decode(
			&h, ctl_word(3, false, 0, 4095, 0), &in, &dec)),
		HVTLB_STATUS_INVALID_ALIGNMENT);
	/* Rep start 4094 of 4095 does not change that. */
	assert_int_equal(
		hvtlb_result_status(hvtlb_decode(
			&h, ctl_word(3, false, 0, 4095, 4094), &in, &dec)),
		HVTLB_STATUS_INVALID_ALIGNMENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_space),
		cmocka_unit_test(test_decode_list),
		cmocka_unit_test(test_decode_rep_start),
		cmocka_unit_test(test_decode_ex),
		cmocka_unit_test(test_decode_ipi),
		cmocka_unit_test(test_decode_fast),
		cmocka_unit_test(test_vp_count_bounds),
		cmocka_unit_test(test_short_span),
		cmocka_unit_test(test_extended_entries),
		cmocka_unit_test(test_non_canonical),
		cmocka_unit_test(test_top_of_address_space),
		cmocka_unit_test(test_rep_count_4095_decode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
