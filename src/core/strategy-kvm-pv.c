// SPDX-License-Identifier: MIT
/*
 * KVM PV flush (Linux 4.16): a preempted target is not interrupted. The
 * initiator sets FLUSH_TLB in the target's shared preempted byte by
 * compare-and-swap and drops it from the IPI mask; the host flushes it
 * before it runs again. A lost CAS means the target runs again (the host
 * cleared the byte): it keeps its IPI. The rest is a native shootdown.
 */
#include "core/core-private.h"

static int kvm_pv_flush(struct hvtlb_flusher *f, const struct core_work *w)
{
	const struct hvtlb_backend_ops *ops = f->ops;
	struct hvtlb_hints hints;
	struct hvtlb_cpumask ipis = w->remote;

	core_get_hints(f, &hints);
	if (!ops->read_preempted || !ops->cmpxchg_preempted ||
	    !hints.kvm_pv_flush)
		return core_ipi_shootdown(f, w, &w->remote, true);

	core_for_each_cpu(cpu, &w->remote, w->req->ncpus)
	{
		uint8_t state = ops->read_preempted(f->user, cpu);
		struct hvtlb_trace_event e = {
			.kind = HVTLB_TRACE_MARK_DEFERRED,
			.cpu = cpu,
		};

		if (!(state & HVTLB_KVM_VCPU_PREEMPTED))
			continue;
		if (!ops->cmpxchg_preempted(f->user, cpu, &state,
					    state | HVTLB_KVM_VCPU_FLUSH_TLB))
			continue;
		hvtlb_cpumask_clear(&ipis, cpu);
		f->out->deferred++;
		core_trace(f, &e);
	}
	return core_ipi_shootdown(f, w, &ipis, true);
}

const struct core_strategy core_strategy_KVM_PV = {
	.kind = HVTLB_STRATEGY_KVM_PV,
	.flush = kvm_pv_flush,
	.needs = { .kvm_pv_flush = true },
};
