// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ensemble.h"
#include "sim-run.h"

static int check_end(const struct unc_param *p, double x,
		     const struct hvtlb_sim_config *cfg, char *err,
		     size_t errlen)
{
	struct hvtlb_sim_config c = *cfg;
	char text[32];
	const char *bad = NULL;
	int rc;

	unc_format(p, x, text, sizeof(text));
	rc = hvtlb_sim_config_set(&c, p->key, text);
	if (!rc)
		rc = hvtlb_sim_config_validate(&c, &bad);
	if (!rc)
		return 0;
	if (p->file)
		snprintf(err, errlen,
			 "%s:%u: range end %s of '%s' is impossible%s%s",
			 p->file, p->line, text, p->key, bad ? ": " : "",
			 bad ? bad : "");
	else
		snprintf(err, errlen,
			 "library range end %s of '%s' is impossible", text,
			 p->key);
	return rc;
}

int ensemble_init(struct ensemble *e, const struct unc_plan *u,
		  const struct ens_run *runs, size_t nruns, char *err,
		  size_t errlen)
{
	size_t rows = 1 + u->ndraws;
	int rc;

	memset(e, 0, sizeof(*e));
	if (nruns > sizeof(e->names) / sizeof(e->names[0]))
		return -E2BIG;
	e->plan = u;
	e->nruns = nruns;
	e->ndraws = u->ndraws;
	e->job = calloc(rows * nruns, sizeof(*e->job));
	if (!e->job)
		return -ENOMEM;
	for (size_t r = 0; r < nruns; r++) {
		snprintf(e->names[r], sizeof(e->names[r]), "%s",
			 runs[r].name ? runs[r].name : "run");
		for (size_t j = 0; j < u->n; j++) {
			if (!unc_ranged_in(runs[r].sc, u->p[j].key))
				continue;
			rc = check_end(&u->p[j], u->p[j].lo, runs[r].cfg, err,
				       errlen);
			if (!rc)
				rc = check_end(&u->p[j], u->p[j].hi,
					       runs[r].cfg, err, errlen);
			if (rc)
				return rc;
		}
	}
	for (size_t row = 0; row < rows; row++) {
		for (size_t r = 0; r < nruns; r++) {
			struct run_job *j = ensemble_job(e, row, r);

			j->cfg = *runs[r].cfg;
			j->cfg.threads = 1;
			if (!row)
				continue;
			rc = unc_plan_apply(u, row - 1, runs[r].sc, &j->cfg,
					    err, errlen);
			if (rc)
				return rc;
		}
	}
	return 0;
}

void ensemble_finish(struct ensemble *e)
{
	size_t n = ensemble_njobs(e);

	for (size_t i = 0; e->job && i < n; i++)
		run_job_finish(&e->job[i]);
	free(e->job);
	memset(e, 0, sizeof(*e));
}

struct run_job *ensemble_job(const struct ensemble *e, size_t row, size_t r)
{
	return &e->job[row * e->nruns + r];
}

size_t ensemble_njobs(const struct ensemble *e)
{
	return (1 + e->ndraws) * e->nruns;
}

void ensemble_job_list(const struct ensemble *e, struct run_job **out)
{
	for (size_t i = 0; i < ensemble_njobs(e); i++)
		out[i] = &e->job[i];
}

bool ensemble_failed_job(const struct ensemble *e, size_t *row, size_t *r)
{
	for (size_t i = 0; e->job && i <= e->ndraws; i++)
		for (size_t k = 0; k < e->nruns; k++)
			if (ensemble_job(e, i, k)->rc) {
				*row = i;
				*r = k;
				return true;
			}
	return false;
}

int ensemble_first_failure(const struct ensemble *e, char *err, size_t errlen)
{
	const struct run_job *j;
	char where[32];
	size_t row, r;

	if (!ensemble_failed_job(e, &row, &r))
		return 0;
	j = ensemble_job(e, row, r);
	if (row)
		snprintf(where, sizeof(where), "draw %zu", row);
	else
		snprintf(where, sizeof(where), "nominal");
	snprintf(err, errlen, "%s (%s) failed: %s", e->names[r], where,
		 sim_run_strerror(j->rc));
	return j->rc;
}

void ensemble_values(const struct ensemble *e, size_t a, size_t b,
		     const struct metric *m, double *out)
{
	for (size_t d = 1; d <= e->ndraws; d++) {
		const struct run_job *ja = ensemble_job(e, d, a);
		double x = m->get(ja->res, &ja->cfg);

		if (b != (size_t)-1) {
			const struct run_job *jb = ensemble_job(e, d, b);
			double y = m->get(jb->res, &jb->cfg);

			x = y > 0 ? x / y : 0;
		}
		out[d - 1] = x;
	}
}

void ensemble_ratio_band(const struct ensemble *e, size_t a, size_t b,
			 const struct metric *m, struct band *out)
{
	double *v = malloc((e->ndraws ? e->ndraws : 1) * sizeof(*v));

	if (!v || !e->ndraws) {
		*out = (struct band){ 0, 0, 0 };
		free(v);
		return;
	}
	ensemble_values(e, a, b, m, v);
	band_of(v, e->ndraws, out);
	free(v);
}

void ensemble_band(const struct ensemble *e, size_t r, const struct metric *m,
		   struct band *out)
{
	ensemble_ratio_band(e, r, (size_t)-1, m, out);
}

int ensemble_run_batch(struct ensemble *e, struct unc_plan *u,
		       struct sim_batch *b, size_t ndraws, unsigned threads,
		       char *err, size_t errlen)
{
	struct ens_run runs[SCENARIO_COMPARE_MAX];
	struct run_job **list;
	int rc;

	rc = unc_plan_collect(u, &b->sc);
	if (!rc)
		rc = unc_plan_draw(u, ndraws, b->cfg[0].seed);
	if (rc) {
		snprintf(err, errlen, "%s: %s", b->sc.path, strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < b->nruns; i++)
		runs[i] = (struct ens_run){ &b->sc, &b->cfg[i],
					    b->strategy[i] ? b->strategy[i]
							   : "run" };
	rc = ensemble_init(e, u, runs, b->nruns, err, errlen);
	if (rc)
		return rc;
	list = malloc(ensemble_njobs(e) * sizeof(*list));
	if (!list) {
		snprintf(err, errlen, "%s: out of memory", b->sc.path);
		return -ENOMEM;
	}
	ensemble_job_list(e, list);
	runpool_run(list, ensemble_njobs(e), threads);
	free(list);
	rc = ensemble_first_failure(e, err, errlen);
	if (rc)
		return rc;
	for (size_t i = 0; i < b->nruns; i++) {
		struct run_job *j = ensemble_job(e, 0, i);

		b->cfg[i] = j->cfg;
		b->res[i] = j->res;
		j->res = NULL;
	}
	return 0;
}
