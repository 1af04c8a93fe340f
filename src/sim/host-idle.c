// SPDX-License-Identifier: MIT
/*
 * Halted vCPUs and idle pCPUs: how long the host takes to run a halted
 * vCPU again when it is woken (an interrupt for it, a thread made
 * runnable on it): KVM's halt polling, the host's wake-up path, and the
 * exit latency of the idle state its pCPU entered meanwhile.
 *
 * The idle state (hypervisor.idle_governor = menu) is chosen when a pCPU
 * runs out of vCPUs, by Linux's menu governor (idle-menu.c) from the
 * host's state table (POLL, then intel_idle's hsw_cstates C1, C1E, C3,
 * C6 with the worst-case exit latencies the table declares:
 * cost.cstate_*_declared_exit_us), the time to the pCPU's next timer event (the
 * earliest guest timer of a vCPU halted there, as KVM arms an hrtimer
 * for a blocked vCPU's APIC timer, else cost.idle_timer_us) and the
 * idle periods it measured before. The first wake-up pays that state's
 * actual exit latency (cost.cstate_*_exit_us: measured, below the
 * declared worst case) and tells the governor how long the period lasted; a
 * second wake-up before the exit is over waits for it. KVM's halt
 * polling (cost.halt_poll_us) keeps the pCPU busy before it goes idle.
 *
 * hypervisor.idle_governor = residency keeps the older rule: the
 * deepest state's exit (cost.cstate_exit_us) on a pCPU idle for its
 * target residency, no state before that.
 */
#include <math.h>

#include "sim/host.h"
#include "sim/machine.h"

/* KVM polls before a halted vCPU's thread blocks; the guest's
 * cpuidle-haltpoll turns that off (MSR_KVM_POLL_CONTROL). */
static bool host_polls(const struct sim *s)
{
	return s->idle.halt_poll &&
	       s->c->guest_idle != HVTLB_SIM_GUEST_IDLE_HALTPOLL;
}

bool sim_pcpu_polling(const struct sim *s, const struct pcpu *p)
{
	const struct vcpu *v;

	if (!host_polls(s) || p->cur != NONE_ID || p->last == NONE_ID)
		return false;
	v = &s->v[p->last];
	return v->hs == H_HALTED && v->pcpu == (uint32_t)(p - s->p) &&
	       s->now - v->host.halted_at <= s->idle.halt_poll;
}

static unsigned to_us(const struct sim *s, simtime c)
{
	double us = (double)c / s->cost[SIM_COST_cpu_mhz];

	return us >= (double)UINT32_MAX ? UINT32_MAX : (unsigned)us;
}

void sim_host_idle_setup(struct sim *s)
{
	static const enum sim_cost declared[] = {
		SIM_COST_cstate_c1_declared_exit_us,
		SIM_COST_cstate_c1e_declared_exit_us,
		SIM_COST_cstate_c3_declared_exit_us,
		SIM_COST_cstate_declared_exit_us,
	};
	static const enum sim_cost exit[] = {
		SIM_COST_cstate_c1_exit_us,
		SIM_COST_cstate_c1e_exit_us,
		SIM_COST_cstate_c3_exit_us,
		SIM_COST_cstate_exit_us,
	};
	static const enum sim_cost res[] = {
		SIM_COST_cstate_c1_residency_us,
		SIM_COST_cstate_c1e_residency_us,
		SIM_COST_cstate_c3_residency_us,
		SIM_COST_cstate_residency_us,
	};

	/* state 0: POLL (exit 0, residency 0) */
	s->idle.cstates[0] = (struct idle_state){ 0, 0, true };
	s->idle.cstate_exit_cyc[0] = 0;
	for (unsigned i = 0; i < 4; i++) {
		double d = s->cost[declared[i]], r = s->cost[res[i]];

		/* the governor decides on the table's worst case; a
		 * wake-up pays the state's own exit latency */
		s->idle.cstates[i + 1] = (struct idle_state){
			(unsigned)lround(d),
			(unsigned)lround(r),
			false,
		};
		s->idle.cstate_exit_cyc[i + 1] = us_to_cyc(s, s->cost[exit[i]]);
	}
	s->idle.ncstates = 5;
	s->idle.idle_timer = us_to_cyc(s, s->cost[SIM_COST_idle_timer_us]);
	s->idle.halt_poll = us_to_cyc(s, s->cost[SIM_COST_halt_poll_us]);
	s->idle.cstate_exit = us_to_cyc(s, s->cost[SIM_COST_cstate_exit_us]);
	s->idle.cstate_residency =
		us_to_cyc(s, s->cost[SIM_COST_cstate_residency_us]);
	for (uint32_t i = 0; i < s->npcpus; i++) {
		sim_menu_init(&s->p[i].idle.gov);
		s->p[i].idle.state = -1;
		sim_pcpu_idle_enter(s, &s->p[i]);
	}
}

/* Microseconds from @p at to @p p's next timer event. */
static unsigned next_timer_us(const struct sim *s, const struct pcpu *p,
			      simtime at)
{
	simtime next = at + s->idle.idle_timer;
	uint32_t i = (uint32_t)(p - s->p);
	/* KVM arms a blocked vCPU's APIC timer on the pCPU it halted on: the
	 * vCPUs pinned to pCPU k are k, k + pcpus, ...; with
	 * hypervisor.balance any vCPU whose last pCPU is k */
	uint32_t g = s->c->balance ? 0 : i,
		 step = s->c->balance ? 1 : s->npcpus;

	for (; g < s->nvcpus; g += step)
		if (s->v[g].pcpu == i && s->v[g].gs.timer_at > at &&
		    s->v[g].gs.timer_at < next)
			next = s->v[g].gs.timer_at;
	return to_us(s, next - at);
}

void sim_pcpu_idle_enter(struct sim *s, struct pcpu *p)
{
	simtime at = s->now;

	if (s->c->idle_governor != HVTLB_SIM_IDLE_GOVERNOR_MENU)
		return;
	/* The vCPU that halted last polls first (not at time 0). */
	if (host_polls(s) && p->last != NONE_ID)
		at += s->idle.halt_poll;
	p->idle.entry = at;
	p->idle.state = (int)sim_menu_select(
		&p->idle.gov, s->idle.cstates, s->idle.ncstates,
		next_timer_us(s, p, at), UINT32_MAX);
}

/* A wake-up reaches idle @p p now: the cycles until it can run a vCPU. */
static simtime pcpu_idle_exit(struct sim *s, struct pcpu *p)
{
	simtime exit;
	unsigned st;

	if (p->idle.state < 0) /* awake already: its exit may not be over */
		return p->idle.awake_at > s->now ? p->idle.awake_at - s->now
						 : 0;
	if (s->now < p->idle.entry) { /* still polling: never idle */
		p->idle.state = -1;
		p->idle.awake_at = s->now;
		return 0;
	}
	st = (unsigned)p->idle.state;
	exit = s->idle.cstate_exit_cyc[st];
	sim_menu_update(&p->idle.gov, s->idle.cstates, st,
			to_us(s, s->now - p->idle.entry + exit));
	p->idle.state = -1;
	p->idle.awake_at = s->now + exit;
	return exit;
}

/* Host latency to run a halted vCPU again: KVM's halt polling keeps a
 * vCPU that halted less than halt_poll_us ago spinning on its pCPU (when
 * nothing else ran there since), so it re-enters at once; otherwise the
 * host wakes and schedules its thread (halt_wake), after the exit from
 * the idle state its pCPU is in. */
static bool poll_catches(const struct sim *s, const struct vcpu *v)
{
	const struct pcpu *p = &s->p[v->pcpu];

	return host_polls(s) && p->cur == NONE_ID && p->last == v->gid &&
	       s->now - v->host.halted_at <= s->idle.halt_poll;
}

static simtime wake_latency(struct sim *s, const struct vcpu *v)
{
	struct pcpu *p = &s->p[v->pcpu];
	simtime lat = cyc(s, SIM_COST_halt_wake);

	if (poll_catches(s, v)) {
		p->idle.state = -1;
		p->idle.awake_at = s->now;
		return cyc(s, SIM_COST_vmexit);
	}
	if (p->cur != NONE_ID)
		return lat;
	if (s->c->idle_governor == HVTLB_SIM_IDLE_GOVERNOR_MENU)
		return lat + pcpu_idle_exit(s, p);
	/* An idle pCPU sinks into the deepest state with time. */
	if (s->idle.cstate_exit &&
	    s->now - p->idle.since >= s->idle.cstate_residency)
		lat += s->idle.cstate_exit;
	return lat;
}

/* Wakes a halted vCPU @p delay cycles from now (plus the host's wake
 * latency). */
void sim_vcpu_wake(struct sim *s, struct vcpu *v, simtime delay)
{
	struct pcpu *p;

	if (v->hs != H_HALTED)
		return;
	/* try_to_wake_up(): a vCPU still halt-polling never left its pCPU;
	 * the others are placed now, and the pCPU they go to ends its idle
	 * period (ttwu_do_wakeup's avg_idle) */
	if (s->c->balance && !poll_catches(s, v))
		sim_balance_wake(s, v);
	p = &s->p[v->pcpu];
	sim_balance_woke_idle(s, p);
	sim_vcpu_move(s, v, H_WAKING);
	/* arg: when the wake-up was asked for (read by tracing only) */
	ev_push(s, s->now + delay + wake_latency(s, v), EV_WAKE, v->gid,
		s->now);
	p->bal.waking++;
}
