// SPDX-License-Identifier: MIT
/*
 * Fuzzes the encoder, then decodes what it produced (strict profile). The
 * input drives a call description:
 *   [0] call (mod 6)  [1] bits 0-3 flags, 4 fast, 5 all_vps, 6 Linux style
 *   [2..9] address space  [10] vector  [11] target VTL
 *   [12] n, then n VP indices of 2 bytes (mod 4096)
 *   then ranges of 13 bytes: gva (8), pages (4), page size (1)
 * Invariants: the encoder answers 0 or a documented error and agrees with
 * hvtlb_encode_suggest(); what it encodes fits its budget and decodes to the
 * same call, VP set and GVAs within the rounded ranges.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <hvtlb/hypercall.h>

#include "fuzz.h"

#define MAX_RANGES 600

static const uint16_t calls[] = { 0x2, 0x3, 0xb, 0x13, 0x14, 0x15 };

static uint64_t get_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Whether [gva, gva + pages << shift) lies inside a rounded range. */
static bool inside(const struct hvtlb_gva_range *rs, size_t n, uint64_t gva,
		   uint64_t pages, unsigned shift)
{
	uint64_t last = gva + ((pages - 1) << shift) + ((1ULL << shift) - 1);

	for (size_t i = 0; i < n; i++) {
		unsigned s = hvtlb_page_shift(rs[i].size);
		uint64_t first = rs[i].gva & ~((1ULL << s) - 1);
		uint64_t rlast = (rs[i].gva + (rs[i].pages << s) - 1) |
				 ((1ULL << s) - 1);

		if (gva >= first && last <= rlast)
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hvtlb_gva_range ranges[MAX_RANGES];
	static struct hvtlb_encoded enc;
	struct hvtlb_call_desc d;
	struct hvtlb_vpmask m;
	size_t pos, nr = 0;
	uint16_t sg;
	int rc;

	if (size < 13)
		return 0;
	memset(&d, 0, sizeof(d));
	memset(&m, 0, sizeof(m));
	d.call = calls[data[0] % 6];
	d.flags = data[1] & 0xf;
	d.fast = data[1] & 0x10;
	d.all_vps = data[1] & 0x20;
	d.vpset_style =
		data[1] & 0x40 ? HVTLB_VPSET_LINUX : HVTLB_VPSET_COMPACT;
	d.address_space = get_le(data + 2, 8);
	d.vector = data[10];
	d.target_vtl = data[11];
	pos = 13;
	for (unsigned i = 0; i < data[12] && pos + 2 <= size; i++, pos += 2)
		hvtlb_vpmask_set(&m, (uint32_t)(get_le(data + pos, 2) % 4096));
	d.vps = data[1] & 0x80 ? NULL : &m;
	for (; pos + 13 <= size && nr < MAX_RANGES; pos += 13, nr++) {
		ranges[nr].gva = get_le(data + pos, 8);
		ranges[nr].pages = get_le(data + pos + 8, 4);
		ranges[nr].size = (enum hvtlb_page_size)(data[pos + 12] % 3);
	}
	d.ranges = ranges;
	d.nranges = nr;

	sg = hvtlb_encode_suggest(&d);
	rc = hvtlb_encode(&d, &enc);
	FUZZ_CHECK(rc == 0 || rc == -HVTLB_EINVAL || rc == -HVTLB_ERANGE ||
		   rc == -HVTLB_ENOSPC);
	if (rc == -HVTLB_EINVAL)
		return 0;
	if (rc) {
		/* A fast request is answered for the memory form, which may
		 * be the same call. */
		FUZZ_CHECK(sg != d.call || (d.fast && rc == -HVTLB_ENOSPC));
		return 0;
	}
	FUZZ_CHECK(sg == d.call);
	FUZZ_CHECK(enc.len % 8 == 0);
	FUZZ_CHECK(enc.len <= (d.fast ? HVTLB_FAST_BYTES : HVTLB_PAGE_BYTES));
	FUZZ_CHECK((enc.control & HVTLB_CTL_CODE_MASK) == d.call);
	FUZZ_CHECK(!!(enc.control & HVTLB_CTL_FAST) == d.fast);

	struct hvtlb_host h = { .profile = HVTLB_PROFILE_STRICT,
				.vp_count = HVTLB_MAX_VPS,
				.va_bits = 57 };
	struct hvtlb_input in = { .data = enc.input,
				  .len = enc.len,
				  .gpa = 0x5000 };
	struct hvtlb_decoded dd;
	uint64_t res = hvtlb_decode(&h, enc.control, &in, &dd);
	uint16_t status = hvtlb_result_status(res);

	FUZZ_CHECK(status == HVTLB_STATUS_SUCCESS ||
		   status == HVTLB_STATUS_INVALID_PARAMETER);
	if (status)
		return 0;
	FUZZ_CHECK(dd.call == d.call);
	if (hvtlb_call_is_rep(d.call)) {
		bool ext = d.flags & HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT;
		struct hvtlb_gva_iter it;
		struct hvtlb_gva_range r;

		FUZZ_CHECK(hvtlb_result_reps(res) ==
			   hvtlb_gva_entries_needed(ranges, nr, ext));
		hvtlb_gva_iter_init(&it, &dd);
		while (hvtlb_gva_iter_next(&it, &r))
			FUZZ_CHECK(inside(ranges, nr, r.gva, r.pages,
					  hvtlb_page_shift(r.size)));
	}
	if (!dd.all_vps) {
		struct hvtlb_vp_iter it;
		uint32_t vp;
		unsigned n = 0;

		hvtlb_vp_iter_init(&it, &dd);
		while (hvtlb_vp_iter_next(&it, &vp)) {
			FUZZ_CHECK(d.vps && hvtlb_vpmask_test(d.vps, vp));
			n++;
		}
		for (unsigned b = 0; d.vps && b < 64; b++)
			n -= (unsigned)__builtin_popcountll(d.vps->bits[b]);
		FUZZ_CHECK(n == 0);
	}
	return 0;
}
