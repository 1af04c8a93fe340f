// SPDX-License-Identifier: MIT
/*
 * hvtlb sweep SCENARIO --vary KEY=V1,V2,... [--vary ...] [--set K=V]...
 *             [--seed N] [--jobs N] [--shard I/N]
 *             [--svg FILE [--metric NAME]]
 *
 * Runs the scenario over the cartesian product of the --vary lists (and
 * its `compare` strategies), several runs at once in host threads (each
 * run is deterministic, so the order of completion does not matter), and
 * prints CSV in grid order. With --shard I/N only the grid points whose
 * index is I modulo N run, and each run prints as one JSON line, so a grid
 * larger than one machine runs as a job array and merges by concatenation.
 * With --svg the same CSV goes to stdout and a line plot of one metric
 * (x: the first --vary key) goes to FILE.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvtlb/sim.h>

#include "cli.h"
#include "parse.h"
#include "sim-run.h"
#include "svg.h"

#define MAX_VARY 8
#define MAX_VALUES 64
#define MAX_POINTS 4096

static const char usage_text[] =
	"usage: hvtlb sweep SCENARIO --vary KEY=V1,V2,... [--vary ...]\n"
	"                   [--set KEY=VALUE]... [--seed N] [--jobs N]\n"
	"                   [--shard I/N] [--svg FILE [--metric NAME]]\n"
	"\n"
	"Runs SCENARIO for every combination of the --vary values (and every\n"
	"strategy of its `compare` list), --jobs runs at a time (default: "
	"CPUs\n"
	"online), and prints one CSV row per run in grid order. --shard I/N\n"
	"runs only the points whose index is I modulo N and prints JSON lines\n"
	"(one object per run) for merging by concatenation.\n"
	"\n"
	"--svg FILE also writes an SVG line plot of --metric (a numeric CSV\n"
	"column: real_s (default), user_s, sys_s, vm_exits, ipis_sent,\n"
	"hypercalls, shootdowns, pages_invalidated, latency_us_p50,\n"
	"latency_us_p99, latency_us_max, violations) against the first\n"
	"--vary key, one line per strategy and value of the other keys.\n";

/* The numeric CSV columns --metric can plot. */
static const char *const metric_names[] = {
	"real_s",	  "user_s",
	"sys_s",	  "vm_exits",
	"ipis_sent",	  "hypercalls",
	"shootdowns",	  "pages_invalidated",
	"latency_us_p50", "latency_us_p99",
	"latency_us_max", "violations",
};
#define NMETRICS (sizeof(metric_names) / sizeof(metric_names[0]))

static int metric_index(const char *name)
{
	for (size_t m = 0; m < NMETRICS; m++)
		if (!strcmp(name, metric_names[m]))
			return (int)m;
	return -1;
}

static double metric_value(const struct hvtlb_sim_results *r, int m)
{
	switch (m) {
	case 0:
		return r->real_s;
	case 1:
		return r->user_s;
	case 2:
		return r->sys_s;
	case 3:
		return (double)r->vm_exits_total;
	case 4:
		return (double)r->ipis_sent;
	case 5:
		return (double)r->hypercalls;
	case 6:
		return (double)r->shootdowns;
	case 7:
		return (double)r->pages_invalidated;
	case 8:
		return r->latency_us_p50;
	case 9:
		return r->latency_us_p99;
	case 10:
		return r->latency_us_max;
	default:
		return (double)r->violations;
	}
}

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
};

struct job_queue {
	pthread_mutex_t lock;
	struct point *points;
	size_t npoints, next_point, next_run;
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

/* Takes the next (point, run) pair; returns 0 when none is left. */
static int next_job(struct job_queue *q, struct point **p, size_t *run)
{
	int got = 0;

	pthread_mutex_lock(&q->lock);
	while (q->next_point < q->npoints) {
		struct point *cand = &q->points[q->next_point];

		if (!cand->configured || q->next_run >= cand->b.nruns) {
			q->next_point++;
			q->next_run = 0;
			continue;
		}
		*p = cand;
		*run = q->next_run++;
		got = 1;
		break;
	}
	pthread_mutex_unlock(&q->lock);
	return got;
}

static void *worker(void *data)
{
	struct job_queue *q = data;
	struct point *p;
	size_t run;

	while (next_job(q, &p, &run)) {
		p->b.run_rc[run] =
			hvtlb_sim_run(&p->b.cfg[run], &p->b.res[run]);
		if (p->b.run_rc[run])
			p->b.res[run] = NULL;
	}
	return NULL;
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

static void print_csv_header(const struct vary *v, size_t nvary)
{
	for (size_t k = 0; k < nvary; k++) {
		csv_field(v[k].key);
		putchar(',');
	}
	printf("strategy,seed,real_s,user_s,sys_s,vm_exits,ipis_sent,"
	       "hypercalls,shootdowns,pages_invalidated,latency_us_p50,"
	       "latency_us_p99,latency_us_max,violations,error\n");
}

static void print_csv_row(const struct vary *v, size_t nvary,
			  const struct point *p, size_t run)
{
	const struct hvtlb_sim_results *r = p->b.res[run];

	for (size_t k = 0; k < nvary; k++) {
		csv_field(v[k].values[p->idx[k]]);
		putchar(',');
	}
	if (!r) {
		printf("%s,,,,,,,,,,,,,,%s\n",
		       p->b.strategy[run] ? p->b.strategy[run] : "",
		       strerror(-p->b.run_rc[run]));
		return;
	}
	printf("%s,%llu,%.9g,%.9g,%.9g,%llu,%llu,%llu,%llu,%llu,%.9g,%.9g,"
	       "%.9g,%llu,\n",
	       sim_strategy_name(r), (unsigned long long)r->seed, r->real_s,
	       r->user_s, r->sys_s, (unsigned long long)r->vm_exits_total,
	       (unsigned long long)r->ipis_sent,
	       (unsigned long long)r->hypercalls,
	       (unsigned long long)r->shootdowns,
	       (unsigned long long)r->pages_invalidated, r->latency_us_p50,
	       r->latency_us_p99, r->latency_us_max,
	       (unsigned long long)r->violations);
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

static void print_json_line(const struct vary *v, size_t nvary,
			    const struct point *p, size_t pindex, size_t run)
{
	printf("{\"point\":%zu,\"values\":{", pindex);
	for (size_t k = 0; k < nvary; k++) {
		if (k)
			putchar(',');
		json_str(v[k].key);
		putchar(':');
		json_str(v[k].values[p->idx[k]]);
	}
	printf("},\"result\":");
	if (p->b.res[run])
		hvtlb_sim_results_write_json(p->b.res[run], stdout);
	else {
		printf("null,\"error\":");
		json_str(strerror(-p->b.run_rc[run]));
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

/*
 * Plots metric @m against the first --vary key: one series per strategy
 * (run index) and combination of the other keys' values. Grid points are
 * in row-major order, so point p has x index p / rest and series group
 * p % rest, where rest is the product of the other keys' value counts.
 */
static int write_svg(FILE *f, const struct vary *v, size_t nvary,
		     const struct point *points, size_t npoints, int m,
		     const char *title)
{
	struct svg_plot plot;
	size_t nx = v[0].n, rest = npoints / nx, nruns = 0, nseries;
	double xval[MAX_VALUES], *y = NULL;
	char ttl[1024], (*names)[256] = NULL;
	const char **name_ptrs = NULL;
	int rc = -ENOMEM;

	for (size_t p = 0; p < npoints; p++)
		if (points[p].b.nruns > nruns)
			nruns = points[p].b.nruns;
	nseries = rest * nruns;
	if (!nseries)
		return -EINVAL;
	y = malloc(nseries * nx * sizeof(*y));
	names = calloc(nseries, sizeof(*names));
	name_ptrs = calloc(nseries, sizeof(*name_ptrs));
	if (!y || !names || !name_ptrs)
		goto out;
	for (size_t k = 0; k < nseries * nx; k++)
		y[k] = NAN;
	for (size_t p = 0; p < npoints; p++) {
		const struct point *pt = &points[p];
		size_t i = p / rest, j = p % rest;

		for (size_t r = 0; r < pt->b.nruns; r++) {
			size_t s = j * nruns + r;
			const char *strat =
				pt->b.res[r] ? sim_strategy_name(pt->b.res[r])
					     : pt->b.strategy[r];
			int len;

			if (pt->b.res[r])
				y[s * nx + i] = metric_value(pt->b.res[r], m);
			if (names[s][0] && !pt->b.res[r])
				continue;
			len = snprintf(names[s], sizeof(names[s]), "%s",
				       strat ? strat : "run");
			for (size_t k = 1; k < nvary && len >= 0 &&
					   (size_t)len < sizeof(names[s]);
			     k++)
				len += snprintf(names[s] + len,
						sizeof(names[s]) - (size_t)len,
						" %s=%s", v[k].key,
						v[k].values[pt->idx[k]]);
		}
	}
	for (size_t s = 0; s < nseries; s++)
		name_ptrs[s] = names[s];
	snprintf(ttl, sizeof(ttl), "%s: %s", title, metric_names[m]);
	plot = (struct svg_plot){
		.title = ttl,
		.xlabel = v[0].key,
		.ylabel = metric_names[m],
		.nx = nx,
		.xnames = (const char *const *)v[0].values,
		.xval = numeric_values(&v[0], xval) ? xval : NULL,
		.nseries = nseries,
		.names = name_ptrs,
		.y = y,
	};
	rc = svg_plot_write(f, &plot);
out:
	free(y);
	free(names);
	free(name_ptrs);
	return rc;
}

int cmd_sweep(int argc, char **argv)
{
	struct vary vary[MAX_VARY];
	size_t nvary = 0, npoints = 1, shard_i = 0, shard_n = 0;
	const char *path = NULL, *sets[64], *seed = NULL;
	const char *svg_path = NULL, *metric = NULL;
	FILE *svg = NULL;
	int metric_i = 0;
	size_t nsets = 0;
	uint64_t jobs = sim_host_threads();
	struct point *points = NULL;
	struct job_queue q;
	pthread_t tid[HVTLB_SIM_MAX_THREADS];
	size_t nthreads = 0;
	int rc = CLI_EXIT_OK;

	memset(vary, 0, sizeof(vary));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_text, stdout);
			return CLI_EXIT_OK;
		}
		if (a[0] != '-') {
			if (path) {
				rc = cli_usage_error("sweep",
						     "one scenario at a time");
				goto out;
			}
			path = a;
			continue;
		}
		if (i + 1 >= argc ||
		    (strcmp(a, "--vary") && strcmp(a, "--set") &&
		     strcmp(a, "--seed") && strcmp(a, "--jobs") &&
		     strcmp(a, "--shard") && strcmp(a, "--svg") &&
		     strcmp(a, "--metric"))) {
			rc = cli_usage_error("sweep", "%s '%s'",
					     i + 1 >= argc ? "missing value for"
							   : "unknown option",
					     a);
			goto out;
		}
		val = argv[++i];
		if (!strcmp(a, "--vary")) {
			int e;

			if (nvary == MAX_VARY) {
				rc = cli_usage_error(
					"sweep", "at most %d --vary options",
					MAX_VARY);
				goto out;
			}
			e = parse_vary(&vary[nvary], val);
			nvary++;
			if (e) {
				rc = cli_usage_error(
					"sweep",
					"--vary '%s': expected KEY=V1,V2,... "
					"(at most %d values)",
					val, MAX_VALUES);
				goto out;
			}
			npoints *= vary[nvary - 1].n;
		} else if (!strcmp(a, "--set")) {
			if (nsets == sizeof(sets) / sizeof(sets[0])) {
				rc = cli_usage_error("sweep", "too many --set");
				goto out;
			}
			sets[nsets++] = val;
		} else if (!strcmp(a, "--svg")) {
			svg_path = val;
		} else if (!strcmp(a, "--metric")) {
			metric = val;
		} else if (!strcmp(a, "--seed")) {
			uint64_t n;

			if (parse_u64(val, &n)) {
				rc = cli_usage_error(
					"sweep", "--seed '%s': not a number",
					val);
				goto out;
			}
			seed = val;
		} else if (!strcmp(a, "--jobs")) {
			if (parse_u64_max(val, HVTLB_SIM_MAX_THREADS, &jobs) ||
			    !jobs) {
				rc = cli_usage_error("sweep",
						     "--jobs '%s': 1..%u", val,
						     HVTLB_SIM_MAX_THREADS);
				goto out;
			}
		} else {
			const char *slash = strchr(val, '/');
			char ibuf[24];
			uint64_t si, sn;

			if (!slash || (size_t)(slash - val) >= sizeof(ibuf)) {
				rc = cli_usage_error(
					"sweep", "--shard '%s': expected I/N",
					val);
				goto out;
			}
			memcpy(ibuf, val, (size_t)(slash - val));
			ibuf[slash - val] = '\0';
			if (parse_u64(ibuf, &si) || parse_u64(slash + 1, &sn) ||
			    !sn || si >= sn) {
				rc = cli_usage_error(
					"sweep",
					"--shard '%s': expected I/N "
					"with 0 <= I < N",
					val);
				goto out;
			}
			shard_i = (size_t)si;
			shard_n = (size_t)sn;
		}
	}
	if (!path) {
		rc = cli_usage_error("sweep", "missing SCENARIO");
		goto out;
	}
	if (metric && !svg_path) {
		rc = cli_usage_error("sweep", "--metric needs --svg FILE");
		goto out;
	}
	if (metric) {
		metric_i = metric_index(metric);
		if (metric_i < 0) {
			rc = cli_usage_error(
				"sweep",
				"--metric '%s': not a numeric CSV column "
				"(see --help)",
				metric);
			goto out;
		}
	}
	if (svg_path && shard_n) {
		rc = cli_usage_error("sweep", "--svg and --shard do not mix: "
					      "plot the merged results");
		goto out;
	}
	if (svg_path && !nvary) {
		rc = cli_usage_error("sweep", "--svg needs a --vary key (x)");
		goto out;
	}
	if (npoints > MAX_POINTS) {
		rc = cli_usage_error("sweep", "%zu grid points (at most %d)",
				     npoints, MAX_POINTS);
		goto out;
	}

	points = calloc(npoints, sizeof(*points));
	if (!points) {
		rc = CLI_EXIT_FAIL;
		goto out;
	}
	/* Configure every point first: a bad value stops before any run. */
	for (size_t p = 0; p < npoints; p++) {
		struct point *pt = &points[p];
		size_t rest = p;
		int e;

		sim_batch_init(&pt->b);
		for (size_t k = nvary; k-- > 0;) {
			pt->idx[k] = rest % vary[k].n;
			rest /= vary[k].n;
		}
		if (shard_n && p % shard_n != shard_i)
			continue;
		e = scenario_load(&pt->b.sc, path);
		for (size_t k = 0; !e && k < nsets; k++)
			e = scenario_add_override(&pt->b.sc, sets[k]);
		for (size_t k = 0; !e && k < nvary; k++)
			e = scenario_add_option(&pt->b.sc, "--vary",
						vary[k].key,
						vary[k].values[pt->idx[k]]);
		if (!e && seed)
			e = scenario_add_option(&pt->b.sc, "--seed", "seed",
						seed);
		if (!e)
			e = sim_batch_configure(&pt->b, 1);
		if (e) {
			fprintf(stderr, "%s\n", pt->b.sc.err);
			rc = CLI_EXIT_USAGE;
			goto out;
		}
		pt->configured = 1;
	}

	/* Open the plot before the runs: a bad path costs no run time. */
	if (svg_path) {
		svg = fopen(svg_path, "w");
		if (!svg) {
			rc = cli_usage_error("sweep", "--svg '%s': %s",
					     svg_path, strerror(errno));
			goto out;
		}
	}

	memset(&q, 0, sizeof(q));
	pthread_mutex_init(&q.lock, NULL);
	q.points = points;
	q.npoints = npoints;
	for (; nthreads < jobs; nthreads++) {
		if (pthread_create(&tid[nthreads], NULL, worker, &q))
			break;
	}
	if (!nthreads)
		worker(&q);
	for (size_t t = 0; t < nthreads; t++)
		pthread_join(tid[t], NULL);
	pthread_mutex_destroy(&q.lock);

	if (!shard_n)
		print_csv_header(vary, nvary);
	for (size_t p = 0; p < npoints; p++) {
		if (!points[p].configured)
			continue;
		for (size_t r = 0; r < points[p].b.nruns; r++) {
			if (points[p].b.run_rc[r])
				rc = CLI_EXIT_FAIL;
			if (shard_n)
				print_json_line(vary, nvary, &points[p], p, r);
			else
				print_csv_row(vary, nvary, &points[p], r);
		}
	}
	if (fflush(stdout) || ferror(stdout))
		rc = CLI_EXIT_FAIL;
	if (svg) {
		const char *title =
			points[0].b.sc.title ? points[0].b.sc.title : path;
		int e = write_svg(svg, vary, nvary, points, npoints, metric_i,
				  title);

		if (fclose(svg) && !e)
			e = -EIO;
		svg = NULL;
		if (e) {
			fprintf(stderr, "hvtlb sweep: --svg '%s': %s\n",
				svg_path, strerror(-e));
			rc = CLI_EXIT_FAIL;
		}
	}
out:
	if (svg)
		fclose(svg);
	if (points) {
		for (size_t p = 0; p < npoints; p++)
			sim_batch_finish(&points[p].b);
		free(points);
	}
	for (size_t k = 0; k < nvary; k++)
		free(vary[k].buf);
	return rc;
}
