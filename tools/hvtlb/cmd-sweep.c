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
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hvtlb/sim.h>

#include "cli.h"
#include "csv.h"
#include "ensemble.h"
#include "json.h"
#include "json-read.h"
#include "metrics.h"
#include "parse.h"
#include "progress.h"
#include "runpool.h"
#include "sim-run.h"
#include "suggest.h"
#include "svg.h"
#include "uncertain.h"

#define MAX_VARY 8
#define MAX_VALUES 64
#define MAX_POINTS 4096
#define MAX_DRAWS 100000u
/* Cells of a CSV row: vary keys, strategy, seed, the metrics, three
 * bands per metric, error. */
#define MAX_CELLS (MAX_VARY + 3 + 13 * 4)
#define CELL_LEN 64

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
static const char *const csv_metrics[] = {
	"real_s",	  "user_s",
	"sys_s",	  "vm_exits",
	"ipis_sent",	  "hypercalls",
	"shootdowns",	  "pages_invalidated",
	"latency_us_p50", "latency_us_p99",
	"latency_us_max", "violations",
};
#define NCSV (sizeof(csv_metrics) / sizeof(csv_metrics[0]))

struct vary {
	const char *key;
	char *values[MAX_VALUES];
	size_t n;
	char *buf;
};

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
	/* the fixed columns a --vary key replaces */
	bool vary_seed, vary_strategy;
};

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

static int parse_vary(struct vary *v, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *save = NULL;

	if (!eq || eq == arg || !eq[1])
		return -EINVAL;
	v->buf = strdup(arg);
	if (!v->buf)
		return -ENOMEM;
	v->buf[eq - arg] = '\0';
	v->key = v->buf;
	for (char *tok = strtok_r(v->buf + (eq - arg) + 1, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (v->n == MAX_VALUES)
			return -E2BIG;
		v->values[v->n++] = tok;
	}
	return v->n ? 0 : -EINVAL;
}

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

static int take_option(struct sweep_opts *o, int c, const char *val)
{
	switch (c) {
	case OPT_VARY: {
		int e;

		if (o->nvary == MAX_VARY)
			return cli_usage_error(
				"sweep", "at most %d --vary options", MAX_VARY);
		e = parse_vary(&o->vary[o->nvary], val);
		o->nvary++;
		if (e)
			return cli_usage_error("sweep",
					       "--vary '%s': expected "
					       "KEY=V1,V2,... (at most %d "
					       "values)",
					       val, MAX_VALUES);
		for (size_t k = 0; k + 1 < o->nvary; k++)
			if (!strcmp(o->vary[k].key, o->vary[o->nvary - 1].key))
				return cli_usage_error("sweep",
						       "--vary %s given twice",
						       o->vary[k].key);
		o->npoints *= o->vary[o->nvary - 1].n;
		if (o->npoints > MAX_POINTS)
			return cli_usage_error("sweep",
					       "more than %d grid points",
					       MAX_POINTS);
		return 0;
	}
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
		if (o->output)
			return cli_usage_error("sweep", "-o given twice");
		o->output = val;
		return 0;
	case 'q':
		progress_quiet();
		return 0;
	}
	return CLI_EXIT_USAGE;
}

/* The plot options against the rest. */
static int check_plot(struct sweep_opts *o, bool metric_given)
{
	if (metric_given && !o->svg_path)
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
	bool metric_given = false;
	int c;

	o->npoints = 1;
	o->jobs = sim_host_threads();
	while ((c = cli_getopt(&cmd_sweep, argc, argv)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return CLI_EXIT_OK;
		}
		if (c == '?' || take_option(o, c, optarg))
			return CLI_EXIT_USAGE;
		metric_given |= c == OPT_METRIC;
	}
	*first_operand = optind;
	if (check_plot(o, metric_given))
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
	if (optind < argc)
		o->path = argv[optind++];
	if (optind < argc)
		return cli_usage_error("sweep",
				       "one scenario at a time ('%s' and '%s')",
				       o->path, argv[optind]);
	if (!o->path)
		return cli_usage_error("sweep", "missing SCENARIO (try "
						"'hvtlb scenarios')");
	if (o->svg_path && !o->nvary)
		return cli_usage_error("sweep", "--svg needs a --vary key (x)");
	for (size_t k = 0; k < o->nvary; k++) {
		o->vary_seed |= !strcmp(o->vary[k].key, "seed");
		o->vary_strategy |= !strcmp(o->vary[k].key, "strategy");
	}
	return -1;
}

/* ---------------------------------------------------------------- CSV */

/* The header: the --vary keys, then the fixed columns (those a --vary key
 * does not replace), the bands with @p bands, and error. */
static void print_csv_header(const char *const *keys, size_t nkeys, bool bands)
{
	bool seed = true, strategy = true;

	for (size_t k = 0; k < nkeys; k++) {
		csv_field(stdout, keys[k]);
		putchar(',');
		seed &= strcmp(keys[k], "seed") != 0;
		strategy &= strcmp(keys[k], "strategy") != 0;
	}
	if (strategy)
		fputs("strategy,", stdout);
	if (seed)
		fputs("seed,", stdout);
	for (size_t m = 0; m < NCSV; m++)
		printf("%s,", csv_metrics[m]);
	for (size_t m = 0; bands && m < NCSV; m++)
		printf("%s_p5,%s_p50,%s_p95,", csv_metrics[m], csv_metrics[m],
		       csv_metrics[m]);
	fputs("error\n", stdout);
}

static void add_cell(struct row *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_cell(struct row *r, const char *fmt, ...)
{
	va_list ap;

	if (r->n == MAX_CELLS)
		return;
	va_start(ap, fmt);
	vsnprintf(r->cell[r->n++], CELL_LEN, fmt, ap);
	va_end(ap);
}

/* A failed draw of the point: its message, or "" if none failed. */
static void draw_failure(const struct point *pt, char *err, size_t len)
{
	char msg[SCENARIO_ERR_MAX];

	err[0] = '\0';
	if (ensemble_first_failure(&pt->e, msg, sizeof(msg)))
		snprintf(err, len, "%s", msg);
}

/* Run @p run of point @p p as CSV cells (error text apart). */
static void build_row(const struct sweep_opts *o, const struct point *p,
		      size_t run, struct row *r)
{
	const struct hvtlb_sim_results *res = p->b.res[run];
	const char *strat = p->b.strategy[run];

	r->n = 0;
	r->error[0] = '\0';
	for (size_t k = 0; k < o->nvary; k++)
		add_cell(r, "%s", o->vary[k].values[p->idx[k]]);
	if (res)
		strat = sim_strategy_name(res);
	if (!o->vary_strategy)
		add_cell(r, "%s", strat ? strat : "");
	if (!res) {
		if (!o->vary_seed)
			add_cell(r, "%s", "");
		for (size_t m = 0; m < NCSV * (o->draws ? 4 : 1); m++)
			add_cell(r, "%s", "");
		snprintf(r->error, sizeof(r->error), "%s",
			 strerror(-p->b.run_rc[run]));
		return;
	}
	if (!o->vary_seed)
		add_cell(r, "%llu", (unsigned long long)res->seed);
	add_cell(r, "%.9g", res->real_s);
	add_cell(r, "%.9g", res->user_s);
	add_cell(r, "%.9g", res->sys_s);
	add_cell(r, "%llu", (unsigned long long)res->vm_exits_total);
	add_cell(r, "%llu", (unsigned long long)res->ipis_sent);
	add_cell(r, "%llu", (unsigned long long)res->hypercalls);
	add_cell(r, "%llu", (unsigned long long)res->shootdowns);
	add_cell(r, "%llu", (unsigned long long)res->pages_invalidated);
	add_cell(r, "%.9g", res->latency_us_p50);
	add_cell(r, "%.9g", res->latency_us_p99);
	add_cell(r, "%.9g", res->latency_us_max);
	add_cell(r, "%llu", (unsigned long long)res->violations);
	if (!o->draws)
		return;
	draw_failure(p, r->error, sizeof(r->error));
	for (size_t m = 0; m < NCSV; m++) {
		struct band bd;

		if (r->error[0]) {
			add_cell(r, "%s", "");
			add_cell(r, "%s", "");
			add_cell(r, "%s", "");
			continue;
		}
		ensemble_band(&p->e, run, metric_find(csv_metrics[m]), &bd);
		add_cell(r, "%.9g", bd.p5);
		add_cell(r, "%.9g", bd.p50);
		add_cell(r, "%.9g", bd.p95);
	}
}

static void print_cells(const char *const *cells, size_t n, const char *error)
{
	for (size_t i = 0; i < n; i++) {
		csv_field(stdout, cells[i]);
		putchar(',');
	}
	csv_field(stdout, error);
	putchar('\n');
}

static void print_row(const struct row *r)
{
	const char *cells[MAX_CELLS];

	for (size_t i = 0; i < r->n; i++)
		cells[i] = r->cell[i];
	print_cells(cells, r->n, r->error);
}

/* ------------------------------------------------------- shard lines */

static void print_json_line(const struct sweep_opts *o, const struct point *p,
			    size_t pindex, size_t run, const struct row *r)
{
	const struct hvtlb_sim_results *res = p->b.res[run];

	putchar('{');
	json_meta(stdout, SWEEP_SHARD_JSON_SCHEMA);
	printf(",\"point\":%zu,\"points\":%zu,\"run\":%zu,\"runs\":%zu,"
	       "\"draws\":%llu,\"scenario\":",
	       pindex, o->npoints, run, p->b.nruns,
	       (unsigned long long)o->draws);
	json_string(stdout, o->path);
	printf(",\"values\":{");
	for (size_t k = 0; k < o->nvary; k++) {
		if (k)
			putchar(',');
		json_string(stdout, o->vary[k].key);
		putchar(':');
		json_string(stdout, o->vary[k].values[p->idx[k]]);
	}
	printf("},\"strategy\":");
	json_string(stdout, res ? sim_strategy_name(res) : p->b.strategy[run]);
	printf(",\"row\":[");
	for (size_t i = 0; i < r->n; i++) {
		if (i)
			putchar(',');
		json_string(stdout, r->cell[i]);
	}
	printf("],\"error\":");
	json_string(stdout, r->error[0] ? r->error : NULL);
	printf(",\"result\":");
	if (!res) {
		printf("null}\n");
		return;
	}
	hvtlb_sim_results_write_json(res, stdout);
	if (o->draws && !r->error[0]) {
		printf(",\"bands\":{");
		for (size_t m = 0; m < metric_count(); m++) {
			struct band bd;

			ensemble_band(&p->e, run, metric_at(m), &bd);
			printf("%s\"%s\":{\"p5\":%.9g,\"p50\":%.9g,"
			       "\"p95\":%.9g}",
			       m ? "," : "", metric_at(m)->name, bd.p5, bd.p50,
			       bd.p95);
		}
		putchar('}');
	}
	printf("}\n");
}

/* ------------------------------------------------------------ running */

/* Configures every point of this shard: a bad value stops before any
 * run. Returns -1 to go on, or an exit code (message printed). */
static int configure_points(const struct sweep_opts *o, struct point *points)
{
	bool warned[SIM_BATCH_WARNINGS] = { false };

	for (size_t p = 0; p < o->npoints; p++) {
		struct point *pt = &points[p];
		size_t rest = p;
		int e;

		sim_batch_init(&pt->b);
		for (size_t k = o->nvary; k-- > 0;) {
			pt->idx[k] = rest % o->vary[k].n;
			rest /= o->vary[k].n;
		}
		if (o->shard_n && p % o->shard_n != o->shard_i)
			continue;
		e = sim_scenario_load(&pt->b.sc, o->path);
		for (size_t k = 0; !e && k < o->nsets; k++)
			e = scenario_add_override(&pt->b.sc, o->sets[k]);
		for (size_t k = 0; !e && k < o->nvary; k++)
			e = scenario_add_option(&pt->b.sc, "--vary",
						o->vary[k].key,
						o->vary[k].values[pt->idx[k]]);
		if (!e && o->seed)
			e = scenario_add_option(&pt->b.sc, "--seed", "seed",
						o->seed);
		if (!e)
			e = sim_batch_configure(&pt->b, 1);
		if (e) {
			fprintf(stderr, "%s\n", pt->b.sc.err);
			return CLI_EXIT_USAGE;
		}
		for (size_t w = 0; w < SIM_BATCH_WARNINGS; w++) {
			if (pt->b.warning[w][0] && !warned[w])
				fprintf(stderr, "hvtlb sweep: warning: %s\n",
					pt->b.warning[w]);
			warned[w] |= pt->b.warning[w][0] != '\0';
		}
		pt->configured = 1;
	}
	return -1;
}

/* Builds every point's ensemble on one set of draws (so that the bands
 * of neighbouring points are comparable). Returns the jobs in *list (and
 * their points in *owner), or an exit code (message printed). */
static int build_jobs(const struct sweep_opts *o, struct point *points,
		      struct unc_plan *u, struct run_job ***list,
		      size_t **owner, size_t *total)
{
	char err[SCENARIO_ERR_MAX];
	uint64_t seed = 0;
	size_t k = 0;
	int rc = 0;

	*total = 0;
	for (size_t p = 0; o->draws && !rc && p < o->npoints; p++) {
		if (!points[p].configured)
			continue;
		if (!seed)
			seed = points[p].b.cfg[0].seed;
		rc = unc_plan_collect(u, &points[p].b.sc);
	}
	if (!rc && o->draws)
		rc = unc_plan_draw(u, (size_t)o->draws, seed);
	if (rc) {
		fprintf(stderr, "hvtlb sweep: %s\n", strerror(-rc));
		return CLI_EXIT_FAIL;
	}
	for (size_t p = 0; p < o->npoints; p++) {
		struct point *pt = &points[p];
		struct ens_run runs[SCENARIO_COMPARE_MAX];

		if (!pt->configured)
			continue;
		for (size_t r = 0; r < pt->b.nruns; r++)
			runs[r] = (struct ens_run){ &pt->b.sc, &pt->b.cfg[r],
						    pt->b.strategy[r] };
		if (ensemble_init(&pt->e, u, runs, pt->b.nruns, err,
				  sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return CLI_EXIT_USAGE;
		}
		pt->remaining = ensemble_njobs(&pt->e);
		*total += pt->remaining;
	}
	*list = malloc((*total ? *total : 1) * sizeof(**list));
	*owner = malloc((*total ? *total : 1) * sizeof(**owner));
	if (!*list || !*owner) {
		fprintf(stderr, "hvtlb sweep: out of memory\n");
		return CLI_EXIT_FAIL;
	}
	for (size_t p = 0; p < o->npoints; p++) {
		if (!points[p].configured)
			continue;
		ensemble_job_list(&points[p].e, *list + k);
		for (size_t j = 0; j < ensemble_njobs(&points[p].e); j++)
			(*owner)[k + j] = p;
		k += ensemble_njobs(&points[p].e);
	}
	return -1;
}

/* What the watcher needs while the runs go. */
struct stream {
	const struct sweep_opts *o;
	struct point *points;
	const size_t *owner;
	size_t next;	/* the first point not written in grid order */
	size_t written; /* rows */
	int rc;		/* CLI_EXIT_FAIL once a run failed */
};

/* Oracle violations in a run that asked for no fault make the sweep fail,
 * as they make `hvtlb sim` fail: printed, and 1 for the exit status. */
static int point_violations(const struct point *pt, size_t p, size_t run)
{
	const struct hvtlb_sim_results *res = pt->b.res[run];

	if (pt->b.run_rc[run] || !res || !res->violations ||
	    pt->b.cfg[run].fault != HVTLB_SIM_FAULT_NONE)
		return 0;
	fprintf(stderr,
		"hvtlb sweep: point %zu, %s: oracle violations without a "
		"fault: %llu latent, %llu used\n",
		p, sim_strategy_name(res),
		(unsigned long long)res->latent_violations,
		(unsigned long long)res->used_violations);
	return 1;
}

static void write_point(struct stream *st, size_t p)
{
	struct point *pt = &st->points[p];
	struct row *r = malloc(sizeof(*r));

	pt->written = true;
	if (!r) {
		st->rc = CLI_EXIT_FAIL;
		return;
	}
	for (size_t run = 0; run < pt->b.nruns; run++) {
		build_row(st->o, pt, run, r);
		if (r->error[0] || point_violations(pt, p, run))
			st->rc = CLI_EXIT_FAIL;
		if (st->o->shard_n)
			print_json_line(st->o, pt, p, run, r);
		else
			print_row(r);
		st->written++;
	}
	free(r);
	fflush(stdout);
}

/* A job finished: when its point is complete, write every point that is
 * next in grid order. */
static void job_done(void *data, size_t index)
{
	struct stream *st = data;
	struct point *pt = &st->points[st->owner[index]];

	if (--pt->remaining)
		return;
	for (size_t r = 0; r < pt->b.nruns; r++) {
		struct run_job *j = ensemble_job(&pt->e, 0, r);

		pt->b.run_rc[r] = j->rc;
		pt->b.res[r] = j->res;
		j->res = NULL;
	}
	pt->ready = true;
	while (st->next < st->o->npoints &&
	       (st->points[st->next].ready ||
		!st->points[st->next].configured)) {
		if (st->points[st->next].configured)
			write_point(st, st->next);
		st->next++;
	}
}

/* Before any job: the points this shard does not run are "written". */
static void job_done_empty(struct stream *st)
{
	while (st->next < st->o->npoints && !st->points[st->next].configured)
		st->next++;
}

/* SIGINT: every finished point out of order, then the file into place.
 * The runs still going are abandoned with the process. */
static void __attribute__((noreturn)) interrupted(struct stream *st)
{
	size_t total = 0;

	for (size_t p = 0; p < st->o->npoints; p++) {
		if (st->points[p].ready && !st->points[p].written)
			write_point(st, p);
		if (st->points[p].configured)
			total += st->points[p].b.nruns;
	}
	progress_end();
	fflush(stdout);
	fprintf(stderr,
		"hvtlb sweep: interrupted: %zu of %zu rows written%s%s\n",
		st->written, total, st->o->output ? " to " : "",
		st->o->output ? st->o->output : "");
	cli_output_finish("sweep", true);
	_exit(CLI_EXIT_INTERRUPTED);
}

/* --------------------------------------------------------------- plot */

/* Where the plot's numbers come from: the runs, or merged CSV rows. */
struct plot_src {
	size_t npoints, nruns;
	const struct vary *vary; /* nvary entries: keys and values */
	size_t nvary;
	const size_t *(*idx)(void *ctx, size_t p);
	size_t (*runs)(void *ctx, size_t p);
	/* which: 0 the value, 1 its p5, 2 its p95; NaN: none */
	double (*value)(void *ctx, size_t p, size_t r, int which);
	const char *(*strategy)(void *ctx, size_t p, size_t r);
	void *ctx;
	bool bands;
};

struct series {
	size_t nx, nseries, nruns, rest;
	double *y, *lo, *hi;
	char (*names)[256];
	const char **name_ptrs;
	char strategies[256]; /* "ipi, hyperv" for the title */
};

static void series_finish(struct series *s)
{
	free(s->y);
	free(s->lo);
	free(s->hi);
	free(s->names);
	free(s->name_ptrs);
}

static void series_name(const struct plot_src *src, size_t p, size_t r,
			char *name, size_t len)
{
	const char *strat = src->strategy(src->ctx, p, r);
	const size_t *idx = src->idx(src->ctx, p);
	int n = snprintf(name, len, "%s", strat && *strat ? strat : "run");

	for (size_t k = 1; k < src->nvary && n >= 0 && (size_t)n < len; k++)
		n += snprintf(name + n, len - (size_t)n, " %s=%s",
			      src->vary[k].key, src->vary[k].values[idx[k]]);
}

/*
 * Fills the series: grid points are in row-major order, so point p has x
 * index p / rest and series group p % rest, where rest is the product of
 * the other keys' value counts.
 */
static int series_fill(struct series *s, const struct plot_src *src)
{
	size_t used = 0;

	s->nx = src->vary[0].n;
	s->rest = src->npoints / s->nx;
	for (size_t p = 0; p < src->npoints; p++)
		if (src->runs(src->ctx, p) > s->nruns)
			s->nruns = src->runs(src->ctx, p);
	s->nseries = s->rest * s->nruns;
	if (!s->nseries)
		return -EINVAL;
	s->y = malloc(s->nseries * s->nx * sizeof(*s->y));
	s->lo = malloc(s->nseries * s->nx * sizeof(*s->lo));
	s->hi = malloc(s->nseries * s->nx * sizeof(*s->hi));
	s->names = calloc(s->nseries, sizeof(*s->names));
	s->name_ptrs = calloc(s->nseries, sizeof(*s->name_ptrs));
	if (!s->y || !s->lo || !s->hi || !s->names || !s->name_ptrs)
		return -ENOMEM;
	for (size_t k = 0; k < s->nseries * s->nx; k++)
		s->y[k] = s->lo[k] = s->hi[k] = NAN;
	for (size_t p = 0; p < src->npoints; p++) {
		size_t i = p / s->rest, j = p % s->rest;

		for (size_t r = 0; r < src->runs(src->ctx, p); r++) {
			size_t si = j * s->nruns + r;
			double y = src->value(src->ctx, p, r, 0);
			const char *strat = src->strategy(src->ctx, p, r);

			s->y[si * s->nx + i] = y;
			if (src->bands) {
				s->lo[si * s->nx + i] =
					src->value(src->ctx, p, r, 1);
				s->hi[si * s->nx + i] =
					src->value(src->ctx, p, r, 2);
			}
			if (strat && *strat && j == 0 && i == 0)
				used += (size_t)snprintf(
					s->strategies + used,
					used < sizeof(s->strategies)
						? sizeof(s->strategies) - used
						: 0,
					"%s%s", r ? ", " : "", strat);
			if (s->names[si][0] && isnan(y))
				continue;
			series_name(src, p, r, s->names[si],
				    sizeof(s->names[si]));
		}
	}
	for (size_t k = 0; k < s->nseries; k++)
		s->name_ptrs[k] = s->names[k];
	return 0;
}

/* "vm.vcpus (vCPUs)": a key with the unit the key table gives it. */
static void axis_label(const char *key, char *buf, size_t len)
{
	const struct hvtlb_sim_key *k = hvtlb_sim_key_find(key);
	const char *unit = k ? k->unit : NULL;
	size_t ci;

	if (!unit && !sim_cost_index(key, &ci))
		unit = hvtlb_sim_cost_unit(ci);
	if (unit && *unit)
		snprintf(buf, len, "%s (%s)", key, unit);
	else
		snprintf(buf, len, "%s", key);
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path ? path : "?";
}

/* Whether every value parses completely as a finite number. */
static int numeric_values(const struct vary *v, double *out)
{
	for (size_t i = 0; i < v->n; i++) {
		char *end;

		errno = 0;
		out[i] = strtod(v->values[i], &end);
		if (end == v->values[i] || *end || errno || !isfinite(out[i]))
			return 0;
	}
	return 1;
}

/*
 * Plots the metric against the first --vary key into @p path: the title
 * says what was swept ("real time (s) against vm.vcpus: ipi, hyperv;
 * default.ini, p5..p95 of 64 draws shaded"), the axes carry units.
 */
static int write_svg(FILE *f, const struct sweep_opts *o,
		     const struct plot_src *src, const char *scenario,
		     size_t draws)
{
	struct series s = { 0 };
	double xval[MAX_VALUES];
	char title[1024], xlabel[256], others[256] = "";
	int rc = series_fill(&s, src);
	size_t n = 0;

	if (rc)
		goto out;
	for (size_t k = 1; k < src->nvary; k++)
		n += (size_t)snprintf(
			others + n, n < sizeof(others) ? sizeof(others) - n : 0,
			", each %s", src->vary[k].key);
	n = (size_t)snprintf(title, sizeof(title), "%s against %s: %s%s; %s",
			     o->metric->label, src->vary[0].key,
			     s.strategies[0] ? s.strategies : "one run", others,
			     base_name(scenario));
	if (draws && n < sizeof(title))
		snprintf(title + n, sizeof(title) - n,
			 ", p5..p95 of %zu draws shaded", draws);
	axis_label(src->vary[0].key, xlabel, sizeof(xlabel));
	rc = svg_plot_write(
		f, &(struct svg_plot){
			   .title = title,
			   .xlabel = xlabel,
			   .ylabel = o->metric->label,
			   .nx = s.nx,
			   .xnames = (const char *const *)src->vary[0].values,
			   .xval = numeric_values(&src->vary[0], xval) ? xval
								       : NULL,
			   .nseries = s.nseries,
			   .names = s.name_ptrs,
			   .y = s.y,
			   .y_lo = src->bands ? s.lo : NULL,
			   .y_hi = src->bands ? s.hi : NULL,
			   .log_x = o->log_x,
			   .log_y = o->log_y,
		   });
out:
	series_finish(&s);
	return rc;
}

static int report_svg_error(const struct sweep_opts *o, int e);

/* The plot file, opened before any work so that a bad path costs none.
 * Returns it, or NULL after printing why (exit 2). */
static FILE *open_svg(const struct sweep_opts *o)
{
	FILE *f = fopen(o->svg_path, "w");

	if (!f)
		cli_usage_error("sweep", "--svg '%s': %s", o->svg_path,
				strerror(errno));
	return f;
}

/* Closes the plot after write_svg() returned @p e; a plot that could not
 * be written is removed. Returns the exit code it makes. */
static int close_svg(const struct sweep_opts *o, FILE *f, int e)
{
	if (fclose(f) && !e)
		e = -EIO;
	if (!e)
		return CLI_EXIT_OK;
	unlink(o->svg_path);
	return report_svg_error(o, e);
}

static int report_svg_error(const struct sweep_opts *o, int e)
{
	if (e == -EDOM)
		fprintf(stderr,
			"hvtlb sweep: --svg '%s': %s needs positive numbers "
			"(%s)\n",
			o->svg_path, o->log_x ? "--log-x" : "--log-y",
			o->log_x ? "the first --vary key's values"
				 : "the metric");
	else
		fprintf(stderr, "hvtlb sweep: --svg '%s': %s\n", o->svg_path,
			strerror(-e));
	return CLI_EXIT_FAIL;
}

/* The plot of a sweep that ran here: numbers from the results. */
static const size_t *run_idx(void *ctx, size_t p)
{
	return ((const struct point *)ctx)[p].idx;
}

static size_t run_runs(void *ctx, size_t p)
{
	return ((const struct point *)ctx)[p].b.nruns;
}

static const struct metric *plot_metric;

static double run_value(void *ctx, size_t p, size_t r, int which)
{
	const struct point *pt = &((const struct point *)ctx)[p];
	struct band bd;

	if (!pt->b.res[r])
		return NAN;
	if (!which)
		return plot_metric->get(pt->b.res[r], &pt->b.cfg[r]);
	if (ensemble_first_failure(&pt->e, NULL, 0))
		return NAN;
	ensemble_band(&pt->e, r, plot_metric, &bd);
	return which == 1 ? bd.p5 : bd.p95;
}

static const char *run_strategy(void *ctx, size_t p, size_t r)
{
	const struct point *pt = &((const struct point *)ctx)[p];

	return pt->b.res[r] ? sim_strategy_name(pt->b.res[r])
			    : pt->b.strategy[r];
}

/* -------------------------------------------------------------- merge */

/* One JSON line of a shard's output. */
struct mline {
	struct json_doc doc;
	uint64_t point, points, run, runs, draws;
	const struct json_value *values, *row;
	const char *error, *strategy, *scenario;
	const char *commit; /* of the hvtlb that wrote it; NULL: not said */
	const char *file;
	size_t lineno;
};

struct merge {
	struct mline *v;
	size_t n, cap;
	char **texts;
	size_t ntexts;
	/* the grid, rebuilt from the lines */
	struct vary vary[MAX_VARY];
	size_t nvary, npoints;
	size_t (*idx)[MAX_VARY]; /* per point */
	size_t *first;		 /* per point: its first line */
	bool bands;
	size_t ncells;
};

static void merge_finish(struct merge *m)
{
	for (size_t i = 0; i < m->n; i++)
		json_free(&m->v[i].doc);
	free(m->v);
	for (size_t i = 0; i < m->ntexts; i++)
		free(m->texts[i]);
	free(m->texts);
	free(m->idx);
	free(m->first);
}

static int merge_error(const struct mline *l, const char *what)
{
	fprintf(stderr, "hvtlb sweep: --merge: %s:%zu: %s\n", l->file,
		l->lineno, what);
	return CLI_EXIT_USAGE;
}

static int read_text(const char *path, char **out)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	FILE *m;
	char chunk[65536];
	size_t n, len = 0;
	int rc = 0;

	*out = NULL;
	if (!f)
		return -errno;
	m = open_memstream(out, &len);
	if (!m) {
		rc = -ENOMEM;
	} else {
		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			fwrite(chunk, 1, n, m);
		if (ferror(f))
			rc = -EIO;
		if (fclose(m) && !rc)
			rc = -ENOMEM;
	}
	if (f != stdin)
		fclose(f);
	return rc;
}

/* Parses one line into @p l; returns 0 or an exit code (printed). */
static int parse_mline(struct mline *l, char *text, size_t len)
{
	const struct json_value *root, *v;
	char err[128], msg[256];
	uint64_t schema;

	if (json_parse(&l->doc, text, len, err, sizeof(err))) {
		snprintf(msg, sizeof(msg), "not JSON (%s)", err);
		return merge_error(l, msg);
	}
	root = l->doc.root;
	/* A line without a schema comes from an hvtlb before it had one. */
	v = json_get(root, "schema");
	if (v && (json_u64(v, &schema) || schema > SWEEP_SHARD_JSON_SCHEMA))
		return merge_error(l, "a shard line of a later schema than "
				      "this hvtlb reads; merge with the hvtlb "
				      "that wrote it");
	v = json_get(json_get(root, "hvtlb"), "commit");
	l->commit = v && v->type == JSON_STRING ? v->text : NULL;
	if (json_u64(json_get(root, "point"), &l->point) ||
	    json_u64(json_get(root, "points"), &l->points) ||
	    json_u64(json_get(root, "run"), &l->run) ||
	    json_u64(json_get(root, "runs"), &l->runs) ||
	    json_u64(json_get(root, "draws"), &l->draws))
		return merge_error(l, "not a line of `hvtlb sweep --shard` "
				      "(point, points, run, runs)");
	l->values = json_get(root, "values");
	l->row = json_get(root, "row");
	if (!l->values || l->values->type != JSON_OBJECT || !l->row ||
	    l->row->type != JSON_ARRAY || l->row->n > MAX_CELLS)
		return merge_error(l, "not a line of `hvtlb sweep --shard` "
				      "(values, row)");
	for (size_t i = 0; i < l->row->n; i++)
		if (l->row->child[i].type != JSON_STRING)
			return merge_error(l, "row: not all strings");
	for (size_t i = 0; i < l->values->n; i++)
		if (l->values->child[i].type != JSON_STRING)
			return merge_error(l, "values: not all strings");
	v = json_get(root, "error");
	l->error = v && v->type == JSON_STRING ? v->text : NULL;
	v = json_get(root, "strategy");
	l->strategy = v && v->type == JSON_STRING ? v->text : NULL;
	v = json_get(root, "scenario");
	l->scenario = v && v->type == JSON_STRING ? v->text : NULL;
	if (!l->points || l->points > MAX_POINTS || l->point >= l->points ||
	    !l->runs || l->runs > SCENARIO_COMPARE_MAX || l->run >= l->runs)
		return merge_error(l, "point or run out of range");
	return 0;
}

static int add_file(struct merge *m, const char *path)
{
	char *text, *line, *next, **t;
	size_t lineno = 0;
	int rc = read_text(path, &text);

	if (rc) {
		fprintf(stderr, "hvtlb sweep: --merge: %s: %s\n", path,
			strerror(-rc));
		return CLI_EXIT_USAGE;
	}
	t = realloc(m->texts, (m->ntexts + 1) * sizeof(*t));
	if (!t) {
		free(text);
		return CLI_EXIT_FAIL;
	}
	m->texts = t;
	m->texts[m->ntexts++] = text;
	for (line = text; line && *line; line = next) {
		size_t len;

		next = strchr(line, '\n');
		len = next ? (size_t)(next - line) : strlen(line);
		if (next)
			*next++ = '\0';
		lineno++;
		if (!len)
			continue;
		if (m->n == m->cap) {
			size_t cap = m->cap ? 2 * m->cap : 64;
			struct mline *v = realloc(m->v, cap * sizeof(*v));

			if (!v)
				return CLI_EXIT_FAIL;
			m->v = v;
			m->cap = cap;
		}
		memset(&m->v[m->n], 0, sizeof(m->v[0]));
		m->v[m->n].file = path;
		m->v[m->n].lineno = lineno;
		rc = parse_mline(&m->v[m->n], line, len);
		m->n++;
		if (rc)
			return rc;
	}
	return 0;
}

static int by_point_run(const void *pa, const void *pb)
{
	const struct mline *a = pa, *b = pb;

	if (a->point != b->point)
		return a->point < b->point ? -1 : 1;
	return (a->run > b->run) - (a->run < b->run);
}

/* The grid: keys from the first line, values in order of appearance.
 * Returns 0 or an exit code (printed). */
static int rebuild_grid(struct merge *m)
{
	const struct mline *l0 = &m->v[0];
	size_t product = 1;

	m->npoints = l0->points;
	m->nvary = l0->values->n;
	if (m->nvary > MAX_VARY)
		return merge_error(l0, "too many --vary keys");
	m->idx = calloc(m->npoints, sizeof(*m->idx));
	m->first = calloc(m->npoints, sizeof(*m->first));
	if (!m->idx || !m->first)
		return CLI_EXIT_FAIL;
	for (size_t k = 0; k < m->nvary; k++)
		m->vary[k].key = l0->values->child[k].key;
	for (size_t i = 0; i < m->n; i++) {
		const struct mline *l = &m->v[i];

		if (l->points != m->npoints)
			return merge_error(l, "a line of another sweep (its "
					      "grid has another size)");
		if (l->values->n != m->nvary)
			return merge_error(l, "a line of another sweep (other "
					      "--vary keys)");
		if (l->run == 0)
			m->first[l->point] = i;
		for (size_t k = 0; k < m->nvary; k++) {
			const struct json_value *v = &l->values->child[k];
			struct vary *va = &m->vary[k];
			size_t j;

			if (strcmp(v->key, va->key))
				return merge_error(l, "a line of another sweep "
						      "(other --vary keys)");
			for (j = 0; j < va->n; j++)
				if (!strcmp(va->values[j], v->text))
					break;
			if (j == va->n) {
				if (va->n == MAX_VALUES)
					return merge_error(l,
							   "too many values");
				va->values[va->n++] = (char *)v->text;
			}
			m->idx[l->point][k] = j;
		}
	}
	for (size_t k = 0; k < m->nvary; k++)
		product *= m->vary[k].n;
	if (m->nvary && product != m->npoints && m->n) {
		fprintf(stderr,
			"hvtlb sweep: --merge: the lines name %zu of the %zu "
			"grid points: a shard's output is missing\n",
			product, m->npoints);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

/* Every point once, every run of it once. Returns 0 or an exit code. */
static int check_complete(struct merge *m)
{
	size_t i = 0;

	qsort(m->v, m->n, sizeof(*m->v), by_point_run);
	for (size_t p = 0; p < m->npoints; p++) {
		size_t runs;

		if (i == m->n || m->v[i].point != p) {
			fprintf(stderr,
				"hvtlb sweep: --merge: point %zu of %zu is "
				"missing: give every shard's output\n",
				p, m->npoints);
			return CLI_EXIT_USAGE;
		}
		runs = m->v[i].runs;
		for (size_t r = 0; r < runs; r++, i++) {
			const struct mline *l = i < m->n ? &m->v[i] : NULL;

			if (!l || l->point != p || l->run != r ||
			    l->runs != runs)
				return merge_error(
					l ? l : &m->v[i - 1],
					"a run of a point is missing "
					"or given twice");
			if (l->row->n != m->ncells)
				return merge_error(l, "a row of another shape");
		}
		if (i < m->n && m->v[i].point == p)
			return merge_error(&m->v[i],
					   "a point given twice (the same "
					   "shard twice?)");
	}
	return 0;
}

/* Cells of a row without bands: keys, strategy, seed (each unless a key
 * replaces it), the metrics. */
static size_t plain_cells(const struct merge *m)
{
	size_t n = m->nvary + NCSV + 2;

	for (size_t k = 0; k < m->nvary; k++)
		n -= !strcmp(m->vary[k].key, "seed") ||
		     !strcmp(m->vary[k].key, "strategy");
	return n;
}

/* The column of @p name in a merged row, or (size_t)-1. */
static size_t column_of(const struct merge *m, const char *name)
{
	size_t base = plain_cells(m) - NCSV;

	for (size_t c = 0; c < NCSV; c++) {
		char band[64];

		if (!strcmp(csv_metrics[c], name))
			return base + c;
		for (int b = 0; m->bands && b < 3; b++) {
			snprintf(band, sizeof(band), "%s_%s", csv_metrics[c],
				 b == 0	  ? "p5"
				 : b == 1 ? "p50"
					  : "p95");
			if (!strcmp(band, name))
				return base + NCSV + 3 * c + (size_t)b;
		}
	}
	return (size_t)-1;
}

static const size_t *merge_idx(void *ctx, size_t p)
{
	return ((const struct merge *)ctx)->idx[p];
}

static size_t merge_runs(void *ctx, size_t p)
{
	const struct merge *m = ctx;

	return m->v[m->first[p]].runs;
}

static double merge_value(void *ctx, size_t p, size_t r, int which)
{
	const struct merge *m = ctx;
	const struct mline *l = &m->v[m->first[p] + r];
	char name[64];
	size_t c;
	char *end;
	double v;

	snprintf(name, sizeof(name), "%s%s", plot_metric->name,
		 which == 1   ? "_p5"
		 : which == 2 ? "_p95"
			      : "");
	c = column_of(m, name);
	if (c >= l->row->n || !*l->row->child[c].text)
		return NAN;
	v = strtod(l->row->child[c].text, &end);
	return *end ? NAN : v;
}

static const char *merge_strategy(void *ctx, size_t p, size_t r)
{
	const struct merge *m = ctx;

	return m->v[m->first[p] + r].strategy;
}

/* Shards written by different builds may hold results of different
 * engines: merged, they make one table all the same, so say so. */
static void warn_commits(const struct merge *m)
{
	const struct mline *a = &m->v[0];

	for (size_t i = 1; i < m->n; i++) {
		const struct mline *b = &m->v[i];

		if (!a->commit || !b->commit || !strcmp(a->commit, b->commit))
			continue;
		fprintf(stderr,
			"hvtlb sweep: --merge: warning: %s:%zu was written by "
			"hvtlb %s, %s:%zu by hvtlb %s: their results may "
			"differ for that reason alone\n",
			a->file, a->lineno, a->commit, b->file, b->lineno,
			b->commit);
		return;
	}
}

static int run_merge(struct sweep_opts *o, int argc, char **argv, int first)
{
	struct merge m = { 0 };
	const char *keys[MAX_VARY];
	FILE *svg = NULL;
	int rc = 0;

	for (int i = first; !rc && i < argc; i++)
		rc = add_file(&m, argv[i]);
	if (!rc && !m.n) {
		fprintf(stderr, "hvtlb sweep: --merge: no lines\n");
		rc = CLI_EXIT_USAGE;
	}
	if (!rc)
		warn_commits(&m);
	if (!rc)
		rc = rebuild_grid(&m);
	if (!rc) {
		m.ncells = m.v[0].row->n;
		m.bands = m.ncells == plain_cells(&m) + 3 * NCSV;
		if (m.ncells != plain_cells(&m) && !m.bands)
			rc = merge_error(&m.v[0], "a row of an unknown shape");
	}
	if (!rc)
		rc = check_complete(&m);
	if (!rc && o->svg_path && column_of(&m, o->metric->name) == (size_t)-1)
		rc = cli_usage_error("sweep",
				     "--merge --svg plots a CSV column; '%s' "
				     "is not one",
				     o->metric->name);
	if (!rc && o->svg_path && !m.nvary)
		rc = cli_usage_error("sweep", "--svg needs a --vary key (x)");
	if (rc)
		goto out;
	if (o->svg_path && !(svg = open_svg(o))) {
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	if (o->output && cli_output_open("sweep", o->output)) {
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	for (size_t k = 0; k < m.nvary; k++)
		keys[k] = m.vary[k].key;
	print_csv_header(keys, m.nvary, m.bands);
	for (size_t i = 0; i < m.n; i++) {
		const char *cells[MAX_CELLS];

		for (size_t c = 0; c < m.v[i].row->n; c++)
			cells[c] = m.v[i].row->child[c].text;
		print_cells(cells, m.v[i].row->n, m.v[i].error);
		if (m.v[i].error)
			rc = CLI_EXIT_FAIL;
	}
	if (fflush(stdout) || ferror(stdout))
		rc = CLI_EXIT_FAIL;
	if (svg) {
		struct plot_src src = {
			.npoints = m.npoints,
			.vary = m.vary,
			.nvary = m.nvary,
			.idx = merge_idx,
			.runs = merge_runs,
			.value = merge_value,
			.strategy = merge_strategy,
			.ctx = &m,
			.bands = m.bands,
		};
		int e;

		plot_metric = o->metric;
		e = write_svg(svg, o, &src, m.v[0].scenario,
			      (size_t)m.v[0].draws);
		if (close_svg(o, svg, e))
			rc = CLI_EXIT_FAIL;
		svg = NULL;
	}
	if (cli_output_finish("sweep", true))
		rc = CLI_EXIT_FAIL;
out:
	if (svg) {
		fclose(svg);
		unlink(o->svg_path);
	}
	merge_finish(&m);
	return rc;
}

/* --------------------------------------------------------------- main */

static int run_sweep(int argc, char **argv)
{
	struct sweep_opts o;
	struct point *points = NULL;
	struct unc_plan u;
	struct run_job **list = NULL;
	size_t *owner = NULL, total = 0;
	struct stream st = { 0 };
	FILE *svg = NULL;
	int rc, first = 0;

	memset(&o, 0, sizeof(o));
	unc_plan_init(&u);
	rc = parse_args(&o, argc, argv, &first);
	if (rc >= 0)
		goto out;
	if (o.merge) {
		rc = run_merge(&o, argc, argv, first);
		goto out;
	}
	points = calloc(o.npoints, sizeof(*points));
	if (!points) {
		rc = CLI_EXIT_FAIL;
		goto out;
	}
	rc = configure_points(&o, points);
	if (rc >= 0)
		goto out;
	rc = build_jobs(&o, points, &u, &list, &owner, &total);
	if (rc >= 0)
		goto out;
	if (o.svg_path && !(svg = open_svg(&o))) {
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	if (o.output && cli_output_open("sweep", o.output)) {
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	if (!o.shard_n) {
		const char *keys[MAX_VARY];

		for (size_t k = 0; k < o.nvary; k++)
			keys[k] = o.vary[k].key;
		print_csv_header(keys, o.nvary, o.draws > 0);
		fflush(stdout);
	}
	st = (struct stream){ .o = &o, .points = points, .owner = owner };
	progress_begin("sweep", "runs", total);
	/* A shard may hold no point at all. */
	job_done_empty(&st);
	if (runpool_run_watched(list, total, (unsigned)o.jobs,
				&(struct runpool_watch){ job_done, &st })) {
		if (svg)
			unlink(o.svg_path); /* no plot of half a grid */
		interrupted(&st);
	}
	progress_end();
	rc = st.rc;
	if (fflush(stdout) || ferror(stdout))
		rc = CLI_EXIT_FAIL;
	if (svg) {
		struct plot_src src = {
			.npoints = o.npoints,
			.vary = o.vary,
			.nvary = o.nvary,
			.idx = run_idx,
			.runs = run_runs,
			.value = run_value,
			.strategy = run_strategy,
			.ctx = points,
			.bands = o.draws > 0,
		};
		int e;

		plot_metric = o.metric;
		e = write_svg(svg, &o, &src, o.path, (size_t)o.draws);
		if (close_svg(&o, svg, e))
			rc = CLI_EXIT_FAIL;
		svg = NULL;
	}
	if (cli_output_finish("sweep", true))
		rc = CLI_EXIT_FAIL;
out:
	if (svg) {
		fclose(svg);
		unlink(o.svg_path);
	}
	free(list);
	free(owner);
	if (points) {
		for (size_t p = 0; p < o.npoints; p++) {
			ensemble_finish(&points[p].e);
			sim_batch_finish(&points[p].b);
		}
		free(points);
	}
	unc_plan_finish(&u);
	for (size_t k = 0; k < o.nvary; k++)
		free(o.vary[k].buf);
	return rc;
}

const struct cli_command cmd_sweep = {
	.name = "sweep",
	.summary = "simulate a grid of scenarios (and merge shards)",
	.run = run_sweep,
	.options = options,
	.operands = "scenario",
};
