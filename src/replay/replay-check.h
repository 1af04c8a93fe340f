/* SPDX-License-Identifier: MIT */
/*
 * What a trace recorded, summed up for `hvtlb replay --check`: flushes by
 * reason, pages, shootdowns and their latency, threads. Internal to the
 * tool and its tests, like trace-text.h.
 *
 * Shootdowns and their latency (docs/replay.md says it for users):
 *  - A shootdown starts at an ipi:ipi_send_cpumask or ipi:ipi_send_cpu
 *    whose callback is flush_tlb_func; its targets are the event's mask.
 *    In a trace with no such event (a kernel without the ipi events),
 *    each run of csd:csd_queue_cpu with func flush_tlb_func on one CPU,
 *    unbroken by another event of that CPU, is one shootdown, its
 *    targets the queued CPUs.
 *  - A target is done at a csd:csd_function_exit with func flush_tlb_func
 *    and a csd (csd 0 is the sender running the function for itself); in
 *    a trace with no such event, at irq_vectors:call_function_exit or
 *    call_function_single_exit. A target's exit finishes the oldest open
 *    shootdown that started no later and still waits for that CPU.
 *  - Latency: from the start to the last target's exit.
 *  - A shootdown still open at the end of the trace, at a LOST line, or
 *    pushed out by more than REPLAY_MAX_OPEN open ones is "unpaired": it
 *    has no latency.
 */
#ifndef HVTLB_REPLAY_CHECK_H
#define HVTLB_REPLAY_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "trace-text.h"

#define REPLAY_MAX_REASONS 32 /* distinct reason numbers kept apart */
#define REPLAY_MAX_OPEN 256   /* shootdowns waiting for targets at once */

enum replay_source {
	REPLAY_SRC_NONE, /* no shootdown event in the trace */
	REPLAY_SRC_IPI,	 /* ipi_send_cpumask / ipi_send_cpu */
	REPLAY_SRC_CSD,	 /* csd_queue_cpu runs */
};

struct replay_reason {
	int32_t reason;
	uint64_t flushes;
	uint64_t pages; /* sum over flushes of a page count */
	uint64_t full;	/* flushes of everything (pages -1) */
};

struct replay_check {
	uint64_t lines, events, unknown, lost_lines, lost_events;
	bool ts_raw;	    /* latencies in clock counts, unit unknown */
	uint64_t clock_khz; /* a raw clock converted at this rate, or 0 */
	uint64_t first_ts, last_ts;
	struct replay_reason reasons[REPLAY_MAX_REASONS];
	size_t nreasons;
	uint64_t other_reasons; /* flushes past REPLAY_MAX_REASONS kinds */
	enum replay_source source;
	uint64_t shootdowns, paired, unpaired, stray_exits;
	uint64_t *latency; /* paired shootdowns, sorted (malloc) */
	size_t nlatency, latency_cap;
	/* each target of a paired shootdown: from the start to its own exit
	 * (what hvtlb sim reports as ipi_acks), sorted (malloc) */
	uint64_t *tlatency;
	size_t ntlatency, tlatency_cap;
	uint64_t threads; /* distinct pids in the task column, not 0 */
	uint64_t syscalls, mmap_lock_events, sched_switches;
	char err[256];
};

/**
 * Reads the ftrace text in @p buf (@p len bytes) and fills @p c. Returns
 * 0, -EINVAL for a trace the reader rejects (c->err: line, byte, why),
 * or -ENOMEM. Call replay_check_finish() after either.
 */
int replay_check_run(struct replay_check *c, const char *buf, size_t len);

/** Frees what replay_check_run() allocated. */
void replay_check_finish(struct replay_check *c);

/** The latency at quantile @p q (0..1) by nearest rank; 0 if none. */
uint64_t replay_check_quantile(const struct replay_check *c, double q);

/** The same for the targets' latencies (tlatency). */
uint64_t replay_check_target_quantile(const struct replay_check *c, double q);

#endif
