// SPDX-License-Identifier: MIT
/*
 * Xen PV flush (Linux arch/x86/xen/mmu_pv.c: xen_flush_tlb_others() up
 * to 5.12, xen_flush_tlb_multi() since): one mmuext_op hypercall with
 * the vCPU mask of the online targets. Its command is MMUEXT_INVLPG_MULTI
 * when the range is at most one 4 KiB page (end - start <= PAGE_SIZE),
 * else MMUEXT_TLB_FLUSH_MULTI: a range of two pages or more, or one huge
 * page, becomes a full flush of the targets. Xen (xen/arch/x86/mm.c:
 * do_mmuext_op() and vcpumask_to_pcpumask()) flushes the pCPUs whose
 * TLBs may hold those vCPUs' state and returns when they are done; a
 * vCPU not on a pCPU needs nothing more. The host side is the one the
 * vmm-assist strategy asks for (the vmm_flush op, offered by the
 * vmm_assist hint): what differs is the guest's range rule. The guest
 * flushes itself first, as xen_flush_tlb_others() left the initiator
 * out of the mask (since 5.13 the mask keeps it and Xen flushes it with
 * the others: not modelled). Without the hint or the op, or when the
 * call fails: IPIs.
 */
#include "core/core-private.h"

/* PAGE_SIZE of xen_flush_tlb_multi()'s single-page test */
#define XEN_PV_PAGE 4096u

static int xen_pv_flush(struct hvtlb_flusher *f, const struct core_work *w)
{
	struct hvtlb_flush_range range = w->range;

	/* MMUEXT_INVLPG_MULTI or MMUEXT_TLB_FLUSH_MULTI */
	if (!range.all && range.end - range.start > XEN_PV_PAGE)
		range.all = true;
	return core_vmm_flush(f, w, &range);
}

const struct core_strategy core_strategy_XEN_PV = {
	.kind = HVTLB_STRATEGY_XEN_PV,
	.flush = xen_pv_flush,
	/* the host call of vmm-assist: flush these vCPUs */
	.needs = { .vmm_assist = true },
};
