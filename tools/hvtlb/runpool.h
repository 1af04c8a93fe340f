/* SPDX-License-Identifier: MIT */
/*
 * Many independent simulator runs on a few host threads. Each run is
 * deterministic, so the results are those of running the jobs one after
 * another, whatever the thread count and the order they finish in.
 */
#ifndef HVTLB_TOOL_RUNPOOL_H
#define HVTLB_TOOL_RUNPOOL_H

#include <stddef.h>

#include <hvtlb/sim.h>

/** One run: its configuration in, its result (or error) out. */
struct run_job {
	struct hvtlb_sim_config cfg;
	struct hvtlb_sim_results *res; /**< NULL until run, or on failure */
	int rc;			       /**< hvtlb_sim_run()'s result */
};

/**
 * Runs the @p n jobs @p jobs[i] (taken in index order) on up to @p threads
 * host threads, the calling thread included. Never fails: a job's failure
 * is in its rc.
 */
void runpool_run(struct run_job *const *jobs, size_t n, unsigned threads);

/** Frees a job's result. */
void run_job_finish(struct run_job *j);

#endif
