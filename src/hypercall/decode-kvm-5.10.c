// SPDX-License-Identifier: MIT
/*
 * The kvm-5.10 profile: Linux 5.10.13 arch/x86/kvm/hyperv.c (5.10 LTS; a
 * later 5.10.y may carry backports this does not follow). Line numbers are
 * of that file (read from the import of 5.10.13 in the public tree
 * Rtoax/linux-5.10.13, commit 4145aee3; that tree's only later change to
 * hyperv.c adds a comment). Assumed VM state as for kvm (decode-kvm.c): the local APIC
 * in the kernel, no eventfd registered for SignalEvent, SynDBG off;
 * host->kvm_synic says whether the SynIC is on. 5.10 has no Hyper-V CPUID
 * enforcement, so nothing else gates a call.
 *
 * SignalEvent behaves as in 6.12 and is decode-kvm.c's
 * (hv_kvm_signal_event()); the non-Ex IPI, the same too, is written here
 * against 5.10's lines.
 *
 * A 5.10 VM has at most KVM_MAX_VCPUS = 288 vCPUs
 * (arch/x86/include/asm/kvm_host.h:40), a constant of that release: the
 * decoder caps vp_count there (.max_vps).
 */
#include "decode.h"

/* KVM_HV_MAX_SPARSE_VCPU_SET_BITS = DIV_ROUND_UP(KVM_MAX_VCPUS, 64) (39):
 * the banks sparse_set_to_vcpu_mask() takes (1475-1477). */
#define KVM510_BANK_CAP 5u
/* The words sparse_set_to_vcpu_mask() uses: those of the banks below
 * KVM510_BANK_CAP, which come first in bank_contents (1475-1477). */
static unsigned kvm510_used_banks(uint64_t valid_mask)
{
	return hv_popcount64(valid_mask & ((1ULL << KVM510_BANK_CAP) - 1));
}

/* kvm_hv_flush_tlb(), 1493-1574. */
static uint64_t kvm510_flush(const struct hv_ctx *c, struct hvtlb_decoded *out)
{
	const struct hvtlb_control *k = &c->ctl;
	unsigned n;
	bool all;

	if (!c->ex) {
		/* 1509-1526: struct hv_tlb_flush, 24 bytes; the GVA list
		 * after it is never read. */
		if (!hv_kvm_flush_head(c, out, &all))
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	} else {
		/* 1528-1539: struct hv_tlb_flush_ex, 32 bytes. */
		if (!hv_kvm_flush_ex_head(c, out, &all))
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
		n = hv_popcount64(out->valid_mask);
		/* 1545-1546: no bank and not all: success, nothing done.
		 * The variable header is never read. */
		if (!all && n == 0)
			return hv_ok(k->rep_count);
		/* 1548-1554: every bank the mask counts is read. */
		if (!all && c->len < HVTLB_FLUSH_EX_HDR_BYTES + 8u * n)
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
		if (!all)
			hv_read_banks(c, HVTLB_FLUSH_EX_HDR_BYTES,
				      kvm510_used_banks(out->valid_mask), out);
	}
	out->all_vps = all;
	/* 1557-1573: every target's whole TLB, whatever the call; the
	 * rep count is reported done. */
	out->flush_all_gvas = true;
	return hv_ok(k->rep_count);
}

/* kvm_hv_send_ipi()'s VP set for the Ex call (1632-1654); the frame
 * around it is 6.12's (hv_kvm_ipi()). */
static uint64_t kvm510_ipi_ex_set(const struct hv_ctx *c,
				  struct hvtlb_decoded *out)
{
	unsigned n = hv_popcount64(out->valid_mask);

	/* 1644-1645: an empty mask is success before the format, so
	 * format ALL sends nothing, and before the vector check. */
	if (n == 0) {
		if (hv_ld(c, HV_OFF_IPI_FORMAT) == HVTLB_VPSET_ALL)
			out->host_bug = HV_BUG_KVM510_IPI_ALL_SKIPPED;
		return hv_ok(0);
	}
	/* 1642: only ALL means all; anything else is read sparse. */
	out->all_vps = hv_ld(c, HV_OFF_IPI_FORMAT) == HVTLB_VPSET_ALL;
	if (!out->all_vps) {
		/* 1647-1653: every bank the mask counts is read. */
		if (c->len < HVTLB_IPI_EX_HDR_BYTES + 8u * n)
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
		hv_read_banks(c, HVTLB_IPI_EX_HDR_BYTES,
			      kvm510_used_banks(out->valid_mask), out);
	}
	return HV_KVM_GO_ON;
}

/* The cases of kvm_hv_hypercall()'s switch beyond the six, 1778-1880:
 * 6.12's but for the variable header, which 5.10 does not check. */
static uint64_t kvm510_other(const struct hv_ctx *c, struct hvtlb_decoded *out)
{
	uint64_t st = hv_kvm_synic_calls(c, out, false);

	if (st != HV_KVM_GO_ON)
		return st;
	/* 1878-1879: no extended calls (0x8001..) in 5.10. */
	return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_CODE);
}

/* kvm_hv_hypercall(), 1737-1884. */
static uint64_t decode_kvm510(const struct hv_ctx *c, struct hvtlb_decoded *out)
{
	const struct hvtlb_control *k = &c->ctl;

	/* 1769-1773: the code, the fast bit and the rep fields are read;
	 * the reserved bits and the variable header size are not. */
	if (!hv_call_known(c->call))
		return kvm510_other(c, out);
	/* 1808-1849: no fast flush calls and no fast SendIpiEx; a List
	 * needs a rep count and rep start 0, the others no rep fields. */
	if (k->fast && (!c->ipi || c->ex))
		return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	if (!hv_kvm_reps_ok(c))
		return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	return c->ipi ? hv_kvm_ipi(c, out, kvm510_ipi_ex_set)
		      : kvm510_flush(c, out);
}

/* KVM_MAX_VCPUS of Linux 5.10 (arch/x86/include/asm/kvm_host.h:40). */
#define KVM510_MAX_VCPUS 288u

static uint32_t kvm510_max_vcpus(const struct hvtlb_host *h)
{
	(void)h;
	return KVM510_MAX_VCPUS;
}

const struct hv_host_ops hv_host_KVM_5_10 = {
	.decode = decode_kvm510,
	.max_vps = kvm510_max_vcpus,
	.max_vps_name = "KVM_MAX_VCPUS",
	.hypervisor = HVTLB_HYPERVISOR_KVM,
	.fields = HVTLB_HOST_KVM_SYNIC,
};
