// SPDX-License-Identifier: MIT
/*
 * The host side of the simulator, each mechanism in isolation on a
 * machine built by sim_setup() and put into a chosen state by hand: the
 * CFS slice checked at host ticks (check_preempt_tick) and its buddies,
 * the menu idle governor, and KVM's directed-yield candidate filter.
 *
 * Each test is selectable by name (argv[1] is a cmocka filter).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hvtlb/sim.h>

#include "sim/engine.h"
#include "sim/guest.h"
#include "sim/host.h"
#include "sim/idle-menu.h"
#include "sim/machine.h"

#include "sim-test.h"
#include "sim-rig.h"

static simtime ms(const struct sim *s, double x)
{
	return (simtime)(x * 1000.0 * s->cost[SIM_COST_cpu_mhz]);
}

/* vCPU @p vid runs on its pCPU since @p since with virtual runtime
 * @p vr there. */
static void put_running(struct sim *s, uint32_t vid, simtime since, simtime vr)
{
	struct vcpu *v = &s->v[vid];

	v->hs = H_RUNNING;
	v->host.run_start = since;
	v->host.vruntime = vr;
	s->p[v->pcpu].cur = vid;
}

/* vCPU @p vid waits in its pCPU's run queue with virtual runtime @p vr. */
static void put_queued(struct sim *s, uint32_t vid, simtime vr)
{
	struct vcpu *v = &s->v[vid];

	v->hs = H_READY;
	v->host.vruntime = vr;
	sim_pcpu_push(s, &s->p[v->pcpu], vid, false);
}

/* A machine from @p kv at 1 ms, vCPU 0 running on pCPU 0 since 0. */
static struct rig *one_running(const char *const *kv)
{
	struct rig *g = rig_new(kv);

	g->s.now = ms(&g->s, 1);
	put_running(&g->s, 0, 0, 0);
	return g;
}

/* --------------------------------------------------------------- CFS */
/* One pCPU of a 12-pCPU host: CFS's tunables scale by 4 (latency 24 ms,
 * min_granularity 3 ms, wakeup_granularity 4 ms); a 1 ms host tick. */
#define CFS_RIG                                                                \
	"machine.pcpus=12", "vm.vcpus=120", "hypervisor.cfs=true",             \
		"workload.threads=1", "cost.host_tick_us=1000",                \
		"cost.cpu_mhz=2400"

/*
 * check_preempt_tick: a vCPU that entered alone at 0 would keep the pCPU
 * for a whole latency (24 ms) if its slice were fixed at entry; with one
 * waiter its slice is 12 ms, so the first tick past 12 ms preempts it
 * (13 ms). With 9 runnable the period is 9 x 3 ms and the slice 3 ms: the
 * tick at 4 ms. A waiter far behind in virtual runtime preempts at the
 * first tick once min_granularity has run (3 ms). A wake-up that does
 * not preempt the running vCPU re-evaluates its end.
 */
static void test_cfs_tick(void **state)
{
	const char *kv[] = { CFS_RIG, NULL };
	struct rig *g = rig_new(kv);
	struct sim *s = &g->s;
	struct pcpu *p = &s->p[0];

	(void)state;
	/* vCPUs 0, 12, 24, ... are pCPU 0's */
	put_running(s, 0, 0, ms(s, 10));
	s->now = ms(s, 1);
	put_queued(s, 12, ms(s, 10));
	assert_int_equal(s->sched->slice_end(s, p), ms(s, 13));
	/* the entry model keeps 24 ms (latency over one runnable) */
	s->now = 0;
	p->rq_n = 0;
	assert_int_equal(sim_host_CFS_ENTRY.slice_end(s, p), ms(s, 24));

	/* nine runnable: the slice is 27 ms / 9 */
	s->now = ms(s, 1);
	for (uint32_t k = 2; k <= 8; k++)
		put_queued(s, 12 * k, ms(s, 10));
	assert_int_equal(s->sched->slice_end(s, p), ms(s, 4));

	/* one waiter 10 ms behind: ahead by more than the slice (12 ms)
	 * once min_granularity has run */
	p->rq_n = 0;
	put_queued(s, 12, ms(s, 0));
	assert_int_equal(s->sched->slice_end(s, p), ms(s, 3));
	/* nobody waiting: never */
	p->rq_n = 0;
	assert_true(s->sched->slice_end(s, p) == SIM_NEVER);

	/* a wake-up that does not preempt makes the host look again: the
	 * running vCPU, alone so far (no slice end), now ends at 13 ms */
	p->slice.end = SIM_NEVER;
	s->v[12].hs = H_WAKING;
	s->v[12].host.vruntime = ms(s, 10);
	{
		struct event e = { .kind = EV_WAKE, .obj = 12 };

		sim_host_on_wake(s, &e);
	}
	assert_int_equal(p->cur, 0);
	assert_int_equal(p->slice.end, ms(s, 13));
	rig_free(g);
}

/*
 * pick_next_entity's buddies: the leftmost runs unless a buddy is within
 * the wake-up granularity (4 ms) of it. A vCPU that yielded (skip buddy)
 * is passed over for the second only if that is within 4 ms; the next
 * buddy (a directed-yield target) is taken when within 4 ms.
 */
static void test_cfs_buddies(void **state)
{
	const char *kv[] = { CFS_RIG, NULL };
	struct rig *g = rig_new(kv);
	struct sim *s = &g->s;
	struct pcpu *p = &s->p[0];

	(void)state;
	s->now = ms(s, 50);
	put_queued(s, 0, ms(s, 10));
	put_queued(s, 12, ms(s, 13));
	put_queued(s, 24, ms(s, 20));
	/* plain: the leftmost (10 ms) */
	p->cfs.skip = 0;
	assert_int_equal(s->sched->pop(s, p), 12); /* 13 - 10 <= 4: skip */
	put_queued(s, 12, ms(s, 13));
	p->cfs.skip = 24;
	p->cfs.next_buddy = 24; /* 20 - 10 > 4: unfair, not taken */
	assert_int_equal(s->sched->pop(s, p), 0);
	assert_int_equal(p->cfs.next_buddy, 24); /* not cleared: not picked */
	put_queued(s, 0, ms(s, 10));
	p->cfs.next_buddy = 12; /* 13 - 10 <= 4 */
	assert_int_equal(s->sched->pop(s, p), 12);
	assert_int_equal(p->cfs.next_buddy, NONE_ID);
	/* skip with the second too far: the skipped one runs anyway */
	put_queued(s, 12, ms(s, 30));
	p->cfs.skip = 0;
	p->cfs.next_buddy = NONE_ID;
	assert_int_equal(s->sched->pop(s, p), 0);
	rig_free(g);
}

/*
 * check_preempt_wakeup: a woken vCPU 8 ms behind the running one (more
 * than the 4 ms wake-up granularity) preempts it and, as the next buddy,
 * runs although another waiter is leftmost (within 4 ms of it). With 8
 * or more runnable the preempted vCPU becomes the last buddy.
 */
static void test_cfs_wakeup(void **state)
{
	const char *kv[] = { CFS_RIG, NULL };
	struct rig *g = rig_new(kv);
	struct sim *s = &g->s;
	struct pcpu *p = &s->p[0];
	struct vcpu *c = &s->v[24];

	(void)state;
	s->now = ms(s, 5);
	put_running(s, 0, 0, ms(s, 15)); /* 20 ms now */
	put_queued(s, 12, ms(s, 10));
	s->vmh[0].ready++;
	c->hs = H_READY;
	c->host.vruntime = ms(s, 12);
	s->vmh[0].ready++;
	assert_true(s->sched->woken(s, p, c));
	assert_int_equal(p->cur, 24);
	assert_int_equal(p->cfs.last_buddy, NONE_ID); /* 3 runnable */
	rig_free(g);

	g = rig_new(kv);
	s = &g->s;
	p = &s->p[0];
	c = &s->v[24];
	s->now = ms(s, 5);
	put_running(s, 0, 0, ms(s, 15));
	for (uint32_t k = 1; k <= 7; k++) {
		if (k == 2)
			continue; /* vCPU 24 wakes */
		put_queued(s, 12 * k, ms(s, 10 + k));
		s->vmh[0].ready++;
	}
	c->hs = H_READY;
	c->host.vruntime = ms(s, 12);
	s->vmh[0].ready++;
	assert_true(s->sched->woken(s, p, c));
	assert_int_equal(p->cur, 24);
	assert_int_equal(p->cfs.last_buddy, 0);
	rig_free(g);
}

/* -------------------------------------------------------- idle states */
/* POLL and intel_idle's hsw_cstates (exit, target residency in us). */
static const struct idle_state hsw[] = {
	{ 0, 0, true },	    { 2, 2, false },	 { 10, 20, false },
	{ 33, 100, false }, { 133, 400, false },
};

/* @p n idle periods of @p us microseconds, each in the state the
 * governor picks with the next timer 10 ms away; returns the last pick. */
static unsigned menu_feed(struct menu_gov *g, unsigned n, unsigned us)
{
	unsigned st = 0;

	for (unsigned i = 0; i < n; i++) {
		st = sim_menu_select(g, hsw, 5, 10000, UINT32_MAX);
		sim_menu_update(g, hsw, st, us + hsw[st].exit_us);
	}
	return sim_menu_select(g, hsw, 5, 10000, UINT32_MAX);
}

/*
 * The menu governor picks the deepest state whose target residency the
 * predicted idle time covers: with no history, C1 (its intervals are 0);
 * after idle periods of 50 us, C1E (20 <= 50 < 100); of 1 ms, C6; back
 * to 50 us, C1E again within eight periods (the repeating-interval
 * detector). A timer within 20 us allows polling, chosen when C1's 2 us
 * are not covered either. A PM QoS limit of 5 us: C1; of 0: polling.
 * A governor that looked at the next timer alone would pick C6 for
 * every one of these (10 ms away).
 */
static void test_menu_select(void **state)
{
	struct menu_gov g;

	(void)state;
	sim_menu_init(&g);
	assert_int_equal(sim_menu_select(&g, hsw, 5, 10000, UINT32_MAX), 1);
	assert_int_equal(menu_feed(&g, 8, 50), 2);
	assert_int_equal(menu_feed(&g, 40, 1000), 4);
	assert_int_equal(menu_feed(&g, 8, 50), 2);
	assert_int_equal(sim_menu_select(&g, hsw, 5, 15, UINT32_MAX), 1);
	assert_int_equal(sim_menu_select(&g, hsw, 5, 1, UINT32_MAX), 0);
	sim_menu_init(&g);
	menu_feed(&g, 40, 1000);
	assert_int_equal(sim_menu_select(&g, hsw, 5, 10000, 5), 1);
	assert_int_equal(sim_menu_select(&g, hsw, 5, 10000, 0), 0);
}

/* get_typical_interval() as the kernel writes it: passes over the
 * history in ring order, each dropping the intervals above a threshold. */
static unsigned typical_by_passes(const unsigned *iv)
{
	uint64_t thresh = UINT32_MAX;

	for (;;) {
		uint64_t sum = 0, variance = 0, avg;
		unsigned max = 0, divisor = 0;

		for (unsigned i = 0; i < MENU_INTERVALS; i++) {
			if (iv[i] <= thresh) {
				sum += iv[i];
				divisor++;
				if (iv[i] > max)
					max = iv[i];
			}
		}
		avg = sum / divisor;
		for (unsigned i = 0; i < MENU_INTERVALS; i++) {
			if (iv[i] <= thresh) {
				uint64_t d = (uint64_t)iv[i] - avg;

				variance += d * d;
			}
		}
		variance /= divisor;
		if (variance <= UINT64_MAX / 36 &&
		    ((avg * avg > variance * 36 &&
		      divisor * 4 >= MENU_INTERVALS * 3) ||
		     variance <= 400))
			return (unsigned)avg;
		if (divisor * 4 <= MENU_INTERVALS * 3)
			return UINT32_MAX;
		thresh = max - 1;
	}
}

/*
 * sim_menu_typical_us() works on the history kept sorted: it must give the
 * kernel's answer for every history. Seeded random idle periods, drawn
 * from a few magnitudes with many repeats (ties among the largest, which
 * drop together), around the 20 us spread and up to 2^32 - 1 (sums of
 * squares that wrap 64 bits), each fed through sim_menu_update().
 */
static void test_menu_typical(void **state)
{
	static const unsigned scale[] = { 3, 40, 1000, 100000, UINT32_MAX };
	struct menu_gov g;
	uint64_t x = 0x5eed0fe5ULL;
	unsigned repeats = 0;

	(void)state;
	sim_menu_init(&g);
	for (unsigned i = 0; i < 500000; i++) {
		unsigned us, typ, st = 0;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		us = (unsigned)((x >> 8) % ((uint64_t)scale[x % 5] + 1));
		if ((x >> 40) % 4 == 0)
			us = g.intervals[(x >> 44) % MENU_INTERVALS];
		g.next_timer_us = UINT32_MAX; /* no clamp of the period */
		sim_menu_update(&g, hsw, st, us);
		typ = sim_menu_typical_us(&g);
		assert_int_equal(typ, typical_by_passes(g.intervals));
		repeats += typ != UINT32_MAX;
	}
	/* both answers were exercised */
	assert_true(repeats > 1000 && repeats < 499000);
}

/* @p rounds of the idle periods @p us[0..n-1] (next timer 10 ms); the
 * deepest state picked in the last round and the shallowest, by
 * reference. */
static void menu_cycle(struct menu_gov *g, const unsigned *us, unsigned n,
		       unsigned rounds, unsigned *lo, unsigned *hi)
{
	*lo = 4;
	*hi = 0;
	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned i = 0; i < n; i++) {
			unsigned st =
				sim_menu_select(g, hsw, 5, 10000, UINT32_MAX);

			if (r == rounds - 1) {
				*lo = st < *lo ? st : *lo;
				*hi = st > *hi ? st : *hi;
			}
			sim_menu_update(g, hsw, st, us[i] + hsw[st].exit_us);
		}
	}
}

/*
 * What the menu governor does on seed 000's idle pattern: short periods
 * spread over tens to a hundred and more microseconds, with a long one
 * (an mmap_sem wait) among them. The pattern detector gives up (with the
 * long one dropped, six periods of 20, 140, 60 us have a standard
 * deviation of 50 us, above 20 us and above a sixth of their average),
 * and the correction factor averages measured / next timer: 2 ms, 76,
 * 140, 96 us measured (20 + 133 is under twice C6's exit, so halved)
 * give a prediction of 490-680 us, above C6's 400 us. Every period, the
 * 20 us one too, is spent in C6. The same short periods without the long
 * one never reach C6.
 */
static void test_menu_bimodal(void **state)
{
	static const unsigned mixed[] = { 2000, 20, 140, 60 };
	static const unsigned shorts[] = { 20, 140, 60 };
	struct menu_gov g;
	unsigned lo, hi;

	(void)state;
	sim_menu_init(&g);
	menu_cycle(&g, mixed, 4, 16, &lo, &hi);
	assert_int_equal(lo, 4);
	assert_int_equal(hi, 4);
	sim_menu_init(&g);
	menu_cycle(&g, shorts, 3, 32, &lo, &hi);
	assert_true(hi < 4);
}

/* The wake latency of halted vCPU 0 on idle pCPU 0, after @p n idle
 * periods of @p us each (every one ended by a wake-up). */
static simtime idle_wake_after(struct sim *s, unsigned n, double us)
{
	struct vcpu *v = &s->v[0];
	struct pcpu *p = &s->p[0];
	simtime lat = 0;

	for (unsigned i = 0; i < n; i++) {
		struct event e;

		v->hs = H_HALTED;
		v->host.halted_at = s->now;
		p->cur = NONE_ID;
		p->idle.since = s->now;
		sim_pcpu_idle_enter(s, p);
		s->now += us_to_cyc(s, us);
		sim_vcpu_wake(s, v, 0);
		e = evq_pop(&s->q);
		assert_int_equal(e.kind, EV_WAKE);
		lat = e.t - s->now;
		s->now = e.t;
	}
	return lat;
}

/*
 * The idle state is chosen when the pCPU goes idle, from the worst-case
 * exit latencies the state table declares, and a wake-up pays the
 * state's own exit latency. With both equal to the table (C1E 10 us, C6
 * 133 us): after short idle periods (50 us) a wake costs halt_wake +
 * 10 us, after long ones (1 ms) + 133 us. The older rule (idle_governor
 * = residency) charges C6 by the length of the period itself: nothing at
 * 50 us, 133 us at 1 ms.
 */
static void test_idle_wake(void **state)
{
	const char *menu[] = {
		"machine.pcpus=1",	   "vm.vcpus=1",
		"workload.threads=1",	   "cost.cpu_mhz=2400",
		"cost.halt_wake=12000",	   "cost.cstate_c1e_exit_us=10",
		"cost.cstate_exit_us=133", NULL
	};
	const char *resid[] = { "machine.pcpus=1",
				"vm.vcpus=1",
				"workload.threads=1",
				"cost.cpu_mhz=2400",
				"cost.halt_wake=12000",
				"cost.cstate_exit_us=133",
				"hypervisor.idle_governor=residency",
				NULL };
	struct rig *g = rig_new(menu);
	struct sim *s = &g->s;

	(void)state;
	assert_int_equal(idle_wake_after(s, 12, 50), 12000 + 10 * 2400);
	assert_int_equal(idle_wake_after(s, 40, 1000), 12000 + 133 * 2400);
	assert_int_equal(idle_wake_after(s, 12, 50), 12000 + 10 * 2400);
	rig_free(g);
	g = rig_new(resid);
	s = &g->s;
	assert_int_equal(idle_wake_after(s, 3, 50), 12000);
	assert_int_equal(idle_wake_after(s, 3, 1000), 12000 + 133 * 2400);
	rig_free(g);
}

/*
 * The governor decides on the declared worst case, the wake-up pays the
 * actual exit: with the shipped values (C1E 1.76 us, C6 13.9 us paid;
 * 10 and 133 us declared) the same periods cost halt_wake + 1.76 us and
 * + 13.9 us. Declaring C6's exit longer than the 1 ms prediction makes
 * the governor stop at C3 (declared 33 us), and the wake pays C3's 4 us.
 */
static void test_idle_declared_vs_paid(void **state)
{
	const char *paid[] = { "machine.pcpus=1",      "vm.vcpus=1",
			       "workload.threads=1",   "cost.cpu_mhz=2400",
			       "cost.halt_wake=12000", NULL };
	const char *deep[] = { "machine.pcpus=1",
			       "vm.vcpus=1",
			       "workload.threads=1",
			       "cost.cpu_mhz=2400",
			       "cost.halt_wake=12000",
			       "cost.cstate_declared_exit_us=2000",
			       NULL };
	struct rig *g = rig_new(paid);
	struct sim *s = &g->s;

	(void)state;
	assert_int_equal(idle_wake_after(s, 12, 50),
			 12000 + us_to_cyc(s, 1.76));
	assert_int_equal(idle_wake_after(s, 40, 1000),
			 12000 + us_to_cyc(s, 13.9));
	rig_free(g);
	g = rig_new(deep);
	s = &g->s;
	assert_int_equal(idle_wake_after(s, 40, 1000), 12000 + us_to_cyc(s, 4));
	rig_free(g);
}

/*
 * guest.idle = haltpoll adapts the poll limit as the haltpoll governor
 * does: from 0, a vCPU halted for 30 us grows it to 50 us, then 100,
 * 200, and no further (guest.halt_poll_us); halted longer than 200 us it
 * halves.
 */
static void test_haltpoll_limit(void **state)
{
	const char *kv[] = { "machine.pcpus=1",	    "vm.vcpus=1",
			     "workload.threads=1",  "cost.cpu_mhz=2400",
			     "guest.idle=haltpoll", NULL };
	struct rig *g = rig_new(kv);
	struct sim *s = &g->s;
	struct vcpu *v = &s->v[0];
	static const double want[] = { 50, 100, 200, 200, 100, 50 };
	static const double blocked[] = { 30, 80, 150, 190, 500, 1000 };

	(void)state;
	assert_int_equal(v->idle.poll_limit, 0);
	for (unsigned i = 0; i < 6; i++) {
		v->idle.halted = true;
		v->host.halted_at = s->now;
		s->now += us_to_cyc(s, blocked[i]);
		sim_guest_idle_exit(s, v);
		assert_int_equal(v->idle.poll_limit, us_to_cyc(s, want[i]));
	}
	rig_free(g);
}

/*
 * A vCPU preempted while it polled in idle resumes polling until the
 * limit it started with (the guest's clock ran on): back before it, it
 * polls on (its EV_IDLE_POLL queued at the limit); back after it, it
 * halts at once. (A vCPU that started a new poll window at every
 * re-entry would fail the second check.)
 */
static void test_poll_resume(void **state)
{
	const char *kv[] = { "machine.pcpus=1",	    "vm.vcpus=1",
			     "workload.threads=1",  "cost.cpu_mhz=2400",
			     "guest.idle=haltpoll", NULL };
	struct rig *g = rig_new(kv);
	struct sim *s = &g->s;
	struct vcpu *v = &s->v[0];
	struct event e;

	(void)state;
	put_running(s, 0, 0, 0);
	v->act = ACT_IDLE;
	v->idle.polling = true;
	v->idle.poll_end = us_to_cyc(s, 50);
	s->now = us_to_cyc(s, 10);
	assert_true(sim_guest_idle_continue(s, v));
	assert_true(v->idle.polling);
	e = evq_pop(&s->q);
	assert_int_equal(e.kind, EV_IDLE_POLL);
	assert_int_equal(e.t, us_to_cyc(s, 50));
	s->now = us_to_cyc(s, 80);
	assert_true(sim_guest_idle_continue(s, v));
	assert_int_equal(v->hs, H_HALTED);
	assert_int_equal(s->r->vm_exits[HVTLB_SIM_EXIT_HLT], 1);
	rig_free(g);
}

/* ---------------------------------------------------- directed yield */
/* 6 vCPUs on 2 pCPUs (even vCPUs on pCPU 0, odd on pCPU 1), CFS. */
#define DY_RIG                                                                 \
	"machine.pcpus=2", "vm.vcpus=6", "workload.threads=6",                 \
		"hypervisor.cfs=true", "hypervisor.ple=true",                  \
		"hypervisor.directed_yield=true", "cost.cpu_mhz=2400"

/* vCPU @p vid waits on its pCPU: preempted (in kernel mode or not) or
 * woken from halt; its thread in sys or in user mode. */
static void put_ready(struct sim *s, uint32_t vid, simtime vr, bool preempted,
		      bool kernel)
{
	struct vcpu *v = &s->v[vid];

	put_queued(s, vid, vr);
	v->gs.cur = vid; /* thread k starts on vCPU k */
	s->t[vid].acct = kernel ? ACCT_SYS : ACCT_USER;
	v->act = ACT_WORK;
	v->host.preempted = preempted;
	v->host.preempted_in_kernel = preempted && kernel;
	s->vmh[0].preempted += preempted;
	s->vmh[0].ready++;
}

/*
 * The state of the test: vCPU 0 spins (in sys) on pCPU 0, where vCPU 2,
 * woken from halt, waits; pCPU 1 runs vCPU 1, vCPU 3 waits preempted in
 * user mode, vCPU 5 preempted in kernel mode; vCPU 4 is halted.
 */
static void dy_state(struct sim *s)
{
	s->now = ms(s, 1);
	put_running(s, 0, 0, 0);
	s->v[0].gs.cur = 0;
	s->t[0].acct = ACCT_SYS;
	s->v[0].act = ACT_SPIN;
	s->v[0].sd.ack_wait = 1;
	put_running(s, 1, 0, 0);
	put_ready(s, 2, ms(s, 0.5), false, true);
	put_ready(s, 3, 0, true, false);
	put_ready(s, 5, ms(s, 0.2), true, true);
}

/* The PLE exit of spinner @p v, now. */
static void ple_exit(struct sim *s, struct vcpu *v)
{
	struct event e = { .kind = EV_PLE, .obj = v->gid };

	sim_arm_ple(s, v);
	assert_true(v->host.ple_armed);
	e.arg = v->host.ple_token;
	sim_host_on_ple(s, &e);
}

/*
 * kvm_vcpu_on_spin as of 2018: of the waiting vCPUs only vCPU 5 was
 * preempted in kernel mode: it is boosted, runs on pCPU 1 at once, and
 * the spinner yields pCPU 0 to vCPU 2 (the leftmost there) and waits in
 * its spin loop. With the 2019 boost (ple_boost_ready) the round-robin
 * from the last boosted (0) reaches vCPU 2, woken and ready, first: it
 * runs on pCPU 0 and pCPU 1 is left alone.
 */
static void test_directed_yield(void **state)
{
	const char *y2018[] = { DY_RIG, "hypervisor.ple_boost_ready=false",
				NULL };
	const char *y2019[] = { DY_RIG, "hypervisor.ple_boost_ready=true",
				NULL };
	struct rig *g = rig_new(y2018);
	struct sim *s = &g->s;

	(void)state;
	dy_state(s);
	ple_exit(s, &s->v[0]);
	assert_int_equal(s->r->vm_exits[HVTLB_SIM_EXIT_PLE], 1);
	assert_int_equal(s->vmh[0].boosted, 5);
	assert_int_equal(s->p[1].cur, 5);
	assert_int_equal(s->p[0].cur, 2);
	assert_int_equal(s->v[0].hs, H_READY);
	assert_true(s->v[0].host.in_spin_loop);
	assert_int_equal(s->r->directed_yields, 1);
	rig_free(g);

	g = rig_new(y2019);
	s = &g->s;
	dy_state(s);
	ple_exit(s, &s->v[0]);
	assert_int_equal(s->vmh[0].boosted, 2);
	assert_int_equal(s->p[0].cur, 2);
	assert_int_equal(s->p[1].cur, 1);
	assert_int_equal(s->r->directed_yields, 1);
	rig_free(g);
}

/* KVM_HC_KICK_CPU from vCPU @p from to the PV lock waiter @p to, now. */
static void kick_yield(struct sim *s, uint32_t from, uint32_t to)
{
	struct event e = { .kind = EV_KICK_YIELD, .obj = from, .arg = to };

	sim_host_on_kick_yield(s, &e);
}

/* vCPU 5 of @p g wakes and vCPU 0 kicks it: no yield (frees @p g). */
static void waking_not_yielded(struct rig *g)
{
	struct sim *s = &g->s;

	sim_vcpu_wake(s, &s->v[5], 0);
	kick_yield(s, 0, 5);
	assert_int_equal(s->p[0].cur, 0);
	assert_false(s->v[5].host.kick_boost);
	assert_int_equal(s->r->kick_yields, 0);
	rig_free(g);
}

/* vCPU 2 waits on pCPU 0 behind vCPU 0 (one_running()); vCPU 1 entered
 * pCPU 1 now with the least virtual runtime there. */
static struct rig *kick_state(const char *const *kv)
{
	struct rig *g = one_running(kv);
	struct sim *s = &g->s;

	put_ready(s, 2, ms(s, 0.5), false, true);
	put_running(s, 1, s->now, 0);
	return g;
}

/*
 * hypervisor.kick_yield (KVM 5.3, 266e85a5ec9): after its kick, the PV
 * lock's releaser yields its pCPU to the kicked waiter if that one is
 * ready. A waiter preempted (in user mode: the kick's yield does not ask)
 * and queued on pCPU 1 becomes its next buddy and runs at once; the
 * releaser gives pCPU 0 to vCPU 2. A waiter still waking from its halt
 * (on Linux already queued when KVM yields) gets the same boost once it
 * is queued: with 1 ms more virtual runtime than vCPU 1 its wake-up alone
 * does not preempt it (the control), with the boost it does; not when it
 * wakes in another socket (the wake list, TTWU_QUEUE). No yield to
 * a waiter that runs, nor when both run queues would hold one vCPU
 * (yield_to()'s -ESRCH). The broken variants - no boost for a waking
 * waiter, a yield across sockets, a yield to a running one, a yield that
 * ignores -ESRCH - fail the second to fifth parts.
 */
static void test_kick_yield(void **state)
{
	const char *kv[] = { DY_RIG, "hypervisor.balance=false", NULL };
	const char *two_llc[] = { DY_RIG, "hypervisor.balance=false",
				  "machine.sockets=2", NULL };
	struct rig *g = kick_state(kv);
	struct sim *s = &g->s;
	struct event w = { .kind = EV_WAKE, .obj = 5 };

	(void)state;
	put_ready(s, 3, ms(s, 1), true, false);
	kick_yield(s, 0, 3);
	assert_int_equal(s->p[1].cur, 3);
	assert_int_equal(s->v[1].hs, H_READY);
	assert_int_equal(s->p[0].cur, 2);
	assert_int_equal(s->v[0].hs, H_READY);
	assert_int_equal(s->r->kick_yields, 1);
	rig_free(g);

	for (int boost = 0; boost < 2; boost++) {
		g = kick_state(kv);
		s = &g->s;
		s->v[5].host.vruntime = ms(s, 1);
		sim_vcpu_wake(s, &s->v[5], 0);
		assert_int_equal(s->v[5].hs, H_WAKING);
		if (boost) {
			kick_yield(s, 0, 5);
			assert_true(s->v[5].host.kick_boost);
			assert_int_equal(s->p[0].cur, 2);
		}
		sim_host_on_wake(s, &w);
		assert_int_equal(s->p[1].cur, boost ? 5 : 1);
		assert_false(s->v[5].host.kick_boost);
		assert_int_equal(s->r->kick_yields, (uint64_t)boost);
		rig_free(g);
	}

	/* two sockets: the waiter wakes on pCPU 1, in the other last-level
	 * cache: Linux queues that wake-up on pCPU 1's wake list and the
	 * task is still TASK_WAKING, which yield_to() refuses */
	waking_not_yielded(kick_state(two_llc));

	/* the waiter runs already: nothing to yield to */
	g = kick_state(kv);
	s = &g->s;
	kick_yield(s, 0, 1);
	assert_int_equal(s->p[0].cur, 0);
	assert_int_equal(s->p[1].cur, 1);
	assert_int_equal(s->r->kick_yields, 0);
	rig_free(g);

	/* -ESRCH: the releaser alone on pCPU 0, the waiter woken onto idle
	 * pCPU 1 */
	waking_not_yielded(one_running(kv));
}

/* 8 vCPUs on 4 pCPUs, IPI flushes. */
#define OVERCOMMIT                                                             \
	"strategy=ipi", "machine.pcpus=4", "vm.vcpus=8", "workload.threads=8", \
		"workload.iterations=20"

/*
 * directed_yields counts the yields sim_kvm_vcpu_on_spin() made. The older
 * model (directed_yield = false) gives the pCPU away undirected: none.
 * Over a run: an overcommitted VM whose spinners exit on PLE has some;
 * without PLE there is no yield to count.
 */
static void test_directed_yield_count(void **state)
{
	const char *fixed[] = { DY_RIG, "hypervisor.directed_yield=false",
				NULL };
	const char *ple[] = { OVERCOMMIT, "hypervisor.ple=true", NULL };
	const char *no_ple[] = { OVERCOMMIT, "hypervisor.ple=false", NULL };
	struct rig *g = rig_new(fixed);
	struct sim *s = &g->s;
	struct hvtlb_sim_results *r;

	(void)state;
	dy_state(s);
	ple_exit(s, &s->v[0]);
	assert_int_equal(s->r->vm_exits[HVTLB_SIM_EXIT_PLE], 1);
	assert_int_equal(s->v[0].hs, H_READY);
	assert_int_equal(s->r->directed_yields, 0);
	rig_free(g);

	r = run_kv(ple);
	assert_true(r->vm_exits[HVTLB_SIM_EXIT_PLE] > 0);
	assert_true(r->directed_yields > 0);
	assert_true(r->directed_yields <= r->vm_exits[HVTLB_SIM_EXIT_PLE]);
	hvtlb_sim_results_destroy(r);
	r = run_kv(no_ple);
	assert_int_equal(r->directed_yields, 0);
	hvtlb_sim_results_destroy(r);
}

/*
 * ple_exits_ack_wait counts the PLE exits of a vCPU whose guest spins for
 * flush IPI acknowledgements (ipi_wait), not those of a lock spin, with
 * directed yield and in the older model. Over an
 * overcommitted run of the IPI strategy some exits are ack waits, never
 * more than all PLE exits; without PLE there are none.
 */
static void test_ple_exits_ack_wait(void **state)
{
	const char *dy[] = { DY_RIG, NULL };
	const char *fixed[] = { DY_RIG, "hypervisor.directed_yield=false",
				NULL };
	const char *ple[] = { OVERCOMMIT, "hypervisor.ple=true", NULL };
	const char *no_ple[] = { OVERCOMMIT, "hypervisor.ple=false", NULL };
	struct hvtlb_sim_results *r;

	(void)state;
	for (int i = 0; i < 4; i++) {
		struct rig *g = rig_new(i < 2 ? dy : fixed);
		int ack = i % 2;
		struct sim *s = &g->s;

		dy_state(s);
		s->v[0].sd.ipi_wait = ack;
		ple_exit(s, &s->v[0]);
		assert_int_equal(s->r->vm_exits[HVTLB_SIM_EXIT_PLE], 1);
		assert_int_equal(s->r->ple_exits_ack_wait, ack);
		rig_free(g);
	}
	r = run_kv(ple);
	assert_true(r->ple_exits_ack_wait > 0);
	assert_true(r->ple_exits_ack_wait <= r->vm_exits[HVTLB_SIM_EXIT_PLE]);
	hvtlb_sim_results_destroy(r);
	r = run_kv(no_ple);
	assert_int_equal(r->ple_exits_ack_wait, 0);
	hvtlb_sim_results_destroy(r);
}

/* A flush IPI from vCPU 0 reaching vCPU @p vid at @p arrive. */
static void put_irq(struct sim *s, uint32_t vid, simtime arrive)
{
	struct ipi_rec q = { .arrive = arrive,
			     .from = 0,
			     .seq = s->v[0].sd.ack_seq,
			     .asid = s->mm[0].id,
			     .kind = IPI_FLUSH,
			     .r = { .all = true } };

	assert_true(sim_ipi_post(s, &s->v[vid], &q));
}

/*
 * KVM 5.13's exception (ple_boost_irq): vCPU 3, preempted in user mode,
 * qualifies once the spinner's flush IPI has reached it; the round-robin
 * from the last boosted (0) meets it before vCPU 5. Before the IPI
 * arrives, or without the switch, vCPU 5 is boosted as in 2018.
 */
static void test_dy_pending_irq(void **state)
{
	const char *irq[] = { DY_RIG, "hypervisor.ple_boost_ready=false",
			      "hypervisor.ple_boost_irq=true", NULL };
	const char *y2018[] = { DY_RIG, "hypervisor.ple_boost_ready=false",
				NULL };
	const struct {
		const char **kv;
		double arrive_ms;
		uint32_t boosted;
	} c[] = {
		{ irq, 0.9, 3 },   /* reached vCPU 3: it qualifies */
		{ irq, 1.1, 5 },   /* still on its way */
		{ y2018, 0.9, 5 }, /* before 5.13 */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct rig *g = rig_new(c[i].kv);
		struct sim *s = &g->s;

		dy_state(s);
		put_irq(s, 3, ms(s, c[i].arrive_ms));
		ple_exit(s, &s->v[0]);
		assert_int_equal(s->vmh[0].boosted, c[i].boosted);
		assert_int_equal(s->p[1].cur, c[i].boosted);
		assert_int_equal(s->p[0].cur, 2);
		rig_free(g);
	}
}

/*
 * A candidate that yielded from its own spin loop is eligible every
 * other time it is looked at (dy_eligible): the first exit finds none
 * (vCPU 3 was preempted in user mode) and the spinner keeps its pCPU,
 * its window doubled (4096 -> 8192 cycles); the second boosts vCPU 5.
 * Scheduled in again, the spinner's window is back at 4096.
 */
static void test_dy_eligible(void **state)
{
	const char *kv[] = { DY_RIG, "hypervisor.ple_boost_ready=false", NULL };
	struct rig *g = rig_new(kv);
	struct sim *s = &g->s;
	struct vcpu *v = &s->v[0];

	(void)state;
	dy_state(s);
	s->v[5].host.in_spin_loop = true;
	s->v[5].host.dy_eligible = false;
	assert_int_equal(v->host.ple_window, 4096);
	ple_exit(s, v);
	assert_int_equal(s->p[1].cur, 1);
	assert_int_equal(s->p[0].cur, 0);
	assert_int_equal(v->host.ple_window, 8192);
	assert_true(s->v[5].host.dy_eligible);
	assert_false(v->host.in_spin_loop);
	s->now += 10000;
	ple_exit(s, v);
	assert_int_equal(s->p[1].cur, 5);
	assert_int_equal(v->host.ple_window, 16384);
	sim_ple_sched_in(s, v);
	assert_int_equal(v->host.ple_window, 4096);
	rig_free(g);
}

/* ------------------------------------------------- where vCPUs run */
/* Two sockets of two pCPUs (0-1, 2-3), eight vCPUs (vCPU i starts on
 * pCPU i mod 4), no halt polling. */
#define BAL_RIG                                                                \
	"machine.pcpus=4", "machine.sockets=2", "vm.vcpus=8",                  \
		"workload.threads=1", "cost.cpu_mhz=2400",                     \
		"hypervisor.cfs=true", "cost.halt_poll_us=0"

/*
 * select_idle_sibling: woken vCPU 4, whose previous pCPU 0 runs vCPU 0,
 * goes to pCPU 1, idle in the same socket, and is flushed when it enters;
 * vCPU 5 then finds its socket busy (pCPU 1 has a wake-up pending) and
 * queues on its previous pCPU, never on idle pCPU 2 of the other socket;
 * vCPU 2 stays on its idle previous pCPU. Pinned (hypervisor.balance =
 * false), vCPU 4 stays on pCPU 0 whatever is idle.
 */
static void test_balance_wake(void **state)
{
	const char *on[] = { BAL_RIG, NULL };
	const char *off[] = { BAL_RIG, "hypervisor.balance=false", NULL };
	struct rig *g = rig_new(on);
	struct sim *s = &g->s;

	(void)state;
	s->now = ms(s, 1);
	put_running(s, 0, 0, 0);
	sim_vcpu_wake(s, &s->v[4], 0);
	assert_int_equal(s->v[4].pcpu, 1);
	assert_true(s->v[4].host.migrated);
	assert_int_equal(s->p[1].bal.waking, 1);
	sim_vcpu_wake(s, &s->v[5], 0);
	assert_int_equal(s->v[5].pcpu, 1);
	assert_false(s->v[5].host.migrated);
	sim_vcpu_wake(s, &s->v[2], 0);
	assert_int_equal(s->v[2].pcpu, 2);
	assert_int_equal(s->r->vcpu_migrations, 1);
	/* vCPU 4's wake-up: it enters pCPU 1 and its TLB is flushed */
	s->now += ms(s, 0.1);
	sim_host_on_wake(s, &(struct event){ .kind = EV_WAKE, .obj = 4 });
	assert_int_equal(s->p[1].cur, 4);
	assert_false(s->v[4].host.migrated);
	assert_int_equal(s->r->flushes[HVTLB_SIM_FLUSH_MIGRATE], 1);
	rig_free(g);

	g = one_running(off);
	s = &g->s;
	sim_vcpu_wake(s, &s->v[4], 0);
	assert_int_equal(s->v[4].pcpu, 0);
	assert_int_equal(s->r->vcpu_migrations, 0);
	rig_free(g);
}

/*
 * KVM's halt polling keeps a halted vCPU's thread on its pCPU: woken
 * within the poll it stays, although pCPU 1 is idle; a pCPU where a vCPU
 * polls is not idle for others (vCPU 7, whose previous pCPU 3 is busy,
 * goes to pCPU 2, not to polling pCPU 0).
 */
static void test_balance_poll(void **state)
{
	const char *kv[] = { BAL_RIG, "cost.halt_poll_us=200", NULL };
	struct rig *g = rig_new(kv);
	struct sim *s = &g->s;

	(void)state;
	s->now = ms(s, 1);
	put_running(s, 0, 0, 0);
	put_running(s, 3, 0, 0);
	s->p[0].last = 0;
	sim_vcpu_deschedule(s, &s->v[0], false); /* halts: polls on pCPU 0 */
	assert_true(sim_pcpu_polling(s, &s->p[0]));
	s->now += us_to_cyc(s, 50);
	sim_vcpu_wake(s, &s->v[7], 0);
	assert_int_equal(s->v[7].pcpu, 2);
	sim_vcpu_wake(s, &s->v[0], 0);
	assert_int_equal(s->v[0].pcpu, 0);
	assert_false(s->v[0].host.migrated);
	rig_free(g);
}

/* vCPU @p vid waits on its pCPU, descheduled @p ago_ms ago. */
static void put_waiting(struct sim *s, uint32_t vid, double ago_ms)
{
	put_queued(s, vid, 0);
	s->v[vid].host.desched_at = s->now - ms(s, ago_ms);
	s->vmh[0].ready++;
}

/* Two pCPUs, twelve vCPUs, no halt polling. */
#define TWO_PCPUS                                                              \
	"machine.pcpus=2", "vm.vcpus=12", "workload.threads=1",                \
		"cost.cpu_mhz=2400", "hypervisor.cfs=true",                    \
		"cost.halt_poll_us=0"

/* At 10 ms vCPUs 0 and 1 run on pCPUs 0 and 1; vCPU 5 waits on pCPU 1,
 * descheduled @p ago_ms ago. */
static struct rig *two_running(double ago_ms)
{
	const char *kv[] = { TWO_PCPUS, NULL };
	struct rig *g = rig_new(kv);
	struct sim *s = &g->s;

	s->now = ms(s, 10);
	put_running(s, 0, 0, 0);
	put_running(s, 1, 0, 0);
	put_waiting(s, 5, ago_ms);
	return g;
}

/*
 * idle_balance: when vCPU 0 halts and pCPU 0 runs out of vCPUs, pCPU 0
 * pulls from pCPU 1 the waiting vCPU that left a pCPU longest ago (5, 3 ms
 * ago, not 9, 1 ms ago), and runs it, its TLB flushed. A vCPU that
 * ran within sched_migration_cost (0.5 ms) is cache hot and stays; a pCPU
 * whose idle periods average under that does not pull at all.
 */
static void test_balance_newidle(void **state)
{
	struct rig *g = two_running(3);
	struct sim *s = &g->s;

	(void)state;
	put_waiting(s, 9, 1);
	sim_vcpu_deschedule(s, &s->v[0], false);
	assert_int_equal(s->p[0].cur, 5);
	assert_int_equal(s->v[5].pcpu, 0);
	assert_int_equal(s->p[1].rq_n, 1);
	assert_int_equal(s->r->flushes[HVTLB_SIM_FLUSH_MIGRATE], 1);
	rig_free(g);

	g = two_running(0.1); /* hot */
	s = &g->s;
	sim_vcpu_deschedule(s, &s->v[0], false);
	assert_int_equal(s->p[0].cur, NONE_ID);
	assert_int_equal(s->v[5].pcpu, 1);
	rig_free(g);

	g = two_running(3); /* avg_idle below the migration cost */
	s = &g->s;
	s->p[0].bal.avg_idle = ms(s, 0.2);
	sim_vcpu_deschedule(s, &s->v[0], false);
	assert_int_equal(s->p[0].cur, NONE_ID);
	assert_int_equal(s->r->vcpu_migrations, 0);
	rig_free(g);
}

/*
 * The periodic balance pulls only from a pCPU that runs two or more
 * vCPUs more: pCPU 0 (one vCPU) pulls one of pCPU 1's two waiting vCPUs
 * (three runnable there), and then nothing (two against two).
 */
static void test_balance_periodic(void **state)
{
	struct rig *g = two_running(2);
	struct sim *s = &g->s;
	struct event e = { .kind = EV_BALANCE, .obj = 0, .arg = 0 };

	(void)state;
	put_waiting(s, 9, 4);
	sim_host_on_balance(s, &e);
	assert_int_equal(s->v[9].pcpu, 0);
	assert_int_equal(s->p[0].rq_n, 1);
	assert_int_equal(s->p[1].rq_n, 1);
	sim_host_on_balance(s, &e);
	assert_int_equal(s->v[5].pcpu, 1);
	assert_int_equal(s->r->vcpu_migrations, 1);
	rig_free(g);
}

/*
 * A hot vCPU moves once the domain's periodic balances failed more than
 * its cache_nice_tries times (can_migrate_task): pCPU 1 runs one vCPU and
 * keeps two waiting, both descheduled 0.1 ms ago (hot). pCPU 0 (idle)
 * balances the socket: the first two balances fail, the third moves one
 * and resets the count. New-idle balances read the count but do not add
 * to it, and a balanced domain resets it. Without the count (the older
 * model) the waiting vCPUs stayed hot for good when the pCPU's running
 * vCPUs kept taking turns, and a lock holder among them never ran long
 * enough to release (a 2-VM ebizzy draw ran into engine.max_virtual_s).
 */
static void test_balance_hot_forced(void **state)
{
	const char *kv[] = { TWO_PCPUS, NULL };
	struct rig *g = rig_new(kv);
	struct sim *s = &g->s;
	struct event e = { .kind = EV_BALANCE, .obj = 0, .arg = 0 };

	(void)state;
	s->now = ms(s, 10);
	put_running(s, 1, 0, 0);
	put_waiting(s, 5, 0.1);
	put_waiting(s, 9, 0.1);
	sim_host_on_balance(s, &e);
	assert_int_equal(s->p[0].bal.failed[0], 1);
	assert_int_equal(s->p[0].rq_n + (s->p[0].cur != NONE_ID), 0);
	/* a new-idle balance does not count, and does not move yet */
	assert_false(sim_balance_newidle(s, &s->p[0]));
	assert_int_equal(s->p[0].bal.failed[0], 1);
	sim_host_on_balance(s, &e);
	assert_int_equal(s->p[0].bal.failed[0], 2);
	assert_int_equal(s->r->vcpu_migrations, 0);
	sim_host_on_balance(s, &e);
	assert_int_equal(s->r->vcpu_migrations, 1);
	assert_int_equal(s->v[5].pcpu, 0);
	assert_int_equal(s->p[0].bal.failed[0], 0);
	/* one running and one waiting on each side now: balanced */
	s->p[0].bal.failed[0] = 2;
	sim_host_on_balance(s, &e);
	assert_int_equal(s->p[0].bal.failed[0], 0);
	assert_int_equal(s->r->vcpu_migrations, 1);
	rig_free(g);
}

/*
 * A vCPU moved onto a pCPU is placed against that pCPU's min_vruntime as
 * of now (enqueue_entity() calls update_curr() first), not as of the last
 * event there: vCPU 0 has run alone on pCPU 0 for 2 s, so a vCPU pulled
 * there lands at 2 s of virtual runtime, not at 0 where it would keep
 * vCPU 0 off the pCPU for 2 s. The pCPU it leaves is brought up to date
 * too before its distance to min_vruntime is taken (0 here: it was the
 * leftmost).
 */
static void test_balance_fresh_min(void **state)
{
	const char *kv[] = { TWO_PCPUS, NULL };
	struct rig *g = rig_new(kv);
	struct sim *s = &g->s;
	struct event e = { .kind = EV_BALANCE, .obj = 0, .arg = 0 };

	(void)state;
	s->now = ms(s, 2000);
	put_running(s, 0, 0, 0);
	put_running(s, 1, ms(s, 1999), ms(s, 1999));
	put_waiting(s, 5, 3);
	put_waiting(s, 9, 4);
	s->v[5].host.vruntime = s->v[9].host.vruntime = ms(s, 1998);
	sim_host_on_balance(s, &e);
	assert_int_equal(s->v[9].pcpu, 0);
	assert_int_equal(s->p[0].cfs.min_vruntime, ms(s, 2000));
	assert_int_equal(s->v[9].host.vruntime, ms(s, 2000));
	rig_free(g);
}

/* The host state of a vCPU moves only as vcpu-state.h draws it: each
 * move of the diagram is taken, any other fails the run and leaves the
 * state as it was. */
/*
 * The work a descheduled vCPU keeps: a segment of 10,000 cycles of guest
 * work with 5,000 of exit handling in front (sim_vcpu_steal(), as at an
 * entry). Cut inside the handling it keeps all 10,000: the handling does
 * not survive a deschedule and is no guest work (counting it as work made
 * a vCPU preempted at each entry gain 5,000 cycles per entry, and never
 * finish). Cut after it, the rest of the work.
 */
static void test_seg_cancel(void **state)
{
	const char *kv[] = { CFS_RIG, NULL };
	struct rig *g = rig_new(kv);
	struct sim *s = &g->s;
	struct vcpu *v = &s->v[0];

	(void)state;
	put_running(s, 0, 0, 0);
	for (int k = 0; k < 2; k++) {
		s->now = 0;
		v->seg.busy_until = 0;
		v->act = ACT_WORK;
		v->seg.work = 10000;
		sim_vcpu_arm_run(s, v);
		assert_int_equal(sim_vcpu_steal(s, v, 5000), 5000);
		assert_int_equal(v->seg.end, 15000);
		s->now = k ? 8000 : 2000;
		assert_int_equal(sim_vcpu_seg_cancel(s, v), k ? 7000 : 10000);
		assert_false(v->seg.armed);
	}
	rig_free(g);
}

static void test_vcpu_moves(void **state)
{
	static const bool legal[4][4] = {
		[H_RUNNING] = { [H_READY] = true, [H_HALTED] = true },
		[H_READY] = { [H_RUNNING] = true },
		[H_HALTED] = { [H_WAKING] = true },
		[H_WAKING] = { [H_READY] = true },
	};
	struct sim s = { 0 };
	struct vcpu v = { .s = &s };

	(void)state;
	for (int from = 0; from < 4; from++)
		for (int to = 0; to < 4; to++) {
			s.failed = false;
			v.hs = (enum hstate)from;
			assert_int_equal(sim_vcpu_move(&s, &v, (enum hstate)to),
					 legal[from][to]);
			assert_int_equal(s.failed, !legal[from][to]);
			assert_int_equal(v.hs, legal[from][to] ? to : from);
		}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfs_tick),
		cmocka_unit_test(test_seg_cancel),
		cmocka_unit_test(test_cfs_buddies),
		cmocka_unit_test(test_cfs_wakeup),
		cmocka_unit_test(test_menu_select),
		cmocka_unit_test(test_menu_typical),
		cmocka_unit_test(test_menu_bimodal),
		cmocka_unit_test(test_idle_wake),
		cmocka_unit_test(test_idle_declared_vs_paid),
		cmocka_unit_test(test_haltpoll_limit),
		cmocka_unit_test(test_poll_resume),
		cmocka_unit_test(test_directed_yield),
		cmocka_unit_test(test_directed_yield_count),
		cmocka_unit_test(test_ple_exits_ack_wait),
		cmocka_unit_test(test_dy_eligible),
		cmocka_unit_test(test_dy_pending_irq),
		cmocka_unit_test(test_balance_wake),
		cmocka_unit_test(test_balance_poll),
		cmocka_unit_test(test_balance_newidle),
		cmocka_unit_test(test_balance_periodic),
		cmocka_unit_test(test_balance_hot_forced),
		cmocka_unit_test(test_balance_fresh_min),
		cmocka_unit_test(test_kick_yield),
		cmocka_unit_test(test_vcpu_moves),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
