// SPDX-License-Identifier: MIT
/*
 * The openvmm-tdx and openvmm-snp profiles: OpenVMM 1488a37b7c, the
 * hypercall dispatcher of vm/hv1/hv1_hypercall (support.rs, imp.rs) and
 * the flush and IPI handlers of the OpenHCL paravisor for hardware-isolated
 * VMs (openhcl/virt_mshv_vtl/src/processor/{hardware_cvm,tdx,snp}/mod.rs).
 * The caller is taken to run in VTL0, the normal guest.
 */
#include "decode.h"

/* FLUSH_GVA_LIST_SIZE (tdx/tlb_flush.rs:23). */
#define TDX_GVA_LIST 32u
/* snp/mod.rs:3267: more ranges, or a range of more additional pages,
 * and SNP flushes the whole address space. */
#define SNP_MAX_RANGES 16u
#define SNP_MAX_ADDITIONAL 16u

/* HvInputVtl (vm/hv1/hvdef/src/lib.rs:1526-1532). */
#define VTL_VALUE_MASK 0x0fu
#define VTL_USE 0x10u
#define VTL_RESERVED 0xe0u

enum ovmm_class {
	OVMM_SIMPLE,   /* HypercallData::Simple, fixed size */
	OVMM_VARIABLE, /* HypercallData::Simple, variable header */
	OVMM_REP,      /* HypercallData::Rep, fixed header */
	OVMM_VTL,      /* HypercallData::Vtl: no checks at all */
};

/* The calls beyond the six in the TDX and SNP dispatchers (the same set:
 * tdx/mod.rs:3719-3747, snp/mod.rs:1111-1139), with their class from
 * vm/hv1/hv1_hypercall/src/imp.rs. */
static const struct {
	uint16_t code;
	uint8_t class;
} ovmm_calls[] = {
	{ 0x000c, OVMM_REP },	   /* ModifyVtlProtectionMask */
	{ 0x000d, OVMM_SIMPLE },   /* EnablePartitionVtl */
	{ 0x000f, OVMM_SIMPLE },   /* EnableVpVtl */
	{ 0x0011, OVMM_VTL },	   /* VtlCall */
	{ 0x0012, OVMM_VTL },	   /* VtlReturn */
	{ 0x004d, OVMM_SIMPLE },   /* InstallIntercept */
	{ 0x0050, OVMM_REP },	   /* GetVpRegisters */
	{ 0x0051, OVMM_REP },	   /* SetVpRegisters */
	{ 0x0052, OVMM_SIMPLE },   /* TranslateVirtualAddress */
	{ 0x005c, OVMM_SIMPLE },   /* PostMessage */
	{ 0x005d, OVMM_SIMPLE },   /* SignalEvent */
	{ 0x007e, OVMM_VARIABLE }, /* RetargetDeviceInterrupt */
	{ 0x0094, OVMM_SIMPLE },   /* AssertVirtualInterrupt */
	{ 0x0099, OVMM_SIMPLE },   /* StartVirtualProcessor */
	{ 0x009a, OVMM_REP },	   /* GetVpIndexFromApicId */
	{ 0x00db, OVMM_REP },	   /* ModifySparseGpaPageHostVisibility */
	{ 0x011c, OVMM_REP },	   /* QuerySparseGpaPageHostVisibility */
	{ 0x8001, OVMM_SIMPLE },   /* ExtQueryCapabilities */
};

/* A failure in a call's handler: HvRepResult Err((e, 0)) gives reps
 * completed = rep start (support.rs:594-602, 658-666). */
static uint64_t ovmm_fail(const struct hv_ctx *c, hvtlb_status s)
{
	return hvtlb_result_pack(s, c->list ? c->ctl.rep_start : 0);
}

/* The control-word checks of dispatch_inner() (support.rs:187-221). */
static bool ovmm_control_ok(const struct hvtlb_control *k, bool rep,
			    bool variable)
{
	if (rep)
		return k->rep_count != 0 && (variable || !k->varhead) &&
		       k->rep_start < k->rep_count;
	return !k->rep_count && !k->rep_start && (variable || !k->varhead);
}

/* A call beyond the six: unhandled() answers 2 (support.rs:130-133,
 * 768-775); the others get the control-word checks and go to handlers
 * hvtlb does not model (their sizes, and so the buffer checks, neither). */
static uint64_t ovmm_other(const struct hv_ctx *c, struct hvtlb_decoded *out)
{
	for (size_t i = 0; i < sizeof(ovmm_calls) / sizeof(ovmm_calls[0]);
	     i++) {
		unsigned cls = ovmm_calls[i].class;

		if (ovmm_calls[i].code != c->call)
			continue;
		if (cls != OVMM_VTL &&
		    !ovmm_control_ok(&c->ctl, cls == OVMM_REP,
				     cls == OVMM_VARIABLE))
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
		out->scope = HVTLB_SCOPE_DISPATCH;
		return hv_ok(0);
	}
	return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_CODE);
}

/* Whether any entry of the List is a large-page extended entry. */
static bool ovmm_any_large(const struct hvtlb_decoded *d)
{
	for (uint32_t i = 0; i < d->gva_count; i++) {
		if (hv_ld64(d->gva + 8u * i) & HVTLB_GVA_EXT_LARGE)
			return true;
	}
	return false;
}

/* snp/mod.rs:3267: more than 16 ranges, or one of more than 16
 * additional pages (bits 10:0 extended, 11:0 simple). */
static bool snp_too_much(const struct hvtlb_decoded *d)
{
	uint64_t count_mask =
		d->extended ? HV_GVA_EXT_COUNT_MASK : HV_GVA_SIMPLE_COUNT_MASK;

	if (d->gva_count > SNP_MAX_RANGES)
		return true;
	for (uint32_t i = 0; i < d->gva_count; i++) {
		if ((hv_ld64(d->gva + 8u * i) & count_mask) >
		    SNP_MAX_ADDITIONAL)
			return true;
	}
	return false;
}

/* Whether the named set is exactly VP @p vp (snp/mod.rs:3364). */
static bool set_is_only(const struct hvtlb_decoded *d, uint32_t vp)
{
	unsigned n = 0;

	for (unsigned i = 0; i < d->nbanks; i++)
		n += hv_popcount64(d->banks[i]);
	return n == 1 && vp < HVTLB_MAX_VPS && hvtlb_decoded_has_vp(d, vp);
}

/* The four flush handlers: imp.rs:790-893, the shared validation
 * (hardware_cvm/mod.rs:1414-1434), then the backing's own. */
static uint64_t ovmm_flush(const struct hv_ctx *c, bool snp,
			   struct hvtlb_decoded *out)
{
	const struct hvtlb_control *k = &c->ctl;
	uint64_t valid;

	out->address_space = hv_ld(c, HV_OFF_ADDRESS_SPACE);
	out->flags = hv_ld(c, HV_OFF_FLAGS);
	if (c->ex) {
		/* imp.rs:823, 883: SPARSE_4K only; proc_mask.rs:26-29: one
		 * bank per valid bit. */
		if (hv_ld(c, HV_OFF_EX_FORMAT) != HVTLB_VPSET_SPARSE_4K)
			return ovmm_fail(c, HVTLB_STATUS_INVALID_PARAMETER);
		out->valid_mask = hv_ld(c, HV_OFF_EX_VMASK);
		if (k->varhead != hv_popcount64(out->valid_mask))
			return ovmm_fail(c, HVTLB_STATUS_INVALID_PARAMETER);
		hv_read_banks(c, HVTLB_FLUSH_EX_HDR_BYTES, k->varhead, out);
	} else {
		hv_set_mask0(out, hv_ld(c, HV_OFF_MASK));
	}
	/* hardware_cvm/mod.rs:1420-1431: the extended flag on List only,
	 * an empty set only with ALL_PROCESSORS (proc_mask.rs:41-43). */
	valid = HVTLB_FLUSH_ALL_PROCESSORS |
		HVTLB_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES |
		HVTLB_FLUSH_NON_GLOBAL_MAPPINGS_ONLY |
		(c->list ? HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT : 0);
	if (out->flags & ~valid)
		return ovmm_fail(c, HVTLB_STATUS_INVALID_PARAMETER);
	if (hv_set_empty(out) && !(out->flags & HVTLB_FLUSH_ALL_PROCESSORS))
		return ovmm_fail(c, HVTLB_STATUS_INVALID_PARAMETER);

	if (c->list)
		hv_set_list(c, out,
			    hv_fixed_header_bytes(c->call) + 8u * k->varhead,
			    out->flags & HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT);
	if (!snp) {
		/* tdx/mod.rs:4413-4428, 4497-4523: too many ranges, or a
		 * large page, and the list becomes a flush entire. */
		if (c->space || out->gva_count > TDX_GVA_LIST ||
		    (out->extended && ovmm_any_large(out)))
			out->flush_all_gvas = true;
		/* 4436, 4487: the named set is woken, or all with
		 * ALL_PROCESSORS; 4557-4558 indexes active_vtl[vp]. */
		out->all_vps = out->flags & HVTLB_FLUSH_ALL_PROCESSORS;
		if (!out->all_vps &&
		    hv_set_names_from(out, c->host->vp_count < HVTLB_MAX_VPS
						   ? c->host->vp_count
						   : HVTLB_MAX_VPS))
			out->host_bug = HV_BUG_OPENVMM_TDX_FLUSH_VP_OOB;
	} else if (c->space || snp_too_much(out)) {
		/* snp/mod.rs:3359-3378: INVLPGB of the whole ASID, on every
		 * VP, unless the named set is the caller alone and only
		 * non-global entries go. */
		out->flush_all_gvas = true;
		out->all_vps =
			!(set_is_only(out, c->host->caller_vp) &&
			  (out->flags & HVTLB_FLUSH_NON_GLOBAL_MAPPINGS_ONLY));
	} else {
		/* 3310-3357: INVLPGB of each range, on every VP. */
		out->all_vps = true;
	}
	if (out->flush_all_gvas) {
		out->gva = NULL;
		out->gva_count = 0;
		out->extended = false;
	}
	return hv_ok(k->rep_count);
}

/* imp.rs:959-1012, then hardware_cvm/mod.rs:3152-3194 and 2701-2721. */
static uint64_t ovmm_ipi(const struct hv_ctx *c, struct hvtlb_decoded *out)
{
	const struct hvtlb_control *k = &c->ctl;
	uint8_t vtl = c->data[HV_OFF_IPI_VTL];
	uint8_t flags = c->data[5];

	out->vector = hv_ld32(c->data + HV_OFF_IPI_VECTOR);
	out->target_vtl = vtl;
	if (c->data[6] | c->data[7]) /* imp.rs:962, 998 */
		return hv_st(HVTLB_STATUS_INVALID_PARAMETER);
	if (c->ex && hv_ld(c, HV_OFF_IPI_FORMAT) != HVTLB_VPSET_SPARSE_4K)
		return hv_st(HVTLB_STATUS_INVALID_PARAMETER); /* imp.rs:1002 */
	/* HvInputVtl::target_vtl() (hvdef lib.rs:1550-1559, 1079-1089):
	 * reserved bits 7:5, or a VTL above 2 when bit 4 says use it. */
	if (vtl & VTL_RESERVED)
		return hv_st(HVTLB_STATUS_INVALID_PARAMETER);
	if ((vtl & VTL_USE) && (vtl & VTL_VALUE_MASK) > 2)
		return hv_st(HVTLB_STATUS_INVALID_PARAMETER);
	if (c->ex) {
		out->valid_mask = hv_ld(c, HV_OFF_IPI_VMASK);
		if (k->varhead != hv_popcount64(out->valid_mask))
			return hv_st(HVTLB_STATUS_INVALID_PARAMETER);
		hv_read_banks(c, HVTLB_IPI_EX_HDR_BYTES, k->varhead, out);
	} else {
		hv_set_mask0(out, hv_ld(c, HV_OFF_IPI_MASK));
	}
	if (flags) /* hardware_cvm/mod.rs:3162, 3184 */
		return hv_st(HVTLB_STATUS_INVALID_PARAMETER);
	/* processor/mod.rs:1230-1235: no VTL above the caller's (VTL0). */
	if ((vtl & VTL_USE) && (vtl & VTL_VALUE_MASK) > 0)
		return hv_st(HVTLB_STATUS_ACCESS_DENIED);
	if (!hv_vector_ok(out->vector)) /* hardware_cvm/mod.rs:2711 */
		return hv_st(HVTLB_STATUS_INVALID_PARAMETER);
	/* 2715-2719: VPs past the VM are skipped (virt_support_apic
	 * looks them up with get()); an empty set sends nothing. */
	return hv_ok(0);
}

/* Dispatcher::dispatch() and dispatch_inner() (support.rs:163-352). */
static uint64_t decode_openvmm(const struct hv_ctx *c, bool snp,
			       struct hvtlb_decoded *out)
{
	const struct hvtlb_control *k = &c->ctl;
	size_t claimed;

	if (!hv_call_known(c->call))
		return ovmm_other(c, out);
	/* 187-221; the reserved bits and bit 31 are not looked at. */
	if (!ovmm_control_ok(k, c->list, c->ex))
		return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	claimed = hv_fixed_header_bytes(c->call) + 8u * k->varhead +
		  8u * k->rep_count;
	if (k->fast) {
		/* 227-235: seven register pairs on x64 (x86.rs:118-120). */
		if (claimed > HVTLB_FAST_BYTES)
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	} else {
		/* 289-303: the page crossing first (3), then alignment. */
		if (claimed > HVTLB_PAGE_BYTES - (c->gpa & 0xfff))
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
		if (c->gpa & 7)
			return hv_st(HVTLB_STATUS_INVALID_ALIGNMENT);
	}
	/* 311-313: the whole claimed input is read first. */
	if (c->len < claimed)
		return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	return c->ipi ? ovmm_ipi(c, out) : ovmm_flush(c, snp, out);
}

static uint64_t decode_tdx(const struct hv_ctx *c, struct hvtlb_decoded *out)
{
	return decode_openvmm(c, false, out);
}

static uint64_t decode_snp(const struct hv_ctx *c, struct hvtlb_decoded *out)
{
	return decode_openvmm(c, true, out);
}

const struct hv_host_ops hv_host_OPENVMM_TDX = {
	.decode = decode_tdx,
	.hypervisor = HVTLB_HYPERVISOR_HYPERV,
};
const struct hv_host_ops hv_host_OPENVMM_SNP = {
	.decode = decode_snp,
	.hypervisor = HVTLB_HYPERVISOR_HYPERV,
	.fields = HVTLB_HOST_CALLER_VP,
};
