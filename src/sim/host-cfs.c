// SPDX-License-Identifier: MIT
/*
 * Linux CFS as the host scheduler (hypervisor.cfs = true), with the
 * kernel's defaults (kernel/sched/fair.c): every vCPU thread has the same
 * weight; a pCPU runs the one with the smallest virtual runtime; a slice
 * is sched_latency shared by the runnable vCPUs, at least
 * min_granularity; a woken vCPU gets at most half a latency of sleeper
 * credit (place_entity with GENTLE_FAIR_SLEEPERS) and preempts the running
 * one when that one is ahead by more than the wake-up granularity
 * (check_preempt_wakeup). The tunables are 6, 0.75 and 1 ms times
 * 1 + ilog2(min(pCPUs, 8)).
 */
#include "sim/host.h"
#include "sim/machine.h"
#include "sim/stats.h"

static void cfs_init(struct sim *s)
{
	/* CFS scales its tunables by 1 + ilog2(min(CPUs, 8)). */
	uint32_t n = s->c->pcpus < 8 ? s->c->pcpus : 8, f = 1;

	while (n >>= 1)
		f++;
	s->cfs_latency = us_to_cyc(s, 6000.0 * f);
	s->cfs_min_gran = us_to_cyc(s, 750.0 * f);
	s->cfs_wakeup_gran = us_to_cyc(s, 1000.0 * f);
}

/* The smallest virtual runtime (the first on ties), not the vCPU that
 * just yielded if there is another, moved to the head of the queue. */
static void cfs_pick(struct sim *s, struct pcpu *p)
{
	uint32_t best = 0;

	for (uint32_t k = 1; k < p->rq_n; k++) {
		uint32_t a = p->rq[(p->rq_head + k) % p->rq_cap];
		uint32_t b = p->rq[(p->rq_head + best) % p->rq_cap];

		if (b == p->skip ||
		    (a != p->skip && s->v[a].vruntime < s->v[b].vruntime))
			best = k;
	}
	/* Move the pick to the head, keeping the others' order. */
	for (uint32_t k = best; k > 0; k--) {
		uint32_t *x = &p->rq[(p->rq_head + k) % p->rq_cap];
		uint32_t *y = &p->rq[(p->rq_head + k - 1) % p->rq_cap];
		uint32_t tmp = *x;

		*x = *y;
		*y = tmp;
	}
}

/* sched_latency shared by the runnable vCPUs, at least min_granularity. */
static simtime cfs_slice(struct sim *s, const struct pcpu *p)
{
	simtime sl = s->cfs_latency / (p->rq_n + 1);

	return sl > s->cfs_min_gran ? sl : s->cfs_min_gran;
}

/* Virtual runtime of @p v now. */
static simtime vcpu_vruntime(const struct sim *s, const struct vcpu *v)
{
	if (v->hs == H_RUNNING)
		return v->vruntime + (s->now - v->run_start);
	return v->vruntime;
}

static void cfs_picked(struct sim *s, struct pcpu *p, struct vcpu *v)
{
	(void)s;
	if (v->vruntime > p->min_vruntime)
		p->min_vruntime = v->vruntime;
}

static void cfs_ran(struct sim *s, struct pcpu *p, struct vcpu *v)
{
	v->vruntime += s->now - v->run_start;
	if (v->vruntime > p->min_vruntime && !p->rq_n)
		p->min_vruntime = v->vruntime;
}

static bool cfs_woken(struct sim *s, struct pcpu *p, struct vcpu *v)
{
	simtime floor = p->min_vruntime > s->cfs_latency / 2
				? p->min_vruntime - s->cfs_latency / 2
				: 0;

	if (v->vruntime < floor)
		v->vruntime = floor;
	pcpu_push(p, v->gid, false);
	if (p->cur != NONE_ID && vcpu_vruntime(s, &s->v[p->cur]) >
					 v->vruntime + s->cfs_wakeup_gran) {
		count_exit(s, &s->v[p->cur], HVTLB_SIM_EXIT_PREEMPTION, 1);
		vcpu_deschedule(s, &s->v[p->cur], true);
		return true;
	}
	return false;
}

const struct host_policy host_cfs = {
	.name = "cfs",
	.init = cfs_init,
	.pick = cfs_pick,
	.slice = cfs_slice,
	.picked = cfs_picked,
	.ran = cfs_ran,
	.woken = cfs_woken,
};
