// SPDX-License-Identifier: MIT
/*
 * The simple host scheduler (hypervisor.cfs = false): a FIFO run queue
 * per pCPU, a fixed slice (cost.host_slice_us), and a woken vCPU runs
 * next (at the head of the queue: sleeper credit) without preempting the
 * one that runs.
 */
#include "sim/host.h"
#include "sim/machine.h"

static simtime fifo_slice(struct sim *s, const struct pcpu *p)
{
	(void)p;
	return s->host_slice;
}

static bool fifo_woken(struct sim *s, struct pcpu *p, struct vcpu *v)
{
	(void)s;
	pcpu_push(p, v->gid, true); /* sleeper credit */
	return false;
}

const struct host_policy host_fifo = {
	.name = "fifo",
	.slice = fifo_slice,
	.woken = fifo_woken,
};
