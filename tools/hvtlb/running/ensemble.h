/* SPDX-License-Identifier: MIT */
/*
 * A set of runs (one per strategy of a scenario, or a validation case's a
 * and b) repeated for every point of an uncertainty plan: nominal runs
 * first, then draw by draw, the same draw for every run (paired), so that
 * a ratio between two runs is computed within each draw.
 *
 * Thread rules: built and read by one thread; its jobs may run in a pool.
 */
#ifndef HVTLB_TOOL_ENSEMBLE_H
#define HVTLB_TOOL_ENSEMBLE_H

#include <stdbool.h>
#include <stddef.h>

#include "band.h"
#include "metrics.h"
#include "runpool.h"
#include "scenario.h"
#include "uncertain.h"

/** One run of the set: its scenario (for the effective settings) and its
 *  configured, validated nominal configuration. */
struct ens_run {
	const struct scenario *sc;
	const struct hvtlb_sim_config *cfg;
	const char *name; /**< for messages, e.g. the strategy */
};

struct ensemble {
	const struct unc_plan *plan;
	size_t nruns, ndraws;
	/** (1 + ndraws) x nruns: row 0 the nominal runs, row 1 + d draw d. */
	struct run_job *job;
	char names[8][64];
};

/**
 * Builds the jobs: each run's configuration, with every draw of @p u
 * applied, on one engine thread each (the pool runs several at once, so
 * every result is the same for any --threads). Checks first that both
 * ends of every range give a valid configuration. Returns 0 or -errno with
 * a message in @p err ("file:line: ..." for a range end the library
 * rejects).
 */
int ensemble_init(struct ensemble *e, const struct unc_plan *u,
		  const struct ens_run *runs, size_t nruns, char *err,
		  size_t errlen);
void ensemble_finish(struct ensemble *e);

/** Job of run @p r in row @p row (0 nominal, 1 + d draw d). */
struct run_job *ensemble_job(const struct ensemble *e, size_t row, size_t r);
/** Number of jobs, and pointers to them in row order into @p out. */
size_t ensemble_njobs(const struct ensemble *e);
void ensemble_job_list(const struct ensemble *e, struct run_job **out);

/** The first failed job in row order: its row and run, or false. */
bool ensemble_failed_job(const struct ensemble *e, size_t *row, size_t *r);

/**
 * The first failed job in row order: 0 if none, else its rc with
 * "RUN (nominal|draw D): message" in @p err.
 */
int ensemble_first_failure(const struct ensemble *e, char *err, size_t errlen);

struct sim_batch;

/**
 * The uncertain run of a configured batch (sim-run.h): collects @p u from
 * the batch's scenario, draws @p ndraws points seeded by the batch's seed,
 * runs every strategy on every draw (and the nominal runs) in one pool of
 * @p threads host threads, and moves the nominal results into b->res, as
 * a plain run would leave them. Returns 0, or -errno with the message in
 * @p err (a range end the library rejects: -ERANGE/-EINVAL; a run that
 * failed: its code, "STRATEGY (draw D) failed: ...").
 */
int ensemble_run_batch(struct ensemble *e, struct unc_plan *u,
		       struct sim_batch *b, size_t ndraws, unsigned threads,
		       char *err, size_t errlen);

/**
 * The values of m(run @p a) / m(run @p b), or of m(run @p a) alone when
 * @p b is (size_t)-1, of draws 1..e->ndraws in draw order, into @p out
 * (room for e->ndraws). A draw where the divisor is 0 gives 0.
 */
void ensemble_values(const struct ensemble *e, size_t a, size_t b,
		     const struct metric *m, double *out);

/** Band of metric @p m of run @p r over the draws. */
void ensemble_band(const struct ensemble *e, size_t r, const struct metric *m,
		   struct band *out);
/**
 * Band over the draws of m(run @p a) / m(run @p b), or of m(run @p a)
 * alone when @p b is (size_t)-1. A draw where the divisor is 0 counts
 * as ratio 0.
 */
void ensemble_ratio_band(const struct ensemble *e, size_t a, size_t b,
			 const struct metric *m, struct band *out);

#endif
