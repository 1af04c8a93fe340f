/* SPDX-License-Identifier: MIT */
/*
 * Workloads (workloads/): what each guest thread does. A workload is its
 * row in HVTLB_SIM_WORKLOAD_MAP (sim.h), its file (workloads/NAME.c,
 * defining sim_workload_<NAME>, NAME exactly as in the row) and its line
 * in meson.build: the rows make the extern list below and the table of
 * workloads/common.c, and a row without its definition does not link.
 */
#ifndef HVTLB_SIM_WORKLOAD_H
#define HVTLB_SIM_WORKLOAD_H

#include "sim/machine.h"

struct sim_workload {
	/* Each thread maps one slot of its own at start (or uses the
	 * process's shared slot 0 with workload.shared), passed to op. */
	bool own_slot;
	/* Slots 0 .. shared_slots - 1 of each process are mapped from the
	 * start and shared by its threads (op gets slot 0); workload.shared
	 * makes it at least 1. */
	uint32_t shared_slots;
	/* ... its own even with workload.shared (the slot is private to the
	 * thread: a malloc arena's heap). */
	bool never_shared;
	/* A slot is workload.pages + extra_pages pages. */
	uint32_t extra_pages;
	/* Slots each process keeps mapped and present for the whole run,
	 * after every other (optional: none). */
	uint32_t (*reserved_slots)(const struct hvtlb_sim_config *c);
	/* Operation @p i (from 0) of thread @p t; *@p own is its slot (or
	 * NONE_ID), which the operation may replace. */
	void (*op)(struct task *t, uint32_t *own, uint64_t i);
	/* Operations thread @p t runs, in place of workload.iterations and
	 * workload.duration_s (optional: a replayed trace's own count). */
	uint64_t (*ops)(const struct task *t);
	/* The process of thread @p k of a VM, in place of k mod
	 * workload.processes (optional: a replayed thread's own). */
	uint32_t (*process)(const struct hvtlb_sim_config *c, uint32_t k);
};

#define WORKLOAD_X_(n, s) extern const struct sim_workload sim_workload_##n;
HVTLB_SIM_WORKLOAD_MAP(WORKLOAD_X_)
#undef WORKLOAD_X_

/* How many slots (from slot 0) the threads of a process share: mapped
 * from the start, never freed (workload.shared, or the workload's own). */
uint32_t sim_workload_shared_slots(const struct hvtlb_sim_config *c);

/* Pages per slot, and slots kept mapped per process, of config @p c. */
uint32_t sim_workload_slot_pages(const struct hvtlb_sim_config *c);
uint32_t sim_workload_reserved_slots(const struct hvtlb_sim_config *c);

/* The process of thread @p k of a VM (0 .. workload.processes - 1), and
 * the most threads one process has. */
uint32_t sim_workload_process(const struct hvtlb_sim_config *c, uint32_t k);
uint32_t sim_workload_threads_per_process(const struct hvtlb_sim_config *c);

/* A replayed script (workload.kind = trace) a library user may have built
 * by hand: steps where it says so, kinds it names, times a run can hold
 * (an hour a step); and the processes its threads run in (the highest +
 * 1). workloads/trace.c. */
bool sim_trace_script_ok(const struct hvtlb_sim_script *sc);
uint32_t sim_trace_script_processes(const struct hvtlb_sim_script *sc);

/* The body of a task: its workload's operations. */
void sim_workload_run(struct task *t);

/* Common operations (workloads/common.c). */
/* Touches the slot's pages as @p how says (@p count: random pages). */
void sim_touch(struct task *t, uint32_t slot, enum hvtlb_sim_touch how,
	       uint32_t count);
/* User-space work of one operation (cost.user_op + workload.user_ns). */
void sim_user_work(struct task *t);
/* A random sleep up to workload.sleep_ns_max, if set. */
void sim_maybe_sleep(struct task *t);
/* The operations the mix draws from. */
void sim_trasher_op(struct task *t, uint32_t *own, uint64_t i);
void sim_madvise_op(struct task *t, uint32_t *own, uint64_t i);
void sim_mmap_search_op(struct task *t, uint32_t *own, uint64_t i);

/* workload.kernel_pages (workloads/kernel-pages.c): one kernel-page
 * operation, before each of the workload's. */
void sim_kernel_op(struct task *t);

#endif
