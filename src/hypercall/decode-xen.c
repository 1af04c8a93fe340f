// SPDX-License-Identifier: MIT
/*
 * The xen profile: Xen c447b7308b (4.23-unstable),
 * xen/arch/x86/hvm/viridian/viridian.c; line numbers below are of that
 * file. Xen reads no control-word field but the code, the fast bit and the
 * rep count, never reads a GVA list (each target's whole TLB is flushed),
 * answers 5 for any guest copy that fails (hvm_copy_from_guest_phys()
 * then -EINVAL, 1017-1018) and leaves reps completed 0 except on the
 * flush calls (730, 782). Its VP bitmaps hold HVM_MAX_VCPUS = 128 bits and
 * vpmask_set() drops VPs at or above it (553-573).
 */
#include "decode.h"

static uint64_t xen_fail(void)
{
	return hv_st(HVTLB_STATUS_INVALID_PARAMETER);
}

/* The XSA-475 bugs the pre-fix code would hit for this decoded call
 * (36e90c4ef1, cc64c24502). @p vp_count is the domain's vCPU count. */
static uint16_t xen_bug(const struct hv_ctx *c, const struct hvtlb_decoded *d,
			uint32_t vp_count)
{
	if (!d->all_vps && c->ex && hv_set_names_from(d, HVTLB_XEN_MAX_VCPUS))
		return HV_BUG_XEN_XSA475_VPMASK;
	if (!c->ipi || vp_count >= HVTLB_XEN_MAX_VCPUS)
		return HV_BUG_NONE;
	if (d->all_vps || hv_set_names_from(d, vp_count))
		return HV_BUG_XEN_XSA475_SEND_IPI;
	return HV_BUG_NONE;
}

/* hv_vpset_to_vpmask(), 607-662: format and banks at @p set_off. */
static uint64_t xen_vpset(const struct hv_ctx *c, size_t set_off,
			  struct hvtlb_decoded *out)
{
	uint64_t format = hv_ld(c, set_off - 16);
	unsigned nb;

	out->valid_mask = hv_ld(c, set_off - 8);
	if (format == HVTLB_VPSET_ALL) { /* 618-620 */
		out->all_vps = true;
		return hv_ok(0);
	}
	if (format != HVTLB_VPSET_SPARSE_4K) /* 655-659 */
		return xen_fail();
	/* 626-637: popcount(ValidBanksMask) banks; varhead is not read. */
	nb = hv_popcount64(out->valid_mask);
	if (c->len < set_off + 8u * nb)
		return xen_fail();
	hv_read_banks(c, set_off, nb, out);
	return hv_ok(0);
}

/* hvcall_flush(), 687-733, and hvcall_flush_ex(), 735-785. */
static uint64_t xen_flush(const struct hv_ctx *c, struct hvtlb_decoded *out)
{
	size_t hdr = hv_fixed_header_bytes(c->call);
	uint64_t r;

	if (c->ctl.fast) /* 701, 749 */
		return xen_fail();
	if (c->len < hdr) /* 705, 753 */
		return xen_fail();
	out->address_space = hv_ld(c, HV_OFF_ADDRESS_SPACE);
	out->flags = hv_ld(c, HV_OFF_FLAGS);
	out->flush_all_gvas = true; /* paging_flush_tlb(): the whole TLB */
	out->all_vps = out->flags & HVTLB_FLUSH_ALL_PROCESSORS; /* 714, 757 */
	if (!c->ex) {
		hv_set_mask0(out, hv_ld(c, HV_OFF_MASK)); /* 718-720 */
	} else if (!out->all_vps) {
		r = xen_vpset(c, HVTLB_FLUSH_EX_HDR_BYTES, out); /* 757-773 */
		if (hvtlb_result_status(r) != HVTLB_STATUS_SUCCESS)
			return r;
	}
	return hv_ok(c->ctl.rep_count); /* 730, 782 */
}

/* hvcall_ipi(), 808-858, and hvcall_ipi_ex(), 860-902. */
static uint64_t xen_ipi(const struct hv_ctx *c, struct hvtlb_decoded *out)
{
	uint64_t r;

	if (!c->ex && c->ctl.fast) {
		/* 818-825: RDX is the vector, its upper half must be 0. */
		if (c->len < HVTLB_IPI_HDR_BYTES)
			return xen_fail();
		out->vector = hv_ld32(c->data + HV_OFF_IPI_VECTOR);
		out->target_vtl = c->data[HV_OFF_IPI_VTL];
		if (hv_ld32(c->data + 4) != 0)
			return xen_fail();
	} else {
		size_t hdr = hv_fixed_header_bytes(c->call);

		if (c->ctl.fast) /* 877 */
			return xen_fail();
		if (c->len < hdr) /* 835, 881 */
			return xen_fail();
		out->vector = hv_ld32(c->data + HV_OFF_IPI_VECTOR);
		out->target_vtl = c->data[HV_OFF_IPI_VTL];
		/* 839-843, 885-889: target VTL and padding must be 0. */
		if (hv_ld32(c->data + 4) != 0)
			return xen_fail();
	}
	if (!hv_vector_ok(out->vector)) /* 849, 891 */
		return xen_fail();
	if (!c->ex) {
		hv_set_mask0(out, hv_ld(c, HV_OFF_IPI_MASK)); /* 852-853 */
		return hv_ok(0);
	}
	r = xen_vpset(c, HVTLB_IPI_EX_HDR_BYTES, out); /* 894-897 */
	return r;
}

/* viridian_hypercall(), 904-1035. */
static uint64_t decode_xen(const struct hv_ctx *c, struct hvtlb_decoded *out)
{
	uint32_t vp_count = c->host->vp_count;
	uint64_t r;

	if (c->call == HV_CALL_NOTIFY_LONG_SPIN_WAIT) /* 937-946 */
		return hv_ok(0);
	if (!hv_call_known(c->call)) /* 986-998, 1010-1011 */
		return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_CODE);
	r = c->ipi ? xen_ipi(c, out) : xen_flush(c, out);
	if (hvtlb_result_status(r) == HVTLB_STATUS_SUCCESS)
		out->host_bug = xen_bug(c, out, vp_count);
	return r;
}

static uint32_t xen_max_vps(const struct hvtlb_host *h)
{
	(void)h;
	return HVTLB_XEN_MAX_VCPUS;
}

const struct hv_host_ops hv_host_XEN = {
	.decode = decode_xen,
	.max_vps = xen_max_vps,
	.max_vps_name = "HVM_MAX_VCPUS",
	.hypervisor = HVTLB_HYPERVISOR_XEN,
};
