// SPDX-License-Identifier: MIT
/*
 * Property test: for seeded random call descriptions, decode(encode(x)) == x
 * under the strict profile: the same call, flags, address space (PCID
 * cleared), vector and VTL, the same VP set, and the same set of bytes
 * covered by the GVA ranges after rounding outwards. Whether the encoder
 * must refuse (-ERANGE, -ENOSPC) is computed here independently, and so is
 * what hvtlb_encode_suggest() must say. At the end, at least half of the
 * descriptions must have been decoded and compared, and every outcome and
 * every shape (List, extended entries, fast, several banks, every VP, IPI)
 * must have come up: a drifting generator cannot pass by testing nothing.
 *
 * HVTLB_SEED sets the seed (printed at start), HVTLB_PROPERTY_ITERS the
 * number of descriptions: 1,000,000 by default, also under ASan+UBSan
 * (about 1 s of CPU in a normal build, 2.5 s with sanitizers).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "hc-test.h"

#define DEFAULT_ITERS 1000000UL

#define MAX_RANGES 600
#define CANON_TOP (1ULL << 47) /* 48-bit VA: lower half [0, 2^47) */

struct interval {
	uint64_t first, last; /* inclusive bytes */
};

struct sample {
	struct hvtlb_call_desc d;
	struct hvtlb_vpmask vps;
	struct hvtlb_gva_range r[MAX_RANGES];
	bool empty_set; /* sparse set with no VP and no "all" */
	bool needs_ex;	/* non-Ex call naming a VP >= 64 */
	unsigned nbanks;
	size_t entries;
};

static struct sample s;
static struct hvtlb_encoded enc;
static struct interval want_iv[MAX_RANGES * 4], got_iv[MAX_RANGES * 8];
static uint64_t seed;
static unsigned long iter;

static const uint16_t calls[] = {
	HVTLB_CALL_FLUSH_SPACE,	  HVTLB_CALL_FLUSH_LIST,
	HVTLB_CALL_SEND_IPI,	  HVTLB_CALL_FLUSH_SPACE_EX,
	HVTLB_CALL_FLUSH_LIST_EX, HVTLB_CALL_SEND_IPI_EX,
};

static uint64_t coin(unsigned percent)
{
	return rng_below(&seed, 100) < percent;
}

static void gen_vps(bool ex)
{
	memset(&s.vps, 0, sizeof(s.vps));
	if (coin(8))
		return; /* empty */
	if (!ex) {
		s.vps.bits[0] = rng_next(&seed) & rng_next(&seed);
		if (coin(5))
			hvtlb_vpmask_set(&s.vps,
					 64 + (uint32_t)rng_below(&seed, 4032));
		return;
	}
	unsigned nb = coin(70) ? 1 + (unsigned)rng_below(&seed, 4)
			       : (unsigned)rng_below(&seed, 65);
	for (unsigned i = 0; i < nb; i++) {
		uint64_t w = rng_next(&seed);

		if (coin(50))
			w &= rng_next(&seed) & rng_next(&seed);
		s.vps.bits[rng_below(&seed, 64)] |= w;
	}
	if (coin(10))
		hvtlb_vpmask_set(&s.vps, 4095);
}

/* One canonical range (48-bit) that does not wrap. */
static void gen_range(struct hvtlb_gva_range *r, bool ext, bool small)
{
	enum hvtlb_page_size size = HVTLB_PAGE_4K;
	unsigned shift;
	uint64_t pages, span, base;

	/* The simple format lists large pages as their 4 KiB pages. */
	if (coin(ext ? 40 : 5))
		size = coin(ext ? 50 : 90) ? HVTLB_PAGE_2M : HVTLB_PAGE_1G;
	shift = hvtlb_page_shift(size);
	switch (rng_below(&seed, 10)) {
	case 0:
	case 1:
		pages = 1 + rng_below(&seed, 9000);
		break;
	case 2:
		pages = 4095 + rng_below(&seed, 3); /* split edges */
		break;
	case 3:
		pages = 2047 + rng_below(&seed, 3);
		break;
	default:
		pages = 1 + rng_below(&seed, 16);
	}
	if (small)
		pages = 1 + rng_below(&seed, 2);
	/* +1 page of slack for the outward rounding of an unaligned start. */
	span = (pages + 1) << shift;
	if (coin(50)) {
		base = rng_below(&seed, CANON_TOP - span);
	} else if (coin(80)) {
		base = 0 - CANON_TOP + rng_below(&seed, CANON_TOP - span);
	} else {
		/* Ending at (or just below) the top of the address space. */
		base = 0 - ((pages + 1) << shift);
		if (coin(50))
			base += 1ULL << shift;
	}
	if (coin(70))
		base &= ~((1ULL << shift) - 1);
	else if (coin(50))
		base &= ~0xfffULL;
	if (base + (pages << shift) - 1 < base) /* would wrap: pull back */
		base -= 1ULL << shift;
	r->gva = base;
	r->pages = pages;
	r->size = size;
}

/* Entries one range needs, computed from scratch. */
static uint64_t entries_for(const struct hvtlb_gva_range *r, bool ext,
			    struct interval *iv)
{
	unsigned shift = hvtlb_page_shift(r->size);
	uint64_t ps = 1ULL << shift;
	uint64_t first = r->gva & ~(ps - 1);
	uint64_t last = (r->gva + (r->pages << shift) - 1) | (ps - 1);
	uint64_t n = (last - first) / ps + 1;

	iv->first = first;
	iv->last = last;
	if (!ext)
		return (n * (ps >> 12) + 4095) / 4096;
	return (n + 2047) / 2048;
}

static unsigned banks_for(const struct hvtlb_vpmask *m,
			  enum hvtlb_vpset_style style)
{
	unsigned n = 0, top = 0;

	for (unsigned b = 0; b < 64; b++) {
		if (m->bits[b]) {
			n++;
			top = b + 1;
		}
	}
	if (style == HVTLB_VPSET_LINUX)
		return top ? top : 1;
	return n;
}

static size_t gen(void)
{
	struct hvtlb_call_desc *d = &s.d;
	bool ex, list, flush;
	size_t niv = 0;

	memset(d, 0, sizeof(*d));
	d->call = calls[rng_below(&seed, 6)];
	ex = hvtlb_call_is_ex(d->call);
	list = hvtlb_call_is_rep(d->call);
	flush = hvtlb_call_is_flush(d->call);
	d->fast = coin(25);
	d->vpset_style = coin(30) ? HVTLB_VPSET_LINUX : HVTLB_VPSET_COMPACT;
	if (flush) {
		d->address_space = rng_next(&seed);
		if (coin(15))
			d->flags |= HVTLB_FLUSH_ALL_PROCESSORS;
		if (coin(20))
			d->flags |= HVTLB_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES;
		if (!list && coin(50))
			d->flags |= HVTLB_FLUSH_NON_GLOBAL_MAPPINGS_ONLY;
		if (list && coin(40))
			d->flags |= HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT;
	} else {
		d->vector = 0x10 + (uint32_t)rng_below(&seed, 0xf0);
		d->target_vtl = (uint8_t)rng_below(&seed, 3);
	}
	gen_vps(ex);
	d->vps = &s.vps;
	if (ex && !(d->flags & HVTLB_FLUSH_ALL_PROCESSORS) && coin(10)) {
		d->all_vps = true;
		if (coin(50))
			d->vps = NULL;
	}
	if (d->flags & HVTLB_FLUSH_ALL_PROCESSORS && coin(50))
		d->vps = NULL;

	bool all = d->all_vps || (d->flags & HVTLB_FLUSH_ALL_PROCESSORS);
	bool empty = true;
	for (unsigned b = 0; b < 64; b++)
		empty &= !s.vps.bits[b];
	s.empty_set = !all && empty;
	s.needs_ex = !ex && !all;
	if (s.needs_ex) {
		s.needs_ex = false;
		for (unsigned b = 1; b < 64; b++)
			s.needs_ex |= s.vps.bits[b] != 0;
	}
	s.nbanks = ex && !all ? banks_for(&s.vps, d->vpset_style) : 0;

	s.entries = 0;
	if (list) {
		bool ext = d->flags & HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT;
		size_t n = coin(3) ? 1 + rng_below(&seed, MAX_RANGES)
				   : 1 + rng_below(&seed, 6);

		if (d->fast && coin(80))
			n = 1 + rng_below(&seed, 4);
		for (size_t i = 0; i < n; i++) {
			gen_range(&s.r[i], ext, n > 20);
			s.entries += entries_for(&s.r[i], ext, &want_iv[niv++]);
		}
		d->ranges = s.r;
		d->nranges = n;
	}
	return niv;
}

static size_t header_bytes(uint16_t call)
{
	switch (call) {
	case HVTLB_CALL_FLUSH_SPACE:
	case HVTLB_CALL_FLUSH_LIST:
		return HVTLB_FLUSH_HDR_BYTES;
	case HVTLB_CALL_FLUSH_SPACE_EX:
	case HVTLB_CALL_FLUSH_LIST_EX:
		return HVTLB_FLUSH_EX_HDR_BYTES;
	case HVTLB_CALL_SEND_IPI:
		return HVTLB_IPI_HDR_BYTES;
	default:
		return HVTLB_IPI_EX_HDR_BYTES;
	}
}

static int cmp_iv(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return x->last < y->last ? -1 : x->last > y->last;
}

/* Sorts and merges overlapping or touching intervals in place. */
static size_t merge(struct interval *iv, size_t n)
{
	size_t k = 0;

	if (!n)
		return 0;
	qsort(iv, n, sizeof(*iv), cmp_iv);
	for (size_t i = 1; i < n; i++) {
		if (iv[i].first <= iv[k].last ||
		    (iv[k].last != UINT64_MAX &&
		     iv[i].first == iv[k].last + 1)) {
			if (iv[i].last > iv[k].last)
				iv[k].last = iv[i].last;
		} else {
			iv[++k] = iv[i];
		}
	}
	return k + 1;
}

/* Prints the failing description so it can go into a bug report. */
static void dump(void)
{
	const struct hvtlb_call_desc *d = &s.d;

	print_error("desc: call %#x fast %d flags %#llx as %#llx style %d "
		    "all_vps %d vector %#x vtl %u nranges %zu\n",
		    d->call, d->fast, (unsigned long long)d->flags,
		    (unsigned long long)d->address_space, d->vpset_style,
		    d->all_vps, d->vector, d->target_vtl, d->nranges);
	for (unsigned b = 0; b < 64; b++)
		if (s.vps.bits[b])
			print_error("  bank %u: %#llx\n", b,
				    (unsigned long long)s.vps.bits[b]);
	for (size_t i = 0; i < d->nranges; i++) {
		bool ext = d->flags & HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT;
		struct interval iv;
		uint64_t mine = entries_for(&s.r[i], ext, &iv);
		size_t lib = hvtlb_gva_entries_needed(&s.r[i], 1, ext);

		if (i < 8 || mine != lib)
			print_error(
				"  range %zu: gva %#llx pages %llu size %d: "
				"entries %llu (library: %zu)\n",
				i, (unsigned long long)s.r[i].gva,
				(unsigned long long)s.r[i].pages, s.r[i].size,
				(unsigned long long)mine, lib);
	}
}

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			dump();                                                \
			fail_msg("iteration %lu (call %#x entries %zu "        \
				 "banks %u): %s",                              \
				 iter, s.d.call, s.entries, s.nbanks, #cond);  \
		}                                                              \
	} while (0)

/* What check_one() did with a description. */
enum outcome {
	COMPARED,	  /* encoded, decoded and compared */
	REFUSED_NEEDS_EX, /* a non-Ex call naming a VP >= 64 */
	EMPTY_SET,	  /* decoded to status 5, as it must */
	NO_SPACE,	  /* -ENOSPC, as it must */
	OUTCOMES
};

/* Among the compared ones: the shapes the comparison must have seen. */
enum shape {
	SHAPE_LIST,	  /* GVA ranges compared */
	SHAPE_EXTENDED,	  /* ... in the extended format */
	SHAPE_FAST,	  /* register input */
	SHAPE_MANY_BANKS, /* a sparse set of more than one bank */
	SHAPE_ALL_VPS,	  /* every VP */
	SHAPE_IPI,
	SHAPES
};

static const char *const shape_names[SHAPES] = {
	"list", "extended", "fast", "many-banks", "all-vps", "ipi",
};

static unsigned long shapes[SHAPES];

static enum outcome check_one(size_t niv)
{
	const struct hvtlb_call_desc *d = &s.d;
	bool list = hvtlb_call_is_rep(d->call);
	size_t cap_bytes = d->fast ? HVTLB_FAST_BYTES : HVTLB_PAGE_BYTES;
	size_t need = header_bytes(d->call) + 8 * (s.nbanks + s.entries);
	bool nospace = need > cap_bytes;
	bool mem_fits = header_bytes(d->call) + 8 * (s.nbanks + s.entries) <=
			HVTLB_PAGE_BYTES;
	uint16_t ex_call = d->call;
	int rc;

	if (s.needs_ex)
		ex_call = d->call == HVTLB_CALL_FLUSH_SPACE
				  ? HVTLB_CALL_FLUSH_SPACE_EX
			  : d->call == HVTLB_CALL_FLUSH_LIST
				  ? HVTLB_CALL_FLUSH_LIST_EX
				  : HVTLB_CALL_SEND_IPI_EX;
	if (list)
		CHECK(hvtlb_gva_entries_needed(
			      d->ranges, d->nranges,
			      d->flags &
				      HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT) ==
		      s.entries);

	/* Poisoned: every byte of [0, len) must be written. */
	memset(&enc, 0xa5, sizeof(enc));
	rc = hvtlb_encode(d, &enc);
	if (s.needs_ex) {
		CHECK(rc == -HVTLB_ERANGE || (nospace && rc == -HVTLB_ENOSPC));
		/* The Ex form, in memory; SpaceEx if a ListEx cannot hold
		 * the entries. */
		unsigned exb = banks_for(&s.vps, d->vpset_style);
		bool ex_fits = !list || HVTLB_FLUSH_EX_HDR_BYTES +
							8 * (exb + s.entries) <=
						HVTLB_PAGE_BYTES;
		CHECK(hvtlb_encode_suggest(d) ==
		      (ex_fits ? ex_call : HVTLB_CALL_FLUSH_SPACE_EX));
		return REFUSED_NEEDS_EX;
	}
	if (nospace) {
		uint16_t sg = hvtlb_encode_suggest(d);

		CHECK(rc == -HVTLB_ENOSPC);
		if (mem_fits)
			CHECK(sg == d->call);
		else
			CHECK(sg == (hvtlb_call_is_ex(d->call)
					     ? HVTLB_CALL_FLUSH_SPACE_EX
					     : HVTLB_CALL_FLUSH_SPACE));
		return NO_SPACE;
	}
	CHECK(rc == 0);
	CHECK(hvtlb_encode_suggest(d) == d->call);
	CHECK(enc.len == need);
	CHECK((enc.control & HVTLB_CTL_CODE_MASK) == d->call);
	CHECK(!!(enc.control & HVTLB_CTL_FAST) == d->fast);
	CHECK(((enc.control & HVTLB_CTL_VARHEAD_MASK) >>
	       HVTLB_CTL_VARHEAD_SHIFT) == s.nbanks);
	CHECK(((enc.control & HVTLB_CTL_REP_COUNT_MASK) >>
	       HVTLB_CTL_REP_COUNT_SHIFT) == s.entries);
	CHECK((enc.control & HVTLB_CTL_REP_START_MASK) == 0);
	for (size_t off = 0; off < enc.len; off += 8)
		CHECK(!list || off < need - 8 * s.entries ||
		      le64_get(enc.input + off) != ~0ULL);

	/* Decode what a host would see. */
	struct hvtlb_host h = { .profile = HVTLB_PROFILE_STRICT,
				.vp_count = HVTLB_MAX_VPS,
				.va_bits = 48 };
	struct hvtlb_fast_regs regs;
	uint8_t image[HVTLB_FAST_BYTES];
	struct hvtlb_input in;
	struct hvtlb_decoded dd;
	uint64_t res;

	if (d->fast) {
		hvtlb_fast_regs_from_input(enc.input, enc.len, &regs);
		hvtlb_fast_regs_to_input(&regs, image);
		CHECK(!memcmp(image, enc.input, enc.len));
		in.data = image;
		in.len = sizeof(image);
	} else {
		in.data = enc.input;
		in.len = enc.len;
	}
	in.gpa = 0x123456000ULL;
	res = hvtlb_decode(&h, enc.control, &in, &dd);
	if (s.empty_set) {
		CHECK(hvtlb_result_status(res) ==
		      HVTLB_STATUS_INVALID_PARAMETER);
		return EMPTY_SET;
	}
	CHECK(hvtlb_result_status(res) == HVTLB_STATUS_SUCCESS);
	CHECK(hvtlb_result_reps(res) == s.entries);
	CHECK(dd.call == d->call);
	if (hvtlb_call_is_flush(d->call)) {
		uint64_t as = d->address_space & ~0xfffULL;

		CHECK(dd.flags == d->flags);
		/* docs/wire-format.md, "Input layouts": 0 with ALL_VIRTUAL_ADDRESS_SPACES. */
		if (d->flags & HVTLB_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES)
			as = 0;
		CHECK(dd.address_space == as);
	} else {
		CHECK(dd.vector == d->vector);
		CHECK(dd.target_vtl == d->target_vtl);
	}

	/* The VP set. */
	if (d->all_vps || (d->flags & HVTLB_FLUSH_ALL_PROCESSORS)) {
		CHECK(dd.all_vps);
	} else {
		struct hvtlb_vpmask got;
		struct hvtlb_vp_iter it;
		uint32_t vp;

		CHECK(!dd.all_vps);
		memset(&got, 0, sizeof(got));
		hvtlb_vp_iter_init(&it, &dd);
		while (hvtlb_vp_iter_next(&it, &vp)) {
			CHECK(vp < HVTLB_MAX_VPS &&
			      !hvtlb_vpmask_test(&got, vp));
			hvtlb_vpmask_set(&got, vp);
		}
		CHECK(!memcmp(&got, &s.vps, sizeof(got)));
		for (int k = 0; k < 8; k++) {
			uint32_t v = (uint32_t)rng_below(&seed, 4096);

			CHECK(hvtlb_decoded_has_vp(&dd, v) ==
			      hvtlb_vpmask_test(&s.vps, v));
		}
	}

	/* The pages covered. */
	if (list) {
		struct hvtlb_gva_iter it;
		struct hvtlb_gva_range r;
		size_t ngot = 0, nwant;

		CHECK(!dd.flush_all_gvas);
		CHECK(dd.gva_count == s.entries);
		CHECK(dd.extended ==
		      !!(d->flags & HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT));
		hvtlb_gva_iter_init(&it, &dd);
		while (hvtlb_gva_iter_next(&it, &r)) {
			unsigned shift = hvtlb_page_shift(r.size);

			CHECK(ngot < sizeof(got_iv) / sizeof(got_iv[0]));
			CHECK(r.pages > 0 && r.pages - 1 <= (~r.gva >> shift));
			got_iv[ngot].first = r.gva;
			got_iv[ngot].last = r.gva + (r.pages << shift) - 1;
			ngot++;
		}
		nwant = merge(want_iv, niv);
		ngot = merge(got_iv, ngot);
		CHECK(ngot == nwant);
		CHECK(!memcmp(got_iv, want_iv, nwant * sizeof(want_iv[0])));
	} else {
		CHECK(dd.flush_all_gvas || !hvtlb_call_is_flush(d->call));
	}
	shapes[SHAPE_LIST] += list;
	shapes[SHAPE_EXTENDED] += list && dd.extended;
	shapes[SHAPE_FAST] += d->fast;
	shapes[SHAPE_MANY_BANKS] += !dd.all_vps && dd.nbanks > 1;
	shapes[SHAPE_ALL_VPS] += dd.all_vps;
	shapes[SHAPE_IPI] += !hvtlb_call_is_flush(d->call);
	return COMPARED;
}

/* Below this many descriptions the generator need not reach every
 * outcome and shape. */
#define MIN_ITERS_FOR_COVERAGE 1000UL

static void test_round_trip(void **state)
{
	const char *env = getenv("HVTLB_SEED");
	const char *iters_env = getenv("HVTLB_PROPERTY_ITERS");
	unsigned long iters = DEFAULT_ITERS;
	uint64_t start = 0x6876746c62ULL; /* "hvtlb" */
	unsigned long outcomes[OUTCOMES] = { 0 };

	if (env && *env)
		start = strtoull(env, NULL, 0);
	if (iters_env && *iters_env)
		iters = strtoul(iters_env, NULL, 0);
	printf("# property: HVTLB_SEED=%#llx HVTLB_PROPERTY_ITERS=%lu\n",
	       (unsigned long long)start, iters);
	fflush(stdout);
	seed = start;
	for (iter = 0; iter < iters; iter++) {
		size_t niv = gen();

		outcomes[check_one(niv)]++;
	}
	printf("# property: %lu descriptions: %lu decoded and compared, %lu "
	       "refused for a VP >= 64, %lu empty sets (status 5), %lu "
	       "-ENOSPC\n",
	       iters, outcomes[COMPARED], outcomes[REFUSED_NEEDS_EX],
	       outcomes[EMPTY_SET], outcomes[NO_SPACE]);
	printf("# compared:");
	for (int k = 0; k < SHAPES; k++)
		printf(" %s %lu", shape_names[k], shapes[k]);
	printf("\n");

	/* A generator that drifted (every description refused, or no List
	 * ever compared) would pass every CHECK above without testing
	 * anything: most descriptions must be compared, and each outcome
	 * and shape must come up. */
	if (iters < MIN_ITERS_FOR_COVERAGE) {
		printf("# fewer than %lu descriptions: coverage not checked\n",
		       MIN_ITERS_FOR_COVERAGE);
		return;
	}
	if (outcomes[COMPARED] < iters / 2)
		fail_msg("only %lu of %lu descriptions compared",
			 outcomes[COMPARED], iters);
	for (int k = 0; k < OUTCOMES; k++)
		if (!outcomes[k])
			fail_msg("no description had outcome %d", k);
	for (int k = 0; k < SHAPES; k++)
		if (!shapes[k])
			fail_msg("no compared description was %s",
				 shape_names[k]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
