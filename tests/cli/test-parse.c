// SPDX-License-Identifier: MIT
/* Unit tests for the command-line parsers in tools/hvtlb/common/parse.c. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "parse.h"

#define SENTINEL 0x5a5a5a5a5a5a5a5aULL

/* Expects parse_u64(s) to fail with @p err and leave the output alone. */
static void u64_fails(const char *s, int err)
{
	uint64_t v = SENTINEL;

	assert_int_equal(parse_u64(s, &v), err);
	assert_true(v == SENTINEL);
}

static void u64_is(const char *s, uint64_t want)
{
	uint64_t v = SENTINEL;

	assert_int_equal(parse_u64(s, &v), 0);
	assert_true(v == want);
}

static void test_u64_decimal(void **state)
{
	(void)state;
	u64_is("0", 0);
	u64_is("1", 1);
	u64_is("007", 7);
	u64_is("4096", 4096);
	u64_is("18446744073709551615", UINT64_MAX);
	u64_is("018446744073709551615", UINT64_MAX);
	u64_fails("18446744073709551616", -ERANGE);
	u64_fails("18446744073709551620", -ERANGE);
	u64_fails("99999999999999999999", -ERANGE);
	u64_fails("184467440737095516150", -ERANGE);
}

static void test_u64_hex(void **state)
{
	(void)state;
	u64_is("0x0", 0);
	u64_is("0x10", 16);
	u64_is("0X1f", 31);
	u64_is("0xffffffffffffffff", UINT64_MAX);
	u64_is("0xFFFFFFFFFFFFFFFF", UINT64_MAX);
	u64_is("0x000000000000000000000001", 1);
	u64_fails("0x10000000000000000", -ERANGE);
	u64_fails("0x", -EINVAL);
	u64_fails("0X", -EINVAL);
	u64_fails("0x0x1", -EINVAL);
	u64_fails("0xg", -EINVAL);
	u64_fails("1f", -EINVAL); /* hex needs 0x here */
}

static void test_u64_syntax(void **state)
{
	(void)state;
	u64_fails("", -EINVAL);
	u64_fails(NULL, -EINVAL);
	u64_fails(" 1", -EINVAL);
	u64_fails("1 ", -EINVAL);
	u64_fails("1x", -EINVAL);
	u64_fails("12abc", -EINVAL);
	u64_fails("+1", -EINVAL);
	u64_fails("-1", -EINVAL);
	u64_fails("1.0", -EINVAL);
	u64_fails("1e3", -EINVAL);
	u64_fails("x10", -EINVAL);
}

static void hex_is(const char *s, uint64_t want)
{
	uint64_t v = SENTINEL;

	assert_int_equal(parse_hex_u64(s, &v), 0);
	assert_true(v == want);
}

static void hex_fails(const char *s, int err)
{
	uint64_t v = SENTINEL;

	assert_int_equal(parse_hex_u64(s, &v), err);
	assert_true(v == SENTINEL);
}

static void test_hex_u64(void **state)
{
	(void)state;
	hex_is("0", 0);
	hex_is("10", 16);
	hex_is("0x10", 16);
	hex_is("7f0000000000", 0x7f0000000000ULL);
	hex_is("ffffffffffffffff", UINT64_MAX);
	hex_is("0xffffffffffffffff", UINT64_MAX);
	hex_is("0", 0);
	hex_fails("10000000000000000", -ERANGE);
	hex_fails("0x10000000000000000", -ERANGE);
	hex_fails("", -EINVAL);
	hex_fails(NULL, -EINVAL);
	hex_fails("0x", -EINVAL);
	hex_fails("x", -EINVAL);
	hex_fails("12g", -EINVAL);
	hex_fails("12 ", -EINVAL);
	hex_fails("-1", -EINVAL);
}

static void test_u64_max(void **state)
{
	uint64_t v = SENTINEL;

	(void)state;
	assert_int_equal(parse_u64_max("4095", 4095, &v), 0);
	assert_true(v == 4095);
	v = SENTINEL;
	assert_int_equal(parse_u64_max("4096", 4095, &v), -ERANGE);
	assert_true(v == SENTINEL);
	assert_int_equal(parse_u64_max("0", 0, &v), 0);
	assert_true(v == 0);
	v = SENTINEL;
	assert_int_equal(parse_u64_max("1", 0, &v), -ERANGE);
	assert_int_equal(parse_u64_max("", 10, &v), -EINVAL);
	assert_int_equal(parse_u64_max("18446744073709551616", UINT64_MAX, &v),
			 -ERANGE);
	assert_true(v == SENTINEL);
	assert_int_equal(parse_u64_max("18446744073709551615", UINT64_MAX, &v),
			 0);
	assert_true(v == UINT64_MAX);
}

static unsigned popcount_words(const uint64_t *w, size_t n)
{
	unsigned c = 0;

	for (size_t i = 0; i < n; i++)
		c += (unsigned)__builtin_popcountll(w[i]);
	return c;
}

static void test_index_list(void **state)
{
	uint64_t bits[64];

	(void)state;
	memset(bits, 0xff, sizeof(bits));
	assert_int_equal(parse_index_list("0,5,64-127", bits, 4096), 0);
	assert_true(bits[0] == 0x21);
	assert_true(bits[1] == UINT64_MAX);
	assert_int_equal(popcount_words(bits, 64), 66);

	assert_int_equal(parse_index_list("4095", bits, 4096), 0);
	assert_true(bits[63] == 1ULL << 63);
	assert_int_equal(popcount_words(bits, 64), 1);

	assert_int_equal(parse_index_list("0-4095", bits, 4096), 0);
	assert_int_equal(popcount_words(bits, 64), 4096);

	/* duplicates and overlaps are fine; hex items too */
	assert_int_equal(parse_index_list("3,3,1-4,0x40", bits, 4096), 0);
	assert_true(bits[0] == 0x1e);
	assert_true(bits[1] == 1);
	assert_int_equal(popcount_words(bits, 64), 5);

	/* single-element range */
	assert_int_equal(parse_index_list("7-7", bits, 4096), 0);
	assert_true(bits[0] == 0x80);

	/* a small nbits: bits past it in the last word are not touched */
	bits[0] = 0;
	assert_int_equal(parse_index_list("0-9", bits, 10), 0);
	assert_true(bits[0] == 0x3ff);
}

/* Every failing list leaves @p bits exactly as it was. */
static void index_fails(const char *s, uint32_t nbits, int err)
{
	uint64_t bits[65];

	for (size_t i = 0; i < 65; i++)
		bits[i] = SENTINEL;
	assert_int_equal(parse_index_list(s, bits, nbits), err);
	for (size_t i = 0; i < 65; i++)
		assert_true(bits[i] == SENTINEL);
}

static void test_index_list_errors(void **state)
{
	(void)state;
	index_fails("4096", 4096, -ERANGE);
	index_fails("0,5,4096", 4096, -ERANGE);
	index_fails("4000-4096", 4096, -ERANGE);
	index_fails("18446744073709551615", 4096, -ERANGE);
	index_fails("18446744073709551616", 4096, -ERANGE);
	index_fails("0", 0, -ERANGE);
	index_fails("", 4096, -EINVAL);
	index_fails(NULL, 4096, -EINVAL);
	index_fails(",", 4096, -EINVAL);
	index_fails(",1", 4096, -EINVAL);
	index_fails("1,", 4096, -EINVAL);
	index_fails("1,,2", 4096, -EINVAL);
	index_fails("-", 4096, -EINVAL);
	index_fails("-5", 4096, -EINVAL);
	index_fails("5-", 4096, -EINVAL);
	index_fails("1-2-3", 4096, -EINVAL);
	index_fails("9-3", 4096, -EINVAL);
	index_fails("1 ,2", 4096, -EINVAL);
	index_fails(" 1", 4096, -EINVAL);
	index_fails("a", 4096, -EINVAL);
	index_fails("0x", 4096, -EINVAL);
	index_fails("1;2", 4096, -EINVAL);
	/* a syntax error after an out-of-range item still writes nothing */
	index_fails("5000,x", 4096, -EINVAL);
	index_fails("1,5000", 4096, -ERANGE);
}

/* Expects parse_range(s) to fail with @p rc on @p part, the @p at.. of s,
 * and to leave the output alone. */
static void range_fails(const char *s, int rc, int part, const char *at)
{
	struct parse_range r = { SENTINEL, SENTINEL, SENTINEL, false };
	struct parse_range_error e;

	assert_int_equal(parse_range(s, &r, &e), rc);
	assert_int_equal(e.part, part);
	assert_true(e.at + e.len <= strlen(s));
	assert_true(strlen(at) == e.len && !strncmp(s + e.at, at, e.len));
	assert_true(r.start == SENTINEL && r.end == SENTINEL &&
		    r.pages == SENTINEL && !r.all);
}

static void test_range(void **state)
{
	struct parse_range r;

	(void)state;
	assert_int_equal(parse_range("0x7f0000000000+1", &r, NULL), 0);
	assert_true(r.start == 0x7f0000000000ULL && r.pages == 1 && !r.all);
	/* Bare hex, as encode has always read it. */
	assert_int_equal(parse_range("7f0000000000+16", &r, NULL), 0);
	assert_true(r.start == 0x7f0000000000ULL && r.pages == 16);
	assert_int_equal(parse_range("0+0x10", &r, NULL), 0);
	assert_true(r.start == 0 && r.pages == 16);
	assert_int_equal(parse_range("0x1000-0x3000", &r, NULL), 0);
	assert_true(r.start == 0x1000 && r.end == 0x3000 && r.pages == 0);
	assert_int_equal(parse_range("0-0x21000", &r, NULL), 0);
	assert_true(r.start == 0 && r.end == 0x21000 && r.pages == 0);
	assert_int_equal(parse_range("a000-ffff", &r, NULL), 0);
	assert_true(r.start == 0xa000 && r.end == 0xffff);
	assert_int_equal(parse_range("0x1000-0x1000", &r, NULL), 0);
	assert_true(r.start == 0x1000 && r.end == 0x1000 && r.pages == 0);
	assert_int_equal(parse_range("all", &r, NULL), 0);
	assert_true(r.all);
	assert_int_equal(
		parse_range("ffffffffffffffff+18446744073709551615", &r, NULL),
		0);
	assert_true(r.start == UINT64_MAX && r.pages == UINT64_MAX);

	range_fails("", -EINVAL, PARSE_RANGE_FORM, "");
	range_fails("0x1000", -EINVAL, PARSE_RANGE_FORM, "0x1000");
	range_fails("+1", -EINVAL, PARSE_RANGE_FORM, "+1");
	range_fails("0x1000+", -EINVAL, PARSE_RANGE_FORM, "0x1000+");
	range_fails("0x1000-", -EINVAL, PARSE_RANGE_FORM, "0x1000-");
	range_fails("ALL", -EINVAL, PARSE_RANGE_FORM, "ALL");
	range_fails("0x+1", -EINVAL, PARSE_RANGE_START, "0x");
	range_fails("g+1", -EINVAL, PARSE_RANGE_START, "g");
	range_fails("0x1000+0", -EINVAL, PARSE_RANGE_PAGES, "0");
	range_fails("0x1000+x", -EINVAL, PARSE_RANGE_PAGES, "x");
	range_fails("0x1000+1+1", -EINVAL, PARSE_RANGE_PAGES, "1+1");
	range_fails("0x1000+-1", -EINVAL, PARSE_RANGE_PAGES, "-1");
	range_fails("0x1000+1x", -EINVAL, PARSE_RANGE_PAGES, "1x");
	range_fails("0x1000-0xg", -EINVAL, PARSE_RANGE_END, "0xg");
	range_fails("0x2000-0x1000", -EINVAL, PARSE_RANGE_ORDER, "0x1000");
	range_fails("10000000000000000+1", -EDOM, PARSE_RANGE_START,
		    "10000000000000000");
	range_fails("0x1-123456789012345678901", -ERANGE, PARSE_RANGE_END,
		    "123456789012345678901");
	range_fails("0x10000000000000000+1", -ERANGE, PARSE_RANGE_START,
		    "0x10000000000000000");
	range_fails("0+18446744073709551616", -ERANGE, PARSE_RANGE_PAGES,
		    "18446744073709551616");
	/* Digits 0-9 alone: hex to encode, decimal to plan, refused. */
	range_fails("1000+1", -EDOM, PARSE_RANGE_START, "1000");
	range_fails("00+1", -EDOM, PARSE_RANGE_START, "00");
	range_fails("0x1000-4096", -EDOM, PARSE_RANGE_END, "4096");
}

static void test_range_bytes_pages(void **state)
{
	struct parse_range r;
	uint64_t a = SENTINEL, b = SENTINEL;

	(void)state;
	/* START+PAGES and the START-END it stands for. */
	assert_int_equal(parse_range("0x7f0000000000+16", &r, NULL), 0);
	assert_int_equal(parse_range_bytes(&r, 12, &a, &b), 0);
	assert_true(a == 0x7f0000000000ULL && b == 0x7f0000010000ULL);
	assert_int_equal(parse_range("0x7f0000000000-0x7f0000010000", &r, NULL),
			 0);
	assert_int_equal(parse_range_pages(&r, 12, &a, &b), 0);
	assert_true(a == 0x7f0000000000ULL && b == 16);
	/* An unaligned START-END: every page it touches, from the first. */
	assert_int_equal(parse_range("0x1800-0x2001", &r, NULL), 0);
	assert_int_equal(parse_range_pages(&r, 12, &a, &b), 0);
	assert_true(a == 0x1000 && b == 2);
	assert_int_equal(parse_range_pages(&r, 21, &a, &b), 0);
	assert_true(a == 0 && b == 1);
	/* START+PAGES is passed on as typed; the encoder spills it. */
	assert_int_equal(parse_range("0x1800+1", &r, NULL), 0);
	assert_int_equal(parse_range_pages(&r, 12, &a, &b), 0);
	assert_true(a == 0x1800 && b == 1);
	assert_int_equal(parse_range_bytes(&r, 21, &a, &b), 0);
	assert_true(a == 0x1800 && b == 0x201800);
	/* Up to the last byte, and one page past it. */
	assert_int_equal(parse_range("0xffffffffffffe000+1", &r, NULL), 0);
	assert_int_equal(parse_range_bytes(&r, 12, &a, &b), 0);
	assert_true(b == 0xfffffffffffff000ULL);
	assert_int_equal(parse_range("0xfffffffffffff000+1", &r, NULL), 0);
	a = b = SENTINEL;
	assert_int_equal(parse_range_bytes(&r, 12, &a, &b), -ERANGE);
	assert_int_equal(parse_range("0-0xffffffffffffffff", &r, NULL), 0);
	assert_int_equal(parse_range_pages(&r, 30, &a, &b), 0);
	assert_true(a == 0 && b == 1ULL << 34);
	/* Nothing to encode in an empty START-END; "all" has no bytes. */
	assert_int_equal(parse_range("0x1000-0x1000", &r, NULL), 0);
	assert_int_equal(parse_range_pages(&r, 12, &a, &b), -EINVAL);
	assert_int_equal(parse_range_bytes(&r, 12, &a, &b), 0);
	assert_true(a == 0x1000 && b == 0x1000);
	assert_int_equal(parse_range("all", &r, NULL), 0);
	assert_int_equal(parse_range_bytes(&r, 12, &a, &b), -EINVAL);
	assert_int_equal(parse_range_pages(&r, 12, &a, &b), -EINVAL);
}

static void test_hex_words(void **state)
{
	uint64_t w[4];
	size_t n = 99;

	(void)state;
	assert_int_equal(parse_hex_words("0,5,0x21", w, 4, &n), 0);
	assert_int_equal(n, 3);
	assert_true(w[0] == 0 && w[1] == 5 && w[2] == 0x21);

	assert_int_equal(parse_hex_words(" 1\n\t2 ,\n3 # c,x\n4\n", w, 4, &n),
			 0);
	assert_int_equal(n, 4);
	assert_true(w[0] == 1 && w[1] == 2 && w[2] == 3 && w[3] == 4);

	assert_int_equal(parse_hex_words("ffffffffffffffff", w, 4, &n), 0);
	assert_int_equal(n, 1);
	assert_true(w[0] == UINT64_MAX);

	assert_int_equal(parse_hex_words("", w, 4, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(parse_hex_words(" \n# only a comment\n", w, 4, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(parse_hex_words("1,2", w, 2, &n), 0);
	assert_int_equal(n, 2);

	/* failures leave count and words alone */
	w[0] = SENTINEL;
	n = 99;
	assert_int_equal(parse_hex_words("1,2,3", w, 2, &n), -E2BIG);
	assert_int_equal(parse_hex_words("1,,2", w, 4, &n), -EINVAL);
	assert_int_equal(parse_hex_words(",1", w, 4, &n), -EINVAL);
	assert_int_equal(parse_hex_words("1,", w, 4, &n), -EINVAL);
	assert_int_equal(parse_hex_words("1, ", w, 4, &n), -EINVAL);
	assert_int_equal(parse_hex_words(",", w, 4, &n), -EINVAL);
	assert_int_equal(parse_hex_words("0x", w, 4, &n), -EINVAL);
	assert_int_equal(parse_hex_words("1 0x", w, 4, &n), -EINVAL);
	assert_int_equal(parse_hex_words("12g", w, 4, &n), -EINVAL);
	assert_int_equal(parse_hex_words("1;2", w, 4, &n), -EINVAL);
	assert_int_equal(parse_hex_words("10000000000000000", w, 4, &n),
			 -ERANGE);
	assert_int_equal(parse_hex_words(NULL, w, 4, &n), -EINVAL);
	assert_true(w[0] == SENTINEL);
	assert_int_equal(n, 99);
}

static void test_page_size(void **state)
{
	unsigned shift = 99;

	(void)state;
	assert_int_equal(parse_page_size("4k", &shift), 0);
	assert_int_equal(shift, 12);
	assert_int_equal(parse_page_size("2M", &shift), 0);
	assert_int_equal(shift, 21);
	assert_int_equal(parse_page_size("1g", &shift), 0);
	assert_int_equal(shift, 30);
	shift = 99;
	assert_int_equal(parse_page_size("", &shift), -EINVAL);
	assert_int_equal(parse_page_size(NULL, &shift), -EINVAL);
	assert_int_equal(parse_page_size("4", &shift), -EINVAL);
	assert_int_equal(parse_page_size("4kb", &shift), -EINVAL);
	assert_int_equal(parse_page_size("8k", &shift), -EINVAL);
	assert_int_equal(parse_page_size("4096", &shift), -EINVAL);
	assert_int_equal(parse_page_size(" 4k", &shift), -EINVAL);
	assert_int_equal(shift, 99);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64_decimal),
		cmocka_unit_test(test_u64_hex),
		cmocka_unit_test(test_u64_syntax),
		cmocka_unit_test(test_hex_u64),
		cmocka_unit_test(test_u64_max),
		cmocka_unit_test(test_index_list),
		cmocka_unit_test(test_index_list_errors),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_range_bytes_pages),
		cmocka_unit_test(test_hex_words),
		cmocka_unit_test(test_page_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
