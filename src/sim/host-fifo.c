// SPDX-License-Identifier: MIT
/*
 * The simple host scheduler (hypervisor.cfs = false): a FIFO run queue
 * per pCPU, a fixed slice (cost.host_slice_us), and a woken vCPU runs
 * next (at the head of the queue: sleeper credit) without preempting the
 * one that runs. A directed yield puts its target at the head of its
 * queue and reschedules that pCPU.
 */
#include "sim/host.h"
#include "sim/machine.h"

static simtime fifo_slice_end(struct sim *s, const struct pcpu *p)
{
	(void)p;
	return s->now + s->host_slice;
}

static bool fifo_woken(struct sim *s, struct pcpu *p, struct vcpu *v)
{
	(void)s;
	pcpu_push(p, v->gid, true); /* sleeper credit */
	return false;
}

/* Moves @p v to the head of @p p's queue. */
static void fifo_boost(struct sim *s, struct pcpu *p, struct vcpu *v)
{
	uint32_t k = 0;

	(void)s;
	while (k < p->rq_n && p->rq[(p->rq_head + k) % p->rq_cap] != v->gid)
		k++;
	if (k == p->rq_n)
		return;
	for (; k > 0; k--)
		p->rq[(p->rq_head + k) % p->rq_cap] =
			p->rq[(p->rq_head + k - 1) % p->rq_cap];
	p->rq[p->rq_head] = v->gid;
}

static bool fifo_resched(struct sim *s, const struct pcpu *p)
{
	(void)s;
	return p->cur != NONE_ID && p->rq_n;
}

const struct host_policy host_fifo = {
	.name = "fifo",
	.slice_end = fifo_slice_end,
	.woken = fifo_woken,
	.boost = fifo_boost,
	.resched = fifo_resched,
};
