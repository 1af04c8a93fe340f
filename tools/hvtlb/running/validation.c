// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validation.h"

enum vkey {
	V_TITLE,
	V_SOURCE,
	V_KIND,
	V_SETUP,
	V_QUANTITY,
	V_METRIC,
	V_A,
	V_B,
	V_PUBLISHED,
	V_DERIVATION,
	V_CI,
	V_SUPERSEDED_BY,
	V_COUNT
};

static const char *const vkey_names[V_COUNT] = {
	"title",     "source",	   "kind", "setup",
	"quantity",  "metric",	   "a",	   "b",
	"published", "derivation", "ci",   "superseded_by",
};

/* The fields of an observable, observable.N.FIELD: all required. */
enum ofield { O_TITLE, O_METRIC, O_RUN, O_PUBLISHED, O_DERIVATION, O_COUNT };

static const char *const ofield_names[O_COUNT] = {
	"title", "metric", "run", "published", "derivation",
};

#define OBS_PREFIX "observable"
#define OBS_FIELDS "title, metric, run, published, derivation"

/* Where each field of each observable was given (NULL: not given). */
typedef const struct scenario_setting *obs_lines[VCASE_OBS_MAX][O_COUNT];

/* Keys every case has (b: only a ratio; ci, superseded_by: optional). */
static bool required(enum vkey k)
{
	return k != V_B && k != V_CI && k != V_SUPERSEDED_BY;
}

/* Whether the @p n bytes at @p s can be a case id: lowercase letters,
 * digits and dashes, shorter than VCASE_ID_MAX. */
static bool id_ok(const char *s, size_t n)
{
	if (!n || n >= VCASE_ID_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)s[i]) &&
		    !isdigit((unsigned char)s[i]) && s[i] != '-')
			return false;
	return true;
}

/* The case id: the file's stem, lowercase letters, digits and dashes. */
static int case_id(struct vcase *c, const char *path, char *err, size_t errlen)
{
	const char *base = strrchr(path, '/'), *dot;
	size_t n;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	n = dot ? (size_t)(dot - base) : strlen(base);
	if (!id_ok(base, n))
		goto bad;
	memcpy(c->id, base, n);
	c->id[n] = '\0';
	return 0;
bad:
	snprintf(err, errlen,
		 "%s: a case's file name is its id: lowercase letters, "
		 "digits and dashes, then .ini",
		 path);
	return -EINVAL;
}

static int value_error(const struct scenario_setting *e, char *err,
		       size_t errlen, const char *what)
{
	snprintf(err, errlen, "%s:%u: [validation] %s: %s", e->file, e->line,
		 e->key, what);
	return -EINVAL;
}

/* superseded_by: the id of another case (the one that replaced it). */
static int check_successor(struct vcase *c, char *err, size_t errlen)
{
	const struct scenario_setting *e = c->superseded_at;

	if (!e)
		return 0;
	if (!id_ok(e->value, strlen(e->value)))
		return value_error(e, err, errlen,
				   "the id of a case (its file's stem: "
				   "lowercase letters, digits and dashes)");
	if (!strcmp(e->value, c->id))
		return value_error(e, err, errlen,
				   "a case cannot replace itself");
	c->superseded_by = e->value;
	return 0;
}

/* Whether @p key is one of observable.N.FIELD (well formed or not). */
static bool is_obs_key(const char *key)
{
	size_t n = strlen(OBS_PREFIX);

	return !strncmp(key, OBS_PREFIX, n) && (!key[n] || key[n] == '.');
}

/*
 * Files the line @p e, whose key is observable..., under its number and
 * field in @p at; reports a malformed key, an unknown field or a key
 * given twice.
 */
static int obs_key(obs_lines at, const struct scenario_setting *e, char *err,
		   size_t errlen)
{
	const char *p = e->key + strlen(OBS_PREFIX), *num;
	char what[160];
	unsigned long n = 0;
	int f;

	if (*p != '.' || !isdigit((unsigned char)p[1]))
		goto bad_number;
	num = ++p;
	while (isdigit((unsigned char)*p)) {
		n = 10 * n + (unsigned long)(*p - '0');
		if (n > VCASE_OBS_MAX)
			break;
		p++;
	}
	if (*num == '0' || n < 1 || n > VCASE_OBS_MAX)
		goto bad_number;
	if (*p != '.' || !p[1])
		return value_error(
			e, err, errlen,
			"an observable's key is "
			"observable.N.FIELD, FIELD one of " OBS_FIELDS);
	p++;
	for (f = 0; f < O_COUNT; f++)
		if (!strcmp(p, ofield_names[f]))
			break;
	if (f == O_COUNT) {
		snprintf(what, sizeof(what),
			 "unknown field '%.40s' (an observable has " OBS_FIELDS
			 ")",
			 p);
		return value_error(e, err, errlen, what);
	}
	if (at[n - 1][f]) {
		snprintf(what, sizeof(what), "given twice (first on line %u)",
			 at[n - 1][f]->line);
		return value_error(e, err, errlen, what);
	}
	at[n - 1][f] = e;
	return 0;
bad_number:
	snprintf(what, sizeof(what),
		 "an observable's key is observable.N.FIELD, N a number "
		 "from 1 to %d without leading zeros",
		 VCASE_OBS_MAX);
	return value_error(e, err, errlen, what);
}

/* The number in @p e's value; @p positive: > 0, else not 0. */
static int obs_published(double *out, const struct scenario_setting *e,
			 bool positive, char *err, size_t errlen)
{
	char *end;

	errno = 0;
	*out = strtod(e->value, &end);
	if (end == e->value || *end || errno || !isfinite(*out))
		return value_error(e, err, errlen, "not a number");
	if (positive && !(*out > 0))
		return value_error(e, err, errlen, "a ratio is > 0");
	if (!positive && *out == 0)
		return value_error(e, err, errlen,
				   "not 0 (the relative error divides by it)");
	return 0;
}

/* The first line of observable @p i (the lowest line of its fields). */
static const struct scenario_setting *obs_first(obs_lines at, size_t i)
{
	const struct scenario_setting *first = NULL;

	for (int f = 0; f < O_COUNT; f++)
		if (at[i][f] && (!first || at[i][f]->line < first->line))
			first = at[i][f];
	return first;
}

/*
 * Checks the observables filed in @p at (numbers 1..N without a gap, every
 * field given, values valid for the case @p c) and stores them in @p c.
 */
static int check_observables(struct vcase *c, obs_lines at, char *err,
			     size_t errlen)
{
	size_t n = 0;

	for (size_t i = 0; i < VCASE_OBS_MAX; i++)
		if (obs_first(at, i))
			n = i + 1;
	for (size_t i = 0; i < n; i++) {
		const struct scenario_setting *first = obs_first(at, i);
		struct vobservable *o = &c->obs[i];
		char what[600];

		if (!first) {
			const struct scenario_setting *next = NULL;

			for (size_t j = i + 1; !next && j < n; j++)
				next = obs_first(at, j);
			snprintf(err, errlen,
				 "%s:%u: [validation] %s: observable.%zu is "
				 "missing (observables are numbered 1..N "
				 "without a gap)",
				 next->file, next->line, next->key, i + 1);
			return -EINVAL;
		}
		for (int f = 0; f < O_COUNT; f++) {
			if (at[i][f])
				continue;
			snprintf(err, errlen,
				 "%s:%u: [validation] observable.%zu has no "
				 "'%s' (an observable needs " OBS_FIELDS ")",
				 first->file, first->line, i + 1,
				 ofield_names[f]);
			return -EINVAL;
		}
		o->number = (unsigned)(i + 1);
		o->title = at[i][O_TITLE]->value;
		o->derivation = at[i][O_DERIVATION]->value;
		o->metric_name = at[i][O_METRIC]->value;
		o->run_name = at[i][O_RUN]->value;
		o->metric = metric_find(o->metric_name);
		if (!o->metric) {
			char names[512];

			metric_names(names, sizeof(names));
			snprintf(what, sizeof(what), "'%s' is none of %s",
				 o->metric_name, names);
			return value_error(at[i][O_METRIC], err, errlen, what);
		}
		if (!strcmp(o->run_name, "a"))
			o->run = VOBS_A;
		else if (!strcmp(o->run_name, "b"))
			o->run = VOBS_B;
		else if (!strcmp(o->run_name, "ratio"))
			o->run = VOBS_RATIO;
		else
			return value_error(at[i][O_RUN], err, errlen,
					   "'a', 'b' or 'ratio'");
		if (o->run != VOBS_A && !c->ratio)
			return value_error(at[i][O_RUN], err, errlen,
					   "a value case has no run b");
		if (obs_published(&o->published, at[i][O_PUBLISHED],
				  o->run == VOBS_RATIO, err, errlen))
			return -EINVAL;
	}
	c->nobs = n;
	return 0;
}

/* Checks the fields' values once every key is known. */
static int check_values(struct vcase *c, const struct scenario_setting **at,
			char *err, size_t errlen)
{
	char *end;

	if (!strcmp(c->kind, "calibration"))
		c->calibration = true;
	else if (strcmp(c->kind, "validation"))
		return value_error(at[V_KIND], err, errlen,
				   "'validation' or 'calibration'");
	if (!strcmp(c->quantity, "ratio"))
		c->ratio = true;
	else if (strcmp(c->quantity, "value"))
		return value_error(at[V_QUANTITY], err, errlen,
				   "'ratio' or 'value'");
	c->metric = metric_find(c->metric_name);
	if (!c->metric) {
		char names[512], what[600];

		metric_names(names, sizeof(names));
		snprintf(what, sizeof(what), "'%s' is none of %s",
			 c->metric_name, names);
		return value_error(at[V_METRIC], err, errlen, what);
	}
	errno = 0;
	c->published = strtod(at[V_PUBLISHED]->value, &end);
	if (end == at[V_PUBLISHED]->value || *end || errno ||
	    !isfinite(c->published))
		return value_error(at[V_PUBLISHED], err, errlen,
				   "not a number");
	if (c->ratio && !(c->published > 0))
		return value_error(at[V_PUBLISHED], err, errlen,
				   "a ratio is > 0");
	if (c->ratio && !c->b) {
		snprintf(err, errlen, "%s:%u: [validation] a ratio needs b",
			 at[V_QUANTITY]->file, at[V_QUANTITY]->line);
		return -EINVAL;
	}
	if (!c->ratio && c->b)
		return value_error(c->b, err, errlen,
				   "a value compares no second run");
	return 0;
}

int vcase_parse(struct vcase *c, const struct scenario *sc, const char *path,
		char *err, size_t errlen)
{
	const struct scenario_setting *at[V_COUNT] = { NULL };
	obs_lines obs = { { NULL } };
	const char **field[V_COUNT] = {
		[V_TITLE] = &c->title,
		[V_SOURCE] = &c->source,
		[V_KIND] = &c->kind,
		[V_SETUP] = &c->setup,
		[V_QUANTITY] = &c->quantity,
		[V_METRIC] = &c->metric_name,
		[V_DERIVATION] = &c->derivation,
	};
	int rc;

	memset(c, 0, sizeof(*c));
	rc = case_id(c, path, err, errlen);
	if (rc)
		return rc;
	for (size_t i = 0; i < sc->validation.n; i++) {
		const struct scenario_setting *e = &sc->validation.v[i];
		int k;

		if (is_obs_key(e->key)) {
			rc = obs_key(obs, e, err, errlen);
			if (rc)
				return rc;
			continue;
		}
		for (k = 0; k < V_COUNT; k++)
			if (!strcmp(e->key, vkey_names[k]))
				break;
		if (k == V_COUNT)
			return value_error(e, err, errlen, "unknown key");
		if (at[k])
			return value_error(e, err, errlen, "given twice");
		at[k] = e;
		if (field[k])
			*field[k] = e->value;
	}
	for (int k = 0; k < V_COUNT; k++) {
		if (!at[k] && required((enum vkey)k)) {
			snprintf(err, errlen,
				 "%s: [validation] has no '%s' (a case needs "
				 "title, source, kind, setup, quantity, "
				 "metric, a, published, derivation)",
				 path, vkey_names[k]);
			return -EINVAL;
		}
	}
	c->a = at[V_A];
	c->b = at[V_B];
	c->ci = at[V_CI];
	c->superseded_at = at[V_SUPERSEDED_BY];
	rc = check_successor(c, err, errlen);
	if (!rc)
		rc = check_values(c, at, err, errlen);
	if (rc)
		return rc;
	return check_observables(c, obs, err, errlen);
}

int vcase_each_override(const struct scenario_setting *list,
			int (*fn)(void *ctx, const char *piece), void *ctx)
{
	char *copy, *piece, *next, *end;
	int rc = 0;

	if (!list)
		return 0;
	copy = strdup(list->value);
	if (!copy)
		return -ENOMEM;
	for (piece = copy; piece && !rc; piece = next) {
		next = strchr(piece, ';');
		if (next)
			*next++ = '\0';
		while (isspace((unsigned char)*piece))
			piece++;
		end = piece + strlen(piece);
		while (end > piece && isspace((unsigned char)end[-1]))
			*--end = '\0';
		if (*piece)
			rc = fn(ctx, piece);
	}
	free(copy);
	return rc;
}

struct add_ctx {
	struct scenario *sc;
	const struct scenario_setting *list;
};

static int add_one(void *ctx, const char *piece)
{
	struct add_ctx *a = ctx;

	return scenario_add_override_at(a->sc, piece, a->list->file,
					a->list->line);
}

int vcase_add_overrides(struct scenario *sc,
			const struct scenario_setting *list)
{
	struct add_ctx a = { sc, list };

	return vcase_each_override(list, add_one, &a);
}
