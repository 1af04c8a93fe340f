/* SPDX-License-Identifier: MIT */
/*
 * The numeric figures of a run, by name: what `sim` bands, `sweep
 * --metric` plots and a validation case's `metric` names. The names are
 * the CSV columns of `hvtlb sim --csv` (real_s, sys_s, latency_us_p50,
 * ...), plus the derived ops_per_s.
 */
#ifndef HVTLB_TOOL_METRICS_H
#define HVTLB_TOOL_METRICS_H

#include <stddef.h>

#include <hvtlb/sim.h>

struct metric {
	const char *name;  /**< "real_s" */
	const char *label; /**< "real time (s)", for tables */
	/** The figure of run @p r whose configuration was @p c. */
	double (*get)(const struct hvtlb_sim_results *r,
		      const struct hvtlb_sim_config *c);
};

/** A counter of HVTLB_SIM_COUNTER_MAP: where it is in the results, and
 *  its label and metric (name NULL: no metric; label NULL: no row). */
struct counter {
	size_t offset;
	struct metric m;
};

/** Number of metrics. */
size_t metric_count(void);
/** Metric @p i (0 .. metric_count() - 1), or NULL past the end. */
const struct metric *metric_at(size_t i);
/** The metric named @p name, or NULL. */
const struct metric *metric_find(const char *name);
/** Counter @p i in list order, or NULL past the end. */
const struct counter *counter_at(size_t i);
/** The counter at offset @p offset of the results, or NULL. */
const struct counter *counter_find(size_t offset);
/** Writes the names, comma separated, into @p buf. */
void metric_names(char *buf, size_t len);

#endif
