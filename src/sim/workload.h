/* SPDX-License-Identifier: MIT */
/*
 * Workloads (workloads/): what each guest thread does. A workload is one
 * file with one `const struct sim_workload`, registered in
 * workloads/common.c's table under its enum hvtlb_sim_workload value.
 */
#ifndef HVTLB_SIM_WORKLOAD_H
#define HVTLB_SIM_WORKLOAD_H

#include "sim/machine.h"

struct sim_workload {
	/* Each thread maps one slot of its own for the whole run (or uses
	 * the process's shared slot 0 with workload.shared), passed to op. */
	bool own_slot;
	/* Slots 0 .. shared_slots - 1 of each process are mapped from the
	 * start and shared by its threads (op gets slot 0); workload.shared
	 * makes it at least 1. */
	uint32_t shared_slots;
	/* One operation of thread @p t (@p own: its slot, or NONE_ID). */
	void (*op)(struct task *t, uint32_t own);
};

extern const struct sim_workload sim_workload_trasher;
extern const struct sim_workload sim_workload_madvise;
extern const struct sim_workload sim_workload_ebizzy;
extern const struct sim_workload sim_workload_mix;
extern const struct sim_workload sim_workload_oracle_stress;

/* How many slots (from slot 0) the threads of a process share: mapped
 * from the start, never freed (workload.shared, or the workload's own). */
uint32_t workload_shared_slots(const struct hvtlb_sim_config *c);

/* The body of a task: its workload's operations. */
void workload_run(struct task *t);

/* Common operations (workloads/common.c). */
/* Touches the slot's pages as @p how says (@p count: random pages). */
void touch(struct task *t, uint32_t slot, enum hvtlb_sim_touch how,
	   uint32_t count);
/* User-space work of one operation (cost.user_op + workload.user_ns). */
void user_work(struct task *t);
/* A random sleep up to workload.sleep_ns_max, if set. */
void maybe_sleep(struct task *t);
/* The operations the mix draws from. */
void madvise_op(struct task *t, uint32_t slot);
void ebizzy_op(struct task *t, uint32_t own);

/* workload.kernel_pages (workloads/kernel-pages.c): one kernel-page
 * operation, before each of the workload's. */
void kernel_op(struct task *t);

#endif
