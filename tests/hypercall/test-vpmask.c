// SPDX-License-Identifier: MIT
/*
 * hvtlb_decoded_vpmask() against the single-step VP iterator: for every
 * profile and every VP count 0..4096, seeded random flush and IPI inputs
 * (all six calls, memory and fast, sparse sets of every shape, format ALL,
 * ALL_PROCESSORS, empty and malformed sets) are decoded; each success must
 * give a mask that holds exactly the VPs hvtlb_vp_iter_next() returns, the
 * words hvtlb_vp_iter_next_word() returns, and no bit at or above the VP
 * count. Hand-built decoded sets (fewer banks than the mask says, more than
 * 64, a VP count above 4096) are held to the same rule.
 *
 * HVTLB_SEED sets the seed (printed), HVTLB_VPMASK_ROUNDS the inputs per
 * profile and VP count (default 2).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "hc-test.h"

#define DEFAULT_ROUNDS 2UL

static const uint16_t calls[] = {
	HVTLB_CALL_FLUSH_SPACE,	  HVTLB_CALL_FLUSH_LIST,
	HVTLB_CALL_SEND_IPI,	  HVTLB_CALL_FLUSH_SPACE_EX,
	HVTLB_CALL_FLUSH_LIST_EX, HVTLB_CALL_SEND_IPI_EX,
};

static uint64_t seed;

static bool coin(unsigned percent)
{
	return rng_below(&seed, 100) < percent;
}

/* A bank word: empty, full, one VP, sparse or dense. */
static uint64_t random_bank(void)
{
	switch (rng_below(&seed, 6)) {
	case 0:
		return 0;
	case 1:
		return ~0ULL;
	case 2:
		return 1ULL << rng_below(&seed, 64);
	case 3:
		return rng_next(&seed) & rng_next(&seed) & rng_next(&seed);
	default:
		return rng_next(&seed);
	}
}

/* A valid-banks mask: Linux's contiguous 2^n - 1, all 64, random, or
 * banks near a VP count edge. */
static uint64_t random_valid_mask(void)
{
	unsigned n = (unsigned)rng_below(&seed, 65);

	switch (rng_below(&seed, 5)) {
	case 0:
		return n == 64 ? ~0ULL : (1ULL << n) - 1;
	case 1:
		return ~0ULL;
	case 2:
		return rng_next(&seed) & rng_next(&seed);
	case 3:
		return 1ULL << rng_below(&seed, 64);
	default:
		return rng_next(&seed);
	}
}

/* Builds a call into @p im and returns its control word. Mostly valid,
 * so that most inputs decode; sometimes not, so that the profiles' odd
 * successes (KVM's empty sets, Xen's popcount) come up too. */
static uint64_t random_call(struct img *im)
{
	uint16_t call = calls[rng_below(&seed, 6)];
	bool ex = hvtlb_call_is_ex(call), ipi = !hvtlb_call_is_flush(call);
	bool fast = coin(20);
	uint64_t valid = 0, format = HVTLB_VPSET_SPARSE_4K;
	unsigned banks = 0, reps = 0, varhead;

	img_reset(im);
	if (ex) {
		valid = random_valid_mask();
		banks = (unsigned)__builtin_popcountll(valid);
		if (coin(5))
			format = HVTLB_VPSET_ALL;
		else if (coin(3))
			format = rng_below(&seed, 4);
	}
	if (ipi) {
		uint64_t vector = 0x10 + rng_below(&seed, 0xf0);

		if (coin(3))
			vector = rng_below(&seed, 0x10);
		img_word(im, vector);
	} else {
		uint64_t flags = 0;

		if (coin(10))
			flags |= HVTLB_FLUSH_ALL_PROCESSORS;
		if (coin(20))
			flags |= HVTLB_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES;
		img_words(im, 2, rng_next(&seed) & ~0xfffULL, flags);
	}
	if (ex) {
		img_words(im, 2, format, valid);
		for (unsigned i = 0; i < banks; i++)
			img_word(im, random_bank());
	} else {
		img_word(im, coin(10) ? 0 : random_bank());
	}
	if (hvtlb_call_is_rep(call)) {
		reps = 1 + (unsigned)rng_below(&seed, 20);
		for (unsigned i = 0; i < reps; i++)
			img_word(im, gva_simple(rng_next(&seed) & 0x7fffffff000,
						(unsigned)rng_below(&seed, 4)));
	}
	varhead = coin(95) ? banks : (unsigned)rng_below(&seed, 65);
	if (coin(5) && im->len >= 8)
		im->len -= 8 * (1 + rng_below(&seed, im->len / 8));
	return ctl_word(call, fast, varhead, reps, 0);
}

/* The VPs the single-step iterator returns, as a mask. */
static void iterated(const struct hvtlb_decoded *d, struct hvtlb_vpmask *m)
{
	struct hvtlb_vp_iter it;
	uint32_t vp;

	memset(m, 0, sizeof(*m));
	hvtlb_vp_iter_init(&it, d);
	while (hvtlb_vp_iter_next(&it, &vp)) {
		assert_true(vp < HVTLB_MAX_VPS);
		assert_false(hvtlb_vpmask_test(m, vp));
		hvtlb_vpmask_set(m, vp);
	}
}

/* The one rule: the mask holds exactly the iterator's VPs. */
static void check_mask(const struct hvtlb_decoded *d)
{
	uint32_t lim =
		d->vp_count < HVTLB_MAX_VPS ? d->vp_count : HVTLB_MAX_VPS;
	struct hvtlb_vpmask got, want, words;
	struct hvtlb_vp_iter it;
	uint32_t base;
	uint64_t bits;

	memset(&got, 0x5a, sizeof(got)); /* every word must be written */
	assert_int_equal(hvtlb_decoded_vpmask(d, &got), 0);
	iterated(d, &want);
	assert_memory_equal(&got, &want, sizeof(got));

	/* Nothing at or above the VP count (the iterator's own rule, checked
	 * here bit by bit rather than trusted). */
	for (uint32_t vp = lim; vp < HVTLB_MAX_VPS; vp++)
		assert_false(hvtlb_vpmask_test(&got, vp));

	memset(&words, 0, sizeof(words));
	hvtlb_vp_iter_init(&it, d);
	while (hvtlb_vp_iter_next_word(&it, &base, &bits))
		words.bits[base / 64] = bits;
	assert_memory_equal(&got, &words, sizeof(got));
}

static unsigned long rounds_from_env(void)
{
	const char *env = getenv("HVTLB_VPMASK_ROUNDS");
	unsigned long n = env && *env ? strtoul(env, NULL, 0) : 0;

	return n ? n : DEFAULT_ROUNDS;
}

static void seed_from_env(void)
{
	const char *env = getenv("HVTLB_SEED");

	seed = env && *env ? strtoull(env, NULL, 0)
			   : 0x7670ULL << 32 | 0x6d61736b;
}

static void test_decoded_vs_iterator(void **state)
{
	unsigned long rounds = rounds_from_env(), decoded = 0, total = 0;
	unsigned long per_profile[HVTLB_PROFILE_COUNT_] = { 0 };
	unsigned long all_vps = 0, partial = 0;
	struct img im;

	(void)state;
	seed_from_env();
	printf("# HVTLB_SEED=%#llx HVTLB_VPMASK_ROUNDS=%lu\n",
	       (unsigned long long)seed, rounds);
	for (int p = 0; p < HVTLB_PROFILE_COUNT_; p++) {
		for (uint32_t vps = 0; vps <= HVTLB_MAX_VPS; vps++) {
			struct hvtlb_host h = {
				.profile = (enum hvtlb_profile)p,
				.vp_count = vps,
			};

			for (unsigned long r = 0; r < rounds; r++) {
				struct hvtlb_decoded d;
				uint64_t ctl = random_call(&im);
				uint64_t res = decode_buf(&h, ctl, im.b, im.len,
							  0x10000, &d);

				total++;
				if (hvtlb_result_status(res) !=
				    HVTLB_STATUS_SUCCESS)
					continue;
				check_mask(&d);
				decoded++;
				per_profile[p]++;
				all_vps += d.all_vps;
				partial += !d.all_vps && vps % 64;
			}
		}
	}
	printf("# %lu inputs, %lu decoded (strict %lu, kvm %lu, xen %lu, "
	       "openvmm %lu), %lu with every VP, %lu sparse with a partial "
	       "last word\n",
	       total, decoded, per_profile[0], per_profile[1], per_profile[2],
	       per_profile[3], all_vps, partial);
	/* The generator must reach what it claims to test. */
	for (int p = 0; p < HVTLB_PROFILE_COUNT_; p++)
		assert_true(per_profile[p] * 4 >= rounds * (HVTLB_MAX_VPS + 1));
	assert_true(all_vps > 0 && partial > 0);
}

/* Sets a decoder never produces but a caller may build: the library reads
 * only banks[0 .. min(nbanks, 64)) and clips at 4096. */
static void test_hand_built(void **state)
{
	struct hvtlb_decoded d;

	(void)state;
	seed_from_env();
	for (int i = 0; i < 20000; i++) {
		memset(&d, 0, sizeof(d));
		d.valid_mask = random_valid_mask();
		d.nbanks = (uint32_t)rng_below(&seed, 80);
		for (unsigned b = 0; b < HVTLB_VPSET_BANKS; b++)
			d.banks[b] = random_bank();
		d.vp_count = (uint32_t)rng_below(&seed, 2 * HVTLB_MAX_VPS);
		d.all_vps = coin(5);
		check_mask(&d);
	}
}

/* A non-contiguous set with a partial last word, written out by hand. */
static void test_example(void **state)
{
	struct hvtlb_decoded d;
	struct hvtlb_vpmask m;

	(void)state;
	memset(&d, 0, sizeof(d));
	d.valid_mask = (1ULL << 0) | (1ULL << 2) | (1ULL << 3);
	d.nbanks = 3;
	d.banks[0] = 0x21;		   /* VPs 0, 5 */
	d.banks[1] = 0x4;		   /* VP 130 */
	d.banks[2] = (1ULL << 63) | 0x300; /* VPs 200, 201 and 255 */
	d.vp_count = 250;
	assert_int_equal(hvtlb_decoded_vpmask(&d, &m), 0);
	assert_int_equal(m.bits[0], 0x21);
	assert_int_equal(m.bits[1], 0);
	assert_int_equal(m.bits[2], 0x4);
	assert_int_equal(m.bits[3], 0x300); /* 255 is beyond the VM */
	for (unsigned b = 4; b < HVTLB_VPSET_BANKS; b++)
		assert_int_equal(m.bits[b], 0);

	d.all_vps = true;
	assert_int_equal(hvtlb_decoded_vpmask(&d, &m), 0);
	assert_int_equal(m.bits[0], ~0ULL);
	assert_int_equal(m.bits[3], (1ULL << 58) - 1); /* VPs 192..249 */
	assert_int_equal(m.bits[4], 0);

	d.vp_count = 0;
	assert_int_equal(hvtlb_decoded_vpmask(&d, &m), 0);
	for (unsigned b = 0; b < HVTLB_VPSET_BANKS; b++)
		assert_int_equal(m.bits[b], 0);
}

static void test_null(void **state)
{
	struct hvtlb_decoded d;
	struct hvtlb_vpmask m;

	(void)state;
	memset(&d, 0, sizeof(d));
	memset(&m, 0xff, sizeof(m));
	assert_int_equal(hvtlb_decoded_vpmask(NULL, &m), -HVTLB_EINVAL);
	for (unsigned b = 0; b < HVTLB_VPSET_BANKS; b++)
		assert_int_equal(m.bits[b], 0);
	assert_int_equal(hvtlb_decoded_vpmask(&d, NULL), -HVTLB_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_hand_built),
		cmocka_unit_test(test_decoded_vs_iterator),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
