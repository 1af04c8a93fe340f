// SPDX-License-Identifier: MIT
/*
 * hvtlb sweep SCENARIO --vary KEY=V1,V2,... [--vary ...] [--set K=V]...
 *             [--seed N] [--jobs N] [--shard I/N] [--uncertainty N]
 *             [--svg FILE [--metric NAME] [--log-x] [--log-y]]
 *             [-o FILE] [-q]
 * hvtlb sweep --merge [-o FILE] SHARD_OUTPUT...
 *
 * Runs the scenario over the cartesian product of the --vary lists (and
 * its `compare` strategies), several runs at once in host threads (each
 * run is deterministic, so the order of completion does not matter), and
 * prints CSV in grid order: each row as soon as it and every row before it
 * are done. With --shard I/N only the grid points whose index is I modulo
 * N run, and each run prints as one JSON line (with its CSV row), so a
 * grid larger than one machine runs as a job array; --merge joins the
 * shards' outputs into the CSV the unsharded sweep prints. With --svg a
 * line plot of one metric (x: the first --vary key) goes to FILE. With
 * --uncertainty N every run of every grid point is repeated on the same N
 * draws of the uncertain parameters (uncertain.h): the CSV gains
 * p5/p50/p95 columns per metric, a JSON line "bands", and each series of
 * the plot a shaded p5..p95 band. SIGINT (Ctrl-C) stops the sweep: every
 * row finished by then is written (out of grid order if need be), -o
 * FILE is renamed into place, and the exit status is 130. A run that
 * asked for no fault and reports oracle violations fails the sweep (exit
 * 1), as it fails `hvtlb sim`.
 *
 * This file: the options and the main flow. sweep.h says which file
 * holds the rest.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvtlb/sim.h>

#include "cli.h"
#include "metrics.h"
#include "parse.h"
#include "suggest.h"
#include "sweep.h"

#define MAX_DRAWS 100000u

static const char usage_text[] =
	"usage: hvtlb sweep SCENARIO --vary KEY=V1,V2,... [--vary ...]\n"
	"                   [--set KEY=VALUE]... [--seed N] [-j N]\n"
	"                   [--shard I/N] [--uncertainty N] [-o FILE] [-q]\n"
	"                   [--svg FILE [--metric NAME] [--log-x] [--log-y]]\n"
	"       hvtlb sweep --merge [-o FILE] [--svg FILE ...] "
	"SHARD_OUTPUT...\n"
	"\n"
	"Runs SCENARIO ('-': standard input) for every combination of the\n"
	"--vary values (and every strategy of its `compare` list), -j runs at\n"
	"a time (default: CPUs online), and prints one CSV row (RFC 4180) per\n"
	"run in grid order, each as soon as it and the rows before it are\n"
	"done. A --vary key named like a fixed column (seed, strategy) takes\n"
	"that column's place. Ctrl-C stops: the rows finished by then are\n"
	"written (with -o, FILE is renamed into place) and the exit status is\n"
	"130.\n"
	"\n"
	"  -j, --jobs N     runs at once (default: CPUs online)\n"
	"  --shard I/N      run only the points whose index is I modulo N and\n"
	"                   print JSON lines (one object per run) for --merge\n"
	"  --merge          join the outputs of every --shard I/N (files, or\n"
	"                   '-' for standard input, in any order): prints the\n"
	"                   CSV of the unsharded sweep, byte for byte; a "
	"point\n"
	"                   missing or given twice is an error\n"
	"  --uncertainty N  repeat every run on the same N draws of the\n"
	"                   uncertain parameters (ranges in the profile and\n"
	"                   scenario lines) and add METRIC_p5, METRIC_p50,\n"
	"                   METRIC_p95 columns (\"bands\" in JSON)\n"
	"  -o, --output FILE  write to FILE (a new file, renamed into place)\n"
	"  -q, --quiet      no progress line on stderr\n"
	"  --svg FILE       also write an SVG line plot of --metric (real_s "
	"by\n"
	"                   default, or user_s, sys_s, vm_exits, ipis_sent,\n"
	"                   hypercalls, shootdowns, pages_invalidated,\n"
	"                   latency_us_p50, latency_us_p99, latency_us_max,\n"
	"                   violations, ops_per_s, ...) against the first\n"
	"                   --vary key, one line per strategy and value of "
	"the\n"
	"                   other keys, with its p5..p95 band shaded under\n"
	"                   --uncertainty; --log-x, --log-y: logarithmic axes\n"
	"                   (positive values only)\n";

/* The numeric CSV columns, in order (metrics.h names). */

/* ------------------------------------------------------------ options */

enum {
	OPT_VARY = 256,
	OPT_SET,
	OPT_SEED,
	OPT_SHARD,
	OPT_MERGE,
	OPT_UNCERTAINTY,
	OPT_SVG,
	OPT_METRIC,
	OPT_LOG_X,
	OPT_LOG_Y,
};

static const struct option options[] = {
	{ "vary", required_argument, NULL, OPT_VARY },
	{ "set", required_argument, NULL, OPT_SET },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "jobs", required_argument, NULL, 'j' },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "merge", no_argument, NULL, OPT_MERGE },
	{ "uncertainty", required_argument, NULL, OPT_UNCERTAINTY },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "log-x", no_argument, NULL, OPT_LOG_X },
	{ "log-y", no_argument, NULL, OPT_LOG_Y },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static int parse_shard(struct sweep_opts *o, const char *val)
{
	const char *slash = strchr(val, '/');
	char ibuf[24];
	uint64_t si, sn;

	if (!slash || (size_t)(slash - val) >= sizeof(ibuf))
		return cli_usage_error("sweep", "--shard '%s': expected I/N",
				       val);
	memcpy(ibuf, val, (size_t)(slash - val));
	ibuf[slash - val] = '\0';
	if (parse_u64(ibuf, &si) || parse_u64(slash + 1, &sn) || !sn ||
	    si >= sn || sn > MAX_POINTS)
		return cli_usage_error("sweep",
				       "--shard '%s': expected I/N with 0 <= I "
				       "< N <= %d",
				       val, MAX_POINTS);
	o->shard_i = (size_t)si;
	o->shard_n = (size_t)sn;
	return 0;
}

static const struct metric *find_metric(const char *name)
{
	const struct metric *m = metric_find(name);
	char names[512], hint[96];
	struct suggest sg;

	if (m)
		return m;
	suggest_init(&sg, name);
	for (size_t i = 0; i < metric_count(); i++)
		suggest_add(&sg, metric_at(i)->name);
	metric_names(names, sizeof(names));
	cli_usage_error("sweep", "--metric '%s': not a metric%s; one of %s",
			name, suggest_hint(&sg, hint, sizeof(hint)), names);
	return NULL;
}

/* One option into the sweep's options (cli_take_fn). */
static int take_option(void *ctx, int c, const char *val)
{
	struct sweep_opts *o = ctx;

	switch (c) {
	case OPT_VARY:
		return sweep_vary_add(o, val);
	case OPT_SET:
		if (o->nsets == sizeof(o->sets) / sizeof(o->sets[0]))
			return cli_usage_error("sweep", "too many --set");
		o->sets[o->nsets++] = val;
		return 0;
	case OPT_SVG:
		if (o->svg_path)
			return cli_usage_error("sweep", "--svg given twice");
		o->svg_path = val;
		return 0;
	case OPT_METRIC:
		o->metric_given = true;
		o->metric = find_metric(val);
		return o->metric ? 0 : CLI_EXIT_USAGE;
	case OPT_SEED: {
		uint64_t n;

		if (cli_u64("sweep", "--seed", val, 0, UINT64_MAX, &n))
			return CLI_EXIT_USAGE;
		o->seed = val;
		return 0;
	}
	case 'j':
		return cli_u64("sweep", "--jobs", val, 1, HVTLB_SIM_MAX_THREADS,
			       &o->jobs);
	case OPT_UNCERTAINTY:
		return cli_u64("sweep", "--uncertainty", val, 1, MAX_DRAWS,
			       &o->draws);
	case OPT_SHARD:
		return parse_shard(o, val);
	case OPT_MERGE:
		o->merge = true;
		return 0;
	case OPT_LOG_X:
		o->log_x = true;
		return 0;
	case OPT_LOG_Y:
		o->log_y = true;
		return 0;
	case 'o':
		return cli_once_str("sweep", &o->output, "-o", val);
	}
	return CLI_EXIT_USAGE;
}

/* The plot options against the rest. */
static int check_plot(struct sweep_opts *o)
{
	if (o->metric_given && !o->svg_path)
		return cli_usage_error("sweep", "--metric needs --svg FILE");
	if ((o->log_x || o->log_y) && !o->svg_path)
		return cli_usage_error("sweep", "%s needs --svg FILE",
				       o->log_x ? "--log-x" : "--log-y");
	if (!o->metric)
		o->metric = metric_find("real_s");
	if (o->svg_path && o->shard_n)
		return cli_usage_error("sweep",
				       "--svg and --shard do not mix: plot "
				       "with --merge");
	return 0;
}

static int parse_args(struct sweep_opts *o, int argc, char **argv,
		      int *first_operand)
{
	int rc;

	o->npoints = 1;
	o->jobs = sim_host_threads();
	rc = cli_parse_options(&cmd_sweep, usage_text, argc, argv, take_option,
			       o);
	if (rc >= 0)
		return rc;
	*first_operand = optind;
	if (check_plot(o))
		return CLI_EXIT_USAGE;
	if (o->merge) {
		if (o->nvary || o->nsets || o->seed || o->shard_n || o->draws)
			return cli_usage_error("sweep",
					       "--merge takes shard outputs, "
					       "not a grid: no --vary, --set, "
					       "--seed, --shard or "
					       "--uncertainty");
		if (optind >= argc)
			return cli_usage_error(
				"sweep", "--merge needs the shard outputs "
					 "(files or '-')");
		return -1;
	}
	if (cli_scenario_operand("sweep", argc, argv, &o->path) >= 0)
		return CLI_EXIT_USAGE;
	if (o->svg_path && !o->nvary)
		return cli_usage_error("sweep", "--svg needs a --vary key (x)");
	for (size_t k = 0; k < o->nvary; k++) {
		o->vary_seed |= !strcmp(o->vary[k].key, "seed");
		o->vary_strategy |= !strcmp(o->vary[k].key, "strategy");
	}
	return -1;
}

/* --------------------------------------------------------------- main */

/* The sweep proper: the points of the grid (of this shard), their runs,
 * the rows as they finish, the plot. Returns the exit code. */
static int sweep(const struct sweep_opts *o)
{
	struct point *points = calloc(o->npoints, sizeof(*points));
	struct sweep_jobs j = { 0 };
	struct plot_src src;
	struct unc_plan u;
	FILE *svg = NULL;
	int rc = CLI_EXIT_FAIL;

	unc_plan_init(&u);
	if (!points)
		goto out;
	rc = sweep_points_configure(o, points);
	if (rc < 0)
		rc = sweep_jobs_build(o, points, &u, &j);
	if (rc < 0)
		rc = sweep_outputs_open(o, &svg);
	if (rc)
		goto out;
	if (!o->shard_n) {
		sweep_csv_header(o->vary, o->nvary, o->draws > 0);
		fflush(stdout);
	}
	rc = sweep_jobs_run(o, points, &j, sweep_point_write);
	sweep_plot_points(o, points, &src);
	rc = sweep_outputs_finish(o, &svg, &src, rc);
out:
	sweep_svg_abandon(o, svg);
	sweep_jobs_finish(&j);
	sweep_points_destroy(o, points);
	unc_plan_finish(&u);
	return rc;
}

static int run_sweep(int argc, char **argv)
{
	struct sweep_opts o;
	int rc, first = 0;

	memset(&o, 0, sizeof(o));
	rc = parse_args(&o, argc, argv, &first);
	if (rc < 0)
		rc = o.merge ? sweep_merge(&o, argc, argv, first) : sweep(&o);
	sweep_vary_finish(&o);
	return rc;
}

const struct cli_command cmd_sweep = {
	.name = "sweep",
	.summary = "simulate a grid of scenarios (and merge shards)",
	.run = run_sweep,
	.options = options,
	.operands = "scenario",
};
