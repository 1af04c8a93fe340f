// SPDX-License-Identifier: MIT
/* Flushing a vCPU's TLB, for whatever reason (enum
 * hvtlb_sim_flush_kind): counted in the results and traced. */
#include "sim/machine.h"
#include "sim/oracle.h"
#include "sim/vcpu-tlb.h"

void sim_vcpu_tlb_ready(struct sim *s, struct vcpu *v)
{
	if (v->tlb_ready)
		return;
	if (sim_tlb_init(&v->tlb, s->c)) {
		s->failed = true;
		return;
	}
	v->tlb_ready = true;
}

/* A full flush; @p global: global entries too (unless the fault
 * global-survives, which treats every such flush as non-global). */
void sim_vcpu_flush_all(struct sim *s, struct vcpu *v,
			enum hvtlb_sim_flush_kind kind, bool global)
{
	if (s->c->fault == HVTLB_SIM_FAULT_GLOBAL_SURVIVES && global) {
		if (sim_oracle_holds_global(s, v))
			fault_hit(s); /* an outdated global entry is kept */
		global = false;
	}
	TRACE(s, HVTLB_SIM_TRACE_FLUSH, v, TR_NONE, s->now, kind, 0);
	s->r->flushes[kind]++;
	s->r->flushes[HVTLB_SIM_FLUSH_FULL]++;
	s->r->target_flushes += kind != HVTLB_SIM_FLUSH_LOCAL &&
				kind != HVTLB_SIM_FLUSH_SWITCH_MM;
	if (v->tlb_ready)
		sim_tlb_flush_all(&v->tlb, global);
	oracle_full_flush(s, v);
}

void sim_vcpu_flush_range(struct sim *s, struct vcpu *v,
			  const struct hvtlb_flush_range *r, uint32_t asid,
			  enum hvtlb_sim_flush_kind kind)
{
	if (r->all) {
		sim_vcpu_flush_all(s, v, kind, r->include_global);
		return;
	}
	uint64_t n = hvtlb_range_pages(r);

	TRACE(s, HVTLB_SIM_TRACE_FLUSH, v, TR_NONE, s->now, kind, n);
	s->r->flushes[kind]++;
	s->r->target_flushes += kind != HVTLB_SIM_FLUSH_LOCAL;
	s->r->pages_invalidated += n;
	if (v->tlb_ready)
		sim_tlb_invalidate(&v->tlb, r->start, n, r->stride_shift, asid);
}
