// SPDX-License-Identifier: MIT
/*
 * Known bugs of the profiled hosts, with the versions they affect and
 * where they are described and fixed. The decoder reports the
 * input-triggered ones (decode.c says which input hits which); the others
 * are listed for the record. docs/hosts.md explains each.
 */
#include <hvtlb/hypercall.h>

#include "host-bugs.h"

static const struct hvtlb_host_bug bugs[HV_BUG_COUNT_] = {
	[HV_BUG_OPENVMM_TDX_FLUSH_VP_OOB] = {
		.id = "openvmm-tdx-flush-vp-index",
		.profile = HVTLB_PROFILE_OPENVMM_TDX,
		.versions = "OpenVMM 1488a37b7c (not fixed there)",
		.in_profile = true,
		.input_triggered = true,
		.source = "openhcl/virt_mshv_vtl/src/processor/tdx/mod.rs:4558 "
			  "(wake_processors_for_tlb_flush_inner)",
		.effect = "a flush without ALL_PROCESSORS that names a VP index "
			  "at or above the VP count indexes active_vtl[] out "
			  "of bounds; the bounds check panics the paravisor "
			  "and the VM stops",
	},
	[HV_BUG_XEN_XSA475_VPMASK] = {
		.id = "XSA-475/CVE-2025-58147",
		.profile = HVTLB_PROFILE_XEN,
		.versions = "Xen 4.15.0 to 4.20.1; fixed in 4.17.6, 4.18.6, "
			    "4.19.4, 4.20.2 and 4.21.0",
		.in_profile = false,
		.input_triggered = true,
		.source = "Xen 36e90c4ef1 \"x86/viridian: Enforce bounds check "
			  "in vpmask_set()\"",
		.effect = "vpmask_set() sets one bit per named VP in a 128-bit "
			  "per-CPU bitmap; a sparse bank naming a VP of 128 or "
			  "more writes past it (a debug build stops on its "
			  "ASSERT)",
	},
	[HV_BUG_XEN_XSA475_SEND_IPI] = {
		.id = "XSA-475/CVE-2025-58148",
		.profile = HVTLB_PROFILE_XEN,
		.versions = "Xen 4.15.0 to 4.20.1; fixed in 4.17.6, 4.18.6, "
			    "4.19.4, 4.20.2 and 4.21.0",
		.in_profile = false,
		.input_triggered = true,
		.source = "Xen cc64c24502 \"x86/viridian: Enforce bounds check "
			  "in send_ipi()\"",
		.effect = "send_ipi() walks the VP mask up to 128 and reads "
			  "d->vcpu[vp] for each VP in it; a VP at or above the "
			  "domain's vCPU count (including format ALL on a "
			  "domain of fewer than 128 vCPUs) reads past that "
			  "array",
	},
	[HV_BUG_KVM_NONCANONICAL_GVA] = {
		.id = "linux-fa787ac07b3c",
		.profile = HVTLB_PROFILE_KVM,
		.versions = "Linux from 260970862c88 until fa787ac07b3c "
			    "(6.16-rc; 6.12.41 in the 6.12 series)",
		.in_profile = false,
		.input_triggered = true,
		.source = "Linux fa787ac07b3c \"KVM: x86/hyper-v: Skip "
			  "non-canonical addresses during PV TLB flush\"",
		.effect = "kvm_hv_vcpu_flush_tlb() passes a non-canonical "
			  "GVA to the per-page flush; on Intel INVVPID fails "
			  "and KVM WARNs in invvpid_error() (AMD's INVLPGA "
			  "ignores it)",
	},
	[HV_BUG_KVM_NONCANONICAL_RANGE] = {
		.id = "linux-noncanonical-gva-range",
		.profile = HVTLB_PROFILE_KVM,
		.versions = "Linux with fa787ac07b3c and without its "
			    "follow-up, 6.12.117 included",
		.in_profile = true,
		.input_triggered = true,
		.source = "arch/x86/kvm/hyperv.c:2001 checks the entry's first "
			  "page only; patch \"x86/hyper-v: Validate entire GVA "
			  "range for non-canonical addresses during PV TLB "
			  "flush\" (kvm@vger.kernel.org, 19 Feb 2026)",
		.effect = "an entry whose first page is canonical and whose "
			  "additional pages cross into the non-canonical hole "
			  "still reaches INVVPID with a non-canonical "
			  "address; on Intel KVM WARNs in invvpid_error()",
	},
	[HV_BUG_KVM_IPI_ALL_SKIPPED] = {
		.id = "linux-3244867af8c0",
		.profile = HVTLB_PROFILE_KVM,
		.versions = "Linux before 5.16-rc5 (fixed by 3244867af8c0; "
			    "5.4.166 and other stable trees)",
		.in_profile = false,
		.input_triggered = true,
		.source = "Linux 3244867af8c0 \"KVM: x86: Ignore sparse banks "
			  "size for an \"all CPUs\", non-sparse IPI req\"",
		.effect = "SendSyntheticClusterIpiEx with format ALL and an "
			  "empty ValidBanksMask returned success without "
			  "sending any IPI (the bank count was tested before "
			  "the format)",
	},
	[HV_BUG_KVM_FLUSH_NO_WAIT] = {
		.id = "linux-1ebfaa11ebb5",
		.profile = HVTLB_PROFILE_KVM,
		.versions = "Linux before 5.16-rc5 (fixed by 1ebfaa11ebb5)",
		.in_profile = false,
		.input_triggered = false,
		.source = "Linux 1ebfaa11ebb5 \"KVM: x86: Wait for IPIs to be "
			  "delivered when handling Hyper-V TLB flush "
			  "hypercall\"",
		.effect = "the flush hypercall returned before the targets "
			  "had acknowledged the flush request, so a target "
			  "could still use a stale translation (a flush "
			  "protocol bug: the simulator's no-wait fault "
			  "models it; no input triggers it)",
	},
	[HV_BUG_KVM510_IPI_ALL_SKIPPED] = {
		.id = "linux-5.10-ipi-all-skipped",
		.profile = HVTLB_PROFILE_KVM_5_10,
		.versions = "Linux 5.10.13 (the profiled version); the fix "
			    "3244867af8c0 was sent to stable, whether a later "
			    "5.10.y took it is not checked here",
		.in_profile = true,
		.input_triggered = true,
		.source = "arch/x86/kvm/hyperv.c:1644-1645 (5.10.13) tests the "
			  "bank count before the format; fixed by Linux "
			  "3244867af8c0 (linux-3244867af8c0 under kvm)",
		.effect = "SendSyntheticClusterIpiEx with format ALL and an "
			  "empty ValidBanksMask returns success without "
			  "sending any IPI and without checking the vector",
	},
};

unsigned hvtlb_host_bug_count(void)
{
	return HV_BUG_COUNT_ - 1;
}

const struct hvtlb_host_bug *hvtlb_host_bug_get(unsigned index)
{
	if (index == HV_BUG_NONE || index >= HV_BUG_COUNT_)
		return NULL;
	return &bugs[index];
}
