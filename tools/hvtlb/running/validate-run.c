// SPDX-License-Identifier: MIT
/*
 * The runs of `hvtlb validate`: every case's runs a and b on the nominal
 * values and on each draw, all cases in one pool (a run two cases need
 * runs once), or with --converge in stages of 16, 32, 64, ... draws that
 * a case leaves once its bands are settled; then each quantity's verdict;
 * and, for a run that failed, the `hvtlb sim` command that runs it alone.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "runpool.h"
#include "validate.h"

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
int validate_run_all(const struct vopts *o, struct vlist *l)
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

static int print_override(void *f, const char *piece)
{
	fputs(" --set ", f);
	cli_shell_word(f, piece, strlen(piece));
	return 0;
}

/* A case's list of overrides (ci, a, b: "k=v; k=v") as the --set options
 * vcase_add_overrides() turns it into, split by the same code. */
static void print_overrides(FILE *f, const struct scenario_setting *list)
{
	(void)vcase_each_override(list, print_override, f);
}

void validate_print_rerun(const struct vopts *o, const struct vrun *r, FILE *f)
{
	size_t row, k;

	if (!ensemble_failed_job(&r->e, &row, &k))
		return;
	fputs("  the same run alone: hvtlb sim ", f);
	cli_shell_word(f, r->path, strlen(r->path));
	if (o->quick)
		print_overrides(f, r->c.ci);
	for (size_t i = 0; i < o->nsets; i++) {
		fputs(" --set ", f);
		cli_shell_word(f, o->sets[i], strlen(o->sets[i]));
	}
	print_overrides(f, k ? r->c.b : r->c.a);
	if (row)
		unc_plan_print_sets(&r->u, row - 1, k ? &r->b.sc : &r->a.sc, f);
	fprintf(f, " --seed %" PRIu64 "\n",
		ensemble_job(&r->e, row, k)->cfg.seed);
}
