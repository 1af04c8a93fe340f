// SPDX-License-Identifier: MIT
/*
 * workload.kernel_pages, added to any workload: each thread now and then
 * maps a kernel page (vmalloc: a global PTE shared by every process of
 * the VM), touches it and random other mapped ones, and unmaps it after
 * KERNEL_HOLD operations, with a shootdown that includes global mappings
 * (vfree). Other vCPUs hold global entries of the page, so a flush that
 * keeps globals leaves them stale; the oracle catches their use once the
 * page is mapped again.
 */
#include "sim/guest.h"
#include "sim/machine.h"
#include "sim/mm.h"
#include "sim/oracle.h"
#include "sim/vcpu-tlb.h"
#include "sim/workload.h"

/* Operations a thread holds its kernel page before freeing it. */
#define KERNEL_HOLD 4u

/* workload.kernel_pages: each thread now and then maps a kernel page
 * (vmalloc: a global PTE shared by every process of the VM), touches it
 * and random other mapped ones, and unmaps it after KERNEL_HOLD
 * operations, with a shootdown that includes global mappings (vfree).
 * Other vCPUs hold global entries of the page, so a flush that keeps
 * globals leaves them stale; the oracle catches their use once the page
 * is mapped again. */
static struct pte *kpte_of(struct sim *s, uint32_t vm, uint32_t p)
{
	return &s->kpte[(size_t)vm * s->c->wl_kernel_pages + p];
}

/* A kernel read of mapped kernel page @p p through the vCPU's TLB. */
static void k_access(struct task *t, uint32_t p, simtime *sys)
{
	struct sim *s = t->s;
	struct vcpu *v = &s->v[t->vcpu];
	const struct pte *pt = kpte_of(s, t->vm, p);
	uint64_t va = KVA_BASE + ((uint64_t)p << 12);
	/* Looked up from the current ASID: a global entry matches any. */
	uint64_t key = sim_tlb_key(va, 12, s->mm[t->mm].id);
	uint32_t gen;
	int lv;

	sim_vcpu_tlb_ready(s, v);
	if (!v->tlb_ready)
		return;
	*sys += cyc(s, SIM_COST_touch);
	lv = sim_tlb_lookup(&v->tlb, key, va >> 12, &gen);
	if (lv) {
		if (lv == 1)
			s->r->tlb_l1_hits++;
		else
			s->r->tlb_l2_hits++;
		*sys += cyc(s, lv == 1 ? SIM_COST_l1_hit : SIM_COST_stlb_hit);
		oracle_use(s, v, va, gen, pt->flushed);
		return;
	}
	s->r->tlb_misses++;
	*sys += (simtime)(s->cost[SIM_COST_walk_ref] *
			  s->cost[SIM_COST_walk_refs]);
	sim_tlb_fill(&v->tlb, key, va >> 12, pt->gen, true);
	s->kfill[(size_t)t->vm * s->c->wl_kernel_pages + p] |=
		filler_bit(v->idx);
}

/* vfree: unmaps the task's kernel page and shoots it down everywhere,
 * global mappings included, as flush_tlb_all after a vmap purge. */
static void kernel_free(struct task *t)
{
	struct sim *s = t->s;
	uint32_t p = t->kpage, covered;
	struct pte *pt = kpte_of(s, t->vm, p);
	struct hvtlb_flush_outcome out;
	struct vcpu *v;

	covered = ++pt->gen; /* even: not present */
	struct oracle_flush of = {
		.mm = NONE_ID,
		.base = KVA_BASE + ((uint64_t)p << 12),
		.shift = 12,
		.n = 1,
		.covered = &covered,
		.freed = true,
		.zap = oracle_zap(s),
		.fillers = s->kfill[(size_t)t->vm * s->c->wl_kernel_pages + p],
	};

	s->kfill[(size_t)t->vm * s->c->wl_kernel_pages + p] = 0;
	t->kpage = NONE_ID;
	sim_t_work(t, cyc(s, SIM_COST_munmap), ACCT_SYS);
	v = &s->v[t->vcpu];
	of.vm = v->vm;
	struct hvtlb_flush_request req = {
		.ncpus = s->c->vcpus,
		.initiator = v->idx,
		.address_space = (uint64_t)s->mm[t->mm].id << 12,
		.range = { .stride_shift = 12,
			   .all = true,
			   .include_global = true },
		/* Every CPU, lazy ones included (on_each_cpu). */
		.freed_tables = true,
	};

	for (uint32_t c = 0; c < s->c->vcpus; c++)
		hvtlb_cpumask_set(&req.targets, c);
	if (!sim_shootdown(t, &req, &out, &of))
		return;
	if (covered > pt->flushed)
		pt->flushed = covered;
	s->kfree[(size_t)t->vm * s->c->wl_kernel_pages + s->knfree[t->vm]++] =
		p;
}

void sim_kernel_op(struct task *t)
{
	struct sim *s = t->s;
	uint32_t n = s->c->wl_kernel_pages, p;
	simtime sys = 0;

	if (t->kpage == NONE_ID && s->knfree[t->vm]) {
		/* vmalloc: a present, global PTE */
		t->kpage = s->kfree[(size_t)t->vm * n + --s->knfree[t->vm]];
		kpte_of(s, t->vm, t->kpage)->gen++;
		t->kage = 0;
		sys += cyc(s, SIM_COST_mmap);
	}
	if (t->kpage != NONE_ID)
		k_access(t, t->kpage, &sys);
	p = (uint32_t)sim_rng_below(&t->rng, n);
	if (kpte_of(s, t->vm, p)->gen & 1)
		k_access(t, p, &sys);
	sim_t_work(t, sys, ACCT_SYS);
	if (t->kpage != NONE_ID && ++t->kage >= KERNEL_HOLD)
		kernel_free(t);
}
