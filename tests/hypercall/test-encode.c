// SPDX-License-Identifier: MIT
/*
 * The encoder, byte for byte against docs/wire-format.md (flags, input
 * layouts, VP sets, GVA entries, memory and fast input): every call's
 * layout, the
 * flag rules, both GVA formats, rounding outwards, the 16 MiB / 2048-page
 * splits, the top of the address space and every capacity with one past it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hc-test.h"

#define MIB (1ULL << 20)
#define GIB (1ULL << 30)
#define AS_RAW 0x0000000123456abcULL /* PCID bits 0xabc */
#define AS_CR3 0x0000000123456000ULL

static struct hvtlb_encoded enc;

static struct hvtlb_vpmask vpmask(size_t n, ...)
{
	struct hvtlb_vpmask m;
	va_list ap;

	memset(&m, 0, sizeof(m));
	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		hvtlb_vpmask_set(&m, va_arg(ap, uint32_t));
	va_end(ap);
	return m;
}

static struct hvtlb_call_desc desc(uint16_t call,
				   const struct hvtlb_vpmask *vps)
{
	struct hvtlb_call_desc d;

	memset(&d, 0, sizeof(d));
	d.call = call;
	d.address_space = AS_RAW;
	d.vps = vps;
	d.vector = 0x30;
	return d;
}

/* Encodes into a poisoned output: every byte of [0, len) must be written
 * (input[] past len is left alone by contract). */
static int encode(const struct hvtlb_call_desc *d)
{
	memset(&enc, 0xa5, sizeof(enc));
	return hvtlb_encode(d, &enc);
}

/* enc holds exactly these little-endian words. */
static void expect_words(size_t n, ...)
{
	va_list ap;

	assert_int_equal(enc.len, 8 * n);
	va_start(ap, n);
	for (size_t i = 0; i < n; i++) {
		uint64_t want = va_arg(ap, uint64_t);

		if (le64_get(enc.input + 8 * i) != want)
			fail_msg("word %zu: want %#llx got %#llx", i,
				 (unsigned long long)want,
				 (unsigned long long)le64_get(enc.input +
							      8 * i));
	}
	va_end(ap);
}

static void expect_einval(const struct hvtlb_call_desc *d)
{
	assert_int_equal(encode(d), -HVTLB_EINVAL);
}

/* ----------------------------------------------------------------- */
/* Layouts                                                            */
/* ----------------------------------------------------------------- */

static void test_space_layout(void **state)
{
	struct hvtlb_vpmask m = vpmask(3, 0, 5, 63);
	struct hvtlb_call_desc d = desc(HVTLB_CALL_FLUSH_SPACE, &m);

	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0x2);
	expect_words(3, AS_CR3, 0ULL, 0x8000000000000021ULL);

	d.flags = HVTLB_FLUSH_NON_GLOBAL_MAPPINGS_ONLY;
	assert_int_equal(encode(&d), 0);
	expect_words(3, AS_CR3, 0x4ULL, 0x8000000000000021ULL);

	/* ALL_PROCESSORS: no VP set needed, the mask word is zero. */
	d.vps = NULL;
	d.address_space = 0;
	d.flags = HVTLB_FLUSH_ALL_PROCESSORS |
		  HVTLB_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0x2);
	expect_words(3, 0ULL, 0x3ULL, 0ULL);

	/* Fast: the same bytes, and the fast bit. */
	d = desc(HVTLB_CALL_FLUSH_SPACE, &m);
	d.fast = true;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0x2 | HVTLB_CTL_FAST);
	expect_words(3, AS_CR3, 0ULL, 0x8000000000000021ULL);
}

static void test_list_layout(void **state)
{
	struct hvtlb_vpmask m = vpmask(2, 1, 2);
	struct hvtlb_gva_range r[2] = {
		{ 0x7f0000001000ULL, 3, HVTLB_PAGE_4K },
		{ 0x400000ULL, 1, HVTLB_PAGE_4K },
	};
	struct hvtlb_call_desc d = desc(HVTLB_CALL_FLUSH_LIST, &m);

	d.ranges = r;
	d.nranges = 2;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0x0000000200000003ULL);
	expect_words(5, AS_CR3, 0ULL, 0x6ULL, 0x7f0000001002ULL, 0x400000ULL);

	d.fast = true;
	d.flags = HVTLB_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0x0000000200000003ULL | HVTLB_CTL_FAST);
	/* AddressSpace is written as 0 with ALL_VIRTUAL_ADDRESS_SPACES. */
	expect_words(5, 0ULL, 0x2ULL, 0x6ULL, 0x7f0000001002ULL, 0x400000ULL);
}

static void test_space_ex_layout(void **state)
{
	struct hvtlb_vpmask m = vpmask(3, 0, 5, 130);
	struct hvtlb_call_desc d = desc(HVTLB_CALL_FLUSH_SPACE_EX, &m);

	/* The TLFS example: mask 0x5, banks {0x21, 0x4}, varhead 2. */
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0x13 | (2ULL << 17));
	expect_words(6, AS_CR3, 0ULL, 0ULL, 0x5ULL, 0x21ULL, 0x4ULL);

	d.vpset_style = HVTLB_VPSET_LINUX;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0x13 | (3ULL << 17));
	expect_words(7, AS_CR3, 0ULL, 0ULL, 0x7ULL, 0x21ULL, 0ULL, 0x4ULL);

	/* Format ALL: from all_vps or from ALL_PROCESSORS, no banks. */
	d = desc(HVTLB_CALL_FLUSH_SPACE_EX, NULL);
	d.all_vps = true;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0x13);
	expect_words(4, AS_CR3, 0ULL, 1ULL, 0ULL);
	d.all_vps = false;
	d.flags = HVTLB_FLUSH_ALL_PROCESSORS;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0x13);
	expect_words(4, AS_CR3, 1ULL, 1ULL, 0ULL);
}

static void test_list_ex_layout(void **state)
{
	struct hvtlb_vpmask m = vpmask(3, 0, 5, 130);
	struct hvtlb_gva_range r[2] = {
		{ 0x1000, 1, HVTLB_PAGE_4K },
		{ 0xffff800000000000ULL, 16, HVTLB_PAGE_4K },
	};
	struct hvtlb_call_desc d = desc(HVTLB_CALL_FLUSH_LIST_EX, &m);

	d.ranges = r;
	d.nranges = 2;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0x14 | (2ULL << 17) | (2ULL << 32));
	expect_words(8, AS_CR3, 0ULL, 0ULL, 0x5ULL, 0x21ULL, 0x4ULL, 0x1000ULL,
		     0xffff80000000000fULL);

	d.fast = true;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control,
			 0x14 | HVTLB_CTL_FAST | (2ULL << 17) | (2ULL << 32));
	expect_words(8, AS_CR3, 0ULL, 0ULL, 0x5ULL, 0x21ULL, 0x4ULL, 0x1000ULL,
		     0xffff80000000000fULL);
}

static void test_ipi_layout(void **state)
{
	struct hvtlb_vpmask m = vpmask(2, 1, 63);
	struct hvtlb_call_desc d = desc(HVTLB_CALL_SEND_IPI, &m);

	d.vector = 0x2f;
	d.target_vtl = 0;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0xb);
	expect_words(2, 0x2fULL, 0x8000000000000002ULL);

	d.fast = true;
	d.target_vtl = 2;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0xb | HVTLB_CTL_FAST);
	/* Vector u32 @0, TargetVtl u8 @4, three zero padding bytes. */
	expect_words(2, 0x2fULL | (2ULL << 32), 0x8000000000000002ULL);
	assert_int_equal(le32_get(enc.input), 0x2f);
	assert_int_equal(enc.input[4], 2);
	assert_true(!enc.input[5] && !enc.input[6] && !enc.input[7]);
}

static void test_ipi_ex_layout(void **state)
{
	struct hvtlb_vpmask m = vpmask(3, 0, 5, 130);
	struct hvtlb_call_desc d = desc(HVTLB_CALL_SEND_IPI_EX, &m);

	d.vector = 0xff;
	d.target_vtl = 1;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0x15 | (2ULL << 17));
	expect_words(5, 0xffULL | (1ULL << 32), 0ULL, 0x5ULL, 0x21ULL, 0x4ULL);

	d.vps = NULL;
	d.all_vps = true;
	d.vector = 0x10;
	d.target_vtl = 0;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0x15);
	expect_words(3, 0x10ULL, 1ULL, 0ULL);
}

/* The decoded targets of enc under @p profile equal @p want (80 VPs). */
static void expect_decoded(enum hvtlb_profile profile,
			   const struct hvtlb_vpmask *want)
{
	struct hvtlb_host host = { .profile = profile, .vp_count = 80 };
	struct hvtlb_input in = { .data = enc.input,
				  .len = enc.len,
				  .gpa = 0x1000 };
	struct hvtlb_decoded dec;
	struct hvtlb_vpmask got;
	uint64_t res = hvtlb_decode(&host, enc.control, &in, &dec);

	assert_int_equal(hvtlb_result_status(res), HVTLB_STATUS_SUCCESS);
	assert_int_equal(hvtlb_decoded_vpmask(&dec, &got), 0);
	assert_memory_equal(&got, want, sizeof(got));
}

/*
 * The two calls the simulator's hyperv IPI delivery makes, as Linux's
 * hv_apic.c makes them, for a broadcast from VP 0 of an 80-VP partition
 * (CALL_FUNCTION_VECTOR 0xfc): VPs 1..79 go in one
 * HvCallSendSyntheticClusterIpiEx in memory, a sparse set of two banks
 * (valid mask 0x3, variable header 2 words, no reps); VPs 1..63 alone in
 * one fast HvCallSendSyntheticClusterIpi (RDX vector, R8 mask). Each host
 * profile decodes the set sent.
 */
static void test_ipi_broadcast_shapes(void **state)
{
	static const enum hvtlb_profile profiles[] = {
		HVTLB_PROFILE_STRICT, HVTLB_PROFILE_KVM, HVTLB_PROFILE_XEN,
		HVTLB_PROFILE_OPENVMM_TDX, HVTLB_PROFILE_OPENVMM_SNP
	};
	struct hvtlb_vpmask m;
	struct hvtlb_call_desc d;

	memset(&m, 0, sizeof(m));
	for (uint32_t vp = 1; vp < 80; vp++)
		hvtlb_vpmask_set(&m, vp);
	d = desc(HVTLB_CALL_SEND_IPI_EX, &m);
	d.vector = 0xfc;
	d.vpset_style = HVTLB_VPSET_LINUX;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0x15 | (2ULL << 17));
	expect_words(5, 0xfcULL, 0ULL, 0x3ULL, 0xfffffffffffffffeULL,
		     0xffffULL);
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
		expect_decoded(profiles[i], &m);

	memset(&m, 0, sizeof(m));
	for (uint32_t vp = 1; vp < 64; vp++)
		hvtlb_vpmask_set(&m, vp);
	d = desc(HVTLB_CALL_SEND_IPI, &m);
	d.vector = 0xfc;
	d.fast = true;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0xb | HVTLB_CTL_FAST);
	expect_words(2, 0xfcULL, 0xfffffffffffffffeULL);
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
		expect_decoded(profiles[i], &m);
}

static void test_empty_set_layout(void **state)
{
	struct hvtlb_vpmask m = vpmask(0);
	struct hvtlb_call_desc d = desc(HVTLB_CALL_FLUSH_SPACE_EX, &m);

	/* An empty set is representable; the host decides (strict: 5). */
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0x13);
	expect_words(4, AS_CR3, 0ULL, 0ULL, 0ULL);
	d.vpset_style = HVTLB_VPSET_LINUX;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0x13 | (1ULL << 17));
	expect_words(5, AS_CR3, 0ULL, 0ULL, 1ULL, 0ULL);
	d = desc(HVTLB_CALL_FLUSH_SPACE, &m);
	assert_int_equal(encode(&d), 0);
	expect_words(3, AS_CR3, 0ULL, 0ULL);
}

static void test_vp_4095(void **state)
{
	struct hvtlb_vpmask m = vpmask(1, 4095);
	struct hvtlb_call_desc d = desc(HVTLB_CALL_FLUSH_SPACE_EX, &m);

	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0x13 | (1ULL << 17));
	expect_words(5, AS_CR3, 0ULL, 0ULL, 1ULL << 63, 1ULL << 63);

	d.vpset_style = HVTLB_VPSET_LINUX;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.control, 0x13 | (64ULL << 17));
	assert_int_equal(enc.len, 32 + 64 * 8);
	assert_int_equal(le64_get(enc.input + 24), ~0ULL);
	for (int b = 0; b < 63; b++)
		assert_int_equal(le64_get(enc.input + 32 + 8 * b), 0);
	assert_int_equal(le64_get(enc.input + 32 + 63 * 8), 1ULL << 63);
}

/* ----------------------------------------------------------------- */
/* Refusals (flags, layouts, header contract)                         */
/* ----------------------------------------------------------------- */

static void test_flag_rules(void **state)
{
	struct hvtlb_vpmask m = vpmask(1, 3);
	struct hvtlb_gva_range r = { 0x1000, 1, HVTLB_PAGE_4K };
	static const uint16_t lists[] = { HVTLB_CALL_FLUSH_LIST,
					  HVTLB_CALL_FLUSH_LIST_EX };
	static const uint16_t spaces[] = { HVTLB_CALL_FLUSH_SPACE,
					   HVTLB_CALL_FLUSH_SPACE_EX };
	struct hvtlb_call_desc d;

	for (int i = 0; i < 2; i++) {
		d = desc(lists[i], &m);
		d.ranges = &r;
		d.nranges = 1;
		d.flags = HVTLB_FLUSH_NON_GLOBAL_MAPPINGS_ONLY;
		expect_einval(&d);
		d.flags = HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT;
		assert_int_equal(encode(&d), 0);
		d.flags = 0x10;
		expect_einval(&d);
		d.flags = 1ULL << 63;
		expect_einval(&d);
		/* A List needs at least one entry (rep count 0 is invalid). */
		d.flags = 0;
		d.nranges = 0;
		expect_einval(&d);

		d = desc(spaces[i], &m);
		d.flags = HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT;
		expect_einval(&d);
		d.flags = 0x10;
		expect_einval(&d);
		d.flags = HVTLB_FLUSH_FLAGS_VALID;
		d.flags &= ~(uint64_t)HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT;
		assert_int_equal(encode(&d), 0);
		/* No VP set and no "all": refused. */
		d.flags = 0;
		d.vps = NULL;
		expect_einval(&d);
	}
}

static void test_ipi_rules(void **state)
{
	struct hvtlb_vpmask m = vpmask(1, 3);
	static const uint16_t ipis[] = { HVTLB_CALL_SEND_IPI,
					 HVTLB_CALL_SEND_IPI_EX };
	struct hvtlb_call_desc d;

	for (int i = 0; i < 2; i++) {
		d = desc(ipis[i], &m);
		d.vector = 0x0f;
		expect_einval(&d);
		d.vector = 0x100;
		expect_einval(&d);
		d.vector = 0x10;
		assert_int_equal(encode(&d), 0);
		d.vector = 0xff;
		assert_int_equal(encode(&d), 0);
		/* Flush flags make no sense on an IPI. */
		d.flags = HVTLB_FLUSH_ALL_PROCESSORS;
		expect_einval(&d);
		d.flags = 0;
		d.vps = NULL;
		expect_einval(&d);
	}
	/* The non-Ex IPI cannot say "all". */
	d = desc(HVTLB_CALL_SEND_IPI, NULL);
	d.all_vps = true;
	expect_einval(&d);
}

static void test_unknown_call(void **state)
{
	struct hvtlb_vpmask m = vpmask(1, 3);
	static const uint16_t bad[] = { 0, 1, 4, 0x12, 0x16, 0xffff };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hvtlb_call_desc d = desc(bad[i], &m);

		expect_einval(&d);
		assert_int_equal(hvtlb_encode_suggest(&d), 0);
	}
}

static void test_vp_over_63_needs_ex(void **state)
{
	struct hvtlb_vpmask m = vpmask(2, 1, 64);
	struct hvtlb_gva_range r = { 0x1000, 1, HVTLB_PAGE_4K };
	static const uint16_t calls[][2] = {
		{ HVTLB_CALL_FLUSH_SPACE, HVTLB_CALL_FLUSH_SPACE_EX },
		{ HVTLB_CALL_FLUSH_LIST, HVTLB_CALL_FLUSH_LIST_EX },
		{ HVTLB_CALL_SEND_IPI, HVTLB_CALL_SEND_IPI_EX },
	};

	for (int i = 0; i < 3; i++) {
		struct hvtlb_call_desc d = desc(calls[i][0], &m);

		d.ranges = &r;
		d.nranges = hvtlb_call_is_rep(d.call) ? 1 : 0;
		assert_int_equal(encode(&d), -HVTLB_ERANGE);
		assert_int_equal(hvtlb_encode_suggest(&d), calls[i][1]);
		d.call = calls[i][1];
		assert_int_equal(encode(&d), 0);
		assert_int_equal(hvtlb_encode_suggest(&d), calls[i][1]);
		/* With ALL_PROCESSORS the set is ignored: non-Ex is fine. */
		if (hvtlb_call_is_flush(calls[i][0])) {
			d.call = calls[i][0];
			d.flags = HVTLB_FLUSH_ALL_PROCESSORS;
			assert_int_equal(encode(&d), 0);
			assert_int_equal(le64_get(enc.input + 16), 0);
		}
	}
}

/* ----------------------------------------------------------------- */
/* GVA entries                                                        */
/* ----------------------------------------------------------------- */

/* Encodes a List (or ListEx with @p ext) of one range into enc. */
static int list1(uint64_t gva, uint64_t pages, enum hvtlb_page_size size,
		 bool ext)
{
	static struct hvtlb_vpmask m;
	struct hvtlb_gva_range r = { gva, pages, size };
	struct hvtlb_call_desc d;

	m = vpmask(1, 0);
	d = desc(HVTLB_CALL_FLUSH_LIST, &m);
	d.ranges = &r;
	d.nranges = 1;
	if (ext)
		d.flags = HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT;
	return encode(&d);
}

static unsigned reps(void)
{
	return (unsigned)((enc.control & HVTLB_CTL_REP_COUNT_MASK) >>
			  HVTLB_CTL_REP_COUNT_SHIFT);
}

static uint64_t entry(unsigned i)
{
	return le64_get(enc.input + 24 + 8 * i);
}

static void no_all_ones(void)
{
	for (size_t off = 0; off < enc.len; off += 8)
		assert_true(le64_get(enc.input + off) != ~0ULL);
}

static void test_simple_format_and_split(void **state)
{
	/* 1 page; 4096 pages (16 MiB) in one entry; 4097 in two. */
	assert_int_equal(list1(0x200000, 1, HVTLB_PAGE_4K, false), 0);
	assert_int_equal(reps(), 1);
	assert_int_equal(entry(0), 0x200000);
	assert_int_equal(list1(0x200000, 4096, HVTLB_PAGE_4K, false), 0);
	assert_int_equal(reps(), 1);
	assert_int_equal(entry(0), 0x200fff);
	assert_int_equal(list1(0x200000, 4097, HVTLB_PAGE_4K, false), 0);
	assert_int_equal(reps(), 2);
	assert_int_equal(entry(0), 0x200fff);
	assert_int_equal(entry(1), 0x1200000);
	assert_int_equal(enc.len, 24 + 16);
	/* 40 MiB: 16 + 16 + 8. */
	assert_int_equal(list1(0, 40 * 256, HVTLB_PAGE_4K, false), 0);
	assert_int_equal(reps(), 3);
	assert_int_equal(entry(0), 0xfff);
	assert_int_equal(entry(1), 0x1000fff);
	assert_int_equal(entry(2), 0x20007ff);
}

static void test_rounding_outwards(void **state)
{
	/* 1 page at 0x1800 touches pages 0x1000 and 0x2000. */
	assert_int_equal(list1(0x1800, 1, HVTLB_PAGE_4K, false), 0);
	assert_int_equal(reps(), 1);
	assert_int_equal(entry(0), 0x1001);
	/* 4096 unaligned pages need 4097 pages: two entries. */
	assert_int_equal(list1(0x10000008, 4096, HVTLB_PAGE_4K, false), 0);
	assert_int_equal(reps(), 2);
	assert_int_equal(entry(0), 0x10000fff);
	assert_int_equal(entry(1), 0x11000000);
	/* Aligned: no growth. */
	assert_int_equal(list1(0x10000000, 4096, HVTLB_PAGE_4K, false), 0);
	assert_int_equal(reps(), 1);

	/* A 2 MiB page starting 1 MiB in covers two large pages. */
	assert_int_equal(list1(0x40100000, 1, HVTLB_PAGE_2M, true), 0);
	assert_int_equal(reps(), 1);
	assert_int_equal(entry(0), 0x40000000 | HVTLB_GVA_EXT_LARGE | 1);
	/* A 1 GiB page 4 KiB in covers two 1 GiB pages. */
	assert_int_equal(list1(GIB + 0x1000, 1, HVTLB_PAGE_1G, true), 0);
	assert_int_equal(reps(), 1);
	assert_int_equal(entry(0),
			 GIB | HVTLB_GVA_EXT_LARGE | HVTLB_GVA_EXT_1G | 1);
	/* Extended 4 KiB form rounds the same way. */
	assert_int_equal(list1(0x1fff, 1, HVTLB_PAGE_4K, true), 0);
	assert_int_equal(entry(0), 0x1001);
}

static void test_extended_format(void **state)
{
	/* 4 KiB form: bit 11 clear, at most 2048 pages per entry. */
	assert_int_equal(list1(0x200000, 2048, HVTLB_PAGE_4K, true), 0);
	assert_int_equal(reps(), 1);
	assert_int_equal(entry(0), 0x2007ff);
	assert_int_equal(list1(0x200000, 2049, HVTLB_PAGE_4K, true), 0);
	assert_int_equal(reps(), 2);
	assert_int_equal(entry(0), 0x2007ff);
	assert_int_equal(entry(1), 0xa00000);
	assert_int_equal(le64_get(enc.input + 8),
			 HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT);

	/* Large form, 2 MiB: bit 11 set, bit 12 clear. */
	assert_int_equal(list1(0x40000000, 3, HVTLB_PAGE_2M, true), 0);
	assert_int_equal(reps(), 1);
	assert_int_equal(entry(0), 0x40000802);
	assert_int_equal(list1(0x40000000, 2049, HVTLB_PAGE_2M, true), 0);
	assert_int_equal(reps(), 2);
	assert_int_equal(entry(0), 0x40000fff);
	assert_int_equal(entry(1), (0x40000000 + 2048 * 2 * MIB) | 0x800);

	/* Large form, 1 GiB: bits 11 and 12 set. */
	assert_int_equal(list1(2 * GIB, 1, HVTLB_PAGE_1G, true), 0);
	assert_int_equal(entry(0), 0x80001800);
	assert_int_equal(list1(2 * GIB, 2049, HVTLB_PAGE_1G, true), 0);
	assert_int_equal(reps(), 2);
	assert_int_equal(entry(0), 2 * GIB | 0x1fff);
	assert_int_equal(entry(1), (2 * GIB + 2048 * GIB) | 0x1800);
	for (unsigned i = 0; i < reps(); i++)
		assert_int_equal(entry(i) & HVTLB_GVA_EXT_RESERVED, 0);
}

static void test_top_of_address_space(void **state)
{
	const uint64_t top = 0xfffffffffffff000ULL;

	/* The last page: fine, and not the all-ones word. */
	assert_int_equal(list1(top, 1, HVTLB_PAGE_4K, false), 0);
	assert_int_equal(entry(0), top);
	no_all_ones();
	/* 16 MiB ending exactly at 2^64. */
	assert_int_equal(
		list1(0xffffffffff000000ULL, 4096, HVTLB_PAGE_4K, false), 0);
	assert_int_equal(reps(), 1);
	assert_int_equal(entry(0), 0xffffffffff000fffULL);
	no_all_ones();
	assert_int_equal(
		list1(0xfffffffffe000000ULL, 8192, HVTLB_PAGE_4K, true), 0);
	assert_int_equal(reps(), 4);
	assert_int_equal(entry(3), 0xffffffffff8007ffULL);
	no_all_ones();
	/* The last 2 MiB and 1 GiB pages. */
	assert_int_equal(list1(0xffffffffffe00000ULL, 1, HVTLB_PAGE_2M, true),
			 0);
	assert_int_equal(entry(0), 0xffffffffffe00800ULL);
	assert_int_equal(list1(0xffffffffc0000000ULL, 1, HVTLB_PAGE_1G, true),
			 0);
	assert_int_equal(entry(0), 0xffffffffc0001800ULL);
	no_all_ones();

	/* Anything past 2^64 wraps and is refused. */
	assert_int_equal(list1(top, 2, HVTLB_PAGE_4K, false), -HVTLB_EINVAL);
	assert_int_equal(list1(top + 0x800, 1, HVTLB_PAGE_4K, false),
			 -HVTLB_EINVAL);
	assert_int_equal(list1(0xffffffffffe00000ULL, 2, HVTLB_PAGE_2M, true),
			 -HVTLB_EINVAL);
	assert_int_equal(list1(0x1000, UINT64_MAX, HVTLB_PAGE_4K, false),
			 -HVTLB_EINVAL);
	assert_int_equal(list1(0, (1ULL << 52) + 1, HVTLB_PAGE_4K, false),
			 -HVTLB_EINVAL);
	assert_int_equal(list1(GIB, 1ULL << 34, HVTLB_PAGE_1G, true),
			 -HVTLB_EINVAL);
}

static void test_entries_needed(void **state)
{
	struct hvtlb_gva_range r[3] = {
		{ 0x800, 4096, HVTLB_PAGE_4K }, /* 4097 pages */
		{ 0, 1, HVTLB_PAGE_4K },
		{ 0, 2049, HVTLB_PAGE_2M },
	};

	assert_int_equal(hvtlb_gva_entries_needed(r, 0, false), 0);
	assert_int_equal(hvtlb_gva_entries_needed(r, 1, false), 2);
	assert_int_equal(hvtlb_gva_entries_needed(r, 1, true), 3);
	assert_int_equal(hvtlb_gva_entries_needed(r, 2, false), 3);
	assert_int_equal(hvtlb_gva_entries_needed(&r[2], 1, true), 2);
	assert_int_equal(hvtlb_gva_entries_needed(r, 3, true), 6);

	r[1].gva = 0xfffffffffffff000ULL;
	r[1].pages = 2;
	assert_int_equal(hvtlb_gva_entries_needed(r, 2, false), SIZE_MAX);
	r[1].pages = 1;
	assert_int_equal(hvtlb_gva_entries_needed(r, 2, false), 3);
	r[1].pages = UINT64_MAX;
	assert_int_equal(hvtlb_gva_entries_needed(r, 2, true), SIZE_MAX);
}

/* ----------------------------------------------------------------- */
/* Capacities                                                         */
/* ----------------------------------------------------------------- */

/* A List(Ex) over @p entries 16 MiB units (simple format). */
static int list_n(uint16_t call, const struct hvtlb_vpmask *m,
		  enum hvtlb_vpset_style style, bool fast, uint64_t entries,
		  uint16_t *suggest)
{
	struct hvtlb_gva_range r = { 0x10000000, entries * 4096,
				     HVTLB_PAGE_4K };
	struct hvtlb_call_desc d = desc(call, m);

	d.ranges = &r;
	d.nranges = 1;
	d.fast = fast;
	d.vpset_style = style;
	*suggest = hvtlb_encode_suggest(&d);
	return encode(&d);
}

static void test_list_capacity(void **state)
{
	struct hvtlb_vpmask m = vpmask(1, 1);
	uint16_t s;

	assert_int_equal(HVTLB_LIST_CAPACITY, 509);
	assert_int_equal(list_n(HVTLB_CALL_FLUSH_LIST, &m, 0, false, 509, &s),
			 0);
	assert_int_equal(s, HVTLB_CALL_FLUSH_LIST);
	assert_int_equal(reps(), 509);
	assert_int_equal(enc.len, 4096);
	assert_int_equal(entry(508), (0x10000000 + 508 * 16 * MIB) | 0xfff);
	assert_int_equal(list_n(HVTLB_CALL_FLUSH_LIST, &m, 0, false, 510, &s),
			 -HVTLB_ENOSPC);
	assert_int_equal(s, HVTLB_CALL_FLUSH_SPACE);

	/* 509 units plus one page: 510 entries (Linux's guard is off by
	 * one here). */
	struct hvtlb_gva_range r = { 0, 509 * 4096 + 1, HVTLB_PAGE_4K };
	struct hvtlb_call_desc d = desc(HVTLB_CALL_FLUSH_LIST, &m);
	d.ranges = &r;
	d.nranges = 1;
	assert_int_equal(encode(&d), -HVTLB_ENOSPC);

	/* 509 separate one-page ranges fit too. */
	struct hvtlb_gva_range many[510];
	for (int i = 0; i < 510; i++) {
		many[i].gva = 0x100000000ULL + (uint64_t)i * 0x3000;
		many[i].pages = 1;
		many[i].size = HVTLB_PAGE_4K;
	}
	d.ranges = many;
	d.nranges = 509;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(reps(), 509);
	assert_int_equal(entry(508), 0x100000000ULL + 508 * 0x3000);
	d.nranges = 510;
	assert_int_equal(encode(&d), -HVTLB_ENOSPC);

	/* Too many entries and a VP >= 64: SpaceEx. */
	struct hvtlb_vpmask hi = vpmask(1, 100);
	int rc = list_n(HVTLB_CALL_FLUSH_LIST, &hi, 0, false, 600, &s);
	/* Both errors apply; the header does not order them. */
	assert_true(rc == -HVTLB_ERANGE || rc == -HVTLB_ENOSPC);
	assert_int_equal(s, HVTLB_CALL_FLUSH_SPACE_EX);
}

static void test_list_ex_capacity(void **state)
{
	static const uint32_t bank_counts[] = { 1, 2, 3, 17, 64 };
	uint16_t s;

	for (size_t i = 0; i < 5; i++) {
		unsigned b = bank_counts[i];
		unsigned cap = HVTLB_LIST_EX_CAPACITY(b);
		struct hvtlb_vpmask m = vpmask(0);

		for (unsigned k = 0; k < b; k++)
			hvtlb_vpmask_set(&m, 64 * k + k % 64);
		assert_int_equal(cap, 508 - b);
		assert_int_equal(
			list_n(HVTLB_CALL_FLUSH_LIST_EX, &m, 0, false, cap, &s),
			0);
		assert_int_equal(s, HVTLB_CALL_FLUSH_LIST_EX);
		assert_int_equal(enc.len, 4096);
		assert_int_equal(reps(), cap);
		assert_int_equal((enc.control & HVTLB_CTL_VARHEAD_MASK) >>
					 HVTLB_CTL_VARHEAD_SHIFT,
				 b);
		assert_int_equal(list_n(HVTLB_CALL_FLUSH_LIST_EX, &m, 0, false,
					cap + 1, &s),
				 -HVTLB_ENOSPC);
		assert_int_equal(s, HVTLB_CALL_FLUSH_SPACE_EX);
	}

	/* The TLFS set: 2 banks compact, 3 in Linux style. */
	struct hvtlb_vpmask m = vpmask(3, 0, 5, 130);
	assert_int_equal(list_n(HVTLB_CALL_FLUSH_LIST_EX, &m,
				HVTLB_VPSET_COMPACT, false, 506, &s),
			 0);
	assert_int_equal(list_n(HVTLB_CALL_FLUSH_LIST_EX, &m, HVTLB_VPSET_LINUX,
				false, 506, &s),
			 -HVTLB_ENOSPC);
	assert_int_equal(list_n(HVTLB_CALL_FLUSH_LIST_EX, &m, HVTLB_VPSET_LINUX,
				false, 505, &s),
			 0);
	assert_int_equal(enc.len, 4096);

	/* With format ALL there are no banks: 508 entries. */
	struct hvtlb_gva_range r = { 0, 508 * 4096, HVTLB_PAGE_4K };
	struct hvtlb_call_desc d = desc(HVTLB_CALL_FLUSH_LIST_EX, NULL);
	d.all_vps = true;
	d.ranges = &r;
	d.nranges = 1;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.len, 4096);
	r.pages++;
	assert_int_equal(encode(&d), -HVTLB_ENOSPC);
	assert_int_equal(hvtlb_encode_suggest(&d), HVTLB_CALL_FLUSH_SPACE_EX);
}

static void test_fast_capacity(void **state)
{
	struct hvtlb_vpmask m = vpmask(1, 1);
	uint16_t s;

	assert_int_equal(list_n(HVTLB_CALL_FLUSH_LIST, &m, 0, true, 11, &s), 0);
	assert_int_equal(s, HVTLB_CALL_FLUSH_LIST);
	assert_int_equal(enc.len, HVTLB_FAST_BYTES);
	assert_int_equal(reps(), 11);
	assert_true(enc.control & HVTLB_CTL_FAST);
	/* One word too long: refused, and the memory form is suggested. */
	assert_int_equal(list_n(HVTLB_CALL_FLUSH_LIST, &m, 0, true, 12, &s),
			 -HVTLB_ENOSPC);
	assert_int_equal(s, HVTLB_CALL_FLUSH_LIST);
	assert_int_equal(list_n(HVTLB_CALL_FLUSH_LIST, &m, 0, true, 600, &s),
			 -HVTLB_ENOSPC);
	assert_int_equal(s, HVTLB_CALL_FLUSH_SPACE);

	for (unsigned b = 1; b <= 10; b++) {
		struct hvtlb_vpmask mb = vpmask(0);
		unsigned cap = HVTLB_FAST_LIST_EX_CAPACITY(b);

		for (unsigned k = 0; k < b; k++)
			hvtlb_vpmask_set(&mb, 64 * (3 * k));
		if (cap) {
			assert_int_equal(list_n(HVTLB_CALL_FLUSH_LIST_EX, &mb,
						0, true, cap, &s),
					 0);
			assert_int_equal(enc.len, HVTLB_FAST_BYTES);
			assert_int_equal(s, HVTLB_CALL_FLUSH_LIST_EX);
		}
		assert_int_equal(list_n(HVTLB_CALL_FLUSH_LIST_EX, &mb, 0, true,
					cap + 1, &s),
				 -HVTLB_ENOSPC);
		assert_int_equal(s, HVTLB_CALL_FLUSH_LIST_EX);
	}

	/* SpaceEx fast: at most 10 banks; IPI Ex fast: at most 11. */
	struct hvtlb_vpmask m10 = vpmask(0), m11, m12;
	for (unsigned k = 0; k < 10; k++)
		hvtlb_vpmask_set(&m10, 64 * k);
	m11 = m10;
	hvtlb_vpmask_set(&m11, 64 * 10);
	m12 = m11;
	hvtlb_vpmask_set(&m12, 64 * 11);

	struct hvtlb_call_desc d = desc(HVTLB_CALL_FLUSH_SPACE_EX, &m10);
	d.fast = true;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.len, HVTLB_FAST_BYTES);
	d.vps = &m11;
	assert_int_equal(encode(&d), -HVTLB_ENOSPC);
	assert_int_equal(hvtlb_encode_suggest(&d), HVTLB_CALL_FLUSH_SPACE_EX);
	d.fast = false;
	assert_int_equal(encode(&d), 0);

	d = desc(HVTLB_CALL_SEND_IPI_EX, &m11);
	d.fast = true;
	assert_int_equal(encode(&d), 0);
	assert_int_equal(enc.len, HVTLB_FAST_BYTES);
	d.vps = &m12;
	assert_int_equal(encode(&d), -HVTLB_ENOSPC);
	assert_int_equal(hvtlb_encode_suggest(&d), HVTLB_CALL_SEND_IPI_EX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_space_layout),
		cmocka_unit_test(test_list_layout),
		cmocka_unit_test(test_space_ex_layout),
		cmocka_unit_test(test_list_ex_layout),
		cmocka_unit_test(test_ipi_layout),
		cmocka_unit_test(test_ipi_ex_layout),
		cmocka_unit_test(test_ipi_broadcast_shapes),
		cmocka_unit_test(test_empty_set_layout),
		cmocka_unit_test(test_vp_4095),
		cmocka_unit_test(test_flag_rules),
		cmocka_unit_test(test_ipi_rules),
		cmocka_unit_test(test_unknown_call),
		cmocka_unit_test(test_vp_over_63_needs_ex),
		cmocka_unit_test(test_simple_format_and_split),
		cmocka_unit_test(test_rounding_outwards),
		cmocka_unit_test(test_extended_format),
		cmocka_unit_test(test_top_of_address_space),
		cmocka_unit_test(test_entries_needed),
		cmocka_unit_test(test_list_capacity),
		cmocka_unit_test(test_list_ex_capacity),
		cmocka_unit_test(test_fast_capacity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
