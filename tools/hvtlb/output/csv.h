/* SPDX-License-Identifier: MIT */
/*
 * CSV as RFC 4180 describes it: fields separated by commas, a field that
 * holds a comma, a double quote, CR or LF enclosed in double quotes with
 * each double quote doubled, the same number of fields in every record,
 * a header record first. Records end in LF rather than CRLF, as Unix
 * tools expect (every CSV reader takes both).
 */
#ifndef HVTLB_TOOL_CSV_H
#define HVTLB_TOOL_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <hvtlb/sim.h>

/** Writes @p s as one field (quoted when it must be); NULL as empty. */
void csv_field(FILE *f, const char *s);

/*
 * The figures of a run as CSV columns, in order: those of `hvtlb sim
 * --csv` (after scenario, strategy, seed) and, the rows with sweep 1, of
 * `hvtlb sweep` (after its keys, strategy and seed; with --uncertainty
 * each also has NAME_p5, NAME_p50 and NAME_p95). X(name, field, sweep):
 *   name   the column's header, and for a sweep column the metric
 *          (metrics.h) whose bands it has
 *   field  the member of struct hvtlb_sim_results: a uint64_t is printed
 *          as a whole number, a double with %.9g (any other type does not
 *          build)
 *   sweep  1: a column of both, 0: of `hvtlb sim --csv` only
 * Adding a column is one row; a sweep row also changes the shape of the
 * lines `hvtlb sweep --merge` reads (shards from before it are refused).
 */
#define CSV_COLUMN_MAP(X)                                                      \
	X(real_s, real_s, 1)                                                   \
	X(user_s, user_s, 1)                                                   \
	X(sys_s, sys_s, 1)                                                     \
	X(vm_exits, vm_exits_total, 1)                                         \
	X(ipis_sent, ipis_sent, 1)                                             \
	X(hypercalls, hypercalls, 1)                                           \
	X(shootdowns, shootdowns, 1)                                           \
	X(pages_invalidated, pages_invalidated, 1)                             \
	X(latency_us_p50, latency_us_p50, 1)                                   \
	X(latency_us_p99, latency_us_p99, 1)                                   \
	X(latency_us_max, latency_us_max, 1)                                   \
	X(violations, violations, 1)                                           \
	X(latent_violations, latent_violations, 0)                             \
	X(used_violations, used_violations, 0)

#define CSV_COUNT_ALL_(name, field, sweep) +1
#define CSV_COUNT_SWEEP_(name, field, sweep) +(sweep)
enum {
	/** Columns of `hvtlb sim --csv` (all rows). */
	CSV_NCOLUMNS = 0 CSV_COLUMN_MAP(CSV_COUNT_ALL_),
	/** Columns of `hvtlb sweep` (rows with sweep 1). */
	CSV_NSWEEP = 0 CSV_COLUMN_MAP(CSV_COUNT_SWEEP_),
};
#undef CSV_COUNT_ALL_
#undef CSV_COUNT_SWEEP_

/** A row of CSV_COLUMN_MAP. */
struct csv_column {
	const char *name;
	size_t offset; /**< of the field in struct hvtlb_sim_results */
	bool integer;  /**< a uint64_t field; else a double */
	bool sweep;
};

/** The rows of CSV_COLUMN_MAP, in order. */
extern const struct csv_column csv_columns[CSV_NCOLUMNS];

/** Sweep column @p i (0 .. CSV_NSWEEP - 1), or NULL past the end. */
const struct csv_column *csv_sweep_column(size_t i);

/** Column @p c of run @p r as the CSV writes it (a CSV_CELL_MAX buffer
 *  always holds it). */
void csv_column_format(const struct csv_column *c,
		       const struct hvtlb_sim_results *r, char *buf,
		       size_t len);

/** Longest text of csv_column_format(), NUL included: 20 digits of a
 *  uint64_t, or %.9g of a double ("-1.23456789e-308"). */
#define CSV_CELL_MAX 24

#endif
