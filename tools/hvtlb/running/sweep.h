/* SPDX-License-Identifier: MIT */
/*
 * What the files of `hvtlb sweep` share:
 *   cmd-sweep.c    the options and the main flow
 *   sweep-grid.c   the --vary grid: its keys and values, and its points
 *   sweep-run.c    the points' runs in the job pool, written in grid
 *                  order as they finish; SIGINT
 *   sweep-out.c    CSV rows (with the bands of --uncertainty), the JSON
 *                  lines of --shard, the output files
 *   sweep-plot.c   the --svg line plot
 *   sweep-merge.c  --merge: the shards' JSON lines back into one CSV
 *
 * Thread rules: everything here runs on the main thread; only the jobs
 * run in the pool.
 */
#ifndef HVTLB_TOOL_SWEEP_H
#define HVTLB_TOOL_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "csv.h"
#include "ensemble.h"
#include "metrics.h"
#include "runpool.h"
#include "scenario.h"
#include "sim-run.h"
#include "uncertain.h"

#define MAX_VARY 8
#define MAX_VALUES 64
#define MAX_POINTS 4096
/* Cells of a CSV row: vary keys, strategy, seed, the columns
 * (CSV_COLUMN_MAP in csv.h) and three bands of each, with room for one
 * column more (the bound --merge puts on a shard's row, as before). */
#define MAX_CELLS (MAX_VARY + 3 + (CSV_NSWEEP + 1) * 4)
#define CELL_LEN 64
_Static_assert(CELL_LEN >= CSV_CELL_MAX, "a CSV cell holds every figure");

/* One --vary key and its values (in @buf, which it owns). */
struct vary {
	const char *key;
	char *values[MAX_VALUES];
	size_t n;
	char *buf;
};

/* A grid point: its value of each key and the runs it makes. */
struct point {
	struct sim_batch b;
	size_t idx[MAX_VARY];
	int configured;
	struct ensemble e; /* its runs: nominal, then every draw */
	size_t remaining;  /* jobs not finished yet */
	bool ready, written;
};

/* One CSV row as text cells. */
struct row {
	size_t n;
	char cell[MAX_CELLS][CELL_LEN];
	char error[SCENARIO_ERR_MAX];
};

struct sweep_opts {
	struct vary vary[MAX_VARY];
	size_t nvary, npoints, shard_i, shard_n, nsets;
	const char *path, *sets[64], *seed, *svg_path, *output;
	const struct metric *metric;
	uint64_t jobs, draws;
	bool log_x, log_y, merge;
	bool metric_given; /* --metric on the command line (needs --svg) */
	/* the fixed columns a --vary key replaces */
	bool vary_seed, vary_strategy;
};

/* sweep-grid.c */
int sweep_vary_add(struct sweep_opts *o, const char *arg);
void sweep_vary_finish(struct sweep_opts *o);
int sweep_points_configure(const struct sweep_opts *o, struct point *points);
void sweep_points_destroy(const struct sweep_opts *o, struct point *points);

/* sweep-run.c: the jobs of every configured point */
struct sweep_jobs {
	struct run_job **list;
	size_t *owner; /* the point of each job */
	size_t total;
};

int sweep_jobs_build(const struct sweep_opts *o, struct point *points,
		     struct unc_plan *u, struct sweep_jobs *j);
/* Writes point @p p's rows (sweep_point_write() in sweep-out.c), adding
 * how many to *@p rows; nonzero when a run failed or the oracle fired
 * without a fault. */
typedef int sweep_point_writer(const struct sweep_opts *o,
			       const struct point *pt, size_t p, size_t *rows);
int sweep_jobs_run(const struct sweep_opts *o, struct point *points,
		   const struct sweep_jobs *j, sweep_point_writer *write);
void sweep_jobs_finish(struct sweep_jobs *j);

/* sweep-out.c */
void sweep_csv_header(const struct vary *vary, size_t nvary, bool bands);
void sweep_cells_print(const char *const *cells, size_t n, const char *error);
void sweep_row_build(const struct sweep_opts *o, const struct point *p,
		     size_t run, struct row *r);
void sweep_row_print(const struct row *r);
void sweep_json_line(const struct sweep_opts *o, const struct point *p,
		     size_t pindex, size_t run, const struct row *r);
sweep_point_writer sweep_point_write;

/* sweep-plot.c: where the plot's numbers come from, the runs or merged
 * CSV rows */
struct plot_src {
	size_t npoints;
	const struct vary *vary; /* nvary entries: keys and values */
	size_t nvary;
	const size_t *(*idx)(const void *ctx, size_t p);
	size_t (*runs)(const void *ctx, size_t p);
	/* which: 0 the value, 1 its p5, 2 its p95; NaN: none */
	double (*value)(const void *ctx, const struct metric *m, size_t p,
			size_t r, int which);
	const char *(*strategy)(const void *ctx, size_t p, size_t r);
	const void *ctx;
	bool bands;
	const char *scenario; /* for the title */
	size_t draws;
};

void sweep_plot_points(const struct sweep_opts *o, const struct point *points,
		       struct plot_src *src);
FILE *sweep_svg_open(const struct sweep_opts *o);
int sweep_svg_finish(const struct sweep_opts *o, FILE *f,
		     const struct plot_src *src);
void sweep_svg_abandon(const struct sweep_opts *o, FILE *f);

/* sweep-out.c: --svg FILE and -o FILE, opened before any output and
 * finished after it */
int sweep_outputs_open(const struct sweep_opts *o, FILE **svg);
int sweep_outputs_finish(const struct sweep_opts *o, FILE **svg,
			 const struct plot_src *src, int rc);

/* sweep-merge.c */
int sweep_merge(const struct sweep_opts *o, int argc, char **argv, int first);

#endif
