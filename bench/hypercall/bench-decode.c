// SPDX-License-Identifier: MIT
/*
 * Decoding and iterating a full 4 KiB ListEx input against a plain 4 KiB
 * memcpy, in the same process, interleaved; medians of BENCH_REPS timings.
 * Forms timed: the one-at-a-time iterators; the VP word iterator with
 * hvtlb_gva_iter_fill() (24-byte ranges); the VP word iterator with
 * hvtlb_gva_iter_fill_raw() (every entry checked and copied out in host
 * order); and that plus reading every entry back with the inline accessors
 * (the caller's own loop). Exits 1 when the fastest form that hands every
 * VP and every range to the caller, word + fill_raw, is above 3x memcpy.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <hvtlb/hypercall.h>

#include "bench.h"

#define MAX_RATIO 3.0
#define N 20000

static struct hvtlb_encoded enc;
static uint8_t dst[HVTLB_PAGE_BYTES] __attribute__((aligned(64)));
static uint64_t sink;

enum {
	DECODE_ONLY,
	DECODE_VPS,
	DECODE_ALL,
	DECODE_BATCH,
	DECODE_RAW,
	DECODE_RAW_USE
};

/* Time per decode (+ VP iteration, + GVA iteration) of @p in, in ns. */
static double time_decode(const struct hvtlb_host *h,
			  const struct hvtlb_input *in, int what)
{
	struct hvtlb_decoded d;
	uint64_t t0 = bench_now_ns(), acc = 0;

	for (unsigned i = 0; i < N; i++) {
		struct hvtlb_vp_iter vi;
		struct hvtlb_gva_iter gi;
		struct hvtlb_gva_range r, batch[64];
		uint64_t raw[HVTLB_LIST_EX_CAPACITY(1)];
		uint32_t vp;
		uint64_t bits;
		size_t n;

		bench_clobber(in->data);
		acc += hvtlb_decode(h, enc.control, in, &d);
		if (what == DECODE_ONLY)
			continue;
		if (what == DECODE_RAW || what == DECODE_RAW_USE) {
			/* Word VPs; every entry checked and copied out in
			 * host order; for DECODE_RAW_USE also read back with
			 * the inline accessors, as a host with a flush FIFO
			 * would, testing the call's format once. */
			hvtlb_vp_iter_init(&vi, &d);
			while (hvtlb_vp_iter_next_word(&vi, &vp, &bits))
				acc += vp + bits;
			hvtlb_gva_iter_init(&gi, &d);
			while ((n = hvtlb_gva_iter_fill_raw(
					&gi, raw, HVTLB_LIST_EX_CAPACITY(1)))) {
				bench_clobber(raw);
				acc += n;
				if (what == DECODE_RAW)
					continue;
				if (!d.extended)
					for (size_t k = 0; k < n; k++)
						acc += hvtlb_gva_entry_gva(
							       raw[k], false) ^
						       hvtlb_gva_entry_pages(
							       raw[k], false);
				else
					for (size_t k = 0; k < n; k++)
						acc += hvtlb_gva_entry_gva(
							       raw[k], true) ^
						       hvtlb_gva_entry_pages(
							       raw[k], true);
			}
			continue;
		}
		if (what == DECODE_BATCH) {
			/* The word and batch forms of both iterators. */
			hvtlb_vp_iter_init(&vi, &d);
			while (hvtlb_vp_iter_next_word(&vi, &vp, &bits))
				acc += vp + bits;
			hvtlb_gva_iter_init(&gi, &d);
			while ((n = hvtlb_gva_iter_fill(&gi, batch, 64)))
				for (size_t k = 0; k < n; k++)
					acc += batch[k].gva ^ batch[k].pages;
			continue;
		}
		hvtlb_vp_iter_init(&vi, &d);
		while (hvtlb_vp_iter_next(&vi, &vp))
			acc += vp;
		if (what == DECODE_VPS)
			continue;
		hvtlb_gva_iter_init(&gi, &d);
		while (hvtlb_gva_iter_next(&gi, &r))
			acc += r.gva ^ r.pages;
	}
	sink += acc;
	return (double)(bench_now_ns() - t0) / N;
}

static double time_memcpy(const uint8_t *src)
{
	uint64_t t0 = bench_now_ns();

	for (unsigned i = 0; i < N; i++) {
		bench_clobber(src);
		memcpy(dst, src, HVTLB_PAGE_BYTES);
		bench_clobber(dst);
	}
	return (double)(bench_now_ns() - t0) / N;
}

int main(void)
{
	static struct hvtlb_gva_range ranges[HVTLB_LIST_EX_CAPACITY(1)];
	struct hvtlb_host host = { .profile = HVTLB_PROFILE_STRICT,
				   .vp_count = HVTLB_MAX_VPS };
	struct hvtlb_vpmask m;
	struct hvtlb_call_desc desc;
	struct hvtlb_input in;
	struct hvtlb_decoded d;
	double td[BENCH_REPS], tm[BENCH_REPS], t0[BENCH_REPS], t1[BENCH_REPS];
	double tb[BENCH_REPS], tr[BENCH_REPS], tu[BENCH_REPS];
	double md, mm, m0, m1, mb, mr, mu;
	uint64_t res;
	int rc;

	/* 64 target VPs in one bank, 507 entries of 1..16 pages. */
	memset(&m, 0, sizeof(m));
	for (uint32_t vp = 0; vp < 64; vp++)
		hvtlb_vpmask_set(&m, vp);
	for (unsigned i = 0; i < HVTLB_LIST_EX_CAPACITY(1); i++) {
		ranges[i].gva = 0x7f0000000000ULL + 0x100000ULL * i;
		ranges[i].pages = 1 + i % 16;
		ranges[i].size = HVTLB_PAGE_4K;
	}
	memset(&desc, 0, sizeof(desc));
	desc.call = HVTLB_CALL_FLUSH_LIST_EX;
	desc.address_space = 0x1000;
	desc.vps = &m;
	desc.ranges = ranges;
	desc.nranges = HVTLB_LIST_EX_CAPACITY(1);
	rc = hvtlb_encode(&desc, &enc);
	if (rc || enc.len != HVTLB_PAGE_BYTES) {
		fprintf(stderr, "encode: %d, len %zu\n", rc, enc.len);
		return 2;
	}
	in.data = enc.input;
	in.len = enc.len;
	in.gpa = 0x200000;
	res = hvtlb_decode(&host, enc.control, &in, &d);
	if (hvtlb_result_status(res) || d.gva_count != desc.nranges) {
		fprintf(stderr, "decode: %#" PRIx64 "\n", res);
		return 2;
	}

	time_decode(&host, &in, DECODE_ALL); /* warm up */
	time_memcpy(enc.input);
	for (int r = 0; r < BENCH_REPS; r++) {
		td[r] = time_decode(&host, &in, DECODE_ALL);
		tm[r] = time_memcpy(enc.input);
		t0[r] = time_decode(&host, &in, DECODE_ONLY);
		t1[r] = time_decode(&host, &in, DECODE_VPS);
		tb[r] = time_decode(&host, &in, DECODE_BATCH);
		tr[r] = time_decode(&host, &in, DECODE_RAW);
		tu[r] = time_decode(&host, &in, DECODE_RAW_USE);
	}
	md = bench_median(td, BENCH_REPS);
	mm = bench_median(tm, BENCH_REPS);
	m0 = bench_median(t0, BENCH_REPS);
	m1 = bench_median(t1, BENCH_REPS);
	mb = bench_median(tb, BENCH_REPS);
	mr = bench_median(tr, BENCH_REPS);
	mu = bench_median(tu, BENCH_REPS);
	printf("# full 4 KiB ListEx (1 bank, 64 VPs, %u entries): decode + "
	       "every VP and every range vs memcpy, median of %d runs\n",
	       HVTLB_LIST_EX_CAPACITY(1), BENCH_REPS);
	printf("decode only          %8.1f ns\n"
	       "+ VP iterator        %8.1f ns\n",
	       m0, m1);
	printf("one at a time        %8.1f ns (%.2f ns per entry) %6.2fx\n", md,
	       md / HVTLB_LIST_EX_CAPACITY(1), md / mm);
	printf("word + fill          %8.1f ns (%.2f ns per entry) %6.2fx\n", mb,
	       mb / HVTLB_LIST_EX_CAPACITY(1), mb / mm);
	printf("word + fill_raw      %8.1f ns (%.2f ns per entry) %6.2fx\n", mr,
	       mr / HVTLB_LIST_EX_CAPACITY(1), mr / mm);
	printf("  + reading entries  %8.1f ns (%.2f ns per entry) %6.2fx\n", mu,
	       mu / HVTLB_LIST_EX_CAPACITY(1), mu / mm);
	printf("memcpy 4 KiB         %8.1f ns\n", mm);
	printf("ratio (fill_raw)     %8.2fx (limit %.0fx)\n", mr / mm,
	       MAX_RATIO);
	printf("%s\n", mr / mm <= MAX_RATIO ? "PASS" : "FAIL");
	return mr / mm <= MAX_RATIO ? 0 : 1;
}
