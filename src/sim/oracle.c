// SPDX-License-Identifier: MIT
/*
 * The oracle. Every PTE records the generation the last completed flush
 * covered; a translation through a TLB entry filled from an older
 * generation is a violation (used: checked at every TLB hit, in
 * guest-mm.c and the kernel-pages workload). After a shootdown that freed
 * page tables, lazy vCPUs must not hold anything it covered either: the
 * hardware may walk freed tables speculatively.
 */
#include "sim/machine.h"
#include "sim/oracle.h"

void violation(struct sim *s, struct vcpu *v, uint64_t va)
{
	struct hvtlb_sim_results *r = s->r;

	TRACE(s, HVTLB_SIM_TRACE_VIOLATION, v, TR_NONE, s->now, va, 0);
	if (r->nrecorded < s->c->max_violations) {
		struct hvtlb_sim_violation *x = &r->violation[r->nrecorded++];

		x->vm = v->vm;
		x->vcpu = v->idx;
		x->address = va;
		x->time_s = cyc_to_s(s, s->now);
	}
	if (!r->violations)
		slog(s, HVTLB_SIM_LOG_INFO,
		     "oracle: vm %u vcpu %u used a stale entry for 0x%llx at "
		     "%.9f s",
		     v->vm, v->idx, (unsigned long long)va,
		     cyc_to_s(s, s->now));
	r->violations++;
}

/* The flush of a slot's zap is complete (lazy strategy, at reuse):
 * entries older than the current generation are stale now. */
void mark_slot_flushed(struct mm *m, uint32_t slot)
{
	uint64_t base = (uint64_t)slot * m->pages;

	for (uint32_t i = 0; i < m->pages; i++) {
		struct pte *p = &m->pte[base + i];

		if (p->gen > p->flushed)
			p->flushed = p->gen;
	}
}

/* The flush of @p t's last zap of @p slot is complete: entries older
 * than the generation it covered are stale now. */
void mark_zapped_flushed(struct task *t, struct mm *m, uint32_t slot)
{
	uint64_t base = (uint64_t)slot * m->pages;

	for (uint32_t k = 0; k < t->nz; k++) {
		struct pte *p = &m->pte[base + t->zidx[k]];
		uint32_t g = t->covered[t->zidx[k]];

		if (g > p->flushed)
			p->flushed = g;
	}
}

/* The lowest page of @p t's last zap (slot at @p va) that @p o still
 * translates through an entry older than the zap, or NONE_ID. */
static uint32_t stale_zapped_page(const struct task *t, const struct mm *m,
				  struct vcpu *o, uint64_t va)
{
	uint32_t low = NONE_ID;

	for (uint32_t k = 0; k < t->nz; k++) {
		uint32_t p = t->zidx[k];
		uint64_t a = va + ((uint64_t)p << m->shift);
		uint32_t g;

		if (p < low &&
		    tlb_probe(&o->tlb, tlb_key(a, m->shift, m->id),
			      a >> m->shift, &g) &&
		    g < t->covered[p])
			low = p;
	}
	return low;
}

/* A shootdown of @p t's last zap of the slot at @p va, from vCPU @p v,
 * freed page tables and is complete: no lazy vCPU of the mm may still
 * translate any page it covered (unless a flush is pending for it before
 * its next guest instruction). */
void oracle_check_freed_tables(struct sim *s, struct task *t,
			       const struct mm *m, const struct vcpu *v,
			       uint64_t va)
{
	for (uint32_t i = 0; i < s->c->vcpus; i++) {
		struct vcpu *o = vm_vcpu(s, v, i);

		if (o == v || !o->lazy || !o->tlb_ready ||
		    o->loaded_mm != t->mm ||
		    (o->steal & HVTLB_KVM_VCPU_FLUSH_TLB) ||
		    hvtlb_flushq_pending(&o->fq))
			continue;
		uint32_t p = stale_zapped_page(t, m, o, va);

		if (p != NONE_ID)
			violation(s, o, va + ((uint64_t)p << m->shift));
	}
}
