// SPDX-License-Identifier: MIT
/*
 * Linux CFS as the host scheduler (hypervisor.cfs = true), as
 * kernel/sched/fair.c of Linux 4.15 (the KVM hosts the profiles describe,
 * 2017-2018) behaves with its defaults. Every vCPU thread has the same
 * weight (nice 0), so virtual runtime advances with run time, and the
 * run queue of a pCPU holds the vCPUs pinned to it.
 *
 * - Tunables (update_sysctl, logarithmic scaling): sched_latency 6 ms,
 *   min_granularity 0.75 ms and wakeup_granularity 1 ms, each times
 *   1 + ilog2(min(CPUs, 8)); sched_nr_latency 8.
 * - sched_slice: __sched_period(nr_running) / nr_running, the period
 *   being sched_latency, or nr_running x min_granularity past
 *   sched_nr_latency runnable.
 * - check_preempt_tick, at every host tick (cost.host_tick_us): the
 *   running vCPU is preempted when it ran longer than its slice since it
 *   was picked, or ran min_granularity and its virtual runtime is ahead
 *   of the leftmost waiting vCPU's by more than its slice. The slice
 *   changes with the number runnable, so the engine works out the first
 *   tick at which either holds whenever a vCPU joins the queue, instead
 *   of one event per tick.
 * - place_entity: a woken vCPU gets at most half a latency of sleeper
 *   credit (GENTLE_FAIR_SLEEPERS): vruntime >= min_vruntime - latency/2.
 * - check_preempt_wakeup: the woken vCPU preempts the running one when
 *   that one is ahead by more than the wake-up granularity
 *   (wakeup_preempt_entity); it becomes the next buddy, and the preempted
 *   one the last buddy when sched_nr_latency or more are runnable.
 * - pick_next_entity: the leftmost; the skip buddy (a vCPU that yielded)
 *   is passed over, and the last then the next buddy taken, whenever the
 *   one chosen that way is not ahead of the leftmost by more than the
 *   wake-up granularity. clear_buddies when a buddy is picked, halts
 *   (dequeue_entity) or used up its slice.
 * - yield_task_fair (skip buddy) and yield_to_task_fair (next buddy) for
 *   KVM's directed yield (host-ple.c).
 *
 * sim_host_CFS_ENTRY (hypervisor.cfs_tick = false) is the engine's older
 * model, kept for comparison: the slice is fixed when a vCPU enters, a
 * vCPU that yielded is never picked while another waits, no buddies.
 */
#include "sim/host.h"
#include "sim/machine.h"
#include "sim/stats.h"

#define CFS_NR_LATENCY 8u

static void cfs_init(struct sim *s)
{
	/* CFS scales its tunables by 1 + ilog2(min(CPUs, 8)). */
	uint32_t n = s->c->pcpus < 8 ? s->c->pcpus : 8, f = 1;

	while (n >>= 1)
		f++;
	s->cfs.latency = us_to_cyc(s, 6000.0 * f);
	s->cfs.min_gran = us_to_cyc(s, 750.0 * f);
	s->cfs.wakeup_gran = us_to_cyc(s, 1000.0 * f);
}

/* Virtual runtime of @p v now. */
static simtime vcpu_vruntime(const struct sim *s, const struct vcpu *v)
{
	if (v->hs == H_RUNNING)
		return v->host.vruntime + (s->now - v->host.run_start);
	return v->host.vruntime;
}

static uint32_t rq_at(const struct pcpu *p, uint32_t k)
{
	return p->rq[(p->rq_head + k) % p->rq_cap];
}

/* ------------------------------------------- CFS re-evaluated at ticks */
static void cfs_tick_init(struct sim *s)
{
	cfs_init(s);
	s->cfs.host_tick = us_to_cyc(s, s->cost[SIM_COST_host_tick_us]);
	if (!s->cfs.host_tick)
		s->cfs.host_tick = 1;
}

/* Queue positions of the leftmost vCPU (smallest virtual runtime; the
 * first queued on ties, as the rbtree inserts equal keys to the right)
 * and of the one after it; NONE_ID when there is none. */
static void leftmost2(const struct sim *s, const struct pcpu *p, uint32_t *k1,
		      uint32_t *k2)
{
	*k1 = *k2 = NONE_ID;
	for (uint32_t k = 0; k < p->rq_n; k++) {
		simtime vr = s->v[rq_at(p, k)].host.vruntime;

		if (*k1 == NONE_ID || vr < s->v[rq_at(p, *k1)].host.vruntime) {
			*k2 = *k1;
			*k1 = k;
		} else if (*k2 == NONE_ID ||
			   vr < s->v[rq_at(p, *k2)].host.vruntime) {
			*k2 = k;
		}
	}
}

/* update_min_vruntime: the smallest of the running vCPU's (@p curr_vr
 * when @p has_curr) and the leftmost's virtual runtime, never backwards. */
static void update_min(const struct sim *s, struct pcpu *p, bool has_curr,
		       simtime curr_vr)
{
	uint32_t k1, k2;
	simtime vr = p->cfs.min_vruntime;

	leftmost2(s, p, &k1, &k2);
	if (has_curr)
		vr = curr_vr;
	if (k1 != NONE_ID) {
		simtime l = s->v[rq_at(p, k1)].host.vruntime;

		vr = has_curr && vr < l ? vr : l;
	}
	if (vr > p->cfs.min_vruntime)
		p->cfs.min_vruntime = vr;
}

/* wakeup_preempt_entity(): 1 when @p a is ahead of @p b by more than the
 * wake-up granularity, -1 when it is not ahead at all, 0 in between. */
static int wakeup_preempt(const struct sim *s, simtime a, simtime b)
{
	int64_t d = (int64_t)(a - b);

	if (d <= 0)
		return -1;
	return d > (int64_t)s->cfs.wakeup_gran ? 1 : 0;
}

static void clear_buddies(struct pcpu *p, uint32_t vid)
{
	if (p->cfs.next_buddy == vid)
		p->cfs.next_buddy = NONE_ID;
	if (p->cfs.last_buddy == vid)
		p->cfs.last_buddy = NONE_ID;
	if (p->cfs.skip == vid)
		p->cfs.skip = NONE_ID;
}

/* pick_next_entity() over @p p's queue and the running vCPU @p curr (or
 * NULL): the vCPU to run. */
static uint32_t cfs_choose(const struct sim *s, const struct pcpu *p,
			   const struct vcpu *curr)
{
	simtime cvr = curr ? vcpu_vruntime(s, curr) : 0;
	uint32_t k1, k2, left, se;

	leftmost2(s, p, &k1, &k2);
#define VR(x) (curr && (x) == curr->gid ? cvr : s->v[(x)].host.vruntime)
	left = k1 != NONE_ID ? rq_at(p, k1) : NONE_ID;
	if (curr && (left == NONE_ID || cvr < s->v[left].host.vruntime))
		left = curr->gid;
	if (left == NONE_ID)
		return NONE_ID;
	se = left;
	if (p->cfs.skip == se) {
		uint32_t second;

		if (curr && se == curr->gid) {
			second = k1 != NONE_ID ? rq_at(p, k1) : NONE_ID;
		} else {
			second = k2 != NONE_ID ? rq_at(p, k2) : NONE_ID;
			if (curr && (second == NONE_ID ||
				     cvr < s->v[second].host.vruntime))
				second = curr->gid;
		}
		if (second != NONE_ID &&
		    wakeup_preempt(s, VR(second), VR(left)) < 1)
			se = second;
	}
	if (p->cfs.last_buddy != NONE_ID &&
	    wakeup_preempt(s, VR(p->cfs.last_buddy), VR(left)) < 1)
		se = p->cfs.last_buddy;
	if (p->cfs.next_buddy != NONE_ID &&
	    wakeup_preempt(s, VR(p->cfs.next_buddy), VR(left)) < 1)
		se = p->cfs.next_buddy;
#undef VR
	return se;
}

static uint32_t cfs_pop(struct sim *s, struct pcpu *p)
{
	uint32_t vid = cfs_choose(s, p, NULL), k = 0;

	clear_buddies(p, vid);
	while (rq_at(p, k) != vid)
		k++;
	sim_pcpu_take(p, k);
	return vid;
}

/* sched_slice() of the running vCPU with @p nr runnable. */
static simtime cfs_ideal(const struct sim *s, uint32_t nr)
{
	simtime period =
		nr > CFS_NR_LATENCY ? nr * s->cfs.min_gran : s->cfs.latency;

	return period / nr;
}

/* The first host tick at which check_preempt_tick() preempts the running
 * vCPU, given the queue as it is; SIM_NEVER with nobody waiting. */
static simtime cfs_tick_end(struct sim *s, const struct pcpu *p)
{
	const struct vcpu *c = &s->v[p->cur];
	simtime ideal, t, tb, tick = s->cfs.host_tick;
	uint32_t k1, k2;
	int64_t d;

	if (!p->rq_n)
		return SIM_NEVER;
	ideal = cfs_ideal(s, p->rq_n + 1);
	leftmost2(s, p, &k1, &k2);
	/* delta_exec > ideal_runtime */
	t = c->host.run_start + ideal + 1;
	/* delta_exec >= min_granularity and curr - leftmost > ideal */
	d = (int64_t)(s->v[rq_at(p, k1)].host.vruntime + ideal -
		      c->host.vruntime);
	tb = c->host.run_start + (d < 0 ? 0 : (simtime)d + 1);
	if (tb < c->host.run_start + s->cfs.min_gran)
		tb = c->host.run_start + s->cfs.min_gran;
	if (tb < t)
		t = tb;
	if (t <= s->now)
		t = s->now + 1;
	return (t + tick - 1) / tick * tick;
}

static void cfs_tick_ran(struct sim *s, struct pcpu *p, struct vcpu *v,
			 bool ready)
{
	v->host.vruntime += s->now - v->host.run_start;
	v->host.run_start = s->now;
	update_min(s, p, true, v->host.vruntime);
	if (!ready) {
		/* dequeue_entity */
		clear_buddies(p, v->gid);
		update_min(s, p, false, 0);
	}
}

/* check_preempt_tick preempts a vCPU that used up its slice: it must not
 * be picked again for a buddy's sake. */
static void cfs_tick_expired(struct sim *s, struct pcpu *p)
{
	const struct vcpu *c = &s->v[p->cur];

	if (s->now - c->host.run_start > cfs_ideal(s, p->rq_n + 1))
		clear_buddies(p, c->gid);
}

/*
 * update_curr() before a vCPU moves from or to @p p: the engine advances
 * a pCPU's min_vruntime only at events, and a vCPU that runs alone can go
 * seconds without one, where Linux's tick does it every few ms. A vCPU
 * placed against a stale min_vruntime lands in the past and runs until
 * it catches up, starving the one running there: enqueue_entity()
 * calls update_curr() before adding min_vruntime to a migrated entity
 * for exactly that reason ("Being placed in the past could significantly
 * boost this task to the fairness detriment of existing tasks").
 */
static void cfs_tick_update_curr(struct sim *s, struct pcpu *p)
{
	const struct vcpu *c = p->cur != NONE_ID ? &s->v[p->cur] : NULL;

	update_min(s, p, c != NULL, c ? vcpu_vruntime(s, c) : 0);
}

static bool cfs_tick_woken(struct sim *s, struct pcpu *p, struct vcpu *v)
{
	struct vcpu *c = p->cur != NONE_ID ? &s->v[p->cur] : NULL;
	simtime floor;

	/* enqueue_entity: update_curr, then place_entity */
	cfs_tick_update_curr(s, p);
	floor = p->cfs.min_vruntime > s->cfs.latency / 2
			? p->cfs.min_vruntime - s->cfs.latency / 2
			: 0;
	if (v->host.vruntime < floor)
		v->host.vruntime = floor;
	sim_pcpu_push(s, p, v->gid, false);
	if (!c || wakeup_preempt(s, vcpu_vruntime(s, c), v->host.vruntime) != 1)
		return false;
	p->cfs.next_buddy = v->gid;
	if (p->rq_n + 1 >= CFS_NR_LATENCY)
		p->cfs.last_buddy = c->gid;
	sim_count_exit(s, c, HVTLB_SIM_EXIT_PREEMPTION, 1);
	sim_vcpu_deschedule(s, c, true);
	return true;
}

static void cfs_tick_boost(struct sim *s, struct pcpu *p, struct vcpu *v)
{
	(void)s;
	p->cfs.next_buddy = v->gid;
}

static void cfs_tick_yield(struct sim *s, struct pcpu *p)
{
	(void)s;
	if (!p->rq_n)
		return; /* the only one runnable */
	clear_buddies(p, p->cur);
	p->cfs.skip = p->cur;
}

static bool cfs_tick_resched(struct sim *s, const struct pcpu *p)
{
	return p->cur != NONE_ID && cfs_choose(s, p, &s->v[p->cur]) != p->cur;
}

const struct host_policy sim_host_CFS_TICK = {
	.name = "cfs-tick",
	.init = cfs_tick_init,
	.pop = cfs_pop,
	.slice_end = cfs_tick_end,
	.reslice = true,
	.ran = cfs_tick_ran,
	.expired = cfs_tick_expired,
	.woken = cfs_tick_woken,
	.boost = cfs_tick_boost,
	.yield = cfs_tick_yield,
	.resched = cfs_tick_resched,
	.update_curr = cfs_tick_update_curr,
};

/* ------------------------------------- the older model: slice at entry */
/* The smallest virtual runtime (the first on ties), not the vCPU that
 * just yielded if there is another, moved to the head of the queue. */
static void cfs_pick(struct sim *s, struct pcpu *p)
{
	uint32_t best = 0;

	for (uint32_t k = 1; k < p->rq_n; k++) {
		uint32_t a = rq_at(p, k);
		uint32_t b = rq_at(p, best);

		if (b == p->cfs.skip ||
		    (a != p->cfs.skip &&
		     s->v[a].host.vruntime < s->v[b].host.vruntime))
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

/* sched_latency shared by the runnable vCPUs, at least min_granularity,
 * from now on. */
static simtime cfs_slice_end(struct sim *s, const struct pcpu *p)
{
	simtime sl = s->cfs.latency / (p->rq_n + 1);

	return s->now + (sl > s->cfs.min_gran ? sl : s->cfs.min_gran);
}

static void cfs_picked(struct sim *s, struct pcpu *p, struct vcpu *v)
{
	(void)s;
	if (v->host.vruntime > p->cfs.min_vruntime)
		p->cfs.min_vruntime = v->host.vruntime;
}

static void cfs_ran(struct sim *s, struct pcpu *p, struct vcpu *v, bool ready)
{
	(void)ready;
	v->host.vruntime += s->now - v->host.run_start;
	if (v->host.vruntime > p->cfs.min_vruntime && !p->rq_n)
		p->cfs.min_vruntime = v->host.vruntime;
}

static bool cfs_woken(struct sim *s, struct pcpu *p, struct vcpu *v)
{
	simtime floor = p->cfs.min_vruntime > s->cfs.latency / 2
				? p->cfs.min_vruntime - s->cfs.latency / 2
				: 0;

	if (v->host.vruntime < floor)
		v->host.vruntime = floor;
	sim_pcpu_push(s, p, v->gid, false);
	if (p->cur != NONE_ID &&
	    vcpu_vruntime(s, &s->v[p->cur]) >
		    v->host.vruntime + s->cfs.wakeup_gran) {
		sim_count_exit(s, &s->v[p->cur], HVTLB_SIM_EXIT_PREEMPTION, 1);
		sim_vcpu_deschedule(s, &s->v[p->cur], true);
		return true;
	}
	return false;
}

static void cfs_yield(struct sim *s, struct pcpu *p)
{
	(void)s;
	p->cfs.skip = p->cur;
}

/* A yielding vCPU is never picked while another waits. */
static bool cfs_resched(struct sim *s, const struct pcpu *p)
{
	(void)s;
	return p->cur != NONE_ID && p->rq_n;
}

const struct host_policy sim_host_CFS_ENTRY = {
	.name = "cfs-entry",
	.init = cfs_init,
	.pick = cfs_pick,
	.slice_end = cfs_slice_end,
	.picked = cfs_picked,
	.ran = cfs_ran,
	.woken = cfs_woken,
	.yield = cfs_yield,
	.resched = cfs_resched,
};
