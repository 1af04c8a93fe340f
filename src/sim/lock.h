/* SPDX-License-Identifier: MIT */
/* The address-space lock (guest-lock.c). */
#ifndef HVTLB_SIM_LOCK_H
#define HVTLB_SIM_LOCK_H

#include <stdint.h>

#include "sim/event.h"

struct sim;
struct task;

/* One vCPU spinning on the lock before it sleeps (struct vcpu's lock),
 * written by guest-lock.c alone; guest-irq.c reads spin_hold. */
struct vcpu_lock {
	uint32_t spin_hold;  /* 1 until released or timed out */
	uint64_t spin_token; /* of its EV_SPIN_END */
};

/* The lock's times in cycles (sim_lock_setup()): how long a waiter
 * spins before it sleeps (guest.lock_spin_us plus lock_spin_cycles), and
 * after how long a sleeping writer is handed it (guest.lock_handoff_us). */
struct sim_lock {
	simtime spin, handoff;
};

void sim_lock_setup(struct sim *s);
void sim_lock_write(struct task *t);
void sim_lock_read(struct task *t);
void sim_unlock_write(struct task *t);
void sim_unlock_read(struct task *t);
void sim_lock_on_spin_end(struct sim *s, const struct event *e);

#endif
