// SPDX-License-Identifier: MIT
/*
 * Halted vCPUs: how long the host takes to run one again when it is
 * woken (an interrupt for it, a thread made runnable on it): KVM's halt
 * polling, the host's wake-up path, and the exit latency of the idle
 * state its pCPU sank into meanwhile.
 */
#include "sim/host.h"
#include "sim/machine.h"

/* Host latency to run a halted vCPU again: KVM's halt polling keeps a
 * vCPU that halted less than halt_poll_us ago spinning on its pCPU (when
 * nothing else ran there since), so it re-enters at once; otherwise the
 * host wakes and schedules its thread (halt_wake). */
static simtime wake_latency(struct sim *s, const struct vcpu *v)
{
	const struct pcpu *p = &s->p[v->pcpu];

	simtime lat = cyc(s, SIM_COST_halt_wake);

	if (s->halt_poll && p->cur == NONE_ID && p->last == v->gid &&
	    s->now - v->halted_at <= s->halt_poll)
		return cyc(s, SIM_COST_vmexit);
	/* An idle pCPU sinks into a deeper idle state with time. */
	if (s->cstate_exit && p->cur == NONE_ID &&
	    s->now - p->idle_since >= s->cstate_residency)
		lat += s->cstate_exit;
	return lat;
}

/* Wakes a halted vCPU @p delay cycles from now (plus the host's wake
 * latency). */
void vcpu_wake(struct sim *s, struct vcpu *v, simtime delay)
{
	if (v->hs != H_HALTED)
		return;
	v->hs = H_WAKING;
	/* arg: when the wake-up was asked for (read by tracing only) */
	ev_push(s, s->now + delay + wake_latency(s, v), EV_WAKE, v->gid,
		s->now);
}
