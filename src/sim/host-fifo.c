// SPDX-License-Identifier: MIT
/*
 * The simple host scheduler (hypervisor.cfs = false): a FIFO run queue
 * per pCPU, a fixed slice (cost.host_slice_us), and a woken vCPU runs
 * next (at the head of the queue: sleeper credit) without preempting the
 * one that runs. It has no notion of a vCPU that should run next: a
 * directed yield does not boost its target, the spinner only goes to the
 * tail of its queue.
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
	sim_pcpu_push(s, p, v->gid, true); /* sleeper credit */
	return false;
}

static bool fifo_resched(struct sim *s, const struct pcpu *p)
{
	(void)s;
	return p->cur != NONE_ID && p->rq_n;
}

const struct host_policy sim_host_FIFO = {
	.name = "fifo",
	.slice_end = fifo_slice_end,
	.woken = fifo_woken,
	.resched = fifo_resched,
};
