// SPDX-License-Identifier: MIT
/*
 * Fuzzes hvtlb_decode, both iterators and the bulk VP mask. Input layout:
 *   [0]      profile (mod the number of profiles)
 *   [1..8]   control word, little-endian
 *   [9..10]  vp_count, little-endian (mod 4097)
 *   [11]     bit 0: nesting enabled, bit 1: 57-bit VAs, bit 2: KVM
 *            SynIC on, bit 3: KVM_MAX_VCPUS 1024 (else the default),
 *            bits 7:4: the caller's VP index (openvmm-snp)
 *   [12..13] offset of the input in its 4 KiB page (mod 4096)
 *   [14..]   the input span (memory bytes or the fast register image)
 * The span is copied to an allocation of exactly its size, so ASan sees any
 * read past it. Invariants of a successful decode are checked.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <hvtlb/hypercall.h>

#include "fuzz.h"

#define HDR 14

static uint64_t get_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static bool canonical(uint64_t va, unsigned bits)
{
	uint64_t top = va >> (bits - 1);

	return top == 0 || top == (~0ULL >> (bits - 1));
}

/* The VPs of the single-step iterator: ascending, below the VP count, the
 * ones hvtlb_decoded_has_vp() names and exactly the bulk mask's bits. */
static void check_vps(const struct hvtlb_decoded *d)
{
	struct hvtlb_vp_iter it;
	struct hvtlb_vpmask mask, seen;
	uint32_t vp, prev = 0, n = 0;

	memset(&mask, 0xa5, sizeof(mask));
	FUZZ_CHECK(hvtlb_decoded_vpmask(d, &mask) == 0);
	memset(&seen, 0, sizeof(seen));
	hvtlb_vp_iter_init(&it, d);
	while (hvtlb_vp_iter_next(&it, &vp)) {
		FUZZ_CHECK(vp < d->vp_count && vp < HVTLB_MAX_VPS);
		FUZZ_CHECK(n == 0 || vp > prev);
		FUZZ_CHECK(hvtlb_decoded_has_vp(d, vp));
		FUZZ_CHECK(++n <= HVTLB_MAX_VPS);
		hvtlb_vpmask_set(&seen, vp);
		prev = vp;
	}
	if (d->all_vps)
		FUZZ_CHECK(n == d->vp_count);
	FUZZ_CHECK(!hvtlb_decoded_has_vp(d, d->vp_count));
	/* Bits at or above the VP count are clear because the iterator
	 * returns none there. */
	FUZZ_CHECK(memcmp(&mask, &seen, sizeof(mask)) == 0);
}

/* The raw batch form names the same @p n ranges as the iterator, in
 * entries of the call's format. */
static void check_raw(const struct hvtlb_decoded *d, unsigned n)
{
	static uint64_t raw[2 * HVTLB_PAGE_BYTES / 8];
	struct hvtlb_gva_iter a, b;
	struct hvtlb_gva_range r;
	size_t got;

	hvtlb_gva_iter_init(&a, d);
	hvtlb_gva_iter_init(&b, d);
	got = hvtlb_gva_iter_fill_raw(&b, raw, sizeof(raw) / sizeof(raw[0]));
	FUZZ_CHECK(got == n);
	for (size_t i = 0; i < got; i++) {
		FUZZ_CHECK(hvtlb_gva_iter_next(&a, &r));
		FUZZ_CHECK(hvtlb_gva_entry_gva(raw[i], d->extended) == r.gva);
		FUZZ_CHECK(hvtlb_gva_entry_pages(raw[i], d->extended) ==
			   r.pages);
		FUZZ_CHECK(hvtlb_gva_entry_size(raw[i], d->extended) == r.size);
	}
}

static void check_gvas(const struct hvtlb_decoded *d, const uint8_t *span,
		       size_t len, bool fast)
{
	struct hvtlb_gva_iter it;
	struct hvtlb_gva_range r;
	unsigned n = 0;

	if (!d->gva_count)
		return;
	if (!fast && d->gva) {
		FUZZ_CHECK(d->gva >= span);
		FUZZ_CHECK((size_t)(d->gva - span) + 8ULL * d->gva_count <=
			   len);
	}
	hvtlb_gva_iter_init(&it, d);
	while (hvtlb_gva_iter_next(&it, &r)) {
		unsigned shift = hvtlb_page_shift(r.size);
		uint64_t last;

		FUZZ_CHECK(r.size <= HVTLB_PAGE_1G);
		FUZZ_CHECK(r.pages > 0);
		FUZZ_CHECK((r.gva & ((1ULL << shift) - 1)) == 0);
		/* Never past 2^64. */
		FUZZ_CHECK(r.pages - 1 <= (~r.gva >> shift));
		last = r.gva + ((r.pages - 1) << shift);
		FUZZ_CHECK(canonical(r.gva, d->va_bits));
		FUZZ_CHECK(canonical(last, d->va_bits));
		/* One entry gives at most two canonical parts. */
		FUZZ_CHECK(++n <= 2 * d->gva_count);
	}
	check_raw(d, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hvtlb_host host;
	struct hvtlb_input in;
	struct hvtlb_decoded d;
	uint64_t control, res;
	uint8_t *span;
	size_t len;

	if (size < HDR)
		return 0;
	memset(&host, 0, sizeof(host));
	host.profile = (enum hvtlb_profile)(data[0] % HVTLB_PROFILE_COUNT_);
	control = get_le(data + 1, 8);
	host.vp_count = (uint32_t)(get_le(data + 9, 2) % (HVTLB_MAX_VPS + 1));
	host.nested_enabled = data[11] & 1;
	host.va_bits = data[11] & 2 ? 57 : 48;
	host.kvm_synic = data[11] & 4;
	host.kvm_max_vcpus = data[11] & 8 ? HVTLB_KVM_MAX_VCPUS_MIN : 0;
	host.caller_vp = data[11] >> 4;
	len = size - HDR;
	span = malloc(len ? len : 1);
	if (!span)
		return 0;
	memcpy(span, data + HDR, len);
	in.data = span;
	in.len = len;
	in.gpa = 0x7654321000ULL + get_le(data + 12, 2) % 4096;

	res = hvtlb_decode(&host, control, &in, &d);
	FUZZ_CHECK((res &
		    ~(HVTLB_RESULT_STATUS_MASK | HVTLB_RESULT_REPS_MASK)) == 0);
	/* No host reports more reps than asked for. */
	FUZZ_CHECK(hvtlb_result_reps(res) <=
		   ((control & HVTLB_CTL_REP_COUNT_MASK) >>
		    HVTLB_CTL_REP_COUNT_SHIFT));
	if (hvtlb_result_status(res) == HVTLB_STATUS_SUCCESS) {
		struct hvtlb_control c;

		hvtlb_control_unpack(control, &c);
		FUZZ_CHECK(d.scope <= HVTLB_SCOPE_VMM);
		FUZZ_CHECK(d.host_bug <= hvtlb_host_bug_count());
		if (d.host_bug) {
			const struct hvtlb_host_bug *b =
				hvtlb_host_bug_get(d.host_bug);

			FUZZ_CHECK(b && b->input_triggered);
			FUZZ_CHECK(b->profile == host.profile);
		}
		if (d.scope != HVTLB_SCOPE_FULL || !hvtlb_call_name(d.call)) {
			/* Beyond the six: nothing targeted, nothing read. */
			FUZZ_CHECK(!d.all_vps && !d.nbanks && !d.gva_count);
			FUZZ_CHECK(hvtlb_profile_name(host.profile));
			goto out;
		}
		if (hvtlb_call_is_flush(d.call))
			FUZZ_CHECK(hvtlb_result_reps(res) == c.rep_count);
		FUZZ_CHECK(d.vp_count <= host.vp_count);
		/* capped at the host's own limit, whatever the host */
		FUZZ_CHECK(d.vp_count == host.vp_count ||
			   d.vp_count == hvtlb_host_max_vps(&host, NULL));
		FUZZ_CHECK(d.va_bits == host.va_bits);
		FUZZ_CHECK(d.nbanks <= HVTLB_VPSET_BANKS);
		FUZZ_CHECK(d.gva_count <= c.rep_count);
		check_vps(&d);
		if (hvtlb_call_is_rep(d.call) && !d.flush_all_gvas)
			check_gvas(&d, span, len, c.fast);
	} else {
		FUZZ_CHECK(hvtlb_status_name(hvtlb_result_status(res)));
	}
out:
	free(span);
	return 0;
}
