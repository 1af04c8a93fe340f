// SPDX-License-Identifier: MIT
/*
 * hvtlb sensitivity SCENARIO [--metric real|sys|NAME] [--ratio A/B]
 *                            [--json] [--svg FILE] [--set KEY=VALUE]...
 *                            [--seed N] [--threads N]
 *
 * One-at-a-time sensitivity of a ratio between two strategies: for every
 * uncertain parameter (uncertain.h), both strategies run with it at the
 * low and at the high end of its range and everything else as written.
 * Parameters are ranked by their swing, the width of the span covered by
 * the ratio at the low end, at the high end and at the baseline. Prints a
 * table or JSON, and --svg writes a tornado plot.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ensemble.h"
#include "json.h"
#include "parse.h"
#include "progress.h"
#include "suggest.h"
#include "runpool.h"
#include "sim-run.h"
#include "svg.h"
#include "uncertain.h"

static const char usage_text[] =
	"usage: hvtlb sensitivity SCENARIO [--metric real|sys|NAME]\n"
	"                         [--ratio A/B] [--json] [--svg FILE]\n"
	"                         [--set KEY=VALUE]... [--seed N] [--threads "
	"N]\n"
	"                         [-o FILE] [-q]\n"
	"\n"
	"Runs two strategies of SCENARIO with each uncertain parameter (a\n"
	"profile or scenario line with a range, or a cost at the library's\n"
	"default) at the low and at the high end of its range, the others as\n"
	"written, and ranks the parameters by how far they move the ratio\n"
	"metric(A) / metric(B).\n"
	"  --metric M   real (default), sys, or a metric name (real_s, sys_s,\n"
	"               latency_us_p50, ops_per_s, ...)\n"
	"  --ratio A/B  the two strategies (default: the first two of the\n"
	"               scenario's compare list)\n"
	"  --json       "
	"{\"ratio\",\"metric\",\"baseline\",\"parameters\":[{name,\n"
	"               low, high, ratio_at_low, ratio_at_high, swing}]},\n"
	"               sorted by swing\n"
	"  --svg FILE   also write a tornado plot\n"
	"  --threads N  runs at once (default: CPUs online)\n"
	"  -o, --output FILE  write to FILE (a new file, renamed into place)\n"
	"  -q, --quiet  no progress line on stderr\n";

/* Most bars in the tornado plot. */
#define TORNADO_MAX 25

struct sens_opts {
	const char *path, *metric_arg, *ratio, *svg, *output;
	const struct metric *metric;
	bool json;
	struct {
		int opt;
		const char *value;
	} ov[128]; /* --set, --seed, --threads in order */
	size_t nov;
};

/* One parameter's outcome. */
struct swing {
	size_t j; /* index in the plan */
	double at_low, at_high, swing;
};

enum {
	OPT_METRIC = 256,
	OPT_RATIO,
	OPT_SVG,
	OPT_JSON,
	OPT_SET,
	OPT_SEED,
	OPT_THREADS
};

static const struct option options[] = {
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "ratio", required_argument, NULL, OPT_RATIO },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "set", required_argument, NULL, OPT_SET },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static int take_option(struct sens_opts *o, int c, const char *v)
{
	const char **slot = c == OPT_METRIC  ? &o->metric_arg
			    : c == OPT_RATIO ? &o->ratio
			    : c == OPT_SVG   ? &o->svg
			    : c == 'o'	     ? &o->output
					     : NULL;
	uint64_t n;

	if (slot) {
		if (*slot)
			return cli_usage_error("sensitivity", "%s given twice",
					       c == OPT_METRIC	? "--metric"
					       : c == OPT_RATIO ? "--ratio"
					       : c == OPT_SVG	? "--svg"
								: "-o");
		*slot = v;
		return 0;
	}
	switch (c) {
	case OPT_JSON:
		o->json = true;
		return 0;
	case OPT_SEED:
		if (cli_u64("sensitivity", "--seed", v, 0, UINT64_MAX, &n))
			return CLI_EXIT_USAGE;
		break;
	case OPT_THREADS:
		if (cli_u64("sensitivity", "--threads", v, 1,
			    HVTLB_SIM_MAX_THREADS, &n))
			return CLI_EXIT_USAGE;
		break;
	case OPT_SET:
		break;
	default:
		return CLI_EXIT_USAGE;
	}
	if (o->nov == sizeof(o->ov) / sizeof(o->ov[0]))
		return cli_usage_error("sensitivity", "too many overrides");
	o->ov[o->nov].opt = c;
	o->ov[o->nov++].value = v;
	return 0;
}

static int take(void *o, int c, const char *v)
{
	return take_option(o, c, v);
}

static int parse_args(struct sens_opts *o, int argc, char **argv)
{
	int rc = cli_parse_options(&cmd_sensitivity, usage_text, argc, argv,
				   take, o);

	if (rc < 0)
		rc = cli_scenario_operand("sensitivity", argc, argv, &o->path);
	if (rc >= 0)
		return rc;
	if (!o->metric_arg || !strcmp(o->metric_arg, "real"))
		o->metric = metric_find("real_s");
	else if (!strcmp(o->metric_arg, "sys"))
		o->metric = metric_find("sys_s");
	else
		o->metric = metric_find(o->metric_arg);
	if (!o->metric) {
		char names[512], hint[96];
		struct suggest sg;

		suggest_init(&sg, o->metric_arg);
		for (size_t i = 0; i < metric_count(); i++)
			suggest_add(&sg, metric_at(i)->name);
		metric_names(names, sizeof(names));
		return cli_usage_error(
			"sensitivity",
			"--metric '%s'%s: real, sys or one of %s",
			o->metric_arg, suggest_hint(&sg, hint, sizeof(hint)),
			names);
	}
	return -1;
}

/* Loads the scenario with the overrides and the two strategies of the
 * ratio. Returns -1 to go on or an exit code (message printed). */
static int load(const struct sens_opts *o, struct sim_batch *b)
{
	char arg[SCENARIO_LINE_MAX];
	int rc = sim_scenario_load(&b->sc, o->path);

	for (size_t i = 0; !rc && i < o->nov; i++) {
		const char *v = o->ov[i].value;

		if (o->ov[i].opt == OPT_SET)
			rc = scenario_add_override(&b->sc, v);
		else if (o->ov[i].opt == OPT_SEED)
			rc = scenario_add_option(&b->sc, "--seed", "seed", v);
		else
			rc = scenario_add_option(&b->sc, "--threads", "threads",
						 v);
	}
	if (!rc && o->ratio) {
		const char *slash = strchr(o->ratio, '/');
		char label[SCENARIO_LINE_MAX];

		if (!slash || slash == o->ratio || !slash[1] ||
		    strchr(slash + 1, '/'))
			return cli_usage_error("sensitivity",
					       "--ratio '%s': want A/B",
					       o->ratio);
		snprintf(arg, sizeof(arg), "%.*s,%s", (int)(slash - o->ratio),
			 o->ratio, slash + 1);
		snprintf(label, sizeof(label), "--ratio '%s'", o->ratio);
		rc = scenario_add_compare(&b->sc, label, arg);
	} else if (!rc) {
		if (b->sc.ncompare < 2)
			return cli_usage_error(
				"sensitivity",
				"%s compares fewer than two strategies: give "
				"--ratio A/B",
				o->path);
		snprintf(arg, sizeof(arg), "compare=%s,%s", b->sc.compare[0],
			 b->sc.compare[1]);
		rc = scenario_add_override(&b->sc, arg);
	}
	if (!rc)
		rc = sim_batch_configure(b, sim_host_threads());
	if (rc) {
		fprintf(stderr, "%s\n", b->sc.err);
		return CLI_EXIT_USAGE;
	}
	return -1;
}

static double ratio_of(const struct ensemble *e, size_t row,
		       const struct metric *m)
{
	const struct run_job *a = ensemble_job(e, row, 0);
	const struct run_job *b = ensemble_job(e, row, 1);
	double y = m->get(b->res, &b->cfg);

	return y > 0 ? m->get(a->res, &a->cfg) / y : 0;
}

static int by_swing(const void *pa, const void *pb)
{
	const struct swing *a = pa, *b = pb;

	if (a->swing != b->swing)
		return a->swing < b->swing ? 1 : -1;
	return (a->j > b->j) - (a->j < b->j);
}

static void print_json(const struct sens_opts *o, const struct sim_batch *b,
		       const struct unc_plan *u, const struct swing *s,
		       double base)
{
	char lo[32], hi[32];

	putchar('{');
	json_meta(stdout, SENSITIVITY_JSON_SCHEMA);
	printf(",\"scenario\":");
	json_string(stdout, b->sc.path);
	printf(",\"ratio\":\"%s/%s\",\"metric\":", b->strategy[0],
	       b->strategy[1]);
	json_string(stdout, o->metric_arg ? o->metric_arg : "real");
	printf(",\"baseline\":%.6g,\"parameters\":[", base);
	for (size_t k = 0; k < u->n; k++) {
		const struct unc_param *p = &u->p[s[k].j];

		unc_format(p, p->lo, lo, sizeof(lo));
		unc_format(p, p->hi, hi, sizeof(hi));
		printf("%s{\"name\":", k ? "," : "");
		json_string(stdout, p->key);
		printf(",\"low\":%s,\"high\":%s,\"ratio_at_low\":%.6g,"
		       "\"ratio_at_high\":%.6g,\"swing\":%.6g}",
		       lo, hi, s[k].at_low, s[k].at_high, s[k].swing);
	}
	printf("]}\n");
}

static void print_table(const struct sens_opts *o, const struct sim_batch *b,
			const struct unc_plan *u, const struct swing *s,
			double base)
{
	char lo[32], hi[32];

	printf("sensitivity of %s(%s) / %s(%s): %s", o->metric->name,
	       b->strategy[0], o->metric->name, b->strategy[1], b->sc.path);
	if (b->sc.profile_name)
		printf(", profile %s", b->sc.profile_name);
	printf(", seed %llu\nbaseline %.4g; each parameter at the low and the "
	       "high end of its range, the others as written\n\n",
	       (unsigned long long)b->cfg[0].seed, base);
	printf("%-28s %10s %10s %10s %10s %8s\n", "parameter", "low", "high",
	       "ratio@low", "ratio@high", "swing");
	for (size_t k = 0; k < u->n; k++) {
		const struct unc_param *p = &u->p[s[k].j];

		unc_format(p, p->lo, lo, sizeof(lo));
		unc_format(p, p->hi, hi, sizeof(hi));
		printf("%-28s %10s %10s %10.4g %10.4g %8.4f\n", p->key, lo, hi,
		       s[k].at_low, s[k].at_high, s[k].swing);
	}
}

static int write_tornado(const struct sens_opts *o, const struct sim_batch *b,
			 const struct unc_plan *u, const struct swing *s,
			 double base)
{
	size_t n = 0;
	const char **names = calloc(TORNADO_MAX, sizeof(*names));
	const char **lt = calloc(TORNADO_MAX, sizeof(*lt));
	const char **ht = calloc(TORNADO_MAX, sizeof(*ht));
	double *al = calloc(TORNADO_MAX, sizeof(*al));
	double *ah = calloc(TORNADO_MAX, sizeof(*ah));
	char(*text)[2][40] = calloc(TORNADO_MAX, sizeof(*text));
	char title[512], xlabel[128];
	FILE *f = NULL;
	int rc = -ENOMEM;

	if (!names || !lt || !ht || !al || !ah || !text)
		goto out;
	/* The largest swings; none that does not move the ratio. */
	while (n < u->n && n < TORNADO_MAX && s[n].swing > 0)
		n++;
	if (!n) {
		rc = -EINVAL;
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		const struct unc_param *p = &u->p[s[k].j];

		names[k] = p->key;
		al[k] = s[k].at_low;
		ah[k] = s[k].at_high;
		unc_format(p, p->lo, text[k][0], sizeof(text[k][0]));
		unc_format(p, p->hi, text[k][1], sizeof(text[k][1]));
		lt[k] = text[k][0];
		ht[k] = text[k][1];
	}
	snprintf(title, sizeof(title),
		 "%s: %s / %s, the %zu of %zu parameters that move it most",
		 b->sc.path, b->strategy[0], b->strategy[1], n, u->n);
	snprintf(xlabel, sizeof(xlabel), "%s ratio %s / %s (baseline %.3g)",
		 o->metric->name, b->strategy[0], b->strategy[1], base);
	f = fopen(o->svg, "w");
	if (!f) {
		rc = -errno;
		goto out;
	}
	rc = svg_tornado_write(f, &(struct svg_tornado){
					  .title = title,
					  .xlabel = xlabel,
					  .baseline = base,
					  .n = n,
					  .names = names,
					  .at_low = al,
					  .at_high = ah,
					  .low_text = lt,
					  .high_text = ht,
				  });
	if (fclose(f) && !rc)
		rc = -EIO;
out:
	free(names);
	free(lt);
	free(ht);
	free(al);
	free(ah);
	free(text);
	return rc;
}

/* Runs the plan and ranks it; returns 0 or an exit code (printed). */
static int run_and_rank(const struct sens_opts *o, struct sim_batch *b,
			struct unc_plan *u, struct ensemble *e,
			struct swing **out, double *base)
{
	struct ens_run runs[2] = { { &b->sc, &b->cfg[0], b->strategy[0] },
				   { &b->sc, &b->cfg[1], b->strategy[1] } };
	char err[SCENARIO_ERR_MAX];
	struct run_job **list;
	struct swing *s;

	if (unc_plan_collect(u, &b->sc) || unc_plan_one_at_a_time(u)) {
		fprintf(stderr, "hvtlb sensitivity: out of memory\n");
		return CLI_EXIT_FAIL;
	}
	if (!u->n) {
		fprintf(stderr,
			"hvtlb sensitivity: %s has no uncertain parameter\n",
			b->sc.path);
		return CLI_EXIT_USAGE;
	}
	if (ensemble_init(e, u, runs, 2, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return CLI_EXIT_USAGE;
	}
	list = malloc(ensemble_njobs(e) * sizeof(*list));
	s = calloc(u->n, sizeof(*s));
	if (!list || !s) {
		free(list);
		free(s);
		fprintf(stderr, "hvtlb sensitivity: out of memory\n");
		return CLI_EXIT_FAIL;
	}
	ensemble_job_list(e, list);
	progress_begin("sensitivity", "runs", ensemble_njobs(e));
	runpool_run(list, ensemble_njobs(e), b->cfg[0].threads);
	progress_end();
	free(list);
	if (ensemble_first_failure(e, err, sizeof(err))) {
		fprintf(stderr, "hvtlb sensitivity: %s: %s\n", b->sc.path, err);
		free(s);
		return CLI_EXIT_FAIL;
	}
	*base = ratio_of(e, 0, o->metric);
	for (size_t j = 0; j < u->n; j++) {
		double lo = ratio_of(e, 1 + 2 * j, o->metric);
		double hi = ratio_of(e, 2 + 2 * j, o->metric);

		s[j] = (struct swing){ j, lo, hi,
				       fmax(fmax(lo, hi), *base) -
					       fmin(fmin(lo, hi), *base) };
	}
	qsort(s, u->n, sizeof(*s), by_swing);
	*out = s;
	return 0;
}

static int run_sensitivity(int argc, char **argv)
{
	struct sens_opts *o = calloc(1, sizeof(*o));
	struct sim_batch b;
	struct unc_plan u;
	struct ensemble e = { 0 };
	struct swing *s = NULL;
	double base = 0;
	int rc = o ? parse_args(o, argc, argv) : CLI_EXIT_FAIL;

	if (rc >= 0) {
		free(o);
		return rc;
	}
	sim_batch_init(&b);
	unc_plan_init(&u);
	rc = load(o, &b);
	if (rc < 0 && o->output && cli_output_open("sensitivity", o->output))
		rc = CLI_EXIT_USAGE;
	if (rc < 0)
		rc = run_and_rank(o, &b, &u, &e, &s, &base);
	if (rc)
		goto out;
	if (o->json)
		print_json(o, &b, &u, s, base);
	else
		print_table(o, &b, &u, s, base);
	if (o->svg) {
		int e2 = write_tornado(o, &b, &u, s, base);

		if (e2) {
			fprintf(stderr, "hvtlb sensitivity: --svg '%s': %s\n",
				o->svg, strerror(-e2));
			rc = CLI_EXIT_FAIL;
		}
	}
	if (fflush(stdout) || ferror(stdout))
		rc = CLI_EXIT_FAIL;
out:
	if (o->output && cli_output_finish("sensitivity", rc != CLI_EXIT_USAGE))
		rc = CLI_EXIT_FAIL;
	free(s);
	ensemble_finish(&e);
	unc_plan_finish(&u);
	sim_batch_finish(&b);
	free(o);
	return rc;
}

const struct cli_command cmd_sensitivity = {
	.name = "sensitivity",
	.summary = "which uncertain parameters move a ratio most",
	.run = run_sensitivity,
	.options = options,
	.operands = "scenario",
};
