// SPDX-License-Identifier: MIT
/*
 * Names, control word and result word (docs/wire-format.md: the calls,
 * the control and result words, flags) and the fast register
 * image (docs/wire-format.md, "Memory and fast input").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hc-test.h"

static void test_call_names(void **state)
{
	static const struct {
		uint16_t code;
		const char *name;
		bool rep, ex, flush;
	} rows[] = {
		{ 0x0002, "space", false, false, true },
		{ 0x0003, "list", true, false, true },
		{ 0x000b, "ipi", false, false, false },
		{ 0x0013, "space-ex", false, true, true },
		{ 0x0014, "list-ex", true, true, true },
		{ 0x0015, "ipi-ex", false, true, false },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		assert_string_equal(hvtlb_call_name(rows[i].code),
				    rows[i].name);
		assert_int_equal(hvtlb_call_from_name(rows[i].name),
				 rows[i].code);
		assert_int_equal(hvtlb_call_is_rep(rows[i].code), rows[i].rep);
		assert_int_equal(hvtlb_call_is_ex(rows[i].code), rows[i].ex);
		assert_int_equal(hvtlb_call_is_flush(rows[i].code),
				 rows[i].flush);
	}
	assert_null(hvtlb_call_name(0));
	assert_null(hvtlb_call_name(0x0001));
	assert_null(hvtlb_call_name(0xffff));
	assert_int_equal(hvtlb_call_from_name("lis"), 0);
	assert_int_equal(hvtlb_call_from_name("list-ex2"), 0);
	assert_int_equal(hvtlb_call_from_name(""), 0);
	assert_int_equal(hvtlb_call_from_name(NULL), 0);
	assert_false(hvtlb_call_is_rep(0x0001));
	assert_false(hvtlb_call_is_ex(0x0012));
	assert_false(hvtlb_call_is_flush(0x000b));
}

static void test_status_names(void **state)
{
	static const struct {
		hvtlb_status v;
		const char *name;
	} rows[] = {
		{ 0x0, "HV_STATUS_SUCCESS" },
		{ 0x2, "HV_STATUS_INVALID_HYPERCALL_CODE" },
		{ 0x3, "HV_STATUS_INVALID_HYPERCALL_INPUT" },
		{ 0x4, "HV_STATUS_INVALID_ALIGNMENT" },
		{ 0x5, "HV_STATUS_INVALID_PARAMETER" },
		{ 0x6, "HV_STATUS_ACCESS_DENIED" },
		{ 0x7, "HV_STATUS_INVALID_PARTITION_STATE" },
		{ 0x8, "HV_STATUS_OPERATION_DENIED" },
		{ 0xb, "HV_STATUS_INSUFFICIENT_MEMORY" },
		{ 0xe, "HV_STATUS_INVALID_VP_INDEX" },
		{ 0x11, "HV_STATUS_INVALID_PORT_ID" },
		{ 0x12, "HV_STATUS_INVALID_CONNECTION_ID" },
		{ 0x13, "HV_STATUS_INSUFFICIENT_BUFFERS" },
		{ 0x1d, "HV_STATUS_NO_RESOURCES" },
		{ 0x78, "HV_STATUS_TIME_OUT" },
		{ 0x79, "HV_STATUS_CALL_PENDING" },
		{ 0x86, "HV_STATUS_VTL_ALREADY_ENABLED" },
	};
	unsigned named = 0;

	assert_int_equal(HVTLB_STATUS_COUNT, 17);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		assert_string_equal(hvtlb_status_name(rows[i].v), rows[i].name);
	for (unsigned v = 0; v <= 0xffff; v++)
		named += hvtlb_status_name((hvtlb_status)v) != NULL;
	assert_int_equal(named, HVTLB_STATUS_COUNT);
}

static void test_flag_and_profile_names(void **state)
{
	enum hvtlb_profile p;

	assert_string_equal(hvtlb_flush_flag_name(0x1), "all-processors");
	assert_string_equal(hvtlb_flush_flag_name(0x2),
			    "all-virtual-address-spaces");
	assert_string_equal(hvtlb_flush_flag_name(0x4),
			    "non-global-mappings-only");
	assert_string_equal(hvtlb_flush_flag_name(0x8),
			    "use-extended-range-format");
	assert_null(hvtlb_flush_flag_name(0x10));
	assert_null(hvtlb_flush_flag_name(0x3));
	assert_null(hvtlb_flush_flag_name(0));

	static const char *const names[] = { "strict",	    "kvm",
					     "xen",	    "openvmm-tdx",
					     "openvmm-snp", "kvm-5.10" };
	assert_int_equal(HVTLB_PROFILE_COUNT_, 6);
	for (int i = 0; i < 6; i++) {
		const char *src = hvtlb_profile_source((enum hvtlb_profile)i);

		assert_string_equal(hvtlb_profile_name((enum hvtlb_profile)i),
				    names[i]);
		p = HVTLB_PROFILE_COUNT_;
		assert_int_equal(hvtlb_profile_from_name(names[i], &p), 0);
		assert_int_equal(p, i);
		/* Every profile names the source it follows. */
		assert_non_null(src);
		assert_true(strlen(src) > 10);
	}
	assert_null(hvtlb_profile_name(HVTLB_PROFILE_COUNT_));
	assert_null(hvtlb_profile_source(HVTLB_PROFILE_COUNT_));
	/* The old name is the profile it always followed. */
	p = HVTLB_PROFILE_COUNT_;
	assert_int_equal(hvtlb_profile_from_name("openvmm", &p), 0);
	assert_int_equal(p, HVTLB_PROFILE_OPENVMM_TDX);
	assert_int_equal(HVTLB_PROFILE_OPENVMM, HVTLB_PROFILE_OPENVMM_TDX);
	assert_int_equal(hvtlb_profile_from_name("openvmm-", &p),
			 -HVTLB_EINVAL);
	assert_int_equal(hvtlb_profile_from_name(NULL, &p), -HVTLB_EINVAL);
	assert_int_equal(hvtlb_profile_from_name("kvm", NULL), -HVTLB_EINVAL);
	assert_int_equal(hvtlb_profile_from_name("", &p), -HVTLB_EINVAL);
	assert_int_equal(hvtlb_profile_from_name("stric", &p), -HVTLB_EINVAL);
}

static void test_control_pack_fields(void **state)
{
	struct hvtlb_control c = { 0 };
	uint64_t w = 0;

	/* The examples of docs/wire-format.md, "The control word". */
	c.code = HVTLB_CALL_FLUSH_LIST;
	c.rep_count = 1;
	assert_int_equal(hvtlb_control_pack(&c, &w), 0);
	assert_int_equal(w, 0x0000000100000003ULL);
	c.rep_count = 25;
	c.rep_start = 20;
	assert_int_equal(hvtlb_control_pack(&c, &w), 0);
	assert_int_equal(w, 0x0014001900000003ULL);

	/* One field at a time, each at its own bit position. */
	memset(&c, 0, sizeof(c));
	c.code = 0xffff;
	assert_int_equal(hvtlb_control_pack(&c, &w), 0);
	assert_int_equal(w, 0xffffULL);
	memset(&c, 0, sizeof(c));
	c.fast = true;
	assert_int_equal(hvtlb_control_pack(&c, &w), 0);
	assert_int_equal(w, 1ULL << 16);
	memset(&c, 0, sizeof(c));
	c.varhead = 1;
	assert_int_equal(hvtlb_control_pack(&c, &w), 0);
	assert_int_equal(w, 1ULL << 17);
	c.varhead = HVTLB_VARHEAD_MAX;
	assert_int_equal(hvtlb_control_pack(&c, &w), 0);
	assert_int_equal(w, 0x3ffULL << 17);
	memset(&c, 0, sizeof(c));
	c.nested = true;
	assert_int_equal(hvtlb_control_pack(&c, &w), 0);
	assert_int_equal(w, 1ULL << 31);
	memset(&c, 0, sizeof(c));
	c.rep_count = HVTLB_REP_MAX;
	assert_int_equal(hvtlb_control_pack(&c, &w), 0);
	assert_int_equal(w, 0xfffULL << 32);
	memset(&c, 0, sizeof(c));
	c.rep_start = HVTLB_REP_MAX;
	assert_int_equal(hvtlb_control_pack(&c, &w), 0);
	assert_int_equal(w, 0xfffULL << 48);

	/* Everything at once: only reserved bits stay clear. */
	c.code = 0xffff;
	c.fast = true;
	c.varhead = HVTLB_VARHEAD_MAX;
	c.nested = true;
	c.rep_count = HVTLB_REP_MAX;
	c.rep_start = HVTLB_REP_MAX;
	assert_int_equal(hvtlb_control_pack(&c, &w), 0);
	assert_int_equal(w, ~HVTLB_CTL_RESERVED_MASK_NESTED | (1ULL << 31));
	assert_int_equal(w & HVTLB_CTL_RESERVED_MASK, 0);
}

static void test_control_pack_rejects(void **state)
{
	struct hvtlb_control c = { .code = HVTLB_CALL_FLUSH_LIST };
	uint64_t w = 0x1234;

	c.rep_count = HVTLB_REP_MAX + 1;
	assert_int_equal(hvtlb_control_pack(&c, &w), -HVTLB_EINVAL);
	c.rep_count = 1;
	c.rep_start = HVTLB_REP_MAX + 1;
	assert_int_equal(hvtlb_control_pack(&c, &w), -HVTLB_EINVAL);
	c.rep_start = 0;
	c.varhead = HVTLB_VARHEAD_MAX + 1;
	assert_int_equal(hvtlb_control_pack(&c, &w), -HVTLB_EINVAL);
	c.varhead = 0;
	c.reserved = 1ULL << 27;
	assert_int_equal(hvtlb_control_pack(&c, &w), -HVTLB_EINVAL);
	c.reserved = 1ULL << 63;
	assert_int_equal(hvtlb_control_pack(&c, &w), -HVTLB_EINVAL);
	c.reserved = 0;
	assert_int_equal(hvtlb_control_pack(&c, &w), 0);
	assert_int_equal(w, 0x0000000100000003ULL);
}

static void test_control_unpack(void **state)
{
	struct hvtlb_control c;

	hvtlb_control_unpack(0x0014001900000003ULL, &c);
	assert_int_equal(c.code, 3);
	assert_false(c.fast);
	assert_int_equal(c.varhead, 0);
	assert_false(c.nested);
	assert_int_equal(c.rep_count, 25);
	assert_int_equal(c.rep_start, 20);
	assert_int_equal(c.reserved, 0);

	hvtlb_control_unpack(~0ULL, &c);
	assert_int_equal(c.code, 0xffff);
	assert_true(c.fast);
	assert_int_equal(c.varhead, 1023);
	assert_true(c.nested);
	assert_int_equal(c.rep_count, 4095);
	assert_int_equal(c.rep_start, 4095);
	assert_int_equal(c.reserved, HVTLB_CTL_RESERVED_MASK);

	/* Each reserved bit is reported as itself; bit 31 is "nested". */
	for (unsigned bit = 0; bit < 64; bit++) {
		uint64_t w = 1ULL << bit;

		hvtlb_control_unpack(w, &c);
		if (HVTLB_CTL_RESERVED_MASK & w)
			assert_int_equal(c.reserved, w);
		else
			assert_int_equal(c.reserved, 0);
		assert_int_equal(c.nested, bit == 31);
		assert_int_equal(c.fast, bit == 16);
	}
	assert_int_equal(HVTLB_CTL_RESERVED_MASK | (1ULL << 31),
			 HVTLB_CTL_RESERVED_MASK_NESTED);
}

static void test_control_round_trip(void **state)
{
	uint64_t seed = 42;

	for (int i = 0; i < 100000; i++) {
		uint64_t w = rng_next(&seed) & ~HVTLB_CTL_RESERVED_MASK;
		struct hvtlb_control c;
		uint64_t back = ~w;

		hvtlb_control_unpack(w, &c);
		assert_int_equal(c.reserved, 0);
		assert_int_equal(hvtlb_control_pack(&c, &back), 0);
		assert_int_equal(back, w);
	}
}

static void test_result_word(void **state)
{
	uint64_t r = hvtlb_result_pack(HVTLB_STATUS_INVALID_PARAMETER, 20);

	assert_int_equal(r, 0x0000001400000005ULL);
	assert_int_equal(hvtlb_result_status(r), 5);
	assert_int_equal(hvtlb_result_reps(r), 20);
	assert_int_equal(hvtlb_result_pack(0, 4095), 0xfffULL << 32);
	/* Reps wider than 12 bits do not spill into reserved bits. */
	assert_int_equal(hvtlb_result_pack(0, 0x1fff), 0xfffULL << 32);
	/* Reserved bits of a host answer are ignored. */
	r = 0xf000f000ffff0000ULL | (7ULL << 32) | 0x13;
	assert_int_equal(hvtlb_result_status(r), 0x13);
	assert_int_equal(hvtlb_result_reps(r), 7);
}

static void test_fast_regs(void **state)
{
	uint8_t in[HVTLB_FAST_BYTES], out[HVTLB_FAST_BYTES];
	struct hvtlb_fast_regs regs;

	for (unsigned i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i + 1);
	memset(&regs, 0xcc, sizeof(regs));
	hvtlb_fast_regs_from_input(in, sizeof(in), &regs);
	assert_int_equal(regs.rdx, le64_get(in));
	assert_int_equal(regs.r8, le64_get(in + 8));
	for (int x = 0; x < 6; x++) {
		assert_int_equal(regs.xmm[x][0], le64_get(in + 16 + 16 * x));
		assert_int_equal(regs.xmm[x][1], le64_get(in + 24 + 16 * x));
	}
	memset(out, 0xcc, sizeof(out));
	hvtlb_fast_regs_to_input(&regs, out);
	assert_memory_equal(in, out, sizeof(in));

	/* A short image: the rest of the registers is zero. */
	memset(&regs, 0xcc, sizeof(regs));
	hvtlb_fast_regs_from_input(in, 24, &regs);
	assert_int_equal(regs.rdx, le64_get(in));
	assert_int_equal(regs.r8, le64_get(in + 8));
	assert_int_equal(regs.xmm[0][0], le64_get(in + 16));
	assert_int_equal(regs.xmm[0][1], 0);
	for (int x = 1; x < 6; x++)
		assert_true(regs.xmm[x][0] == 0 && regs.xmm[x][1] == 0);
	hvtlb_fast_regs_to_input(&regs, out);
	assert_memory_equal(in, out, 24);
	for (unsigned i = 24; i < sizeof(out); i++)
		assert_int_equal(out[i], 0);

	memset(&regs, 0xcc, sizeof(regs));
	hvtlb_fast_regs_from_input(in, 0, &regs);
	assert_true(regs.rdx == 0 && regs.r8 == 0 && regs.xmm[5][1] == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_call_names),
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_flag_and_profile_names),
		cmocka_unit_test(test_control_pack_fields),
		cmocka_unit_test(test_control_pack_rejects),
		cmocka_unit_test(test_control_unpack),
		cmocka_unit_test(test_control_round_trip),
		cmocka_unit_test(test_result_word),
		cmocka_unit_test(test_fast_regs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
