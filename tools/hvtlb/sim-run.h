/* SPDX-License-Identifier: MIT */
/*
 * From a parsed scenario to simulator runs: shared by `hvtlb sim`,
 * `hvtlb reproduce` and `hvtlb sweep`. One run per strategy of the
 * scenario's `compare` list (or one run with the scenario's own strategy).
 *
 * Thread rules: a struct sim_batch belongs to one thread. Nothing here
 * prints; errors come back as -errno with a message in batch->sc.err.
 */
#ifndef HVTLB_TOOL_SIM_RUN_H
#define HVTLB_TOOL_SIM_RUN_H

#include <stdbool.h>

#include <hvtlb/sim.h>

#include "scenario.h"

/** A scenario and the results of its runs. */
struct sim_batch {
	struct scenario sc;
	size_t nruns;
	const char *strategy[SCENARIO_COMPARE_MAX]; /**< NULL: the file's */
	struct hvtlb_sim_config cfg[SCENARIO_COMPARE_MAX];
	struct hvtlb_sim_results *res[SCENARIO_COMPARE_MAX];
	int run_rc[SCENARIO_COMPARE_MAX]; /**< hvtlb_sim_run()'s result */
};

/**
 * NULL-terminated list of the [section] names the library knows (the
 * prefixes of hvtlb_sim_config_key_name()). Built once; static storage.
 * Not thread-safe on first use.
 */
const char *const *sim_sections(void);

/** Initialises @p b (its scenario accepts the library's sections). */
void sim_batch_init(struct sim_batch *b);
/** Frees the results and the scenario. */
void sim_batch_finish(struct sim_batch *b);

/**
 * Builds one configuration per run from the scenario (file, profile and
 * overrides already loaded into b->sc) and validates each. Unless the
 * scenario sets "threads", the engine gets @p default_threads host threads.
 * Returns 0, or -ENOENT / -EINVAL / -ERANGE (unknown key, bad value,
 * impossible machine) with "file:line: message" in b->sc.err.
 */
int sim_batch_configure(struct sim_batch *b, unsigned default_threads);

/**
 * Runs every configured run, several at once on up to b->cfg[0].threads
 * host threads (the runs are independent and deterministic, so the results
 * are those of running them in order). Returns 0 if all ran, else the
 * failing hvtlb_sim_run() code of the first run, in run order, that
 * failed (message in b->sc.err); results of the runs that succeeded stay
 * available.
 */
int sim_batch_run(struct sim_batch *b);

/** Writes run @p i's failure to b->sc.err; returns its code. */
int sim_batch_run_one_report(struct sim_batch *b, size_t i);

/**
 * Runs run @p i alone (sim_batch_run() runs them all through it). On
 * failure, with @p report, writes the message to b->sc.err. Returns
 * hvtlb_sim_run()'s result.
 */
int sim_batch_run_one(struct sim_batch *b, size_t i, bool report);

/** The index of cost key @p key ("cost.NAME"): 0, or -ENOENT when it is
 *  not one. */
int sim_cost_index(const char *key, size_t *index);

/** Host CPUs online, clamped to 1..HVTLB_SIM_MAX_THREADS. */
unsigned sim_host_threads(void);

/** Name of @p r's strategy (as in core.h), for tables and JSON. */
const char *sim_strategy_name(const struct hvtlb_sim_results *r);

#endif
