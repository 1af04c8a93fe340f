// SPDX-License-Identifier: MIT
/* Sparse VP sets (docs/wire-format.md, "VP sets"): compact and Linux style. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hc-test.h"

static struct hvtlb_vpmask mask_of(const uint32_t *vps, size_t n)
{
	struct hvtlb_vpmask m;

	memset(&m, 0, sizeof(m));
	for (size_t i = 0; i < n; i++)
		hvtlb_vpmask_set(&m, vps[i]);
	return m;
}

/* The expected set, bit by bit, independent of the library. */
static unsigned ref_build(const struct hvtlb_vpmask *m,
			  enum hvtlb_vpset_style style, uint64_t *mask,
			  uint64_t banks[64])
{
	unsigned n = 0, top = 0;

	*mask = 0;
	for (unsigned b = 0; b < 64; b++)
		if (m->bits[b])
			top = b + 1;
	for (unsigned b = 0; b < 64; b++) {
		bool take = style == HVTLB_VPSET_LINUX ? b < (top ? top : 1)
						       : m->bits[b] != 0;
		if (take) {
			*mask |= 1ULL << b;
			banks[n++] = m->bits[b];
		}
	}
	return n;
}

static void check_build(const struct hvtlb_vpmask *m,
			enum hvtlb_vpset_style style)
{
	uint64_t want_banks[64], got_banks[64], want_mask, got_mask = 0xdead;
	unsigned want, got;

	memset(got_banks, 0xee, sizeof(got_banks));
	want = ref_build(m, style, &want_mask, want_banks);
	got = hvtlb_vpset_build(m, style, &got_mask, got_banks);
	assert_int_equal(got, want);
	assert_int_equal(got_mask, want_mask);
	assert_memory_equal(got_banks, want_banks, want * sizeof(uint64_t));
}

static void test_tlfs_example(void **state)
{
	static const uint32_t vps[] = { 0, 5, 130 };
	struct hvtlb_vpmask m = mask_of(vps, 3);
	uint64_t banks[64], mask;

	assert_int_equal(
		hvtlb_vpset_build(&m, HVTLB_VPSET_COMPACT, &mask, banks), 2);
	assert_int_equal(mask, 0x5);
	assert_int_equal(banks[0], 0x21);
	assert_int_equal(banks[1], 0x4);

	assert_int_equal(hvtlb_vpset_build(&m, HVTLB_VPSET_LINUX, &mask, banks),
			 3);
	assert_int_equal(mask, 0x7);
	assert_int_equal(banks[0], 0x21);
	assert_int_equal(banks[1], 0);
	assert_int_equal(banks[2], 0x4);
}

static void test_empty_set(void **state)
{
	struct hvtlb_vpmask m;
	uint64_t banks[64], mask = 0xdead;

	memset(&m, 0, sizeof(m));
	assert_int_equal(
		hvtlb_vpset_build(&m, HVTLB_VPSET_COMPACT, &mask, banks), 0);
	assert_int_equal(mask, 0);
	/* Linux style always sends at least one bank. */
	banks[0] = 0xdead;
	assert_int_equal(hvtlb_vpset_build(&m, HVTLB_VPSET_LINUX, &mask, banks),
			 1);
	assert_int_equal(mask, 1);
	assert_int_equal(banks[0], 0);
}

static void test_vp_4095_and_bank_edges(void **state)
{
	static const uint32_t top[] = { 4095 };
	static const uint32_t edges[] = { 63, 64, 4032 };
	struct hvtlb_vpmask m = mask_of(top, 1);
	uint64_t banks[64], mask;

	assert_int_equal(
		hvtlb_vpset_build(&m, HVTLB_VPSET_COMPACT, &mask, banks), 1);
	assert_int_equal(mask, 1ULL << 63);
	assert_int_equal(banks[0], 1ULL << 63);
	assert_int_equal(hvtlb_vpset_build(&m, HVTLB_VPSET_LINUX, &mask, banks),
			 64);
	assert_int_equal(mask, ~0ULL);
	for (int b = 0; b < 63; b++)
		assert_int_equal(banks[b], 0);
	assert_int_equal(banks[63], 1ULL << 63);

	m = mask_of(edges, 3);
	assert_int_equal(
		hvtlb_vpset_build(&m, HVTLB_VPSET_COMPACT, &mask, banks), 3);
	assert_int_equal(mask, 0x3 | (1ULL << 63));
	assert_int_equal(banks[0], 1ULL << 63);
	assert_int_equal(banks[1], 1);
	assert_int_equal(banks[2], 1);

	/* Indices past 4095 are not representable and are not set. */
	memset(&m, 0, sizeof(m));
	hvtlb_vpmask_set(&m, 4096);
	hvtlb_vpmask_set(&m, UINT32_MAX);
	for (int b = 0; b < 64; b++)
		assert_int_equal(m.bits[b], 0);
	assert_false(hvtlb_vpmask_test(&m, 4096));
	hvtlb_vpmask_set(&m, 4095);
	assert_true(hvtlb_vpmask_test(&m, 4095));
	assert_false(hvtlb_vpmask_test(&m, 4094));
}

static void test_full_set(void **state)
{
	struct hvtlb_vpmask m;
	uint64_t banks[64], mask;

	memset(&m, 0xff, sizeof(m));
	for (int s = 0; s < 2; s++) {
		assert_int_equal(hvtlb_vpset_build(&m,
						   (enum hvtlb_vpset_style)s,
						   &mask, banks),
				 64);
		assert_int_equal(mask, ~0ULL);
		for (int b = 0; b < 64; b++)
			assert_int_equal(banks[b], ~0ULL);
	}
}

static void test_random_sets(void **state)
{
	uint64_t seed = 7;

	for (int i = 0; i < 20000; i++) {
		struct hvtlb_vpmask m;
		unsigned nb = (unsigned)rng_below(&seed, 65);

		memset(&m, 0, sizeof(m));
		for (unsigned k = 0; k < nb; k++) {
			unsigned b = (unsigned)rng_below(&seed, 64);

			m.bits[b] = rng_next(&seed) & rng_next(&seed);
		}
		check_build(&m, HVTLB_VPSET_COMPACT);
		check_build(&m, HVTLB_VPSET_LINUX);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tlfs_example),
		cmocka_unit_test(test_empty_set),
		cmocka_unit_test(test_vp_4095_and_bank_edges),
		cmocka_unit_test(test_full_set),
		cmocka_unit_test(test_random_sets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
