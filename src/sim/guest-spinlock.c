// SPDX-License-Identifier: MIT
/*
 * The guest's paravirtual queued spinlock (guest.pv_spinlock), as Linux
 * runs its zone and LRU locks in a KVM guest that has KVM_FEATURE_PV_UNHALT
 * (kernel/locking/qspinlock.c, qspinlock_paravirt.h, arch/x86/kernel/kvm.c;
 * Linux 4.5 to 5.x):
 *
 * - Interrupts are off from the request to the release (zone->lock under
 *   local_irq_save in rmqueue_pcplist and free_unref_page_list, the LRU
 *   lock with spin_lock_irqsave): flush IPIs that reach the vCPU wait
 *   until the release, and do not wake it from a halt.
 * - The holder keeps the lock until its vCPU has run the critical
 *   section: a holder the host preempts holds it until it runs again.
 * - Waiters queue in order (the MCS queue). The head spins on the lock
 *   word with the pending bit set and takes it at the release; the others
 *   spin on their queue nodes. After SPIN_THRESHOLD (1 << 15) PAUSE loops
 *   without it a waiter halts (pv_wait(): kvm_wait() halts with
 *   interrupts off, so only a kick wakes it). A halted head clears the
 *   pending bit.
 * - Unfair mode (pv_hybrid_queued_unfair_trylock, commit 11752adb68a3,
 *   Linux 4.5): a CPU that requests the lock tries to take it before it
 *   queues, and keeps trying, spinning, for as long as the queue is not
 *   empty and the pending bit is clear (its head halted, kicked and not
 *   yet running, or a waiter not yet head); it takes the lock whenever it
 *   is free. It queues once the queue empties or the pending bit is set
 *   (a head spins on the lock again). Such a stealer never halts: the
 *   loop has no threshold.
 * - At the release, a halted head is kicked (__pv_queued_spin_unlock_
 *   slowpath -> pv_kick() -> the KVM_HC_KICK_CPU hypercall, a VM exit of
 *   the releaser); a halted waiter that becomes head is kicked at the next
 *   release (pv_kick_node() only marks it). With hypervisor.kick_yield
 *   KVM then yields the releaser's pCPU to the kicked head (host-ple.c).
 * - guest.pv_wait_early (commit 75437bb304b2, Linux 4.13 to 5.3, reverted
 *   for 5.4): a queued waiter whose predecessor is halted or whose vCPU is
 *   preempted halts at once (pv_wait_early()).
 *
 * The threshold counts loops, so only the time the waiter's vCPU runs
 * counts: a waiter preempted half way through has the other half left.
 *
 * Simplified: a waiter checks pv_wait_early() when it starts to spin,
 * when it runs again and when its predecessor's state changes, not every
 * 256 loops.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim/guest.h"
#include "sim/host.h"
#include "sim/machine.h"
#include "sim/spinlock.h"
#include "sim/stats.h"

/* kernel/locking/qspinlock_paravirt.h: loops before pv_wait(). */
#define PV_SPIN_THRESHOLD (1u << 15)

int sim_pvl_init(struct pv_lock *l, uint32_t cap)
{
	*l = (struct pv_lock){ .holder = NONE_ID, .cap = cap };
	l->q = calloc(cap ? cap : 1, sizeof(*l->q));
	l->st = calloc(cap ? cap : 1, sizeof(*l->st));
	if (l->q && l->st)
		return 0;
	sim_pvl_free(l);
	return -ENOMEM;
}

void sim_pvl_free(struct pv_lock *l)
{
	free(l->q);
	free(l->st);
	l->q = NULL;
	l->st = NULL;
}

static uint32_t q_at(const struct pv_lock *l, uint32_t i)
{
	return l->q[(l->qh + i) % l->cap];
}

static bool is_head(const struct pv_lock *l, const struct vcpu *v)
{
	return l->qn && q_at(l, 0) == v->gid;
}

/* @p v's place in the queue of the lock it waits for (0 the head), or
 * UINT32_MAX when it is not queued (a stealer). Waiters leave the ring
 * only at its head, so the slot it was queued in stays its own. */
static uint32_t q_pos(const struct vcpu *v)
{
	const struct pv_lock *l = v->pvl.wait;
	uint32_t i;

	if (!l || v->pvl.qi >= l->cap)
		return UINT32_MAX;
	i = v->pvl.qi >= l->qh ? v->pvl.qi - l->qh : v->pvl.qi + l->cap - l->qh;
	return i < l->qn && l->q[v->pvl.qi] == v->gid ? i : UINT32_MAX;
}

/* The waiter queued right behind @p v on its lock, or NULL. */
static struct vcpu *successor(struct sim *s, const struct vcpu *v)
{
	const struct pv_lock *l = v->pvl.wait;
	uint32_t i = q_pos(v);

	return i != UINT32_MAX && i + 1 < l->qn ? &s->v[q_at(l, i + 1)] : NULL;
}

static struct vcpu *predecessor(struct sim *s, const struct vcpu *v)
{
	const struct pv_lock *l = v->pvl.wait;
	uint32_t i = q_pos(v);

	return i != UINT32_MAX && i ? &s->v[q_at(l, i - 1)] : NULL;
}

/* A spinning waiter stops spinning: its task goes on (it was granted the
 * lock, or halts). */
static void spin_stop(struct sim *s, struct vcpu *v)
{
	v->pvl.token++;
	if (!v->lock.spin_hold)
		return;
	v->lock.spin_hold = 0;
	sim_vcpu_spin_over(s, v);
}

/* pv_wait_early(): @p v spins behind a waiter that halted or whose vCPU
 * the host preempted. It acts only while its vCPU runs (@p running). */
static bool waits_early(struct sim *s, struct vcpu *v, bool running)
{
	struct vcpu *prev;

	if (!s->c->pv_wait_early || v->pvl.phase != PVL_SPIN || !running)
		return false;
	prev = predecessor(s, v);
	return prev && (prev->pvl.phase == PVL_WAIT ||
			prev->pvl.phase == PVL_KICKED || prev->pvl.preempted);
}

/* @p v gives up spinning and halts (its task does, when it runs); with
 * guest.pv_wait_early so do the running waiters behind it, one after
 * the other (a loop: the queue can be as long as the VM is wide). */
static void to_wait(struct sim *s, struct vcpu *v)
{
	do {
		v->pvl.phase = PVL_WAIT;
		spin_stop(s, v);
		v = successor(s, v);
	} while (v && waits_early(s, v, v->hs == H_RUNNING));
}

static void check_early(struct sim *s, struct vcpu *v, bool running)
{
	if (waits_early(s, v, running))
		to_wait(s, v);
}

/*
 * The threshold counts PAUSE loops, which a vCPU only runs on its pCPU:
 * its event is armed while it runs, for what is left of it. A waiter the
 * host preempts and runs again, often thousands of times in a wait, arms
 * a later deadline each time: rather than queue one more event each time
 * and leave the old one, about 2 ms ahead, to be popped for nothing (tens
 * of thousands of them in the queue of an overcommitted 3-VM run), the
 * new deadline waits for the queued one and is queued when it pops,
 * under the key (time, sequence) it was given here: events pop in
 * exactly the same order.
 */
static void spin_queue(struct sim *s, struct vcpu *v, uint64_t seq)
{
	ev_push_seq(s, v->pvl.spin_left, seq, EV_PVL_SPIN, v->gid,
		    v->pvl.token);
	v->pvl.queued = true;
	v->pvl.q_token = v->pvl.token;
	v->pvl.q_t = v->pvl.spin_left;
	v->pvl.deferred = false;
}

static void spin_arm(struct sim *s, struct vcpu *v)
{
	uint64_t seq = s->q.seq++;
	simtime end = s->now + v->pvl.spin_left;

	v->pvl.token++;
	v->pvl.spin_left = end; /* now its deadline */
	if (v->pvl.queued && v->pvl.q_t <= end) {
		v->pvl.defer_seq = seq;
		v->pvl.defer_token = v->pvl.token;
		v->pvl.deferred = true;
		return;
	}
	spin_queue(s, v, seq);
}

static void stealers_queue(struct sim *s, struct pv_lock *l);
static void queue(struct sim *s, struct pv_lock *l, struct vcpu *v);

static void spin_start(struct sim *s, struct vcpu *v)
{
	v->pvl.phase = PVL_SPIN;
	v->lock.spin_hold = 1;
	v->pvl.spin_left =
		(simtime)((double)PV_SPIN_THRESHOLD * s->cost[SIM_COST_pause]);
	if (v->hs == H_RUNNING)
		spin_arm(s, v);
	else
		v->pvl.token++;
	/* a head that spins on the lock sets the pending bit */
	if (is_head(v->pvl.wait, v))
		stealers_queue(s, v->pvl.wait);
	check_early(s, v, v->hs == H_RUNNING);
}

void sim_pvl_on_spin_end(struct sim *s, const struct event *e)
{
	struct vcpu *v = &s->v[e->obj];

	if (v->pvl.queued && e->arg == v->pvl.q_token) {
		v->pvl.queued = false;
		/* a later deadline waited for this event: queue it, if it is
		 * still the one armed */
		if (v->pvl.deferred && v->pvl.defer_token == v->pvl.token &&
		    v->pvl.phase == PVL_SPIN) {
			spin_queue(s, v, v->pvl.defer_seq);
			return;
		}
		v->pvl.deferred = false;
	}
	if (e->arg == v->pvl.token && v->pvl.phase == PVL_SPIN)
		to_wait(s, v);
}

static void steal_take(struct sim *s, struct pv_lock *l, struct vcpu *v);
static bool can_take(struct sim *s, const struct pv_lock *l);

void sim_pvl_on_vcpu_move(struct sim *s, struct vcpu *v, enum hstate to)
{
	struct vcpu *next;

	/* KVM's preempted flag (steal time): set when the host deschedules
	 * a runnable vCPU, cleared when it runs; a halt is no preemption */
	if (v->hs == H_RUNNING && to == H_READY)
		v->pvl.preempted = true;
	else if (to == H_RUNNING || to == H_HALTED)
		v->pvl.preempted = false;
	if (!v->pvl.wait)
		return;
	if (v->pvl.phase == PVL_STEAL) {
		/* running again, it finds the lock free */
		if (to == H_RUNNING && can_take(s, v->pvl.wait))
			steal_take(s, v->pvl.wait, v);
		return;
	}
	if (to == H_RUNNING) {
		if (v->pvl.phase == PVL_SPIN)
			spin_arm(s, v);
		check_early(s, v, true);
		return;
	}
	if (v->hs == H_RUNNING && v->pvl.phase == PVL_SPIN) {
		/* off its pCPU: the loop count stops */
		v->pvl.spin_left = v->pvl.spin_left > s->now
					   ? v->pvl.spin_left - s->now
					   : 0;
		v->pvl.token++;
	}
	if (v->hs == H_RUNNING && to == H_READY) {
		next = successor(s, v);
		if (next)
			check_early(s, next, next->hs == H_RUNNING);
	}
}

static void take(struct pv_lock *l, struct vcpu *v)
{
	l->holder = v->gid;
}

/* The head @p v of @p l is given the lock (it spins on it, or was kicked
 * and runs): off the queue; the next waiter becomes head and starts its
 * own spin on the lock. */
static void grant_head(struct sim *s, struct pv_lock *l, struct vcpu *v)
{
	l->qh = (l->qh + 1) % l->cap;
	l->qn--;
	take(l, v);
	spin_stop(s, v);
	if (l->qn) {
		struct vcpu *h = &s->v[q_at(l, 0)];

		if (h->pvl.phase == PVL_SPIN)
			spin_start(s, h);
	} else {
		stealers_queue(s, l); /* no queue: they leave the loop */
	}
}

/* The pending bit: the queue's head spins on the lock. */
static bool pending(struct sim *s, const struct pv_lock *l)
{
	return l->qn && s->v[q_at(l, 0)].pvl.phase == PVL_SPIN;
}

/* @p v starts pv_hybrid_queued_unfair_trylock()'s loop on @p l. */
static void steal_start(struct pv_lock *l, struct vcpu *v)
{
	l->st[l->sn++] = v->gid;
	v->pvl.wait = l;
	v->pvl.phase = PVL_STEAL;
	v->lock.spin_hold = 1;
}

/* Stealer @p v takes the free lock @p l: out of the loop, it holds it. */
static void steal_take(struct sim *s, struct pv_lock *l, struct vcpu *v)
{
	uint32_t i = 0;

	while (l->st[i] != v->gid)
		i++;
	for (l->sn--; i < l->sn; i++)
		l->st[i] = l->st[i + 1];
	take(l, v);
	v->pvl.phase = PVL_NONE;
	s->r->pv_steals++;
	spin_stop(s, v);
}

/*
 * The pending bit is set (a head spins on the lock again) or the queue is
 * empty: every stealer leaves the loop and queues, in the order they came.
 * Each does so at its next iteration, a preempted one when it runs again;
 * here all at once. The list is emptied first: the first to queue may be
 * head and set the pending bit, which calls this again.
 */
static void stealers_queue(struct sim *s, struct pv_lock *l)
{
	uint32_t n = l->sn;

	l->sn = 0;
	for (uint32_t i = 0; i < n; i++)
		queue(s, l, &s->v[l->st[i]]);
}

void sim_pvl_release(struct task *t, struct pv_lock *l)
{
	struct sim *s = t->s;
	struct vcpu *h;

	l->holder = NONE_ID;
	if (!l->qn)
		return;
	h = &s->v[q_at(l, 0)];
	if (h->pvl.phase == PVL_SPIN) {
		grant_head(s, l, h);
		return;
	}
	if (h->pvl.phase == PVL_WAIT) {
		/* pv_kick(): KVM_HC_KICK_CPU, an exit of the releaser */
		struct vcpu *v = &s->v[t->vcpu];

		sim_count_exit(s, v, HVTLB_SIM_EXIT_HYPERCALL, 1);
		t->debt += cyc(s, SIM_COST_vmexit);
		s->r->pv_kicks++;
		h->pvl.phase = PVL_KICKED;
		if (h->hs == H_HALTED)
			sim_vcpu_wake(s, h, 0);
		/* KVM >= 5.3: kvm_sched_yield() to the kicked vCPU */
		if (s->c->kick_yield)
			ev_push(s, s->now, EV_KICK_YIELD, v->gid, h->gid);
	}
	/* the pending bit is clear: the first stealer on a pCPU takes it */
	for (uint32_t i = 0; i < l->sn; i++) {
		struct vcpu *w = &s->v[l->st[i]];

		if (w->hs == H_RUNNING) {
			steal_take(s, l, w);
			return;
		}
	}
}

/* Can @p v take @p l at once: free, and the pending bit clear. */
static bool can_take(struct sim *s, const struct pv_lock *l)
{
	return l->holder == NONE_ID && !pending(s, l);
}

static void queue(struct sim *s, struct pv_lock *l, struct vcpu *v)
{
	v->pvl.qi = (l->qh + l->qn) % l->cap;
	l->q[v->pvl.qi] = v->gid;
	l->qn++;
	v->pvl.wait = l;
	spin_start(s, v);
}

enum pvl_request sim_pvl_request(struct sim *s, struct pv_lock *l,
				 struct vcpu *v)
{
	if (can_take(s, l)) {
		if (l->qn)
			s->r->pv_steals++;
		take(l, v);
		return PVL_TOOK;
	}
	if (l->qn + l->sn >= l->cap) {
		/* Never: a vCPU waits once, and the rings hold the VM's. */
		s->failed = true;
		return PVL_FULL;
	}
	if (l->qn && !pending(s, l)) { /* held: the unfair loop */
		steal_start(l, v);
		return PVL_STEALS;
	}
	queue(s, l, v);
	return PVL_QUEUED;
}

void sim_pvl_section(struct task *t, struct pv_lock *l, simtime hold)
{
	struct sim *s = t->s;
	struct vcpu *v = &s->v[t->vcpu];
	struct vcpu_pvl *p = &v->pvl;
	enum pvl_request rq;

	p->irq_off++;
	v->ct.sect_got = SIM_NEVER;
	v->ct.sect_end = SIM_NEVER;
	rq = sim_pvl_request(s, l, v);
	if (rq == PVL_FULL)
		return;
	if (rq != PVL_TOOK) {
		while (l->holder != v->gid) {
			switch (p->phase) {
			case PVL_STEAL:
			case PVL_SPIN:
				sim_t_spin(t);
				break;
			case PVL_WAIT:
				sim_t_pv_wait(t);
				if (p->phase == PVL_WAIT) /* woken otherwise */
					p->phase = PVL_KICKED;
				break;
			default: /* kicked, and running */
				if (is_head(l, v) && l->holder == NONE_ID)
					grant_head(s, l, v);
				else
					spin_start(s, v);
				break;
			}
		}
		p->wait = NULL;
		p->phase = PVL_NONE;
	}
	v->ct.sect_got = s->now;
	s->r->lock_sections++;
	sim_t_work(t, hold, ACCT_SYS);
	sim_pvl_release(t, l);
	v->ct.sect_end = s->now;
	if (!--p->irq_off && v->hs == H_RUNNING)
		sim_vcpu_take_ipis(s, v);
}

void sim_pvl_continue(struct sim *s, struct vcpu *v)
{
	if (!v->pvl.halted && v->pvl.phase == PVL_WAIT) {
		/* kvm_wait(): HLT with interrupts off. Like an idle halt
		 * (guest_halt()), it must not hold lazy invalidations back. */
		if (s->c->strategy.kind == HVTLB_STRATEGY_LAZY)
			sim_lazy_apply(s, v);
		v->pvl.halted = true;
		s->r->pv_halts++;
		sim_count_exit(s, v, HVTLB_SIM_EXIT_HLT, 1);
		sim_vcpu_deschedule(s, v, false);
		return;
	}
	/* woken (or kicked before it halted): its task goes on */
	v->pvl.halted = false;
	v->act = ACT_WORK;
	v->seg.work = 0;
	sim_vcpu_arm_run(s, v);
}
