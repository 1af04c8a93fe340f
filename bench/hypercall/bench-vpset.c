// SPDX-License-Identifier: MIT
/*
 * hvtlb_vpset_build (word at a time) against the naive loop Linux's
 * cpumask-to-VP-set conversion amounts to when written bit at a time: for
 * each of the 4096 bits that is set, compute bank and bit and set it, then
 * a contiguous valid-banks mask up to the highest bank. Both run in the
 * same process, interleaved, for several densities; the median of
 * BENCH_REPS timings of each is reported with their ratio. Exits 1 when a
 * ratio is below 10x.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <hvtlb/hypercall.h>

#include "bench.h"

#define MASKS 16 /* different bitmaps, cycled */
#define MIN_RATIO 10.0

static struct hvtlb_vpmask masks[MASKS];

/* The reference loop: one bit at a time over the whole bitmap. */
static unsigned naive_build(const struct hvtlb_vpmask *m, uint64_t *valid,
			    uint64_t banks[HVTLB_VPSET_BANKS])
{
	unsigned nr_bank = 0;

	memset(banks, 0, HVTLB_VPSET_BANKS * sizeof(*banks));
	for (unsigned vp = 0; vp < HVTLB_MAX_VPS; vp++) {
		unsigned bank, bit;

		if (!((m->bits[vp / 64] >> (vp % 64)) & 1))
			continue;
		bank = vp / 64;
		bit = vp % 64;
		banks[bank] |= 1ULL << bit;
		if (bank >= nr_bank)
			nr_bank = bank + 1;
	}
	if (!nr_bank)
		nr_bank = 1;
	*valid = nr_bank == 64 ? ~0ULL : (1ULL << nr_bank) - 1;
	return nr_bank;
}

static uint64_t rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Fills the masks with @p nvps random VPs each (all of them for 4096). */
static void fill(unsigned nvps, uint64_t seed)
{
	for (int i = 0; i < MASKS; i++) {
		memset(&masks[i], 0, sizeof(masks[i]));
		if (nvps >= HVTLB_MAX_VPS) {
			memset(&masks[i], 0xff, sizeof(masks[i]));
			continue;
		}
		for (unsigned k = 0; k < nvps; k++)
			hvtlb_vpmask_set(&masks[i], (uint32_t)(rng(&seed) %
							       HVTLB_MAX_VPS));
	}
}

/* The two agree (Linux style) on every mask. */
static int check(void)
{
	for (int i = 0; i < MASKS; i++) {
		uint64_t b1[64], b2[64], v1, v2;
		unsigned n1 = hvtlb_vpset_build(&masks[i], HVTLB_VPSET_LINUX,
						&v1, b1);
		unsigned n2 = naive_build(&masks[i], &v2, b2);

		if (n1 != n2 || v1 != v2 || memcmp(b1, b2, n1 * 8))
			return -1;
	}
	return 0;
}

static double time_lib(unsigned n, enum hvtlb_vpset_style style)
{
	uint64_t banks[64], valid, t0;

	t0 = bench_now_ns();
	for (unsigned i = 0; i < n; i++) {
		hvtlb_vpset_build(&masks[i % MASKS], style, &valid, banks);
		bench_clobber(banks);
	}
	return (double)(bench_now_ns() - t0) / n;
}

static double time_naive(unsigned n)
{
	uint64_t banks[64], valid, t0;

	t0 = bench_now_ns();
	for (unsigned i = 0; i < n; i++) {
		bench_clobber(&masks[i % MASKS]);
		naive_build(&masks[i % MASKS], &valid, banks);
		bench_clobber(banks);
	}
	return (double)(bench_now_ns() - t0) / n;
}

int main(void)
{
	static const unsigned density[] = { 1, 8, 41, 410, 2048, 4096 };
	int bad = 0;

	printf("# vpset_build vs naive bit-at-a-time loop, 4096-bit bitmap, "
	       "median of %d runs (ns per build)\n",
	       BENCH_REPS);
	printf("%-8s %12s %12s %12s %9s %9s\n", "vps", "compact", "linux-style",
	       "naive", "ratio", "ratio-lx");
	for (size_t d = 0; d < sizeof(density) / sizeof(density[0]); d++) {
		double tc[BENCH_REPS], tl[BENCH_REPS], tn[BENCH_REPS];
		double mc, ml, mn;

		fill(density[d], 0x1234 + d);
		if (check()) {
			fprintf(stderr, "naive and library disagree\n");
			return 2;
		}
		time_lib(20000, HVTLB_VPSET_COMPACT); /* warm up */
		time_naive(200);
		for (int r = 0; r < BENCH_REPS; r++) {
			tc[r] = time_lib(200000, HVTLB_VPSET_COMPACT);
			tn[r] = time_naive(4000);
			tl[r] = time_lib(200000, HVTLB_VPSET_LINUX);
		}
		mc = bench_median(tc, BENCH_REPS);
		ml = bench_median(tl, BENCH_REPS);
		mn = bench_median(tn, BENCH_REPS);
		printf("%-8u %12.1f %12.1f %12.1f %8.1fx %8.1fx\n", density[d],
		       mc, ml, mn, mn / mc, mn / ml);
		if (mn / mc < MIN_RATIO || mn / ml < MIN_RATIO)
			bad = 1;
	}
	printf("%s: every ratio >= %.0fx\n", bad ? "FAIL" : "PASS", MIN_RATIO);
	return bad;
}
