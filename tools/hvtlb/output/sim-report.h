/* SPDX-License-Identifier: MIT */
/*
 * The outputs of `hvtlb sim`: a table, one JSON document or CSV rows for
 * the runs of a batch, with p5 / p50 / p95 bands over the draws when the
 * runs came with an uncertainty ensemble (--uncertainty N).
 *
 * JSON has one shape whatever the number of runs (docs/cli.md):
 * {"schema": 1, "scenario": PATH, "title": TEXT|null, "profile":
 * NAME|null, "runs": [RESULT, ...], "ratios": [{"over", "under", "real",
 * "sys"}, ...]}, each RESULT as hvtlb_sim_results_write_json() writes it;
 * the ratios are those of the first run over each other one ([] for one
 * run).
 *
 * Bands: the table prints "p5 / p50 / p95" beside each figure that has a
 * metric (metrics.h) and beside each ratio; JSON gives every run
 * "bands": {METRIC: {"p5","p50","p95"}, ...}, every ratio "bands":
 * {"real": {...}, "sys": {...}}, and the document "uncertainty":
 * {"samples": N, "parameters": [KEY, ...]}; CSV (RFC 4180) prints one row
 * per draw and strategy (draw 0: the nominal run) with the drawn values.
 */
#ifndef HVTLB_TOOL_SIM_REPORT_H
#define HVTLB_TOOL_SIM_REPORT_H

#include "ensemble.h"
#include "sim-run.h"

/** Writes the table of @p b's results (bands from @p e, may be NULL). */
void sim_report_table(const struct sim_batch *b, const struct ensemble *e);
/** Writes one JSON document. Returns 0 or -EIO. */
int sim_report_json(const struct sim_batch *b, const struct ensemble *e);
/** Writes CSV: a header and one row per run (per draw and run with @p e). */
void sim_report_csv(const struct sim_batch *b, const struct ensemble *e);

/** m(a) / m(b) of two results, 0 when the divisor is not positive. */
double sim_ratio(double a, double b);

#endif
