/* SPDX-License-Identifier: MIT */
/*
 * Many independent simulator runs on a few host threads. Each run is
 * deterministic, so the results are those of running the jobs one after
 * another, whatever the thread count and the order they finish in. Every
 * finished job counts one step of the progress line (progress.h).
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
	/** Set by runpool_share(): the earlier job with the same
	 *  configuration, whose res this one borrows (run_job_finish() does
	 *  not free it). NULL: this job runs and owns its res. */
	const struct run_job *same;
};

/**
 * Runs the @p n jobs @p jobs[i] (taken in index order) on up to @p threads
 * host threads, the calling thread included. Never fails: a job's failure
 * is in its rc.
 */
void runpool_run(struct run_job *const *jobs, size_t n, unsigned threads);

/**
 * Finds the jobs of @p jobs whose configuration is byte for byte that of
 * an earlier one: each gets j->same (that earlier job) and is left out of
 * @p run, which receives the others in order; returns how many. Run @p run
 * (runpool_run()), then runpool_share_results() gives every repeated job
 * the rc and, borrowed, the res of its first. A configuration is plain
 * data and a run a function of it (hvtlb/sim.h), so the results are those
 * of running every job; configurations that differ only in bytes that do
 * not matter (padding) merely run twice. A borrowed result lives as long
 * as its owner's and must not be moved. Returns -ENOMEM when it cannot
 * allocate its index (then nothing is marked).
 */
long runpool_share(struct run_job *const *jobs, size_t n, struct run_job **run);
void runpool_share_results(struct run_job *const *jobs, size_t n);

/** What runpool_run_watched() tells its caller. */
struct runpool_watch {
	/** Job @p index has finished (its res and rc are final). Called on
	 *  the calling thread, in the order the jobs finish. */
	void (*done)(void *data, size_t index);
	void *data;
};

/**
 * Runs the jobs on @p threads worker threads while the calling thread
 * watches: it calls @p w->done for each job as it finishes, and stops
 * waiting at the first SIGINT (its handler is installed only meanwhile).
 * Returns 0 when every job has finished, or -EINTR after SIGINT: no job
 * starts after that, but the ones running go on in their threads, so the
 * caller must not free any job; it writes what has finished and exits.
 */
int runpool_run_watched(struct run_job *const *jobs, size_t n, unsigned threads,
			const struct runpool_watch *w);

/** Frees a job's result. */
void run_job_finish(struct run_job *j);

#endif
