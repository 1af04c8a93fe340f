/* SPDX-License-Identifier: MIT */
/* The guest kernel's threads and interrupts on vCPUs. */
#ifndef HVTLB_SIM_GUEST_H
#define HVTLB_SIM_GUEST_H

#include "sim/machine.h"

/* guest-acct.c */
/* Closes the task's current accounting interval (user or sys). */
void sim_acct_close(struct sim *s, struct task *t);
/* The task's time counts as @p a from now on. */
void sim_acct_set(struct sim *s, struct task *t, enum acct a);
/* @p t starts (@p on) or stops waiting for flush acknowledgements
 * (results.ack_wait_share). */
void sim_acct_ack_wait(struct sim *s, struct task *t, bool on);
/* @p t starts running on its (running) vCPU: its intervals start now. */
void sim_acct_start(struct sim *s, struct task *t);
/* The vCPU whose current task is @p t leaves / enters its pCPU. */
void sim_acct_off_cpu(struct sim *s, struct task *t);
void sim_acct_on_cpu(struct sim *s, struct task *t);

/* guest-sched.c */
/* Arms the guest timer tick of @p v (if not armed). */
void sim_arm_tick(struct sim *s, struct vcpu *v);
/* The vCPUs a thread of process @p process (0 .. processes - 1) of a VM
 * may run on: indexes @p base .. @p base + @p n - 1 (guest.group_size). */
void sim_guest_group(const struct sim *s, uint32_t process, uint32_t *base,
		     uint32_t *n);
/* Makes @p t runnable on @p v's guest run queue. */
void sim_task_enqueue(struct sim *s, struct vcpu *v, struct task *t);
/* The current task's segment is over: resume it, or schedule. */
void sim_vcpu_segment_done(struct sim *s, struct vcpu *v);
/* Runs @p cycles on the task's vCPU, accounted as @p a (with any debt). */
void sim_t_work(struct task *t, simtime cycles, enum acct a);
/* Spins (in sys) until the vCPU's pending acknowledgements are in and
 * its lock spin is over. */
void sim_t_spin(struct task *t);
/* Halts the vCPU in the PV spinlock's pv_wait() until it is woken and
 * runs again (guest-spinlock.c). */
void sim_t_pv_wait(struct task *t);
/* Blocks until sim_task_wake(). */
void sim_t_block(struct task *t);
/* Wakes a blocked task; @p waker is the waking task or NULL (timer). */
void sim_task_wake(struct sim *s, struct task *t, struct task *waker);
/* Sleeps @p cycles. */
void sim_sleep_timer(struct sim *s, struct task *t, simtime cycles);
/* A task coroutine's entry point (@p arg: the struct task). */
void sim_task_entry(void *arg);
void sim_guest_on_timer(struct sim *s, const struct event *e);
/* When the workload creates task @p t: thread k of a VM at k times
 * cost.thread_create_us (pthread_create in a loop). */
simtime sim_workload_spawn_at(struct sim *s, const struct task *t);
void sim_guest_on_spawn(struct sim *s, const struct event *e);
/* A vCPU that halted from idle runs again (guest.idle = haltpoll adapts
 * its poll limit to how long it was halted). */
void sim_guest_idle_exit(struct sim *s, struct vcpu *v);
/* A vCPU preempted while polling in idle runs again: true if it goes on
 * polling (or halts, its limit past); false if it has work. */
bool sim_guest_idle_continue(struct sim *s, struct vcpu *v);
void sim_guest_on_idle_poll(struct sim *s, const struct event *e);
void sim_guest_on_tick(struct sim *s, const struct event *e);

/* The guest's state of @p v at the start of a run: no thread, no mm, and
 * the lazy strategy's posts allocated; 0 or -ENOMEM. */
int sim_guest_vcpu_init(struct sim *s, struct vcpu *v);
/* Frees what the guest allocated for @p v (its posts, its pending IPIs
 * and handlers). */
void sim_guest_vcpu_finish(struct vcpu *v);

/* guest-irq.c */
/* guest.ipi_mailbox: when @p target will have processed the last flush
 * request of vCPU @p from (now if it has). */
simtime sim_ipi_mailbox_free_at(struct sim *s, const struct vcpu *target,
				uint32_t from);
/* Posts IPI @p q to @p v, which takes it once it has arrived; false
 * (and the run failed) when out of memory. */
bool sim_ipi_post(struct sim *s, struct vcpu *v, const struct ipi_rec *q);
/* Handles the IPIs that have reached running @p v. */
void sim_vcpu_take_ipis(struct sim *s, struct vcpu *v);
/* Applies @p v's pending lazy invalidations (strategy lazy). */
void sim_lazy_apply(struct sim *s, struct vcpu *v);
/* A target acknowledges shootdown @p seq of vCPU @p from, arriving at
 * @p at. */
void sim_ack_post(struct sim *s, uint32_t from, uint32_t seq, simtime at);
void sim_guest_on_ipi(struct sim *s, const struct event *e);
void sim_guest_on_ack(struct sim *s, const struct event *e);

#endif
