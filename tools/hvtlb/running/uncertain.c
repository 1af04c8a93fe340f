// SPDX-License-Identifier: MIT
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "sim-run.h"
#include "uncertain.h"

void unc_plan_init(struct unc_plan *u)
{
	memset(u, 0, sizeof(*u));
}

void unc_plan_finish(struct unc_plan *u)
{
	free(u->p);
	free(u->x);
	free(u->seed);
	unc_plan_init(u);
}

static bool whole(double x)
{
	return floor(x) == x;
}

int unc_digits(double lo, double hi)
{
	double top = fmax(fabs(lo), fabs(hi));
	int d = 6;

	if (hi > lo && top > 0)
		d += (int)fmax(0, ceil(log10(top / (hi - lo))));
	return d > 17 ? 17 : d;
}

static const struct unc_param *find_param(const struct unc_plan *u,
					  const char *key)
{
	for (size_t j = 0; j < u->n; j++)
		if (!strcmp(u->p[j].key, key))
			return &u->p[j];
	return NULL;
}

static struct unc_param *add_param(struct unc_plan *u, const char *key)
{
	struct unc_param *p;
	void *v;

	if (strlen(key) >= UNC_KEY_MAX)
		return NULL;
	v = grow(u->p, u->n, &u->cap, sizeof(*u->p), 64);
	if (!v)
		return NULL;
	u->p = v;
	p = &u->p[u->n++];
	memset(p, 0, sizeof(*p));
	snprintf(p->key, sizeof(p->key), "%s", key);
	return p;
}

/* The library's range of cost @p key, if it has one (lo < hi). */
static bool library_range(const char *key, size_t *index)
{
	double lo, hi;

	return !sim_cost_index(key, index) &&
	       !hvtlb_sim_cost_range(*index, &lo, &hi, NULL) && lo < hi;
}

bool unc_ranged_in(const struct scenario *sc, const char *key)
{
	const struct scenario_setting *e = scenario_find(sc, key);
	size_t i;

	if (e && e->ranged)
		return true;
	if (!e || !strcmp(e->value, "default"))
		return library_range(key, &i);
	return false;
}

static int collect_one(struct unc_plan *u, const struct scenario *sc,
		       const char *key)
{
	const struct scenario_setting *e;
	struct unc_param *p;
	size_t i;

	if (find_param(u, key) || !unc_ranged_in(sc, key))
		return 0;
	e = scenario_find(sc, key);
	p = add_param(u, key);
	if (!p)
		return strlen(key) >= UNC_KEY_MAX ? -E2BIG : -ENOMEM;
	if (e && e->ranged) {
		p->nominal = strtod(e->value, NULL); /* checked by the parser */
		p->lo = e->lo;
		p->hi = e->hi;
		p->log = e->log;
		p->source = e->source;
		p->file = e->file;
		p->line = e->line;
	} else {
		sim_cost_index(key, &i);
		p->nominal = hvtlb_sim_cost_default(i);
		hvtlb_sim_cost_range(i, &p->lo, &p->hi, &p->log);
		p->source = hvtlb_sim_cost_source(i);
	}
	p->integer = whole(p->nominal) && whole(p->lo) && whole(p->hi);
	p->digits = unc_digits(p->lo, p->hi);
	return 0;
}

/* Applies a setting (a profile's `default` too: the library's value). */
static int set_plain(void *ctx, const char *key, const char *value)
{
	return hvtlb_sim_config_set(ctx, key, value);
}

int unc_plan_collect(struct unc_plan *u, const struct scenario *sc)
{
	struct hvtlb_sim_config cfg;
	char key[UNC_KEY_MAX];
	const char *name;
	bool known;
	int rc;

	/* The costs of a mechanism the scenario leaves off are not drawn:
	 * they could not move a result, and drawing them would only
	 * reshuffle the draws of the others. */
	hvtlb_sim_config_init(&cfg);
	known = !scenario_apply(sc, set_plain, &cfg, NULL);
	for (size_t i = 0; (name = hvtlb_sim_cost_name(i)); i++) {
		if (known && !hvtlb_sim_cost_used(&cfg, i))
			continue;
		snprintf(key, sizeof(key), "cost.%s", name);
		rc = collect_one(u, sc, key);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < sc->file.n; i++) {
		if (!sc->file.v[i].ranged)
			continue;
		rc = collect_one(u, sc, sc->file.v[i].key);
		if (rc)
			return rc;
	}
	return 0;
}

/* splitmix64: small, fast and the same everywhere. */
static uint64_t next_u64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double next_unit(uint64_t *state)
{
	return (double)(next_u64(state) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, n), without modulo bias. */
static size_t next_below(uint64_t *state, size_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, v;

	do
		v = next_u64(state);
	while (v >= limit);
	return (size_t)(v % n);
}

/* The value at quantile @p q of @p p's range, rounded as it is used. */
static double value_at(const struct unc_param *p, double q)
{
	double x;
	char buf[32];

	if (p->log)
		x = exp(log(p->lo) + q * (log(p->hi) - log(p->lo)));
	else
		x = p->lo + q * (p->hi - p->lo);
	if (p->integer)
		x = round(x);
	else {
		snprintf(buf, sizeof(buf), "%.*g", p->digits, x);
		x = strtod(buf, NULL);
	}
	if (x < p->lo)
		x = p->lo;
	if (x > p->hi)
		x = p->hi;
	return x;
}

static int alloc_draws(struct unc_plan *u, size_t n)
{
	free(u->x);
	free(u->seed);
	u->x = calloc(n * (u->n ? u->n : 1), sizeof(*u->x));
	u->seed = calloc(n, sizeof(*u->seed));
	u->ndraws = n;
	if (!u->x || !u->seed) {
		free(u->x);
		free(u->seed);
		u->x = NULL;
		u->seed = NULL;
		u->ndraws = 0;
		return -ENOMEM;
	}
	return 0;
}

int unc_plan_draw(struct unc_plan *u, size_t n, uint64_t seed)
{
	uint64_t state = seed;
	size_t *perm;
	int rc = alloc_draws(u, n);

	if (rc)
		return rc;
	perm = malloc(n * sizeof(*perm));
	if (!perm)
		return -ENOMEM;
	for (size_t j = 0; j < u->n; j++) {
		for (size_t i = 0; i < n; i++)
			perm[i] = i;
		for (size_t i = n; i > 1; i--) { /* Fisher-Yates */
			size_t k = next_below(&state, i), t = perm[i - 1];

			perm[i - 1] = perm[k];
			perm[k] = t;
		}
		for (size_t i = 0; i < n; i++) {
			double q = ((double)perm[i] + next_unit(&state)) /
				   (double)n;

			u->x[i * u->n + j] = value_at(&u->p[j], q);
		}
	}
	for (size_t i = 0; i < n; i++)
		u->seed[i] = next_u64(&state);
	u->reseed = true;
	free(perm);
	return 0;
}

int unc_plan_one_at_a_time(struct unc_plan *u)
{
	int rc = alloc_draws(u, 2 * u->n);

	if (rc)
		return rc;
	for (size_t i = 0; i < u->ndraws * u->n; i++)
		u->x[i] = NAN;
	for (size_t j = 0; j < u->n; j++) {
		u->x[(2 * j) * u->n + j] = u->p[j].lo;
		u->x[(2 * j + 1) * u->n + j] = u->p[j].hi;
	}
	u->reseed = false;
	return 0;
}

double unc_value(const struct unc_plan *u, size_t d, size_t j)
{
	return u->x[d * u->n + j];
}

void unc_format(const struct unc_param *p, double x, char *buf, size_t len)
{
	if (p->integer)
		snprintf(buf, len, "%.0f", x);
	else
		snprintf(buf, len, "%.*g", p->digits ? p->digits : 6, x);
}

/* Calls @p fn for each value draw @p d sets in a run of @p sc (every
 * parameter whose effective setting there still carries its range), as
 * the text the library is given; stops at fn's first nonzero return. */
static int
each_drawn(const struct unc_plan *u, size_t d, const struct scenario *sc,
	   int (*fn)(void *ctx, const struct unc_param *p, const char *text),
	   void *ctx)
{
	char text[32];

	for (size_t j = 0; j < u->n; j++) {
		const struct unc_param *p = &u->p[j];
		double x = unc_value(u, d, j);
		int rc;

		if (isnan(x) || !unc_ranged_in(sc, p->key))
			continue;
		unc_format(p, x, text, sizeof(text));
		rc = fn(ctx, p, text);
		if (rc)
			return rc;
	}
	return 0;
}

struct apply_ctx {
	struct hvtlb_sim_config *cfg;
	size_t d;
	char *err;
	size_t errlen;
};

static int apply_one(void *ctx, const struct unc_param *p, const char *text)
{
	struct apply_ctx *a = ctx;
	int rc = hvtlb_sim_config_set(a->cfg, p->key, text);

	if (rc)
		snprintf(a->err, a->errlen, "draw %zu: cannot set %s = %s: %s",
			 a->d + 1, p->key, text,
			 rc == -ERANGE ? "out of range" : "bad value");
	return rc;
}

int unc_plan_apply(const struct unc_plan *u, size_t d,
		   const struct scenario *sc, struct hvtlb_sim_config *cfg,
		   char *err, size_t errlen)
{
	struct apply_ctx a = { cfg, d, err, errlen };
	int rc = each_drawn(u, d, sc, apply_one, &a);

	if (rc)
		return rc;
	if (u->reseed)
		cfg->seed = u->seed[d];
	return 0;
}

static int print_one(void *ctx, const struct unc_param *p, const char *text)
{
	return fprintf(ctx, " --set %s=%s", p->key, text) < 0 ? -EIO : 0;
}

void unc_plan_print_sets(const struct unc_plan *u, size_t d,
			 const struct scenario *sc, FILE *f)
{
	(void)each_drawn(u, d, sc, print_one, f);
}
