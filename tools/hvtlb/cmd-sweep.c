// SPDX-License-Identifier: MIT
/*
 * hvtlb sweep SCENARIO --vary KEY=V1,V2,... [--vary ...] [--set K=V]...
 *             [--seed N] [--jobs N] [--shard I/N] [--uncertainty N]
 *             [--svg FILE [--metric NAME]]
 *
 * Runs the scenario over the cartesian product of the --vary lists (and
 * its `compare` strategies), several runs at once in host threads (each
 * run is deterministic, so the order of completion does not matter), and
 * prints CSV in grid order. With --shard I/N only the grid points whose
 * index is I modulo N run, and each run prints as one JSON line, so a grid
 * larger than one machine runs as a job array and merges by concatenation.
 * With --svg the same CSV goes to stdout and a line plot of one metric
 * (x: the first --vary key) goes to FILE. With --uncertainty N every run
 * of every grid point is repeated on the same N draws of the uncertain
 * parameters (uncertain.h): the CSV gains p5/p50/p95 columns per metric,
 * a JSON line "bands", and each series of the plot a shaded p5..p95 band.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvtlb/sim.h>

#include "cli.h"
#include "ensemble.h"
#include "metrics.h"
#include "parse.h"
#include "runpool.h"
#include "sim-run.h"
#include "svg.h"
#include "uncertain.h"

#define MAX_VARY 8
#define MAX_VALUES 64
#define MAX_POINTS 4096
#define MAX_DRAWS 100000u

static const char usage_text[] =
	"usage: hvtlb sweep SCENARIO --vary KEY=V1,V2,... [--vary ...]\n"
	"                   [--set KEY=VALUE]... [--seed N] [--jobs N]\n"
	"                   [--shard I/N] [--uncertainty N]\n"
	"                   [--svg FILE [--metric NAME]]\n"
	"\n"
	"Runs SCENARIO for every combination of the --vary values (and every\n"
	"strategy of its `compare` list), --jobs runs at a time (default: "
	"CPUs\n"
	"online), and prints one CSV row per run in grid order. --shard I/N\n"
	"runs only the points whose index is I modulo N and prints JSON lines\n"
	"(one object per run) for merging by concatenation.\n"
	"\n"
	"--uncertainty N repeats every run on the same N draws of the\n"
	"uncertain parameters (ranges in the profile and scenario lines) and\n"
	"adds METRIC_p5, METRIC_p50, METRIC_p95 columns (\"bands\" in JSON).\n"
	"\n"
	"--svg FILE also writes an SVG line plot of --metric (real_s by\n"
	"default, or user_s, sys_s, vm_exits, ipis_sent, hypercalls,\n"
	"shootdowns, pages_invalidated, latency_us_p50, latency_us_p99,\n"
	"latency_us_max, violations, ops_per_s, ...) against the first\n"
	"--vary key, one line per strategy and value of the other keys, with\n"
	"its p5..p95 band shaded under --uncertainty.\n";

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
};

struct sweep_opts {
	struct vary vary[MAX_VARY];
	size_t nvary, npoints, shard_i, shard_n, nsets;
	const char *path, *sets[64], *seed, *svg_path;
	const struct metric *metric;
	uint64_t jobs, draws;
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

static void csv_field(const char *s)
{
	if (strpbrk(s, ",\"\n")) {
		putchar('"');
		for (; *s; s++) {
			if (*s == '"')
				putchar('"');
			putchar(*s);
		}
		putchar('"');
	} else {
		fputs(s, stdout);
	}
}

static void print_csv_header(const struct sweep_opts *o)
{
	for (size_t k = 0; k < o->nvary; k++) {
		csv_field(o->vary[k].key);
		putchar(',');
	}
	printf("strategy,seed,real_s,user_s,sys_s,vm_exits,ipis_sent,"
	       "hypercalls,shootdowns,pages_invalidated,latency_us_p50,"
	       "latency_us_p99,latency_us_max,violations,");
	for (size_t m = 0; o->draws && m < NCSV; m++)
		printf("%s_p5,%s_p50,%s_p95,", csv_metrics[m], csv_metrics[m],
		       csv_metrics[m]);
	printf("error\n");
}

static void print_csv_row(const struct sweep_opts *o, const struct point *p,
			  size_t run)
{
	const struct hvtlb_sim_results *r = p->b.res[run];

	for (size_t k = 0; k < o->nvary; k++) {
		csv_field(o->vary[k].values[p->idx[k]]);
		putchar(',');
	}
	if (!r) {
		printf("%s,,,,,,,,,,,,,,",
		       p->b.strategy[run] ? p->b.strategy[run] : "");
		for (size_t m = 0; o->draws && m < NCSV; m++)
			printf(",,,");
		printf("%s\n", strerror(-p->b.run_rc[run]));
		return;
	}
	printf("%s,%llu,%.9g,%.9g,%.9g,%llu,%llu,%llu,%llu,%llu,%.9g,%.9g,"
	       "%.9g,%llu,",
	       sim_strategy_name(r), (unsigned long long)r->seed, r->real_s,
	       r->user_s, r->sys_s, (unsigned long long)r->vm_exits_total,
	       (unsigned long long)r->ipis_sent,
	       (unsigned long long)r->hypercalls,
	       (unsigned long long)r->shootdowns,
	       (unsigned long long)r->pages_invalidated, r->latency_us_p50,
	       r->latency_us_p99, r->latency_us_max,
	       (unsigned long long)r->violations);
	for (size_t m = 0; o->draws && m < NCSV; m++) {
		struct band bd;

		ensemble_band(&p->e, run, metric_find(csv_metrics[m]), &bd);
		printf("%.9g,%.9g,%.9g,", bd.p5, bd.p50, bd.p95);
	}
	putchar('\n');
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void print_json_line(const struct sweep_opts *o, const struct point *p,
			    size_t pindex, size_t run)
{
	printf("{\"point\":%zu,\"values\":{", pindex);
	for (size_t k = 0; k < o->nvary; k++) {
		if (k)
			putchar(',');
		json_str(o->vary[k].key);
		putchar(':');
		json_str(o->vary[k].values[p->idx[k]]);
	}
	printf("},\"result\":");
	if (!p->b.res[run]) {
		printf("null,\"error\":");
		json_str(strerror(-p->b.run_rc[run]));
		printf("}\n");
		return;
	}
	hvtlb_sim_results_write_json(p->b.res[run], stdout);
	if (o->draws) {
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

/* The series of the plot, one per strategy (run index) and combination of
 * the other keys' values. */
struct series {
	size_t nx, nseries, nruns, rest;
	double *y, *lo, *hi;
	char (*names)[256];
	const char **name_ptrs;
};

static void series_finish(struct series *s)
{
	free(s->y);
	free(s->lo);
	free(s->hi);
	free(s->names);
	free(s->name_ptrs);
}

static void series_name(const struct sweep_opts *o, const struct point *pt,
			size_t r, char *name, size_t len)
{
	const char *strat = pt->b.res[r] ? sim_strategy_name(pt->b.res[r])
					 : pt->b.strategy[r];
	int n = snprintf(name, len, "%s", strat ? strat : "run");

	for (size_t k = 1; k < o->nvary && n >= 0 && (size_t)n < len; k++)
		n += snprintf(name + n, len - (size_t)n, " %s=%s",
			      o->vary[k].key, o->vary[k].values[pt->idx[k]]);
}

/*
 * Fills the series: grid points are in row-major order, so point p has x
 * index p / rest and series group p % rest, where rest is the product of
 * the other keys' value counts.
 */
static int series_fill(struct series *s, const struct sweep_opts *o,
		       const struct point *points)
{
	s->nx = o->vary[0].n;
	s->rest = o->npoints / s->nx;
	for (size_t p = 0; p < o->npoints; p++)
		if (points[p].b.nruns > s->nruns)
			s->nruns = points[p].b.nruns;
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
	for (size_t p = 0; p < o->npoints; p++) {
		const struct point *pt = &points[p];
		size_t i = p / s->rest, j = p % s->rest;

		for (size_t r = 0; r < pt->b.nruns; r++) {
			size_t si = j * s->nruns + r;

			if (pt->b.res[r]) {
				struct band bd;

				s->y[si * s->nx + i] = o->metric->get(
					pt->b.res[r], &pt->b.cfg[r]);
				if (o->draws) {
					ensemble_band(&pt->e, r, o->metric,
						      &bd);
					s->lo[si * s->nx + i] = bd.p5;
					s->hi[si * s->nx + i] = bd.p95;
				}
			}
			if (s->names[si][0] && !pt->b.res[r])
				continue;
			series_name(o, pt, r, s->names[si],
				    sizeof(s->names[si]));
		}
	}
	for (size_t k = 0; k < s->nseries; k++)
		s->name_ptrs[k] = s->names[k];
	return 0;
}

/* Plots the metric against the first --vary key. */
static int write_svg(FILE *f, const struct sweep_opts *o,
		     const struct point *points, const char *title)
{
	struct series s = { 0 };
	double xval[MAX_VALUES];
	char ttl[1024];
	int rc = series_fill(&s, o, points);

	if (!rc) {
		snprintf(ttl, sizeof(ttl), "%s: %s", title, o->metric->name);
		rc = svg_plot_write(
			f,
			&(struct svg_plot){
				.title = ttl,
				.xlabel = o->vary[0].key,
				.ylabel = o->metric->name,
				.nx = s.nx,
				.xnames =
					(const char *const *)o->vary[0].values,
				.xval = numeric_values(&o->vary[0], xval)
						? xval
						: NULL,
				.nseries = s.nseries,
				.names = s.name_ptrs,
				.y = s.y,
				.y_lo = o->draws ? s.lo : NULL,
				.y_hi = o->draws ? s.hi : NULL,
			});
	}
	series_finish(&s);
	return rc;
}

/* Options that take a value; returns -1 to go on, or an exit code. */
static int take_option(struct sweep_opts *o, const char *a, const char *val)
{
	uint64_t n;

	if (!strcmp(a, "--vary")) {
		int e;

		if (o->nvary == MAX_VARY)
			return cli_usage_error(
				"sweep", "at most %d --vary options", MAX_VARY);
		e = parse_vary(&o->vary[o->nvary], val);
		o->nvary++;
		if (e)
			return cli_usage_error(
				"sweep",
				"--vary '%s': expected KEY=V1,V2,... (at most "
				"%d values)",
				val, MAX_VALUES);
		o->npoints *= o->vary[o->nvary - 1].n;
	} else if (!strcmp(a, "--set")) {
		if (o->nsets == sizeof(o->sets) / sizeof(o->sets[0]))
			return cli_usage_error("sweep", "too many --set");
		o->sets[o->nsets++] = val;
	} else if (!strcmp(a, "--svg")) {
		o->svg_path = val;
	} else if (!strcmp(a, "--metric")) {
		o->metric = metric_find(val);
		if (!o->metric)
			return cli_usage_error("sweep",
					       "--metric '%s': not a metric "
					       "(see --help)",
					       val);
	} else if (!strcmp(a, "--seed")) {
		if (parse_u64(val, &n))
			return cli_usage_error(
				"sweep", "--seed '%s': not a number", val);
		o->seed = val;
	} else if (!strcmp(a, "--jobs")) {
		if (parse_u64_max(val, HVTLB_SIM_MAX_THREADS, &o->jobs) ||
		    !o->jobs)
			return cli_usage_error("sweep", "--jobs '%s': 1..%u",
					       val, HVTLB_SIM_MAX_THREADS);
	} else if (!strcmp(a, "--uncertainty")) {
		if (parse_u64_max(val, MAX_DRAWS, &o->draws) || !o->draws)
			return cli_usage_error("sweep",
					       "--uncertainty '%s': 1..%u "
					       "draws",
					       val, MAX_DRAWS);
	} else {
		const char *slash = strchr(val, '/');
		char ibuf[24];
		uint64_t si, sn;

		if (!slash || (size_t)(slash - val) >= sizeof(ibuf))
			return cli_usage_error(
				"sweep", "--shard '%s': expected I/N", val);
		memcpy(ibuf, val, (size_t)(slash - val));
		ibuf[slash - val] = '\0';
		if (parse_u64(ibuf, &si) || parse_u64(slash + 1, &sn) || !sn ||
		    si >= sn)
			return cli_usage_error("sweep",
					       "--shard '%s': expected I/N "
					       "with 0 <= I < N",
					       val);
		o->shard_i = (size_t)si;
		o->shard_n = (size_t)sn;
	}
	return -1;
}

static int parse_args(struct sweep_opts *o, int argc, char **argv)
{
	static const char *const valued[] = {
		"--vary",  "--set", "--seed",	"--jobs",
		"--shard", "--svg", "--metric", "--uncertainty",
	};
	bool metric_given = false;

	o->npoints = 1;
	o->jobs = sim_host_threads();
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool known = false;
		int rc;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_text, stdout);
			return CLI_EXIT_OK;
		}
		if (a[0] != '-') {
			if (o->path)
				return cli_usage_error(
					"sweep", "one scenario at a time");
			o->path = a;
			continue;
		}
		for (size_t k = 0; k < sizeof(valued) / sizeof(*valued); k++)
			known |= !strcmp(a, valued[k]);
		if (i + 1 >= argc || !known)
			return cli_usage_error("sweep", "%s '%s'",
					       i + 1 >= argc
						       ? "missing value for"
						       : "unknown option",
					       a);
		metric_given |= !strcmp(a, "--metric");
		rc = take_option(o, a, argv[++i]);
		if (rc >= 0)
			return rc;
	}
	if (!o->path)
		return cli_usage_error("sweep", "missing SCENARIO");
	if (metric_given && !o->svg_path)
		return cli_usage_error("sweep", "--metric needs --svg FILE");
	if (!o->metric)
		o->metric = metric_find("real_s");
	if (o->svg_path && o->shard_n)
		return cli_usage_error("sweep", "--svg and --shard do not mix: "
						"plot the merged results");
	if (o->svg_path && !o->nvary)
		return cli_usage_error("sweep", "--svg needs a --vary key (x)");
	if (o->npoints > MAX_POINTS)
		return cli_usage_error("sweep", "%zu grid points (at most %d)",
				       o->npoints, MAX_POINTS);
	return -1;
}

/* Configures every point of this shard: a bad value stops before any
 * run. Returns -1 to go on, or an exit code (message printed). */
static int configure_points(const struct sweep_opts *o, struct point *points)
{
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
		e = scenario_load(&pt->b.sc, o->path);
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
		pt->configured = 1;
	}
	return -1;
}

/*
 * Builds every point's ensemble on one set of draws (so that the bands of
 * neighbouring points are comparable) and runs all of them in one pool.
 * The nominal results go back into each point's batch. Returns -1 to go
 * on, or an exit code (message printed).
 */
static int run_points(const struct sweep_opts *o, struct point *points,
		      struct unc_plan *u)
{
	size_t total = 0, k = 0;
	struct run_job **list;
	char err[SCENARIO_ERR_MAX];
	uint64_t seed = 0;
	int rc = 0;

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
		total += ensemble_njobs(&pt->e);
	}
	list = malloc((total ? total : 1) * sizeof(*list));
	if (!list) {
		fprintf(stderr, "hvtlb sweep: out of memory\n");
		return CLI_EXIT_FAIL;
	}
	for (size_t p = 0; p < o->npoints; p++) {
		if (!points[p].configured)
			continue;
		ensemble_job_list(&points[p].e, list + k);
		k += ensemble_njobs(&points[p].e);
	}
	runpool_run(list, total, (unsigned)o->jobs);
	free(list);
	for (size_t p = 0; p < o->npoints; p++) {
		struct point *pt = &points[p];

		for (size_t r = 0; pt->configured && r < pt->b.nruns; r++) {
			struct run_job *j = ensemble_job(&pt->e, 0, r);

			pt->b.run_rc[r] = j->rc;
			pt->b.res[r] = j->res;
			j->res = NULL;
		}
	}
	return -1;
}

/* A run failed in some draw: the point's bands cannot be computed. */
static int failed_draws(const struct point *pt)
{
	char err[SCENARIO_ERR_MAX];

	if (!ensemble_first_failure(&pt->e, err, sizeof(err)))
		return 0;
	fprintf(stderr, "hvtlb sweep: %s: %s\n", pt->b.sc.path, err);
	return 1;
}

static int print_points(const struct sweep_opts *o, const struct point *points)
{
	int rc = CLI_EXIT_OK;

	if (!o->shard_n)
		print_csv_header(o);
	for (size_t p = 0; p < o->npoints; p++) {
		if (!points[p].configured)
			continue;
		for (size_t r = 0; r < points[p].b.nruns; r++) {
			if (points[p].b.run_rc[r])
				rc = CLI_EXIT_FAIL;
			if (o->shard_n)
				print_json_line(o, &points[p], p, r);
			else
				print_csv_row(o, &points[p], r);
		}
	}
	if (fflush(stdout) || ferror(stdout))
		rc = CLI_EXIT_FAIL;
	return rc;
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep_opts o;
	struct point *points = NULL;
	struct unc_plan u;
	FILE *svg = NULL;
	int rc;

	memset(&o, 0, sizeof(o));
	unc_plan_init(&u);
	rc = parse_args(&o, argc, argv);
	if (rc >= 0)
		goto out;
	points = calloc(o.npoints, sizeof(*points));
	if (!points) {
		rc = CLI_EXIT_FAIL;
		goto out;
	}
	rc = configure_points(&o, points);
	if (rc >= 0)
		goto out;
	/* Open the plot before the runs: a bad path costs no run time. */
	if (o.svg_path) {
		svg = fopen(o.svg_path, "w");
		if (!svg) {
			rc = cli_usage_error("sweep", "--svg '%s': %s",
					     o.svg_path, strerror(errno));
			goto out;
		}
	}
	rc = run_points(&o, points, &u);
	if (rc >= 0)
		goto out;
	for (size_t p = 0; o.draws && p < o.npoints; p++) {
		if (points[p].configured && failed_draws(&points[p])) {
			rc = CLI_EXIT_FAIL;
			goto out;
		}
	}
	rc = print_points(&o, points);
	if (svg) {
		const char *title =
			points[0].b.sc.title ? points[0].b.sc.title : o.path;
		int e = write_svg(svg, &o, points, title);

		if (fclose(svg) && !e)
			e = -EIO;
		svg = NULL;
		if (e) {
			fprintf(stderr, "hvtlb sweep: --svg '%s': %s\n",
				o.svg_path, strerror(-e));
			rc = CLI_EXIT_FAIL;
		}
	}
out:
	if (svg)
		fclose(svg);
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
