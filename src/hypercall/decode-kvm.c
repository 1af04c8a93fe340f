// SPDX-License-Identifier: MIT
/*
 * The kvm profile: Linux 6.12.117 arch/x86/kvm/hyperv.c, as Debian ships
 * it (linux-source-6.12 6.12.117-1~deb12u1). Line numbers below are of
 * that file. Assumed VM state: Hyper-V CPUID enforcement off (KVM's
 * default, so hv_check_hypercall_access() allows every call, 2495-2543),
 * the local APIC in the kernel, TDP on, no eventfd registered for
 * SignalEvent, SynDBG off; host->kvm_synic says whether the SynIC is on.
 */
#include "decode.h"

/* KVM keeps 16 slots per vCPU and one for "flush all" (2038, 2145). */
#define KVM_MAX_ENTRIES 15u
/* Fast input in 8-byte halves of XMM0..5 (1917: "XMM halves"). */
#define KVM_XMM_HALVES 12u
/* 63:60, 47:44 and 31:27 (include/asm-generic/hyperv-tlfs.h:201-212). */
#define KVM_RSVD_MASK HVTLB_CTL_RESERVED_MASK_NESTED
/* HV_EXT_CALL_MAX = 0x8001 + 64 (63). */
#define KVM_EXT_CALL_MAX (HV_EXT_CALL_QUERY_CAPABILITIES + 64u)
/* KVM_HYPERV_CONN_ID_MASK (arch/x86/include/uapi/asm/kvm.h:889). */
#define KVM_CONN_ID_MASK 0x00ffffffULL

static uint32_t kvm_max_vcpus(const struct hvtlb_host *h)
{
	uint32_t m = h->kvm_max_vcpus;

	if (!m)
		return HVTLB_KVM_MAX_VCPUS_DEFAULT;
	if (m < HVTLB_KVM_MAX_VCPUS_MIN)
		return HVTLB_KVM_MAX_VCPUS_MIN;
	return m < HVTLB_MAX_VPS ? m : HVTLB_MAX_VPS;
}

/* Banks KVM reads at most: KVM_HV_MAX_SPARSE_VCPU_SET_BITS (45, 1941). */
static unsigned kvm_bank_cap(const struct hvtlb_host *h)
{
	return (kvm_max_vcpus(h) + 63) / 64;
}

/* The per-page flush of a queued entry (1997-2013): the first page of an
 * entry is checked for canonicality (2001, fixed by fa787ac07b3c), the
 * others are not. Returns the bug the first entry that needs one hits. */
static uint16_t kvm_entry_bug(const struct hvtlb_decoded *d)
{
	unsigned shift = d->va_bits == 57 ? 56 : 47;
	uint64_t low = 1ULL << shift, high = ~0ULL << shift;

	for (uint32_t i = 0; i < d->gva_count; i++) {
		uint64_t e = hv_ld64(d->gva + 8u * i);
		uint64_t base = e & ~HV_PAGE_OFFSET_MASK;
		uint64_t last = base + ((e & HV_PAGE_OFFSET_MASK) << 12);

		if (base >= low && base < high)
			return HV_BUG_KVM_NONCANONICAL_GVA;
		if (base < low && last >= low)
			return HV_BUG_KVM_NONCANONICAL_RANGE;
	}
	return HV_BUG_NONE;
}

/* kvm_hv_flush_tlb(), 2023-2217. */
static uint64_t kvm_flush(const struct hv_ctx *c, struct hvtlb_decoded *out)
{
	const struct hvtlb_control *k = &c->ctl;
	size_t off;	 /* memory: where the entries start */
	unsigned halves; /* fast: XMM halves already consumed */
	bool all;

	if (!c->ex) {
		/* 2068-2095: 24 bytes, or RDX, R8 and XMM0 low. */
		if (!hv_kvm_flush_head(c, out, &all))
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
		off = HVTLB_FLUSH_HDR_BYTES;
		halves = 1;
	} else {
		if (!hv_kvm_flush_ex_head(c, out, &all))
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
		if (k->varhead != hv_popcount64(out->valid_mask)) /* 2119 */
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
		if (!all && k->varhead == 0) /* 2123-2124: a no-op */
			return hv_ok(k->rep_count);
		if (!all) {
			/* 1934-1943 and 1917: the XMM budget counts every
			 * bank, the read stops at KVM_MAX_VCPUS / 64. */
			unsigned cap = kvm_bank_cap(c->host);
			unsigned n = k->varhead < cap ? k->varhead : cap;

			if (k->fast && k->varhead > KVM_XMM_HALVES - 2)
				return hv_st(
					HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
			if (c->len < HVTLB_FLUSH_EX_HDR_BYTES + 8u * n)
				return hv_st(
					HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
			hv_read_banks(c, HVTLB_FLUSH_EX_HDR_BYTES, n, out);
		}
		/* 2137-2140: entries follow every bank the header counts. */
		off = HVTLB_FLUSH_EX_HDR_BYTES + 8u * k->varhead;
		halves = 2 + k->varhead;
	}
	out->all_vps = all;

	/* 2143-2151: Space, or more entries than the FIFO holds: flush
	 * all without reading them. */
	if (c->space || k->rep_count > KVM_MAX_ENTRIES) {
		out->flush_all_gvas = true;
	} else {
		if (k->fast && (halves > KVM_XMM_HALVES ||
				k->rep_count > KVM_XMM_HALVES - halves))
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
		if (c->len < off || c->len - off < 8u * k->rep_count)
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
		/* 2004-2010: every entry is read as the simple format. */
		hv_set_list(c, out, off, false);
		out->host_bug = kvm_entry_bug(out);
	}
	return hv_ok(k->rep_count); /* 2215-2216 */
}

/* kvm_hv_send_ipi()'s VP set for the Ex call (6.12, the lines cited
 * below): the count the header declares must be the mask's, and KVM
 * reads at most its bank cap. */
static uint64_t kvm_ipi_ex_set(const struct hv_ctx *c,
			       struct hvtlb_decoded *out)
{
	const struct hvtlb_control *k = &c->ctl;

	/* 2289: only ALL means all; anything else is read sparse. */
	out->all_vps = hv_ld(c, HV_OFF_IPI_FORMAT) == HVTLB_VPSET_ALL;
	if (k->varhead != hv_popcount64(out->valid_mask)) /* 2291 */
		return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	if (!out->all_vps) {
		unsigned cap = kvm_bank_cap(c->host);
		unsigned n = k->varhead < cap ? k->varhead : cap;

		if (k->varhead == 0) /* 2297-2298: no vector check */
			return hv_ok(0);
		if (k->fast && k->varhead > KVM_XMM_HALVES - 1)
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
		if (c->len < HVTLB_IPI_EX_HDR_BYTES + 8u * n)
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
		hv_read_banks(c, HVTLB_IPI_EX_HDR_BYTES, n, out);
	} else if (out->valid_mask == 0) {
		/* Before 3244867af8c0 this was a no-op. */
		out->host_bug = HV_BUG_KVM_IPI_ALL_SKIPPED;
	}
	return HV_KVM_GO_ON;
}

/* kvm_hv_send_ipi(), 2240-2321 (5.10: 1595-1667). */
uint64_t hv_kvm_ipi(const struct hv_ctx *c, struct hvtlb_decoded *out,
		    hv_kvm_ipi_set_fn *ex_set)
{
	uint64_t st;

	if (!c->ex) {
		/* 2263 (5.10: 1612-1624): 16 bytes, fast with the upper
		 * half of RDX zero, bank 0 only. */
		if (!hv_kvm_ipi_plain(c, out))
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	} else {
		/* 24 bytes of header (5.10: 1629-1631). */
		if (!hv_ipi_ex_head(c, out))
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
		st = ex_set(c, out);
		if (st != HV_KVM_GO_ON)
			return st;
	}
	/* 2311-2312 (5.10: 1656-1657) */
	if (!hv_vector_ok(out->vector))
		return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	return hv_ok(0);
}

/* kvm_hvcall_signal_event(), 2430-2469, with the fall through of 2621-2630
 * for a connection id KVM has no eventfd for. Linux 5.10.13 decides the
 * same (hyperv.c 1699-1736, 1791-1798): kvm-5.10 calls it too. */
uint64_t hv_kvm_signal_event(const struct hv_ctx *c, struct hvtlb_decoded *out)
{
	uint64_t v;

	if (!c->ctl.fast) {
		/* 2439-2446: alignment, and a read that fails, are 4. */
		if ((c->gpa & 7) || (c->gpa & 0xfff) + 8 > HVTLB_PAGE_BYTES ||
		    c->len < 8)
			return hv_st(HVTLB_STATUS_INVALID_ALIGNMENT);
	} else if (c->len < 8) {
		return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	}
	v = hv_ld(c, 0);
	/* 2454-2458: a flag number is "no such port"; other bits beyond the
	 * connection id are 3 at once. */
	if (!(v & 0xffff00000000ULL) && (v & ~KVM_CONN_ID_MASK))
		return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	/* No eventfd: 2464-2465 then 2621-2630. */
	if (!c->host->kvm_synic)
		return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	out->scope = HVTLB_SCOPE_VMM;
	return hv_ok(0);
}

uint64_t hv_kvm_synic_calls(const struct hv_ctx *c, struct hvtlb_decoded *out,
			    bool varhead)
{
	const struct hvtlb_control *k = &c->ctl;
	/* a rep count or start (5.10: 1773); 6.12 also refuses a variable
	 * header */
	bool bad = k->rep_count || k->rep_start || (varhead && k->varhead);

	switch (c->call) {
	case HV_CALL_NOTIFY_LONG_SPIN_WAIT: /* 2608-2614 (1778-1784) */
		return bad ? hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT)
			   : hv_ok(0);
	case HV_CALL_SIGNAL_EVENT: /* 2615-2623 (1785-1793) */
		return bad ? hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT)
			   : hv_kvm_signal_event(c, out);
	case HV_CALL_POST_MESSAGE: /* 2624-2630 (1794-1807) */
		if (bad || !c->host->kvm_synic)
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
		out->scope = HVTLB_SCOPE_VMM;
		return hv_ok(0);
	case HV_CALL_POST_DEBUG_DATA: /* 2670-2683 (1850-1862): no SynDBG */
	case HV_CALL_RETRIEVE_DEBUG_DATA:
		if (k->fast)
			return hv_st(HVTLB_STATUS_INVALID_PARAMETER);
		return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_CODE);
	case HV_CALL_RESET_DEBUG_SESSION:
		return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_CODE);
	}
	return HV_KVM_GO_ON;
}

/* The cases of kvm_hv_hypercall()'s switch beyond the six, 2608-2699. */
static uint64_t kvm_other(const struct hv_ctx *c, struct hvtlb_decoded *out)
{
	const struct hvtlb_control *k = &c->ctl;
	uint64_t st = hv_kvm_synic_calls(c, out, true);

	if (st != HV_KVM_GO_ON)
		return st;
	if (c->call >= HV_EXT_CALL_QUERY_CAPABILITIES &&
	    c->call <= KVM_EXT_CALL_MAX) { /* 2691-2696 */
		if (k->fast)
			return hv_st(HVTLB_STATUS_INVALID_PARAMETER);
		out->scope = HVTLB_SCOPE_VMM;
		return hv_ok(0);
	}
	return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_CODE); /* 2697-2699 */
}

/* kvm_hv_hypercall(), 2545-2713. */
static uint64_t decode_kvm(const struct hv_ctx *c, struct hvtlb_decoded *out)
{
	const struct hvtlb_control *k = &c->ctl;

	/* 2591-2594: bit 31 is in KVM's reserved mask. */
	if (c->control & KVM_RSVD_MASK)
		return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	if (!hv_call_known(c->call))
		return kvm_other(c, out);
	/* 2631-2669: varhead on the non-Ex calls, then the rep fields. */
	if (!c->ex && k->varhead)
		return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	if (!hv_kvm_reps_ok(c))
		return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	return c->ipi ? hv_kvm_ipi(c, out, kvm_ipi_ex_set) : kvm_flush(c, out);
}

const struct hv_host_ops hv_host_KVM = {
	.decode = decode_kvm,
	.max_vps = kvm_max_vcpus,
	.max_vps_name = "KVM_MAX_VCPUS",
	.hypervisor = HVTLB_HYPERVISOR_KVM,
	.fields = HVTLB_HOST_KVM_MAX_VCPUS | HVTLB_HOST_KVM_SYNIC,
};
