// SPDX-License-Identifier: MIT
/*
 * hvtlb validate [--uncertainty N] [--json] [--quick] [--fail-on-miss]
 *                [--seed N] [--set KEY=VALUE]... [--threads N] [PATH]...
 *
 * Runs every validation case (validation.h): each case's runs a and b on
 * the same N draws of their uncertain parameters, the quantity (a ratio
 * or a value) per draw, and its p5 / p50 / p95 band beside the published
 * value; the same for each further observable of the case (observable.N.*,
 * read from the same runs and draws). PATH is a case file or a directory
 * of them; without one, the validation/ directory of the data directory
 * (datadir.h). --quick applies each case's `ci` overrides; --set changes
 * a key in every run of every case (after the file and ci, before the
 * runs' own lines, so a case's a and b still differ as written). All runs
 * of all cases share one pool of --threads host threads; the output does
 * not depend on it.
 * Exit: 0 every case ran; 1 a run failed, or with --fail-on-miss a
 * validation case's published value lies outside its simulated band; 2 a
 * bad command line or a case file that does not load (named on stderr;
 * the other cases still run and print, with an ERROR row for it; when no
 * case loads, nothing runs and nothing goes to stdout).
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "datadir.h"
#include "ensemble.h"
#include "json.h"
#include "parse.h"
#include "progress.h"
#include "runpool.h"
#include "sim-run.h"
#include "uncertain.h"
#include "validation.h"

#define DEFAULT_DRAWS 64u
#define DRAWS_MAX 100000u
#define SETS_MAX 32u

static const char usage_text[] =
	"usage: hvtlb validate [--uncertainty N] [--json] [--quick] "
	"[--fail-on-miss]\n"
	"                      [--seed N] [--set KEY=VALUE]... [--threads N]\n"
	"                      [-o FILE] [-q] [PATH]...\n"
	"\n"
	"Runs each validation case (a scenario with a [validation] section:\n"
	"a published measurement and the two runs a and b that reproduce it)\n"
	"on N draws of its uncertain parameters (default 64) and prints the\n"
	"published value beside the simulated p5 / p50 / p95, whether it lies\n"
	"inside that band, the relative error of the p50 and, for a ratio,\n"
	"whether the band decides the sign (excludes 1) and gets it right.\n"
	"A case's further published observables (observable.N.* keys: a\n"
	"metric of run a, of run b, or their ratio) get the same verdict from\n"
	"the same runs, on indented lines under the case. The summary counts\n"
	"validation cases: their headline figures, then their observables\n"
	"inside.\n"
	"PATH: case files or directories (default: validation/ in the data\n"
	"directory: $HVTLB_DATA_DIR, or the installed one, or the source\n"
	"tree when run from the build).\n"
	"  --quick      apply each case's `ci` overrides (a smaller run)\n"
	"  --converge   draw in stages of 16, 32, 64, ... up to N; a case\n"
	"               stops once the 90 % interval of each of its p5, p50\n"
	"               and p95 is within 0.5 % of its p50 (its quantities\n"
	"               and observables all), and says how many it drew\n"
	"  --fail-on-miss  exit 1 when the published value of a validation\n"
	"               case (kind = validation; not its observables, not a\n"
	"               calibration case) lies outside its p5..p95 band\n"
	"  --seed N     seed of the draws and of the runs (default: the "
	"case's)\n"
	"  --set KEY=VALUE  in every run of every case, after the file and\n"
	"               `ci`, before the runs' own lines (e.g. to see the\n"
	"               table with a mechanism switched off); repeatable\n"
	"  --threads N  runs at once (default: CPUs online)\n"
	"  --json       {\"cases\":[...],\"summary\":{...},\"set\":[...]},\n"
	"               each case with its \"observables\":[...]\n"
	"  -o, --output FILE  write to FILE (a new file, renamed into place)\n"
	"  -q, --quiet  no progress line on stderr\n"
	"Exit: 0 every case ran; 1 a run failed (or a miss, with\n"
	"--fail-on-miss); 2 a bad command line or a case file that does not\n"
	"load (the others still run, beside an ERROR row; when none loads,\n"
	"nothing is printed on stdout).\n";

struct vopts {
	const char *output;
	uint64_t draws;
	bool json, quick, converge, fail_on_miss;
	bool paths; /* cases or directories named on the command line */
	const char *seed;
	const char *sets[SETS_MAX]; /* --set, in command-line order */
	size_t nsets;
	unsigned threads;
};

/* A published value against its simulated band. */
struct verdict {
	double nominal; /* without drawing */
	struct band band;
	double rel_error;
	bool inside, decided, sign_right;
};

/* One case and its runs. */
struct vrun {
	char *path;
	struct vcase c;
	struct sim_batch a, b;
	struct unc_plan u;
	struct ensemble e;
	int status; /* 0, CLI_EXIT_USAGE (did not load), CLI_EXIT_FAIL */
	char err[2 * SCENARIO_ERR_MAX];
	struct verdict v;		   /* the headline quantity */
	struct verdict obs[VCASE_OBS_MAX]; /* c.obs[i] */
	bool settled;			   /* --converge: no more draws */
};

struct vlist {
	struct vrun *v;
	size_t n, cap;
};

static int add_path(struct vlist *l, const char *path)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		void *v = realloc(l->v, cap * sizeof(*l->v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	l->v[l->n].path = strdup(path);
	if (!l->v[l->n].path)
		return -ENOMEM;
	l->n++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds the *.ini files of @p dir, sorted by name. */
static int add_dir(struct vlist *l, const char *dir)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int rc = 0;

	if (!d)
		return -errno;
	while (!rc && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 5 || strcmp(de->d_name + len - 4, ".ini"))
			continue;
		if (n == cap) {
			void *v = realloc(names, (cap = cap ? 2 * cap : 16) *
							 sizeof(*names));

			if (!v) {
				rc = -ENOMEM;
				break;
			}
			names = v;
		}
		names[n] = malloc(strlen(dir) + len + 2);
		if (!names[n]) {
			rc = -ENOMEM;
			break;
		}
		sprintf(names[n], "%s/%s", dir, de->d_name);
		n++;
	}
	closedir(d);
	if (!rc)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		if (!rc)
			rc = add_path(l, names[i]);
		free(names[i]);
	}
	free(names);
	return rc;
}

enum {
	OPT_UNCERTAINTY = 256,
	OPT_SEED,
	OPT_SET,
	OPT_THREADS,
	OPT_JSON,
	OPT_QUICK,
	OPT_CONVERGE,
	OPT_FAIL_ON_MISS
};

static const struct option options[] = {
	{ "uncertainty", required_argument, NULL, OPT_UNCERTAINTY },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "set", required_argument, NULL, OPT_SET },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "quick", no_argument, NULL, OPT_QUICK },
	{ "converge", no_argument, NULL, OPT_CONVERGE },
	{ "fail-on-miss", no_argument, NULL, OPT_FAIL_ON_MISS },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static int parse_args(struct vopts *o, struct vlist *l, int argc, char **argv)
{
	uint64_t n;
	int c;

	o->draws = DEFAULT_DRAWS;
	o->threads = sim_host_threads();
	while ((c = cli_getopt(&cmd_validate, argc, argv)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage_text, stdout);
			return CLI_EXIT_OK;
		case OPT_UNCERTAINTY:
			if (cli_u64("validate", "--uncertainty", optarg, 1,
				    DRAWS_MAX, &o->draws))
				return CLI_EXIT_USAGE;
			break;
		case OPT_SEED:
			if (cli_u64("validate", "--seed", optarg, 0, UINT64_MAX,
				    &n))
				return CLI_EXIT_USAGE;
			o->seed = optarg;
			break;
		case OPT_SET:
			if (o->nsets == SETS_MAX)
				return cli_usage_error("validate",
						       "more than %u --set",
						       SETS_MAX);
			o->sets[o->nsets++] = optarg;
			break;
		case OPT_THREADS:
			if (cli_u64("validate", "--threads", optarg, 1,
				    HVTLB_SIM_MAX_THREADS, &n))
				return CLI_EXIT_USAGE;
			o->threads = (unsigned)n;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_QUICK:
			o->quick = true;
			break;
		case OPT_CONVERGE:
			o->converge = true;
			break;
		case OPT_FAIL_ON_MISS:
			o->fail_on_miss = true;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'q':
			progress_quiet();
			break;
		default:
			return CLI_EXIT_USAGE;
		}
	}
	for (int i = optind; i < argc; i++) {
		const char *a = argv[i];
		struct stat st;

		o->paths = true;
		if (stat(a, &st))
			return cli_usage_error("validate", "%s: %s", a,
					       strerror(errno));
		if (S_ISDIR(st.st_mode) ? add_dir(l, a) : add_path(l, a))
			return cli_usage_error("validate", "%s: cannot read",
					       a);
	}
	return -1;
}

/* Configures one run (a or b) of @p r's case in @p b, whose scenario is
 * loaded: the file, then ci (--quick), --seed, --set, then @p overrides. */
static int load_run(const struct vopts *o, struct vrun *r, struct sim_batch *b,
		    const struct scenario_setting *overrides)
{
	int rc = 0;

	scenario_clear_compare(&b->sc);
	if (o->quick)
		rc = vcase_add_overrides(&b->sc, r->c.ci);
	if (!rc && o->seed)
		rc = scenario_add_option(&b->sc, "--seed", "seed", o->seed);
	for (size_t i = 0; !rc && i < o->nsets; i++)
		rc = scenario_add_override(&b->sc, o->sets[i]);
	if (!rc)
		rc = vcase_add_overrides(&b->sc, overrides);
	if (!rc && b->sc.ncompare) {
		snprintf(b->sc.err, sizeof(b->sc.err),
			 "%s:%u: a run of a case is one run: set 'strategy', "
			 "not 'compare'",
			 overrides->file, overrides->line);
		rc = -EINVAL;
	}
	if (!rc)
		rc = sim_batch_configure(b, 1);
	if (rc)
		snprintf(r->err, sizeof(r->err), "%s", b->sc.err);
	return rc;
}

/* Loads a case and builds its jobs; on error sets r->status and r->err. */
static void prepare(const struct vopts *o, struct vrun *r)
{
	struct ens_run runs[2];
	int rc;

	sim_batch_init(&r->a);
	sim_batch_init(&r->b);
	unc_plan_init(&r->u);
	r->status = CLI_EXIT_USAGE;
	rc = scenario_load(&r->a.sc, r->path);
	if (rc) {
		snprintf(r->err, sizeof(r->err), "%s", r->a.sc.err);
		return;
	}
	/* The case's fields point into the a run's scenario. */
	if (vcase_parse(&r->c, &r->a.sc, r->path, r->err, sizeof(r->err)))
		return;
	rc = load_run(o, r, &r->a, r->c.a);
	if (!rc && r->c.ratio) {
		rc = scenario_load(&r->b.sc, r->path);
		if (rc)
			snprintf(r->err, sizeof(r->err), "%s", r->b.sc.err);
		else
			rc = load_run(o, r, &r->b, r->c.b);
	}
	if (rc)
		return;
	runs[0] = (struct ens_run){ &r->a.sc, &r->a.cfg[0], "a" };
	runs[1] = (struct ens_run){ &r->b.sc, &r->b.cfg[0], "b" };
	rc = unc_plan_collect(&r->u, &r->a.sc);
	if (!rc && r->c.ratio)
		rc = unc_plan_collect(&r->u, &r->b.sc);
	if (!rc)
		rc = unc_plan_draw(&r->u, (size_t)o->draws, r->a.cfg[0].seed);
	if (rc) {
		snprintf(r->err, sizeof(r->err), "%s: %s", r->path,
			 strerror(-rc));
		return;
	}
	if (ensemble_init(&r->e, &r->u, runs, r->c.ratio ? 2 : 1, r->err,
			  sizeof(r->err)))
		return;
	r->status = 0;
}

/*
 * The verdict on @p published against m(run @p a) / m(run @p b), or
 * m(run @p a) alone when @p b is (size_t)-1, over the draws of @p e: the
 * band, whether it holds the published value, the relative error of its
 * p50 and, for a ratio, whether it decides the sign and gets it right.
 */
static void judge(const struct ensemble *e, size_t a, size_t b,
		  const struct metric *m, double published, struct verdict *v)
{
	const struct run_job *ja = ensemble_job(e, 0, a), *jb;
	bool ratio = b != (size_t)-1;

	v->nominal = m->get(ja->res, &ja->cfg);
	if (ratio) {
		double y;

		jb = ensemble_job(e, 0, b);
		y = m->get(jb->res, &jb->cfg);
		v->nominal = y > 0 ? v->nominal / y : 0;
	}
	ensemble_ratio_band(e, a, b, m, &v->band);
	v->inside = band_contains(&v->band, published);
	v->rel_error = fabs(v->band.p50 - published) / fabs(published);
	v->decided = ratio && (v->band.p5 > 1 || v->band.p95 < 1);
	v->sign_right = v->decided && published != 1 &&
			(v->band.p5 > 1) == (published > 1);
}

/*
 * Quantity @p i of @p r's case (0 the headline, i the observable i - 1):
 * the run it reads (@p a), the run it divides by (@p b, (size_t)-1 for a
 * value) and its metric. False for an observable that reads run b of a
 * value case (vcase_parse() refuses it): that run was never made.
 */
static bool quantity(const struct vrun *r, size_t i, size_t *a, size_t *b,
		     const struct metric **m)
{
	const struct vobservable *o = i ? &r->c.obs[i - 1] : NULL;

	if (!o) {
		*a = 0;
		*b = r->c.ratio ? 1 : (size_t)-1;
		*m = r->c.metric;
		return true;
	}
	if (o->run != VOBS_A && !r->c.ratio)
		return false;
	*a = o->run == VOBS_B ? 1 : 0;
	*b = o->run == VOBS_RATIO ? 1 : (size_t)-1;
	*m = o->metric;
	return true;
}

static void evaluate(struct vrun *r)
{
	char err[SCENARIO_ERR_MAX];

	if (ensemble_first_failure(&r->e, err, sizeof(err))) {
		snprintf(r->err, sizeof(r->err), "%s: run %s", r->path, err);
		r->status = CLI_EXIT_FAIL;
		return;
	}
	/* the observables read the same runs and draws as the headline */
	for (size_t i = 0; i <= r->c.nobs; i++) {
		const struct metric *m;
		size_t a, b;

		if (!quantity(r, i, &a, &b, &m)) {
			snprintf(r->err, sizeof(r->err),
				 "%s: observable %zu reads run b of a value "
				 "case",
				 r->path, i);
			r->status = CLI_EXIT_FAIL;
			return;
		}
		judge(&r->e, a, b, m,
		      i ? r->c.obs[i - 1].published : r->c.published,
		      i ? &r->obs[i - 1] : &r->v);
	}
}

struct summary {
	size_t validation, inside, ratios, decided, right;
	/* the observables of the validation cases that ran */
	size_t observables, observables_inside;
	double median_rel_error;
	bool have_median;
};

static void summarize(const struct vlist *l, struct summary *s)
{
	double *err = calloc(l->n ? l->n : 1, sizeof(*err));
	size_t n = 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < l->n; i++) {
		const struct vrun *r = &l->v[i];

		if (r->status == CLI_EXIT_USAGE || r->c.calibration)
			continue;
		s->validation++;
		if (r->status)
			continue;
		s->inside += r->v.inside;
		s->ratios += r->c.ratio;
		s->decided += r->v.decided;
		s->right += r->v.sign_right;
		if (err)
			err[n++] = r->v.rel_error;
		s->observables += r->c.nobs;
		for (size_t j = 0; j < r->c.nobs; j++)
			s->observables_inside += r->obs[j].inside;
	}
	if (n) {
		band_sort(err, n);
		s->median_rel_error = quantile_sorted(err, n, 0.5);
		s->have_median = true;
	}
	free(err);
}

/* The figures of a row from the published value on. */
static void print_verdict(double published, const struct verdict *v, bool ratio)
{
	printf("%9.4g %9.4g %9.4g %9.4g %6s %6.0f%%  %s\n", published,
	       v->band.p5, v->band.p50, v->band.p95, v->inside ? "yes" : "no",
	       100 * v->rel_error,
	       !ratio	       ? "-"
	       : !v->decided   ? "not decided"
	       : v->sign_right ? "decided, right"
			       : "decided, WRONG");
}

static void print_table(const struct vopts *o, const struct vlist *l,
			const struct summary *s)
{
	/* the case column as wide as the longest id, so that long names do
	 * not push their row's figures out of line */
	int w = 28;
	size_t cal = 0;

	for (size_t i = 0; i < l->n; i++) {
		const char *id = l->v[i].c.id[0] ? l->v[i].c.id : l->v[i].path;

		if (strlen(id) > (size_t)w && strlen(id) < 200)
			w = (int)strlen(id);
		cal += l->v[i].status != CLI_EXIT_USAGE &&
		       l->v[i].c.calibration;
	}
	printf("validation cases: published value against the simulated band "
	       "(p5 / p50 / p95 over %s%llu draws%s%s",
	       o->converge ? "up to " : "", (unsigned long long)o->draws,
	       o->quick ? ", --quick" : "", o->converge ? ", --converge" : "");
	for (size_t i = 0; i < o->nsets; i++)
		printf(", --set %s", o->sets[i]);
	printf(")\n\n");
	printf("%-*s %-5s %-20s %9s %9s %9s %9s %6s %7s  %s\n", w, "case",
	       "kind", "quantity", "published", "p5", "p50", "p95", "inside",
	       "rel.err", "sign (band excludes 1?)");
	for (size_t i = 0; i < l->n; i++) {
		const struct vrun *r = &l->v[i];
		char q[64];

		if (r->status == CLI_EXIT_USAGE) {
			printf("%-*s ERROR (does not load; see stderr)\n", w,
			       r->c.id[0] ? r->c.id : r->path);
			continue;
		}
		snprintf(q, sizeof(q), "%s %s", r->c.metric->name,
			 r->c.ratio ? "a/b" : "a");
		if (r->status) {
			printf("%-*s %-5s %-20s %9.4g  ERROR (a run failed; "
			       "see stderr)\n",
			       w, r->c.id, r->c.calibration ? "cal" : "val", q,
			       r->c.published);
			continue;
		}
		printf("%-*s %-5s %-20s ", w, r->c.id,
		       r->c.calibration ? "cal" : "val", q);
		print_verdict(r->c.published, &r->v, r->c.ratio);
		if (r->e.ndraws < o->draws)
			printf("  %-*s settled after %zu draws (--converge)\n",
			       w - 2, "", r->e.ndraws);
		/* the case's further observables, indented under it */
		for (size_t j = 0; j < r->c.nobs; j++) {
			const struct vobservable *ob = &r->c.obs[j];
			char label[32];

			snprintf(label, sizeof(label), "observable %u",
				 ob->number);
			snprintf(q, sizeof(q), "%s %s", ob->metric->name,
				 ob->run == VOBS_RATIO ? "a/b" : ob->run_name);
			printf("  %-*s %-5s %-20s ", w - 2, label, "", q);
			print_verdict(ob->published, &r->obs[j],
				      ob->run == VOBS_RATIO);
		}
	}
	printf("\n%zu of %zu validation cases inside their band", s->inside,
	       s->validation);
	if (cal)
		printf(" (%zu calibration row%s, kind cal, not counted)", cal,
		       cal == 1 ? "" : "s");
	printf("; median relative error of the p50 ");
	if (s->have_median)
		printf("%.0f%%", 100 * s->median_rel_error);
	else
		printf("-");
	printf("; %zu of %zu ratios decide their sign, %zu of them right\n",
	       s->decided, s->ratios, s->right);
	printf("%zu of %zu further observables of validation cases inside "
	       "their band\n",
	       s->observables_inside, s->observables);
}

static void json_band(const char *name, const struct band *b)
{
	printf(",\"%s\":{\"p5\":%.6g,\"p50\":%.6g,\"p95\":%.6g}", name, b->p5,
	       b->p50, b->p95);
}

/* The members of a verdict: simulated, nominal, inside, rel_error and,
 * for a ratio, decides_sign and sign_right. */
static void json_verdict(const struct verdict *v, bool ratio)
{
	json_band("simulated", &v->band);
	printf(",\"nominal\":%.6g,\"inside\":%s,\"rel_error\":%.6g", v->nominal,
	       v->inside ? "true" : "false", v->rel_error);
	if (ratio)
		printf(",\"decides_sign\":%s,\"sign_right\":%s",
		       v->decided ? "true" : "false",
		       v->sign_right ? "true" : "false");
}

/* ,"observables":[...]: none for a case that did not load, no band for
 * a case whose run failed. */
static void json_observables(const struct vrun *r)
{
	printf(",\"observables\":[");
	for (size_t j = 0; r->status != CLI_EXIT_USAGE && j < r->c.nobs; j++) {
		const struct vobservable *ob = &r->c.obs[j];

		printf("%s{\"number\":%u,\"title\":", j ? "," : "", ob->number);
		json_string(stdout, ob->title);
		printf(",\"metric\":\"%s\",\"run\":\"%s\",\"published\":%.6g",
		       ob->metric->name, ob->run_name, ob->published);
		if (r->status)
			printf(",\"simulated\":null,\"inside\":false");
		else
			json_verdict(&r->obs[j], ob->run == VOBS_RATIO);
		printf(",\"derivation\":");
		json_string(stdout, ob->derivation);
		printf("}");
	}
	printf("]");
}

static void print_json(const struct vopts *o, const struct vlist *l,
		       const struct summary *s)
{
	putchar('{');
	json_meta(stdout, VALIDATE_JSON_SCHEMA);
	printf(",\"cases\":[");
	for (size_t i = 0; i < l->n; i++) {
		const struct vrun *r = &l->v[i];

		printf("%s{\"id\":", i ? "," : "");
		json_string(stdout, r->c.id[0] ? r->c.id : r->path);
		printf(",\"file\":");
		json_string(stdout, r->path);
		if (r->status == CLI_EXIT_USAGE) {
			printf(",\"error\":");
			json_string(stdout, r->err);
			json_observables(r);
			printf("}");
			continue;
		}
		printf(",\"title\":");
		json_string(stdout, r->c.title);
		printf(",\"source\":");
		json_string(stdout, r->c.source);
		printf(",\"kind\":\"%s\",\"quantity\":\"%s\",\"metric\":\"%s\","
		       "\"published\":%.6g",
		       r->c.calibration ? "calibration" : "validation",
		       r->c.ratio ? "ratio" : "value", r->c.metric->name,
		       r->c.published);
		if (r->status) {
			printf(",\"simulated\":null,\"inside\":false,"
			       "\"error\":");
			json_string(stdout, r->err);
			json_observables(r);
			printf("}");
			continue;
		}
		json_verdict(&r->v, r->c.ratio);
		printf(",\"samples\":%zu", r->e.ndraws);
		json_observables(r);
		printf("}");
	}
	printf("],\"summary\":{\"validation_cases\":%zu,\"inside\":%zu,"
	       "\"median_rel_error\":",
	       s->validation, s->inside);
	if (s->have_median)
		printf("%.6g", s->median_rel_error);
	else
		printf("null");
	printf(",\"ratios\":%zu,\"decides_sign\":%zu,\"sign_right\":%zu,"
	       "\"observables\":%zu,\"observables_inside\":%zu},\"set\":[",
	       s->ratios, s->decided, s->right, s->observables,
	       s->observables_inside);
	for (size_t i = 0; i < o->nsets; i++) {
		printf("%s", i ? "," : "");
		json_string(stdout, o->sets[i]);
	}
	printf("]}\n");
}

/* --converge: a case's band is settled when more draws could move none
 * of its percentiles by more than this share of its p50 (band.h). */
#define CONVERGE_TOL 0.005
#define CONVERGE_FIRST 16

/* Whether every quantity of @p r (the headline, each observable) has a
 * settled band over the draws run so far. */
static bool settled(const struct vrun *r)
{
	const struct ensemble *e = &r->e;
	double *v = malloc((e->ndraws ? e->ndraws : 1) * sizeof(*v));
	bool ok = v != NULL;

	for (size_t i = 0; ok && i <= r->c.nobs; i++) {
		const struct metric *m;
		size_t a, b;

		/* a quantity that cannot be read never settles: evaluate()
		 * reports it */
		ok = quantity(r, i, &a, &b, &m);
		if (!ok)
			break;
		ensemble_values(e, a, b, m, v);
		band_sort(v, e->ndraws);
		ok = band_settled(v, e->ndraws, CONVERGE_TOL);
	}
	free(v);
	return ok;
}

/* Runs rows @p from..@p to (0 the nominal runs, d draw d) of every case
 * that loaded and is not settled, in one pool; a run two cases need runs
 * once. */
static int run_rows(const struct vopts *o, struct vlist *l, size_t from,
		    size_t to)
{
	size_t total = 0, k = 0;
	struct run_job **list, **run;
	long nrun;

	for (size_t i = 0; i < l->n; i++)
		if (!l->v[i].status && !l->v[i].settled)
			total += (to - from + 1) * l->v[i].e.nruns;
	list = malloc((total ? total : 1) * sizeof(*list));
	run = malloc((total ? total : 1) * sizeof(*run));
	if (!list || !run) {
		free(run);
		free(list);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->n; i++) {
		const struct vrun *r = &l->v[i];

		if (r->status || r->settled)
			continue;
		for (size_t row = from; row <= to; row++)
			for (size_t j = 0; j < r->e.nruns; j++)
				list[k++] = ensemble_job(&r->e, row, j);
	}
	nrun = runpool_share(list, total, run);
	if (nrun < 0) {
		free(run);
		free(list);
		return -ENOMEM;
	}
	progress_grow((uint64_t)nrun);
	runpool_run(run, (size_t)nrun, o->threads);
	runpool_share_results(list, total);
	free(run);
	free(list);
	return 0;
}

/* Every case's runs: the nominal ones and all draws at once, or, with
 * --converge, draws in stages of 16, 32, 64, ... with a case leaving once
 * its bands are settled. Then each case's verdicts. */
static int run_all(const struct vopts *o, struct vlist *l)
{
	size_t done = 0, upto = (size_t)o->draws;
	int rc = 0;

	if (o->converge && upto > CONVERGE_FIRST)
		upto = CONVERGE_FIRST;
	progress_begin("validate", "runs", 0);
	for (;;) {
		rc = run_rows(o, l, done ? done + 1 : 0, upto);
		if (rc)
			break;
		for (size_t i = 0; i < l->n; i++) {
			struct vrun *r = &l->v[i];

			if (r->status || r->settled)
				continue;
			r->e.ndraws = upto;
			/* a failed run ends the case's draws: evaluate()
			 * reports it */
			if (upto < o->draws)
				r->settled = ensemble_first_failure(
						     &r->e, r->err,
						     sizeof(r->err)) ||
					     settled(r);
		}
		if (upto == o->draws)
			break;
		done = upto;
		upto = upto * 2 > o->draws ? (size_t)o->draws : upto * 2;
	}
	progress_end();
	for (size_t i = 0; i < l->n; i++)
		if (!l->v[i].status)
			evaluate(&l->v[i]);
	return rc;
}

/* Whether any case loaded (prepare() left it runnable or failed later). */
static bool loaded(const struct vlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].status != CLI_EXIT_USAGE)
			return true;
	return false;
}

/* --fail-on-miss: whether a validation case that ran has its published
 * value outside its band (observables and calibration cases aside). */
static bool missed(const struct vlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct vrun *r = &l->v[i];

		if (!r->status && !r->c.calibration && !r->v.inside)
			return true;
	}
	return false;
}

static int run_validate(int argc, char **argv)
{
	struct vopts o = { 0 };
	struct vlist l = { 0 };
	struct summary s;
	int rc = parse_args(&o, &l, argc, argv), worst = CLI_EXIT_OK;

	if (rc >= 0)
		goto out;
	rc = CLI_EXIT_OK;
	if (!o.paths) {
		char *path = datadir_path("validation");

		if (!path) {
			rc = CLI_EXIT_FAIL;
			goto out;
		}
		if (add_dir(&l, path) == -ENOENT) {
			rc = cli_usage_error("validate",
					     "%s: no such directory", path);
			free(path);
			goto out;
		}
		free(path);
	}
	for (size_t i = 0; i < l.n; i++)
		prepare(&o, &l.v[i]);
	/* No case loads: a usage error, with nothing on stdout (a table of
	 * ERROR rows alone is no result). */
	if (l.n && !loaded(&l)) {
		for (size_t i = 0; i < l.n; i++)
			fprintf(stderr, "%s\n", l.v[i].err);
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	if (run_all(&o, &l)) {
		rc = CLI_EXIT_FAIL;
		goto out;
	}
	for (size_t i = 0; i < l.n; i++) {
		if (!l.v[i].status)
			continue;
		fprintf(stderr, "%s\n", l.v[i].err);
		if (l.v[i].status > worst)
			worst = l.v[i].status;
	}
	summarize(&l, &s);
	if (o.output && cli_output_open("validate", o.output)) {
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	if (o.json)
		print_json(&o, &l, &s);
	else
		print_table(&o, &l, &s);
	rc = worst;
	if (!rc && o.fail_on_miss && missed(&l))
		rc = CLI_EXIT_FAIL;
	if (fflush(stdout) || ferror(stdout))
		rc = CLI_EXIT_FAIL;
	if (o.output && cli_output_finish("validate", true))
		rc = CLI_EXIT_FAIL;
out:
	for (size_t i = 0; i < l.n; i++) {
		ensemble_finish(&l.v[i].e);
		unc_plan_finish(&l.v[i].u);
		sim_batch_finish(&l.v[i].a);
		sim_batch_finish(&l.v[i].b);
		free(l.v[i].path);
	}
	free(l.v);
	return rc;
}

const struct cli_command cmd_validate = {
	.name = "validate",
	.summary = "simulated bands against published measurements",
	.run = run_validate,
	.options = options,
	.operands = "file",
};
