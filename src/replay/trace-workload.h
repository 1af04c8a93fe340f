/* SPDX-License-Identifier: MIT */
/*
 * A recorded trace as a simulator workload (workload.kind = trace): the
 * threads of the traced process and, per thread, what it did, as the
 * plain step list of struct hvtlb_sim_script (<hvtlb/sim.h>), so that
 * the simulator never reads trace text. Internal to the tool and its
 * tests, like trace-text.h; only libc under it.
 *
 * Which processes: threads whose mmap_lock events name the same mm= share
 * an address space (a process); numbered in the order of their lowest
 * pid. A thread with no mmap_lock event of its own joins process 0. A
 * trace without mmap_lock events is one process.
 *
 * Which threads: those with a syscall or an mmap_lock event of their
 * own. A recording that follows one command (scripts/record-trace.sh,
 * set_event_pid) has only the command's threads raise those; another
 * task appears only where the scheduler switched it against the
 * command's (sched_switch and the flush on task switch it causes).
 *
 * Per thread, in trace order (docs/replay.md has the table):
 *  - COMPUTE: the time it ran between its events; the time inside a
 *    flushing munmap/madvise/mprotect is left out (the simulator charges
 *    the call itself), a call that flushed nothing counts as compute.
 *  - SLEEP: from a sched_switch out of it in a sleeping state (not R,
 *    not R+) to its next sched_wakeup (else to its switch in). Time
 *    preempted (R) is neither: the simulated scheduler decides it.
 *  - MUNMAP / MADVISE / MPROTECT: the call between its sys_enter and
 *    sys_exit when a tlb_flush of reason 3 or 4 happened in it; pages =
 *    its length rounded up to pages. One step per call, however many
 *    tlb_flush lines it raised.
 *  - FLUSH: a tlb_flush of reason 3 or 4 outside those calls (a fault,
 *    exec, mmap over a mapping), pages as recorded (-1: 0, everything),
 *    except reason 3 inside the thread's own run of flush_tlb_func
 *    (csd_function_entry/exit with csd 0): that is the local half of a
 *    reason-4 flush already counted.
 *  - Reasons 0 (task switch), 1 and 5 (received) are no steps: they
 *    follow from scheduling and from other CPUs' flushes.
 */
#ifndef HVTLB_REPLAY_TRACE_WORKLOAD_H
#define HVTLB_REPLAY_TRACE_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include <hvtlb/sim.h>

#define TRACE_WL_MAX_THREADS 4096  /* threads kept; more is an error */
#define TRACE_WL_MAX_PAGES 1048576 /* workload.pages' bound */

struct trace_workload {
	struct hvtlb_sim_script script;
	struct hvtlb_sim_script_thread *threads; /* script.threads */
	int32_t *pids;				 /* pid of each thread */
	uint32_t *procs;    /* process of each thread, 0 .. processes - 1 */
	uint32_t processes; /* address spaces: the mm= of mmap_lock events */
	uint32_t no_mm;	    /* threads with no mmap_lock event: process 0 */
	uint32_t pages;	    /* the largest flush, 1 .. TRACE_WL_MAX_PAGES */
	uint32_t cpus;	    /* highest CPU column seen + 1 */
	uint64_t flushes;   /* flush steps of all threads */
	uint64_t by_kind[HVTLB_SIM_STEP_KIND_COUNT_];
	/* tlb_flush lines of the chosen threads that made no step, by
	 * reason 0..5 (other reasons: [6]) */
	uint64_t not_steps[7];
	/* Flush steps with a reason-4 line (a remote flush requested), and
	 * of those the ones during which no other CPU ran a replayed
	 * thread (the last task each CPU was seen running: the targets
	 * were in mm_cpumask while running another task, or idle). */
	uint64_t remote, remote_elsewhere;
	char err[256]; /* after -EINVAL: "line N (byte B): why" */
};

/**
 * Reads the ftrace text of @p len bytes at @p buf into @p w. Returns 0,
 * -EINVAL (w->err names the line, or says the trace has no thread to
 * replay or is too big) or -ENOMEM. Call trace_workload_free() after
 * either.
 */
int trace_workload_read(struct trace_workload *w, const char *buf, size_t len);

void trace_workload_free(struct trace_workload *w);

#endif
