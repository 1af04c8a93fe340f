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
	V_COUNT
};

static const char *const vkey_names[V_COUNT] = {
	"title", "source", "kind",	"setup",      "quantity", "metric",
	"a",	 "b",	   "published", "derivation", "ci",
};

/* Keys every case has (b: only a ratio; ci: optional). */
static bool required(enum vkey k)
{
	return k != V_B && k != V_CI;
}

/* The case id: the file's stem, lowercase letters, digits and dashes. */
static int case_id(struct vcase *c, const char *path, char *err, size_t errlen)
{
	const char *base = strrchr(path, '/'), *dot;
	size_t n;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	n = dot ? (size_t)(dot - base) : strlen(base);
	if (!n || n >= sizeof(c->id))
		goto bad;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)base[i]) &&
		    !isdigit((unsigned char)base[i]) && base[i] != '-')
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
	return check_values(c, at, err, errlen);
}

int vcase_add_overrides(struct scenario *sc,
			const struct scenario_setting *list)
{
	char *copy, *piece, *next;
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
		if (*piece)
			rc = scenario_add_override_at(sc, piece, list->file,
						      list->line);
	}
	free(copy);
	return rc;
}
