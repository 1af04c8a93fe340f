// SPDX-License-Identifier: MIT
/*
 * A host's whole job on a maximal 4 KiB ListEx input (64 banks naming every
 * one of 4,096 VPs, then 444 simple entries of 1..16 pages: exactly 4,096
 * bytes) against a 4 KiB memcpy of the same bytes. Every form is timed
 * interleaved with the others in this process, in CPU time of this thread,
 * and the median of BENCH_REPS timings is reported.
 *
 * The bar: hvtlb_decode + hvtlb_decoded_vpmask + hvtlb_gva_iter_fill_raw
 * (the targets as a mask, the entries as a list) within MAX_RATIO times
 * the memcpy, with the raw path instance the library picks for this CPU;
 * each instance this build and CPU have is also timed on its own. The
 * single-step and word iterators each have a budget per element they hand
 * out: (median of decode + iterator - median of decode) / elements. Exits
 * 1 when the bar or a budget is missed.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <hvtlb/hypercall.h>

#include "bench.h"
#include "hypercall/wire.h" /* hv_gva_raw_select() */

#define MAX_RATIO 3.0
#define ENTRIES HVTLB_LIST_EX_CAPACITY(HVTLB_VPSET_BANKS) /* 444 */

static struct hvtlb_encoded enc;
static struct hvtlb_host host = { .profile = HVTLB_PROFILE_STRICT,
				  .vp_count = HVTLB_MAX_VPS };
static struct hvtlb_input in;
static uint8_t dst[HVTLB_PAGE_BYTES] __attribute__((aligned(64)));
static uint64_t raw[ENTRIES];
static struct hvtlb_gva_range ranges[64];
static struct hvtlb_vpmask mask;
static uint64_t sink;

enum form {
	F_MEMCPY,
	F_DECODE,
	F_BULK,
	F_BULK_V16,
	F_BULK_AVX2,
	F_BULK_AVX512,
	F_VPMASK,
	F_RAW,
	F_VP_NEXT,
	F_VP_WORD,
	F_GVA_NEXT,
	F_GVA_FILL,
	F_COUNT
};

static const struct form_info {
	const char *what;
	unsigned iters;	   /* per timing: a few ms of CPU each */
	unsigned elements; /* what a budget is per (0: none) */
	const char *per;
	double budget; /* ns per element */
} forms[F_COUNT] = {
	[F_MEMCPY] = { "memcpy 4 KiB", 50000, 0, NULL, 0 },
	[F_DECODE] = { "decode only", 50000, 0, NULL, 0 },
	[F_BULK] = { "decode + vpmask + fill_raw", 20000, 0, NULL, 0 },
	[F_BULK_V16] = { "  the same, 16-byte vectors", 20000, 0, NULL, 0 },
	[F_BULK_AVX2] = { "  the same, AVX2", 20000, 0, NULL, 0 },
	[F_BULK_AVX512] = { "  the same, AVX-512", 20000, 0, NULL, 0 },
	[F_VPMASK] = { "decode + vpmask", 20000, 0, NULL, 0 },
	[F_RAW] = { "decode + fill_raw", 20000, 0, NULL, 0 },
	[F_VP_NEXT] = { "decode + vp_iter_next", 500, HVTLB_MAX_VPS, "VP",
			3.0 },
	[F_VP_WORD] = { "decode + vp_iter_next_word", 20000, HVTLB_VPSET_BANKS,
			"word", 5.0 },
	[F_GVA_NEXT] = { "decode + gva_iter_next", 2000, ENTRIES, "entry",
			 4.0 },
	[F_GVA_FILL] = { "decode + gva_iter_fill", 4000, ENTRIES, "entry",
			 3.0 },
};

static uint64_t decode(struct hvtlb_decoded *d)
{
	bench_clobber(in.data);
	return hvtlb_decode(&host, enc.control, &in, d);
}

/* One decode and whatever @p f does with it; returns something derived
 * from every element, so that none of the work can be dropped. */
static uint64_t run_once(enum form f)
{
	struct hvtlb_decoded d;
	struct hvtlb_vp_iter vi;
	struct hvtlb_gva_iter gi;
	struct hvtlb_gva_range r;
	uint64_t acc = decode(&d), bits;
	uint32_t vp;
	size_t n;

	switch (f) {
	case F_BULK:
	case F_BULK_V16:
	case F_BULK_AVX2:
	case F_BULK_AVX512:
	case F_VPMASK:
	case F_RAW:
		if (f != F_RAW) {
			acc += (uint64_t)hvtlb_decoded_vpmask(&d, &mask);
			bench_clobber(&mask);
		}
		if (f != F_VPMASK) {
			hvtlb_gva_iter_init(&gi, &d);
			acc += hvtlb_gva_iter_fill_raw(&gi, raw, ENTRIES);
			bench_clobber(raw);
		}
		break;
	case F_VP_NEXT:
		hvtlb_vp_iter_init(&vi, &d);
		while (hvtlb_vp_iter_next(&vi, &vp))
			acc += vp;
		break;
	case F_VP_WORD:
		hvtlb_vp_iter_init(&vi, &d);
		while (hvtlb_vp_iter_next_word(&vi, &vp, &bits))
			acc += vp ^ bits;
		break;
	case F_GVA_NEXT:
		hvtlb_gva_iter_init(&gi, &d);
		while (hvtlb_gva_iter_next(&gi, &r))
			acc += r.gva ^ r.pages;
		break;
	case F_GVA_FILL:
		hvtlb_gva_iter_init(&gi, &d);
		while ((n = hvtlb_gva_iter_fill(&gi, ranges, 64)))
			for (size_t k = 0; k < n; k++)
				acc += ranges[k].gva ^ ranges[k].pages;
		break;
	default:
		break;
	}
	return acc;
}

/* The raw fast path instance a form forces (1 16-byte, 2 AVX2, 3 AVX-512),
 * or 0: the one the library picks. */
static int form_isa(enum form f)
{
	return f == F_BULK_V16	    ? 1
	       : f == F_BULK_AVX2   ? 2
	       : f == F_BULK_AVX512 ? 3
				    : 0;
}

/* CPU ns per iteration of form @p f; NAN when this build or CPU lacks the
 * instance it forces. */
static double time_form(enum form f)
{
	unsigned iters = forms[f].iters;
	uint64_t t0, acc = 0;

	if (form_isa(f) && hv_gva_raw_select(form_isa(f)) != form_isa(f)) {
		hv_gva_raw_select(0);
		return NAN;
	}
	t0 = bench_cpu_ns();

	if (f == F_MEMCPY) {
		for (unsigned i = 0; i < iters; i++) {
			bench_clobber(enc.input);
			memcpy(dst, enc.input, HVTLB_PAGE_BYTES);
			bench_clobber(dst);
		}
	} else {
		for (unsigned i = 0; i < iters; i++)
			acc += run_once(f);
	}
	sink += acc;
	t0 = bench_cpu_ns() - t0;
	hv_gva_raw_select(0);
	return (double)t0 / iters;
}

/* The maximal page; 2 when it does not come out as one. */
static int build_input(void)
{
	static struct hvtlb_gva_range r[ENTRIES];
	struct hvtlb_call_desc desc;
	struct hvtlb_decoded d;
	struct hvtlb_vpmask all;
	uint64_t res;
	int rc;

	memset(&all, 0xff, sizeof(all));
	for (unsigned i = 0; i < ENTRIES; i++) {
		r[i].gva = 0x7f0000000000ULL + 0x100000ULL * i;
		r[i].pages = 1 + i % 16;
		r[i].size = HVTLB_PAGE_4K;
	}
	memset(&desc, 0, sizeof(desc));
	desc.call = HVTLB_CALL_FLUSH_LIST_EX;
	desc.address_space = 0x1000;
	desc.vps = &all;
	desc.ranges = r;
	desc.nranges = ENTRIES;
	rc = hvtlb_encode(&desc, &enc);
	if (rc || enc.len != HVTLB_PAGE_BYTES) {
		fprintf(stderr, "encode: %d, len %zu\n", rc, enc.len);
		return 2;
	}
	in.data = enc.input;
	in.len = enc.len;
	in.gpa = 0x200000;
	res = decode(&d);
	if (hvtlb_result_status(res) || d.nbanks != HVTLB_VPSET_BANKS ||
	    d.all_vps || d.gva_count != ENTRIES) {
		fprintf(stderr, "decode: %#" PRIx64 "\n", res);
		return 2;
	}
	/* What is timed gives every VP and every entry. */
	hvtlb_decoded_vpmask(&d, &mask);
	for (unsigned b = 0; b < HVTLB_VPSET_BANKS; b++)
		if (mask.bits[b] != ~0ULL)
			return 2;
	return 0;
}

int main(void)
{
	static double t[F_COUNT][BENCH_REPS];
	double med[F_COUNT], ratio;
	int bad, rc = build_input();

	if (rc)
		return rc;
	for (int f = 0; f < F_COUNT; f++) /* warm up */
		time_form((enum form)f);
	for (int r = 0; r < BENCH_REPS; r++)
		for (int f = 0; f < F_COUNT; f++)
			t[f][r] = time_form((enum form)f);
	for (int f = 0; f < F_COUNT; f++)
		med[f] = bench_median(t[f], BENCH_REPS);

	ratio = med[F_BULK] / med[F_MEMCPY];
	bad = ratio > MAX_RATIO;
	printf("# maximal 4 KiB ListEx: 64 banks, %u VPs, %u entries; CPU time "
	       "per call, median of %d, forms interleaved\n",
	       HVTLB_MAX_VPS, ENTRIES, BENCH_REPS);
	for (int f = 0; f < F_COUNT; f++) {
		const struct form_info *fi = &forms[f];

		if (isnan(med[f]))
			continue; /* an instance this build or CPU lacks */
		printf("%-28s %9.1f ns %7.2fx memcpy", fi->what, med[f],
		       med[f] / med[F_MEMCPY]);
		if (fi->elements) {
			double per = (med[f] - med[F_DECODE]) / fi->elements;

			printf("  %6.2f ns per %s (budget %.1f)", per, fi->per,
			       fi->budget);
			if (per > fi->budget) {
				printf(" OVER");
				bad = 1;
			}
		}
		printf("\n");
	}
	printf("ratio decode + vpmask + fill_raw / memcpy: %.2fx (limit "
	       "%.0fx)\n",
	       ratio, MAX_RATIO);
	printf("%s\n", bad ? "FAIL" : "PASS");
	return bad;
}
