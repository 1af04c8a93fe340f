// SPDX-License-Identifier: MIT
/*
 * The batch iterators (hvtlb_gva_iter_fill, hvtlb_vp_iter_next_word) return
 * exactly what the one-at-a-time iterators return, on seeded random ListEx
 * inputs that mix simple and extended entries, the canonical hole, the top
 * of the address space, and VPs beyond vp_count.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hvtlb/hypercall.h>

#include "hypercall/wire.h"

#define ROUNDS 20000

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void st64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Rounds where most entries are ordinary lower-half pages, in runs long
 * enough for the 32-entry blocks of hvtlb_gva_iter_fill_raw(). */
static bool mostly_clean;
static uint64_t lower_top; /* 2^47 or 2^56 */

/* A random entry: mostly ordinary lower-half pages, sometimes the top of
 * the lower half, the upper half, or anything at all. */
static uint64_t random_entry(void)
{
	if (mostly_clean && rnd() % 64) {
		/* Below 2^46, or within 2^24 of the top of the lower half
		 * or of 2^64 (where the block test must defer to the exact
		 * one). */
		if (rnd() % 16)
			return rnd() & 0x3fffffffffffULL;
		if (rnd() & 1)
			return (lower_top - (rnd() & 0xffffffULL)) |
			       (rnd() & 0xfff);
		/* Within 2^24 of 2^64: adding 2^24 wraps. */
		return ~(rnd() & 0xffffffULL);
	}
	switch (rnd() % 4) {
	case 0:
		return rnd();
	case 1:
		return (0x7ffffffff000ULL - (rnd() % 8) * 0x1000) |
		       (rnd() & 0xfff);
	case 2:
		return 0xffff800000000000ULL | (rnd() & 0x7fffffffffffULL);
	default:
		return (rnd() & 0x7fffffff000ULL) | (rnd() & 0xfff);
	}
}

static void one_round(void)
{
	static uint8_t in[HVTLB_PAGE_BYTES];
	uint64_t mask;
	unsigned banks, n;
	bool extended;
	struct hvtlb_host host;
	uint64_t control;
	struct hvtlb_input input = { in, 0, 0 };
	struct hvtlb_decoded d;
	struct hvtlb_gva_iter a, b;
	struct hvtlb_vp_iter va, vb;
	struct hvtlb_gva_range ra, rb[7];
	uint32_t vp, base;
	uint64_t bits;
	size_t off = 32;

	mostly_clean = rnd() & 1;
	extended = !mostly_clean && (rnd() & 1);
	mask = mostly_clean && (rnd() & 1) ? 1 : (rnd() & rnd()) | 1;
	banks = (unsigned)__builtin_popcountll(mask);
	n = 1 + (unsigned)(rnd() % HVTLB_LIST_EX_CAPACITY(banks));
	host = (struct hvtlb_host){
		.profile = HVTLB_PROFILE_STRICT,
		.vp_count = 1 + (uint32_t)(rnd() % HVTLB_MAX_VPS),
		.va_bits = (rnd() & 1) ? 57 : 48,
	};
	lower_top = 1ULL << (host.va_bits - 1);
	control = HVTLB_CALL_FLUSH_LIST_EX |
		  ((uint64_t)banks << HVTLB_CTL_VARHEAD_SHIFT) |
		  ((uint64_t)n << HVTLB_CTL_REP_COUNT_SHIFT);

	st64(in, 0);
	st64(in + 8, extended ? HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT : 0);
	st64(in + 16, HVTLB_VPSET_SPARSE_4K);
	st64(in + 24, mask);
	for (unsigned i = 0; i < banks; i++, off += 8)
		st64(in + off, rnd() | 1); /* never an empty set */
	for (unsigned i = 0; i < n; i++, off += 8) {
		uint64_t e = random_entry();

		if (extended)
			e &= ~HVTLB_GVA_EXT_RESERVED;
		st64(in + off, e);
	}
	input.len = off;
	assert_int_equal(
		hvtlb_result_status(hvtlb_decode(&host, control, &input, &d)),
		HVTLB_STATUS_SUCCESS);

	/* GVA ranges: fill in random batch sizes == next one at a time. */
	hvtlb_gva_iter_init(&a, &d);
	hvtlb_gva_iter_init(&b, &d);
	for (;;) {
		size_t max = 1 + rnd() % 7;
		size_t got = hvtlb_gva_iter_fill(&b, rb, max);

		for (size_t i = 0; i < got; i++) {
			assert_true(hvtlb_gva_iter_next(&a, &ra));
			assert_int_equal(ra.gva, rb[i].gva);
			assert_int_equal(ra.pages, rb[i].pages);
			assert_int_equal(ra.size, rb[i].size);
		}
		if (got < max) {
			assert_false(hvtlb_gva_iter_next(&a, &ra));
			assert_int_equal(hvtlb_gva_iter_fill(&b, rb, max), 0);
			break;
		}
	}

	/* Raw entries, in random batch sizes (up to past the whole list)
	 * == next one at a time. */
	hvtlb_gva_iter_init(&a, &d);
	hvtlb_gva_iter_init(&b, &d);
	for (;;) {
		static uint64_t raw[600];
		size_t max = 1 + rnd() % ((rnd() & 1) ? 7 : 600);
		size_t got = hvtlb_gva_iter_fill_raw(&b, raw, max);

		for (size_t i = 0; i < got; i++) {
			assert_true(hvtlb_gva_iter_next(&a, &ra));
			assert_int_equal(ra.gva,
					 hvtlb_gva_entry_gva(raw[i], extended));
			assert_int_equal(ra.pages, hvtlb_gva_entry_pages(
							   raw[i], extended));
			assert_int_equal(ra.size, hvtlb_gva_entry_size(
							  raw[i], extended));
		}
		if (got < max) {
			assert_false(hvtlb_gva_iter_next(&a, &ra));
			assert_int_equal(hvtlb_gva_iter_fill_raw(&b, raw, max),
					 0);
			break;
		}
	}

	/* VPs: words == one at a time; no word is empty, none past
	 * vp_count. */
	hvtlb_vp_iter_init(&va, &d);
	hvtlb_vp_iter_init(&vb, &d);
	while (hvtlb_vp_iter_next_word(&vb, &base, &bits)) {
		assert_int_equal(base % 64, 0);
		assert_int_not_equal(bits, 0);
		while (bits) {
			uint32_t want = base + (uint32_t)__builtin_ctzll(bits);

			bits &= bits - 1;
			assert_true(want < host.vp_count);
			assert_true(hvtlb_vp_iter_next(&va, &vp));
			assert_int_equal(vp, want);
		}
	}
	assert_false(hvtlb_vp_iter_next(&va, &vp));
}

static void batch_equals_single(void **state)
{
	const char *env = getenv("HVTLB_SEED");

	(void)state;
	rng_state = env ? strtoull(env, NULL, 0) : 0x5eed0b47c4ULL;
	printf("# seed 0x%llx, %d rounds\n", (unsigned long long)rng_state,
	       ROUNDS);
	for (int i = 0; i < ROUNDS; i++)
		one_round();
}

/* The same rounds through each instance of the raw fast path this build
 * and this CPU have (16-byte vectors, AVX2, AVX-512); the test above used
 * the one the CPU picks. */
static void batch_equals_single_each_isa(void **state)
{
	for (int isa = 1; isa <= 3; isa++) {
		int got = hv_gva_raw_select(isa);

		printf("# raw path instance %d: %d\n", isa, got);
		if (got != isa)
			continue; /* one instance only, or no AVX2 */
		batch_equals_single(state);
	}
	hv_gva_raw_select(0);
}

/* Mixing the two forms returns every VP once. */
static void vp_word_after_next(void **state)
{
	static uint8_t in[48];
	struct hvtlb_host host = { .profile = HVTLB_PROFILE_STRICT,
				   .vp_count = 70 };
	struct hvtlb_input input = { in, sizeof(in), 0 };
	struct hvtlb_decoded d;
	struct hvtlb_vp_iter it;
	uint32_t vp, base;
	uint64_t bits;

	(void)state;
	memset(in, 0, sizeof(in));
	st64(in + 24, 0x3);    /* banks 0 and 1 */
	st64(in + 32, 0x21);   /* VPs 0, 5 */
	st64(in + 40, 0x8041); /* VPs 64, 70 (>= vp_count), 79 */
	assert_int_equal(
		hvtlb_result_status(hvtlb_decode(
			&host, HVTLB_CALL_FLUSH_SPACE_EX | (2ULL << 17), &input,
			&d)),
		HVTLB_STATUS_SUCCESS);
	hvtlb_vp_iter_init(&it, &d);
	assert_true(hvtlb_vp_iter_next(&it, &vp));
	assert_int_equal(vp, 0);
	assert_true(hvtlb_vp_iter_next_word(&it, &base, &bits));
	assert_int_equal(base, 0);
	assert_int_equal(bits, 0x20);
	assert_true(hvtlb_vp_iter_next_word(&it, &base, &bits));
	assert_int_equal(base, 64);
	assert_int_equal(bits, 0x1); /* 70 and 79 are beyond the VM */
	assert_false(hvtlb_vp_iter_next_word(&it, &base, &bits));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(batch_equals_single),
		cmocka_unit_test(batch_equals_single_each_isa),
		cmocka_unit_test(vp_word_after_next),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
