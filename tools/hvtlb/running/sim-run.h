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

/** How many warnings a batch keeps (struct sim_batch.warning). */
#define SIM_BATCH_WARNINGS 2
/** The longest warning, with its places. */
#define SIM_BATCH_WARNING_MAX 1024

/** A scenario and the results of its runs. */
struct sim_batch {
	struct scenario sc;
	size_t nruns;
	const char *strategy[SCENARIO_COMPARE_MAX]; /**< NULL: the file's */
	struct hvtlb_sim_config cfg[SCENARIO_COMPARE_MAX];
	struct hvtlb_sim_results *res[SCENARIO_COMPARE_MAX];
	int run_rc[SCENARIO_COMPARE_MAX]; /**< hvtlb_sim_run()'s result */
	/** Warnings sim_batch_configure() found, "" if none; the caller
	 *  prints each: a `strategy` line that `compare` overrides, and
	 *  a strategy that skips lazy CPUs in a guest that never catches
	 *  them up (sim_batch_lazy_warning()). */
	char warning[SIM_BATCH_WARNINGS][SIM_BATCH_WARNING_MAX];
	/** workload.kind = trace: the steps read from workload.trace
	 *  (trace-in.c), or NULL; script_free(script_owner) frees them. */
	const struct hvtlb_sim_script *script;
	uint32_t script_pages; /**< the largest flush: workload.pages */
	uint32_t script_cpus;  /**< the trace's CPUs */
	uint32_t
		script_processes; /**< its address spaces: workload.processes */
	bool script_machine;	  /**< no scenario file: the recorded VM */
	void *script_owner;
	void (*script_free)(void *owner);
};

/** What messages call a scenario read from standard input. */
#define SIM_STDIN_NAME "<stdin>"

/**
 * NULL-terminated list of the [section] names the library knows (the
 * prefixes of hvtlb_sim_config_key_name()). Built once; static storage.
 * Not thread-safe on first use.
 */
const char *const *sim_sections(void);

/**
 * scenario_load(), or for @p path "-" the scenario on standard input
 * (read once and kept: every call gets the same text, named "<stdin>" in
 * messages, its profile looked up as for a file in the current
 * directory). Same returns as scenario_load().
 */
int sim_scenario_load(struct scenario *sc, const char *path);

/**
 * What key @p k accepts, for messages and `hvtlb keys`: its values
 * ("ipi|hyperv|..."), its range ("1..4096", "0..2^64-1", "1..64 (power
 * of 2)") or "count" for a strategy knob.
 */
void sim_key_accepts(const struct hvtlb_sim_key *k, char *buf, size_t len);

/** Initialises @p b (its scenario accepts the library's sections). */
void sim_batch_init(struct sim_batch *b);
/** Frees the results and the scenario. */
void sim_batch_finish(struct sim_batch *b);

/**
 * Builds one configuration per run from the scenario (file, profile and
 * overrides already loaded into b->sc) and validates each. Unless the
 * scenario sets "threads", the engine gets @p default_threads host threads.
 * One run per strategy of `compare`, or one run: a `strategy` given on
 * the command line beats a `compare` line of the file, a `compare` given
 * on the command line beats a `strategy` line; both in the same place run
 * the compare list, and b->warning[0] says that `strategy` is ignored;
 * b->warning[1] says when a run's strategy skips lazy CPUs
 * (strategy.lazy_skip) in a guest without the tlb_gen catch-up
 * (guest.tlb_gen = false), naming where each came from. Returns 0, or
 * -ENOENT / -EINVAL / -ERANGE (unknown key with the
 * nearest one, bad value, out of range with the range, impossible
 * machine, an empty scenario file) with "file:line: message" in
 * b->sc.err.
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
/* Why hvtlb_sim_run() returned @p rc (negative errno), for a message. */
const char *sim_run_strerror(int rc);

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
