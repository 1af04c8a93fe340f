/* SPDX-License-Identifier: MIT */
/*
 * The guest's paravirtual queued spinlock (guest-spinlock.c), for the
 * zone and LRU locks of machine.contention when guest.pv_spinlock is on.
 */
#ifndef HVTLB_SIM_SPINLOCK_H
#define HVTLB_SIM_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/event.h"
#include "sim/vcpu-state.h"

struct sim;
struct task;
struct vcpu;

/* One lock: its holder, its queue of waiting vCPUs (the MCS queue) and
 * the vCPUs spinning to steal it outside the queue. */
struct pv_lock {
	uint32_t holder; /* vCPU gid, or NONE_ID: free */
	uint32_t *q;	 /* ring of waiting vCPU gids, oldest first */
	uint32_t qh, qn, cap;
	uint32_t *st; /* stealers, in the order they came */
	uint32_t sn;
};

/* How a queued waiter waits (struct vcpu_pvl.phase). */
enum pvl_phase {
	PVL_NONE, /* not waiting */
	PVL_SPIN, /* spinning: on its queue node, or as the head on the lock */
	PVL_WAIT, /* halted in pv_wait(), interrupts off */
	PVL_KICKED, /* kicked awake at an unlock, not yet running */
	PVL_STEAL,  /* not queued: spinning to take it while the pending bit
		       is clear (pv_hybrid_queued_unfair_trylock) */
};

/* A vCPU's side (struct vcpu's pvl), written by guest-spinlock.c alone. */
struct vcpu_pvl {
	struct pv_lock *wait; /* the lock it queues for, or NULL */
	uint32_t irq_off;     /* interrupts disabled (nesting depth) */
	uint8_t phase;	      /* enum pvl_phase */
	bool halted;	      /* descheduled by its pv_wait() halt */
	bool preempted;	      /* descheduled runnable: vcpu_is_preempted() */
	uint32_t qi;	      /* queued: its slot in the lock's ring */
	uint64_t token;	      /* of its EV_PVL_SPIN */
	simtime spin_left;    /* PVL_SPIN: its threshold's deadline while it
			      runs, the loops' time left while it is off */
	/* The EV_PVL_SPIN last queued (its token and time, while it is
	 * queued); a deadline armed while it waits, later than it, is queued
	 * when it pops, under the key it was given (defer_seq, defer_token):
	 * as sim_vcpu_arm_run() does for EV_RUN (guest-spinlock.c). */
	uint64_t q_token, defer_token, defer_seq;
	simtime q_t;
	bool queued, deferred;
};

/* The ring of @p l for @p cap waiters (0 or -ENOMEM). */
int sim_pvl_init(struct pv_lock *l, uint32_t cap);
void sim_pvl_free(struct pv_lock *l);

/* The task's vCPU disables interrupts, takes @p l (spinning, then
 * halting, as the guest does), runs @p hold cycles in it, releases it
 * and enables interrupts (spin_lock_irqsave ... spin_unlock_irqrestore). */
void sim_pvl_section(struct task *t, struct pv_lock *l, simtime hold);

/* What a request for the lock did (sim_pvl_request()). */
enum pvl_request {
	PVL_TOOK,   /* free, the pending bit clear: taken */
	PVL_STEALS, /* held, a queue without pending bit: the unfair loop */
	PVL_QUEUED, /* queued (the queue empty, or its head spinning) */
	PVL_FULL,   /* never: no room; the run fails */
};

/* sim_pvl_section()'s two ends, for the tests: @p v (running the task
 * that asks) requests @p l; the task @p t's vCPU releases it (a kick of
 * a halted head, or the first running stealer takes it). */
enum pvl_request sim_pvl_request(struct sim *s, struct pv_lock *l,
				 struct vcpu *v);
void sim_pvl_release(struct task *t, struct pv_lock *l);

/* Interrupts of @p v are off: IPIs wait, and do not wake it from halt. */
static inline bool sim_pvl_irqs_off(const struct vcpu_pvl *p)
{
	return p->irq_off != 0;
}

/* The engine's side. EV_PVL_SPIN: a waiter's spin reached the threshold. */
void sim_pvl_on_spin_end(struct sim *s, const struct event *e);
/* The host moves @p v from its state to @p to (before the move). */
void sim_pvl_on_vcpu_move(struct sim *s, struct vcpu *v, enum hstate to);
/* A running vCPU whose task waits in ACT_PVWAIT: halts it, or, woken
 * (or kicked before it halted), lets its task go on, which takes the
 * lock or spins again. */
void sim_pvl_continue(struct sim *s, struct vcpu *v);

#endif
