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
 *   pending bit: until it runs again, a CPU that requests the lock may
 *   take it first (pv_hybrid_queued_unfair_trylock, Linux >= 4.5).
 * - At the release, a halted head is kicked (__pv_queued_spin_unlock_
 *   slowpath -> pv_kick() -> the KVM_HC_KICK_CPU hypercall, a VM exit of
 *   the releaser); a halted waiter that becomes head is kicked at the next
 *   release (pv_kick_node() only marks it).
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
	return l->q ? 0 : -ENOMEM;
}

void sim_pvl_free(struct pv_lock *l)
{
	free(l->q);
	l->q = NULL;
}

static uint32_t q_at(const struct pv_lock *l, uint32_t i)
{
	return l->q[(l->qh + i) % l->cap];
}

static bool is_head(const struct pv_lock *l, const struct vcpu *v)
{
	return l->qn && q_at(l, 0) == v->gid;
}

/* The waiter queued right behind @p v on its lock, or NULL. */
static struct vcpu *successor(struct sim *s, const struct vcpu *v)
{
	const struct pv_lock *l = v->pvl.wait;

	for (uint32_t i = 0; l && i + 1 < l->qn; i++)
		if (q_at(l, i) == v->gid)
			return &s->v[q_at(l, i + 1)];
	return NULL;
}

static struct vcpu *predecessor(struct sim *s, const struct vcpu *v)
{
	const struct pv_lock *l = v->pvl.wait;

	for (uint32_t i = 1; l && i < l->qn; i++)
		if (q_at(l, i) == v->gid)
			return &s->v[q_at(l, i - 1)];
	return NULL;
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

/* The threshold counts PAUSE loops, which a vCPU only runs on its
 * pCPU: its event is armed while it runs, for what is left of it. */
static void spin_arm(struct sim *s, struct vcpu *v)
{
	ev_push(s, s->now + v->pvl.spin_left, EV_PVL_SPIN, v->gid,
		++v->pvl.token);
	v->pvl.spin_left += s->now; /* now its deadline */
}

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
	check_early(s, v, v->hs == H_RUNNING);
}

void sim_pvl_on_spin_end(struct sim *s, const struct event *e)
{
	struct vcpu *v = &s->v[e->obj];

	if (e->arg == v->pvl.token && v->pvl.phase == PVL_SPIN)
		to_wait(s, v);
}

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
	}
}

static void release(struct task *t, struct pv_lock *l)
{
	struct sim *s = t->s;
	struct vcpu *h;

	l->holder = NONE_ID;
	if (!l->qn)
		return;
	h = &s->v[q_at(l, 0)];
	if (h->pvl.phase == PVL_SPIN) {
		grant_head(s, l, h);
	} else if (h->pvl.phase == PVL_WAIT) {
		/* pv_kick(): KVM_HC_KICK_CPU, an exit of the releaser */
		struct vcpu *v = &s->v[t->vcpu];

		sim_count_exit(s, v, HVTLB_SIM_EXIT_HYPERCALL, 1);
		t->debt += cyc(s, SIM_COST_vmexit);
		s->r->pv_kicks++;
		h->pvl.phase = PVL_KICKED;
		if (h->hs == H_HALTED)
			sim_vcpu_wake(s, h, 0);
	}
}

/* Can @p v take @p l at once: free, and no head spinning on it (the
 * pending bit clear). */
static bool can_take(struct sim *s, const struct pv_lock *l)
{
	return l->holder == NONE_ID &&
	       (!l->qn || s->v[q_at(l, 0)].pvl.phase != PVL_SPIN);
}

static void queue(struct sim *s, struct pv_lock *l, struct vcpu *v)
{
	l->q[(l->qh + l->qn) % l->cap] = v->gid;
	l->qn++;
	v->pvl.wait = l;
	spin_start(s, v);
}

void sim_pvl_section(struct task *t, struct pv_lock *l, simtime hold)
{
	struct sim *s = t->s;
	struct vcpu *v = &s->v[t->vcpu];
	struct vcpu_pvl *p = &v->pvl;

	p->irq_off++;
	v->ct.sect_got = SIM_NEVER;
	v->ct.sect_end = SIM_NEVER;
	if (can_take(s, l)) {
		take(l, v);
	} else if (l->qn >= l->cap) {
		/* Never: a vCPU queues once, and the ring holds the VM's. */
		s->failed = true;
		return;
	} else {
		queue(s, l, v);
		while (l->holder != v->gid) {
			switch (p->phase) {
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
	release(t, l);
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
