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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "datadir.h"
#include "grow.h"
#include "validate.h"

#define DEFAULT_DRAWS 64u
#define DRAWS_MAX 100000u

static const char usage_text[] =
	"usage: hvtlb validate [--uncertainty N] [--json] [--quick] "
	"[--fail-on-miss]\n"
	"                      [--converge] [--all-versions]\n"
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
	"tree when run from the build). A directory's cases that name a\n"
	"successor (superseded_by, a later version beside them) are left\n"
	"out; a file named on the command line always runs.\n"
	"  --quick      apply each case's `ci` overrides (a smaller run)\n"
	"  --converge   draw in stages of 16, 32, 64, ... up to N; a case\n"
	"               stops once the 90 % interval of each of its p5, p50\n"
	"               and p95 is within 0.5 % of its p50 (its quantities\n"
	"               and observables all), and says how many it drew\n"
	"  --all-versions  run a directory's superseded cases too\n"
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
	"A run that fails is named with its draw, and the `hvtlb sim`\n"
	"command that runs it alone (the draw's values and seed) follows.\n"
	"Exit: 0 every case ran; 1 a run failed (or a miss, with\n"
	"--fail-on-miss); 2 a bad command line or a case file that does not\n"
	"load (the others still run, beside an ERROR row; when none loads,\n"
	"nothing is printed on stdout).\n";

/* @p dir: the number of the directory the case was found in (1, 2, ...),
 * 0 for a file named on the command line. */
static int add_path(struct vlist *l, const char *path, unsigned dir)
{
	void *v = grow(l->v, l->n, &l->cap, sizeof(*l->v), 16);

	if (!v)
		return -ENOMEM;
	l->v = v;
	memset(&l->v[l->n], 0, sizeof(l->v[0]));
	l->v[l->n].path = strdup(path);
	if (!l->v[l->n].path)
		return -ENOMEM;
	l->v[l->n].dir = dir;
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
	unsigned no = ++l->ndirs;
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int rc = 0;

	if (!d)
		return -errno;
	while (!rc && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		void *v;

		if (len < 5 || strcmp(de->d_name + len - 4, ".ini"))
			continue;
		v = grow(names, n, &cap, sizeof(*names), 16);
		if (!v) {
			rc = -ENOMEM;
			break;
		}
		names = v;
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
			rc = add_path(l, names[i], no);
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
	OPT_FAIL_ON_MISS,
	OPT_ALL_VERSIONS
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
	{ "all-versions", no_argument, NULL, OPT_ALL_VERSIONS },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* One option into @p ctx (cli_take_fn). */
static int take(void *ctx, int c, const char *v)
{
	struct vopts *o = ctx;
	uint64_t n;

	switch (c) {
	case OPT_UNCERTAINTY:
		if (cli_u64("validate", "--uncertainty", v, 1, DRAWS_MAX,
			    &o->draws))
			return CLI_EXIT_USAGE;
		break;
	case OPT_SEED:
		if (cli_u64("validate", "--seed", v, 0, UINT64_MAX, &n))
			return CLI_EXIT_USAGE;
		o->seed = v;
		break;
	case OPT_SET:
		if (o->nsets == SETS_MAX)
			return cli_usage_error("validate", "more than %u --set",
					       SETS_MAX);
		o->sets[o->nsets++] = v;
		break;
	case OPT_THREADS:
		if (cli_u64("validate", "--threads", v, 1,
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
	case OPT_ALL_VERSIONS:
		o->all_versions = true;
		break;
	case 'o':
		return cli_once_str("validate", &o->output, "-o", v);
	default:
		return CLI_EXIT_USAGE;
	}
	return 0;
}

static int parse_args(struct vopts *o, struct vlist *l, int argc, char **argv)
{
	int rc;

	o->draws = DEFAULT_DRAWS;
	o->threads = sim_host_threads();
	rc = cli_parse_options(&cmd_validate, usage_text, argc, argv, take, o);
	if (rc >= 0)
		return rc;
	for (int i = optind; i < argc; i++) {
		const char *a = argv[i];
		struct stat st;

		o->paths = true;
		if (stat(a, &st))
			return cli_usage_error("validate", "%s: %s", a,
					       strerror(errno));
		if (S_ISDIR(st.st_mode) ? add_dir(l, a) : add_path(l, a, 0))
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
	if (r->successor_error) {
		const char *why = r->successor_error == SUCCESSOR_NO_END
					  ? "no current case at the end of "
					    "the chain from"
					  : "no case beside it named";

		snprintf(r->err, sizeof(r->err),
			 "%s:%u: [validation] superseded_by: %s '%s'", r->path,
			 r->successor_line, why, r->successor);
		return;
	}
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

static void vrun_finish(struct vrun *r)
{
	ensemble_finish(&r->e);
	unc_plan_finish(&r->u);
	sim_batch_finish(&r->a);
	sim_batch_finish(&r->b);
	free(r->path);
}

/* Whether @p path's stem is @p id. */
static bool stem_is(const char *path, const char *id)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(id);

	base = base ? base + 1 : path;
	return !strncmp(base, id, n) && !strcmp(base + n, ".ini");
}

/*
 * Reads @p r's superseded_by, if any, into r->successor (the case is read
 * again by prepare(); a file that does not load says so there).
 */
static void peek_successor(struct vrun *r)
{
	struct sim_batch b;
	struct vcase c;
	char err[SCENARIO_ERR_MAX];

	sim_batch_init(&b);
	if (!scenario_load(&b.sc, r->path) &&
	    !vcase_parse(&c, &b.sc, r->path, err, sizeof(err)) &&
	    c.superseded_by) {
		snprintf(r->successor, sizeof(r->successor), "%s",
			 c.superseded_by);
		r->successor_line = c.superseded_at->line;
	}
	sim_batch_finish(&b);
}

/* The case of @p r's directory whose stem is @p id, or NULL. */
static struct vrun *sibling(struct vlist *l, const struct vrun *r,
			    const char *id)
{
	for (size_t j = 0; j < l->n; j++)
		if (l->v[j].dir == r->dir && stem_is(l->v[j].path, id))
			return &l->v[j];
	return NULL;
}

/*
 * The superseded cases of a directory: each names a case beside it and
 * its chain of successors ends at a current case (else prepare() gives it
 * an error at the key's line); without --all-versions it leaves the list
 * before anything is built for it. A file named on the command line
 * stays, whatever it says.
 */
static void drop_superseded(const struct vopts *o, struct vlist *l)
{
	size_t kept = 0;

	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].dir)
			peek_successor(&l->v[i]);
	for (size_t i = 0; i < l->n; i++) {
		struct vrun *r = &l->v[i], *t;
		size_t steps = 0;

		if (!*r->successor)
			continue;
		t = sibling(l, r, r->successor);
		if (!t) {
			r->successor_error = SUCCESSOR_NOT_BESIDE;
			continue;
		}
		while (t && *t->successor && steps++ < l->n)
			t = sibling(l, r, t->successor);
		if (!t || *t->successor)
			r->successor_error = SUCCESSOR_NO_END;
	}
	for (size_t i = 0; i < l->n; i++) {
		struct vrun *r = &l->v[i];

		if (*r->successor && !r->successor_error && !o->all_versions) {
			free(r->path);
			l->superseded++;
			continue;
		}
		if (kept != i)
			l->v[kept] = *r;
		kept++;
	}
	l->n = kept;
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
	drop_superseded(&o, &l);
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
	if (validate_run_all(&o, &l)) {
		rc = CLI_EXIT_FAIL;
		goto out;
	}
	for (size_t i = 0; i < l.n; i++) {
		if (!l.v[i].status)
			continue;
		fprintf(stderr, "%s\n", l.v[i].err);
		if (l.v[i].status == CLI_EXIT_FAIL)
			validate_print_rerun(&o, &l.v[i], stderr);
		if (l.v[i].status > worst)
			worst = l.v[i].status;
	}
	validate_summarize(&l, &s);
	if (o.output && cli_output_open("validate", o.output)) {
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	if (o.json)
		validate_print_json(&o, &l, &s);
	else
		validate_print_table(&o, &l, &s);
	rc = worst;
	if (!rc && o.fail_on_miss && missed(&l))
		rc = CLI_EXIT_FAIL;
	if (fflush(stdout) || ferror(stdout))
		rc = CLI_EXIT_FAIL;
	if (o.output && cli_output_finish("validate", true))
		rc = CLI_EXIT_FAIL;
out:
	for (size_t i = 0; i < l.n; i++)
		vrun_finish(&l.v[i]);
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
