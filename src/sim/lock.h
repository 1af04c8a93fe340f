/* SPDX-License-Identifier: MIT */
/* The address-space lock (guest-lock.c). */
#ifndef HVTLB_SIM_LOCK_H
#define HVTLB_SIM_LOCK_H

#include "sim/event.h"

struct sim;
struct task;

void sim_lock_write(struct task *t);
void sim_lock_read(struct task *t);
void sim_unlock_write(struct task *t);
void sim_unlock_read(struct task *t);
void sim_lock_on_spin_end(struct sim *s, const struct event *e);

#endif
