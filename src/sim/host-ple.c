// SPDX-License-Identifier: MIT
/*
 * Pause-loop exiting: a vCPU that spins (waiting for acknowledgements or
 * for a lock) past the PLE window exits, and KVM's kvm_vcpu_on_spin
 * yields its pCPU to another vCPU of the VM when there is a candidate.
 */
#include "sim/host.h"
#include "sim/machine.h"
#include "sim/stats.h"

void arm_ple(struct sim *s, struct vcpu *v)
{
	if (!s->c->ple || v->ple_armed || v->hs != H_RUNNING ||
	    v->act != ACT_SPIN || !s->p[v->pcpu].rq_n)
		return;
	v->ple_armed = true;
	ev_push(s, s->now + cyc(s, SIM_COST_ple_window), EV_PLE, v->gid,
		++v->ple_token);
}

/* EV_PLE: a spinning vCPU reached the pause-loop window. */
void host_on_ple(struct sim *s, const struct event *e)
{
	struct vcpu *v = &s->v[e->obj];

	if (e->arg != v->ple_token)
		return;
	v->ple_armed = false;
	if (v->hs != H_RUNNING || v->act != ACT_SPIN || !s->p[v->pcpu].rq_n)
		return;
	count_exit(s, v, HVTLB_SIM_EXIT_PLE, 1);
	/* No re-arm when it keeps its pCPU: no candidate can appear while
	 * it runs; a new wake-up re-arms. */
	kvm_vcpu_on_spin(s, v);
}

bool kvm_vcpu_on_spin(struct sim *s, struct vcpu *v)
{
	/* A directed yield needs a candidate of the VM; before KVM 5.3 only
	 * a vCPU preempted while running qualifies, not one woken from halt
	 * (vcpu->ready). Without one the spinner keeps its pCPU. */
	if (!s->p[v->pcpu].rq_n ||
	    (!s->c->ple_boost_ready && !s->vm_preempted[v->vm])) {
		vcpu_steal(s, v, cyc(s, SIM_COST_vmexit));
		return false;
	}
	s->p[v->pcpu].skip = v->gid; /* yield: another runs first */
	vcpu_deschedule(s, v, true);
	return true;
}
