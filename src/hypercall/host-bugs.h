/* SPDX-License-Identifier: MIT */
/*
 * Indices into the known-bug table of host-bugs.c, for the decoder. The
 * order is the table's; 0 is "no bug".
 */
#ifndef HVTLB_HYPERCALL_HOST_BUGS_H
#define HVTLB_HYPERCALL_HOST_BUGS_H

enum hv_bug {
	HV_BUG_NONE = 0,
	HV_BUG_OPENVMM_TDX_FLUSH_VP_OOB,
	HV_BUG_XEN_XSA475_VPMASK,
	HV_BUG_XEN_XSA475_SEND_IPI,
	HV_BUG_KVM_NONCANONICAL_GVA,
	HV_BUG_KVM_NONCANONICAL_RANGE,
	HV_BUG_KVM_IPI_ALL_SKIPPED,
	HV_BUG_KVM_FLUSH_NO_WAIT,
	HV_BUG_KVM510_IPI_ALL_SKIPPED,
	HV_BUG_COUNT_
};

#endif
