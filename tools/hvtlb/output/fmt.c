// SPDX-License-Identifier: MIT
#include <inttypes.h>
#include <stdbool.h>

#include <hvtlb/hypercall.h>

#include "fmt.h"

void fmt_index_list(FILE *f, const uint64_t *bits, uint32_t nbits)
{
	const char *sep = "";
	uint32_t i = 0;

	while (i < nbits) {
		uint32_t lo;

		if (!((bits[i / 64] >> (i % 64)) & 1)) {
			i++;
			continue;
		}
		lo = i;
		while (i + 1 < nbits &&
		       ((bits[(i + 1) / 64] >> ((i + 1) % 64)) & 1))
			i++;
		if (i == lo)
			fprintf(f, "%s%" PRIu32, sep, lo);
		else
			fprintf(f, "%s%" PRIu32 "-%" PRIu32, sep, lo, i);
		sep = ",";
		i++;
	}
	if (!*sep)
		fputs("none", f);
}

const char *fmt_page_size_name(uint64_t bytes)
{
	switch (bytes) {
	case 1ULL << 12:
		return "4k";
	case 1ULL << 21:
		return "2m";
	case 1ULL << 30:
		return "1g";
	}
	return NULL;
}

void fmt_control(FILE *f, uint64_t control)
{
	uint16_t code = (uint16_t)(control & HVTLB_CTL_CODE_MASK);
	const char *name = hvtlb_call_name(code);
	uint64_t reserved = control & HVTLB_CTL_RESERVED_MASK;

	fprintf(f, "control 0x%016" PRIx64 "\n", control);
	fprintf(f, "  call       %s (0x%04x)\n", name ? name : "unknown", code);
	fprintf(f, "  fast       %s\n",
		control & HVTLB_CTL_FAST ? "yes" : "no");
	fprintf(f, "  varhead    %" PRIu64 "\n",
		(uint64_t)(control & HVTLB_CTL_VARHEAD_MASK) >>
			HVTLB_CTL_VARHEAD_SHIFT);
	fprintf(f, "  rep count  %" PRIu64 "\n",
		(uint64_t)(control & HVTLB_CTL_REP_COUNT_MASK) >>
			HVTLB_CTL_REP_COUNT_SHIFT);
	fprintf(f, "  rep start  %" PRIu64 "\n",
		(uint64_t)(control & HVTLB_CTL_REP_START_MASK) >>
			HVTLB_CTL_REP_START_SHIFT);
	if (control & HVTLB_CTL_NESTED)
		fprintf(f, "  nested     yes\n");
	if (reserved)
		fprintf(f, "  reserved   0x%016" PRIx64 "\n", reserved);
}

static void fmt_flags(FILE *f, uint64_t flags)
{
	const char *sep = " ";

	fputs("flags", f);
	for (unsigned b = 0; b < 64; b++) {
		uint64_t bit = 1ULL << b;
		const char *name;

		if (!(flags & bit))
			continue;
		name = hvtlb_flush_flag_name(bit);
		if (name)
			fprintf(f, "%s%s", sep, name);
		else
			fprintf(f, "%sreserved-bit-%u", sep, b);
		sep = ",";
	}
	if (!flags)
		fputs(" (none)", f);
}

static void fmt_gva_entry(FILE *f, uint64_t e, bool extended)
{
	uint64_t gva, pages;
	const char *size = "4k";
	bool reserved = false;

	if (!extended) {
		gva = e & ~0xfffULL;
		pages = (e & 0xfff) + 1;
	} else if (e & HVTLB_GVA_EXT_LARGE) {
		size = e & HVTLB_GVA_EXT_1G ? "1g" : "2m";
		gva = e & ~((1ULL << 21) - 1);
		pages = (e & 0x7ff) + 1;
		reserved = (e & HVTLB_GVA_EXT_RESERVED) != 0;
	} else {
		gva = e & ~0xfffULL;
		pages = (e & 0x7ff) + 1;
	}
	fprintf(f, "gva 0x%" PRIx64 " +%" PRIu64 " pages (%s)%s", gva, pages,
		size, reserved ? ", reserved bits set" : "");
}

/* The bank number of the @p k-th set bit of @p mask, or -1. */
static int nth_bank(uint64_t mask, unsigned k)
{
	for (int b = 0; b < 64; b++) {
		if ((mask >> b) & 1) {
			if (k == 0)
				return b;
			k--;
		}
	}
	return -1;
}

static void fmt_vpset_format(FILE *f, uint64_t format)
{
	if (format == HVTLB_VPSET_SPARSE_4K)
		fputs("vp set format sparse-4k", f);
	else if (format == HVTLB_VPSET_ALL)
		fputs("vp set format all", f);
	else
		fputs("vp set format unknown", f);
}

static void fmt_ipi_head(FILE *f, uint64_t w)
{
	fprintf(f, "vector 0x%02" PRIx64 ", target vtl %" PRIu64,
		w & 0xffffffff, (w >> 32) & 0xff);
	if (w >> 40)
		fputs(", padding not zero", f);
}

static void fmt_mask64(FILE *f, uint64_t w)
{
	fputs("processor mask (VPs ", f);
	fmt_index_list(f, &w, 64);
	fputc(')', f);
}

static const char *const fast_regs[HVTLB_FAST_WORDS] = {
	"rdx",	   "r8",      "xmm0.lo", "xmm0.hi", "xmm1.lo",
	"xmm1.hi", "xmm2.lo", "xmm2.hi", "xmm3.lo", "xmm3.hi",
	"xmm4.lo", "xmm4.hi", "xmm5.lo", "xmm5.hi",
};

void fmt_input_words(FILE *f, uint64_t control, const uint64_t *w, size_t n)
{
	uint16_t code = (uint16_t)(control & HVTLB_CTL_CODE_MASK);
	bool fast = control & HVTLB_CTL_FAST;
	size_t varhead = (uint64_t)(control & HVTLB_CTL_VARHEAD_MASK) >>
			 HVTLB_CTL_VARHEAD_SHIFT;
	size_t reps = (control & HVTLB_CTL_REP_COUNT_MASK) >>
		      HVTLB_CTL_REP_COUNT_SHIFT;
	bool flush = hvtlb_call_is_flush(code);
	bool ex = hvtlb_call_is_ex(code);
	bool rep = hvtlb_call_is_rep(code);
	bool extended = flush && n > 1 &&
			(w[1] & HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT);
	/* Index of the valid-banks mask and of the first bank word. */
	size_t mask_at = flush ? 3 : 2;
	size_t banks_at = mask_at + 1;
	size_t head = ex ? banks_at + varhead : flush ? 3 : 2;

	for (size_t i = 0; i < n; i++) {
		fprintf(f, "input[%zu] 0x%016" PRIx64 "  ", i, w[i]);
		if (fast && i < HVTLB_FAST_WORDS)
			fprintf(f, "[%s] ", fast_regs[i]);
		if (!hvtlb_call_name(code)) {
			fputs("? (unknown call)", f);
		} else if (i == 0 && flush) {
			fputs("address space", f);
		} else if (i == 1 && flush) {
			fmt_flags(f, w[i]);
		} else if (i == 0) {
			fmt_ipi_head(f, w[i]);
		} else if (!ex && i == head - 1) {
			fmt_mask64(f, w[i]);
		} else if (ex && i == mask_at - 1) {
			fmt_vpset_format(f, w[i]);
		} else if (ex && i == mask_at) {
			fputs("valid banks mask", f);
		} else if (ex && i < head) {
			int b = nth_bank(w[mask_at], (unsigned)(i - banks_at));

			if (b < 0)
				fputs("bank ? (more banks than the mask names)",
				      f);
			else
				fprintf(f, "bank %d (VPs %d..%d)", b, b * 64,
					b * 64 + 63);
		} else if (rep && i < head + reps) {
			fmt_gva_entry(f, w[i], extended);
		} else {
			fputs("unused", f);
		}
		fputc('\n', f);
	}
}
