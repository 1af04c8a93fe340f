// SPDX-License-Identifier: MIT
/*
 * `hvtlb sweep --merge SHARD_OUTPUT...`: reads back the JSON lines that
 * every `--shard I/N` wrote, rebuilds the grid from their values, checks
 * that each point and each of its runs is there once, and prints the CSV
 * the unsharded sweep prints, byte for byte (each line carries its CSV
 * row); with --svg, the plot from those rows.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "grow.h"
#include "json.h"
#include "json-read.h"
#include "sweep.h"

/* One JSON line of a shard's output. */
struct mline {
	struct json_doc doc;
	uint64_t point, points, run, runs, draws;
	const struct json_value *values, *row;
	const char *error, *strategy, *scenario;
	const char *commit; /* of the hvtlb that wrote it; NULL: not said */
	const char *file;
	size_t lineno;
};

struct merge {
	struct mline *v;
	size_t n, cap;
	char **texts;
	size_t ntexts;
	/* the grid, rebuilt from the lines */
	struct vary vary[MAX_VARY];
	size_t nvary, npoints;
	size_t (*idx)[MAX_VARY]; /* per point */
	size_t *first;		 /* per point: its first line */
	bool bands;
	size_t ncells;
};

static void merge_finish(struct merge *m)
{
	for (size_t i = 0; i < m->n; i++)
		json_free(&m->v[i].doc);
	free(m->v);
	for (size_t i = 0; i < m->ntexts; i++)
		free(m->texts[i]);
	free(m->texts);
	free(m->idx);
	free(m->first);
}

static int merge_error(const struct mline *l, const char *what)
{
	fprintf(stderr, "hvtlb sweep: --merge: %s:%zu: %s\n", l->file,
		l->lineno, what);
	return CLI_EXIT_USAGE;
}

static int read_text(const char *path, char **out)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	FILE *m;
	char chunk[65536];
	size_t n, len = 0;
	int rc = 0;

	*out = NULL;
	if (!f)
		return -errno;
	m = open_memstream(out, &len);
	if (!m) {
		rc = -ENOMEM;
	} else {
		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			fwrite(chunk, 1, n, m);
		if (ferror(f))
			rc = -EIO;
		if (fclose(m) && !rc)
			rc = -ENOMEM;
	}
	if (f != stdin)
		fclose(f);
	return rc;
}

/* Parses one line into @p l; returns 0 or an exit code (printed). */
static int parse_mline(struct mline *l, char *text, size_t len)
{
	const struct json_value *root, *v;
	char err[128], msg[256];
	uint64_t schema;

	if (json_parse(&l->doc, text, len, err, sizeof(err))) {
		snprintf(msg, sizeof(msg), "not JSON (%s)", err);
		return merge_error(l, msg);
	}
	root = l->doc.root;
	/* A line without a schema comes from an hvtlb before it had one. */
	v = json_get(root, "schema");
	if (v && (json_u64(v, &schema) || schema > SWEEP_SHARD_JSON_SCHEMA))
		return merge_error(l, "a shard line of a later schema than "
				      "this hvtlb reads; merge with the hvtlb "
				      "that wrote it");
	v = json_get(json_get(root, "hvtlb"), "commit");
	l->commit = v && v->type == JSON_STRING ? v->text : NULL;
	if (json_u64(json_get(root, "point"), &l->point) ||
	    json_u64(json_get(root, "points"), &l->points) ||
	    json_u64(json_get(root, "run"), &l->run) ||
	    json_u64(json_get(root, "runs"), &l->runs) ||
	    json_u64(json_get(root, "draws"), &l->draws))
		return merge_error(l, "not a line of `hvtlb sweep --shard` "
				      "(point, points, run, runs)");
	l->values = json_get(root, "values");
	l->row = json_get(root, "row");
	if (!l->values || l->values->type != JSON_OBJECT || !l->row ||
	    l->row->type != JSON_ARRAY || l->row->n > MAX_CELLS)
		return merge_error(l, "not a line of `hvtlb sweep --shard` "
				      "(values, row)");
	for (size_t i = 0; i < l->row->n; i++)
		if (l->row->child[i].type != JSON_STRING)
			return merge_error(l, "row: not all strings");
	for (size_t i = 0; i < l->values->n; i++)
		if (l->values->child[i].type != JSON_STRING)
			return merge_error(l, "values: not all strings");
	v = json_get(root, "error");
	l->error = v && v->type == JSON_STRING ? v->text : NULL;
	v = json_get(root, "strategy");
	l->strategy = v && v->type == JSON_STRING ? v->text : NULL;
	v = json_get(root, "scenario");
	l->scenario = v && v->type == JSON_STRING ? v->text : NULL;
	if (!l->points || l->points > MAX_POINTS || l->point >= l->points ||
	    !l->runs || l->runs > SCENARIO_COMPARE_MAX || l->run >= l->runs)
		return merge_error(l, "point or run out of range");
	return 0;
}

static int add_file(struct merge *m, const char *path)
{
	char *text, *line, *next, **t;
	size_t lineno = 0;
	int rc = read_text(path, &text);

	if (rc) {
		fprintf(stderr, "hvtlb sweep: --merge: %s: %s\n", path,
			strerror(-rc));
		return CLI_EXIT_USAGE;
	}
	t = realloc(m->texts, (m->ntexts + 1) * sizeof(*t));
	if (!t) {
		free(text);
		return CLI_EXIT_FAIL;
	}
	m->texts = t;
	m->texts[m->ntexts++] = text;
	for (line = text; line && *line; line = next) {
		size_t len;
		void *v;

		next = strchr(line, '\n');
		len = next ? (size_t)(next - line) : strlen(line);
		if (next)
			*next++ = '\0';
		lineno++;
		if (!len)
			continue;
		v = grow(m->v, m->n, &m->cap, sizeof(*m->v), 64);
		if (!v)
			return CLI_EXIT_FAIL;
		m->v = v;
		memset(&m->v[m->n], 0, sizeof(m->v[0]));
		m->v[m->n].file = path;
		m->v[m->n].lineno = lineno;
		rc = parse_mline(&m->v[m->n], line, len);
		m->n++;
		if (rc)
			return rc;
	}
	return 0;
}

static int by_point_run(const void *pa, const void *pb)
{
	const struct mline *a = pa, *b = pb;

	if (a->point != b->point)
		return a->point < b->point ? -1 : 1;
	return (a->run > b->run) - (a->run < b->run);
}

/* The grid: keys from the first line, values in order of appearance.
 * Returns 0 or an exit code (printed). */
static int rebuild_grid(struct merge *m)
{
	const struct mline *l0 = &m->v[0];
	size_t product = 1;

	m->npoints = l0->points;
	m->nvary = l0->values->n;
	if (m->nvary > MAX_VARY)
		return merge_error(l0, "too many --vary keys");
	m->idx = calloc(m->npoints, sizeof(*m->idx));
	m->first = calloc(m->npoints, sizeof(*m->first));
	if (!m->idx || !m->first)
		return CLI_EXIT_FAIL;
	for (size_t k = 0; k < m->nvary; k++)
		m->vary[k].key = l0->values->child[k].key;
	for (size_t i = 0; i < m->n; i++) {
		const struct mline *l = &m->v[i];

		if (l->points != m->npoints)
			return merge_error(l, "a line of another sweep (its "
					      "grid has another size)");
		if (l->values->n != m->nvary)
			return merge_error(l, "a line of another sweep (other "
					      "--vary keys)");
		if (l->run == 0)
			m->first[l->point] = i;
		for (size_t k = 0; k < m->nvary; k++) {
			const struct json_value *v = &l->values->child[k];
			struct vary *va = &m->vary[k];
			size_t j;

			if (strcmp(v->key, va->key))
				return merge_error(l, "a line of another sweep "
						      "(other --vary keys)");
			for (j = 0; j < va->n; j++)
				if (!strcmp(va->values[j], v->text))
					break;
			if (j == va->n) {
				if (va->n == MAX_VALUES)
					return merge_error(l,
							   "too many values");
				va->values[va->n++] = (char *)v->text;
			}
			m->idx[l->point][k] = j;
		}
	}
	for (size_t k = 0; k < m->nvary; k++)
		product *= m->vary[k].n;
	if (m->nvary && product != m->npoints && m->n) {
		fprintf(stderr,
			"hvtlb sweep: --merge: the lines name %zu of the %zu "
			"grid points: a shard's output is missing\n",
			product, m->npoints);
		return CLI_EXIT_USAGE;
	}
	return 0;
}

/* Every point once, every run of it once. Returns 0 or an exit code. */
static int check_complete(struct merge *m)
{
	size_t i = 0;

	qsort(m->v, m->n, sizeof(*m->v), by_point_run);
	for (size_t p = 0; p < m->npoints; p++) {
		size_t runs;

		if (i == m->n || m->v[i].point != p) {
			fprintf(stderr,
				"hvtlb sweep: --merge: point %zu of %zu is "
				"missing: give every shard's output\n",
				p, m->npoints);
			return CLI_EXIT_USAGE;
		}
		runs = m->v[i].runs;
		for (size_t r = 0; r < runs; r++, i++) {
			const struct mline *l = i < m->n ? &m->v[i] : NULL;

			if (!l || l->point != p || l->run != r ||
			    l->runs != runs)
				return merge_error(
					l ? l : &m->v[i - 1],
					"a run of a point is missing "
					"or given twice");
			if (l->row->n != m->ncells)
				return merge_error(l, "a row of another shape");
		}
		if (i < m->n && m->v[i].point == p)
			return merge_error(&m->v[i],
					   "a point given twice (the same "
					   "shard twice?)");
	}
	return 0;
}

/* Cells of a row without bands: keys, strategy, seed (each unless a key
 * replaces it), the metrics. */
static size_t plain_cells(const struct merge *m)
{
	size_t n = m->nvary + CSV_NSWEEP + 2;

	for (size_t k = 0; k < m->nvary; k++)
		n -= !strcmp(m->vary[k].key, "seed") ||
		     !strcmp(m->vary[k].key, "strategy");
	return n;
}

/* The column of @p name in a merged row, or (size_t)-1. */
static size_t column_of(const struct merge *m, const char *name)
{
	size_t base = plain_cells(m) - CSV_NSWEEP;

	for (size_t c = 0; c < CSV_NSWEEP; c++) {
		const char *column = csv_sweep_column(c)->name;
		char band[64];

		if (!strcmp(column, name))
			return base + c;
		for (int b = 0; m->bands && b < 3; b++) {
			snprintf(band, sizeof(band), "%s_%s", column,
				 b == 0	  ? "p5"
				 : b == 1 ? "p50"
					  : "p95");
			if (!strcmp(band, name))
				return base + CSV_NSWEEP + 3 * c + (size_t)b;
		}
	}
	return (size_t)-1;
}

static const size_t *merge_idx(const void *ctx, size_t p)
{
	return ((const struct merge *)ctx)->idx[p];
}

static size_t merge_runs(const void *ctx, size_t p)
{
	const struct merge *m = ctx;

	return m->v[m->first[p]].runs;
}

static double merge_value(const void *ctx, const struct metric *mt, size_t p,
			  size_t r, int which)
{
	const struct merge *m = ctx;
	const struct mline *l = &m->v[m->first[p] + r];
	char name[64];
	size_t c;
	char *end;
	double v;

	snprintf(name, sizeof(name), "%s%s", mt->name,
		 which == 1   ? "_p5"
		 : which == 2 ? "_p95"
			      : "");
	c = column_of(m, name);
	if (c >= l->row->n || !*l->row->child[c].text)
		return NAN;
	v = strtod(l->row->child[c].text, &end);
	return *end ? NAN : v;
}

static const char *merge_strategy(const void *ctx, size_t p, size_t r)
{
	const struct merge *m = ctx;

	return m->v[m->first[p] + r].strategy;
}

/* Shards written by different builds may hold results of different
 * engines: merged, they make one table all the same, so say so. */
static void warn_commits(const struct merge *m)
{
	const struct mline *a = &m->v[0];

	for (size_t i = 1; i < m->n; i++) {
		const struct mline *b = &m->v[i];

		if (!a->commit || !b->commit || !strcmp(a->commit, b->commit))
			continue;
		fprintf(stderr,
			"hvtlb sweep: --merge: warning: %s:%zu was written by "
			"hvtlb %s, %s:%zu by hvtlb %s: their results may "
			"differ for that reason alone\n",
			a->file, a->lineno, a->commit, b->file, b->lineno,
			b->commit);
		return;
	}
}

/* Reads every line of every file and checks that they make one grid.
 * Returns 0 or an exit code (printed). */
static int merge_load(struct merge *m, int argc, char **argv, int first)
{
	int rc = 0;

	for (int i = first; !rc && i < argc; i++)
		rc = add_file(m, argv[i]);
	if (!rc && !m->n) {
		fprintf(stderr, "hvtlb sweep: --merge: no lines\n");
		rc = CLI_EXIT_USAGE;
	}
	if (!rc)
		warn_commits(m);
	if (!rc)
		rc = rebuild_grid(m);
	if (!rc) {
		m->ncells = m->v[0].row->n;
		m->bands = m->ncells == plain_cells(m) + 3 * CSV_NSWEEP;
		if (m->ncells != plain_cells(m) && !m->bands)
			rc = merge_error(&m->v[0], "a row of an unknown shape");
	}
	if (!rc)
		rc = check_complete(m);
	return rc;
}

/* --svg after --merge: a CSV column against the first --vary key. */
static int merge_check_plot(const struct sweep_opts *o, const struct merge *m)
{
	if (!o->svg_path)
		return 0;
	if (column_of(m, o->metric->name) == (size_t)-1)
		return cli_usage_error("sweep",
				       "--merge --svg plots a CSV column; '%s' "
				       "is not one",
				       o->metric->name);
	if (!m->nvary)
		return cli_usage_error("sweep", "--svg needs a --vary key (x)");
	return 0;
}

/* The merged CSV. Returns 0, or 1 when a row holds an error. */
static int merge_write(const struct merge *m)
{
	int rc = 0;

	sweep_csv_header(m->vary, m->nvary, m->bands);
	for (size_t i = 0; i < m->n; i++) {
		const char *cells[MAX_CELLS];

		for (size_t c = 0; c < m->v[i].row->n; c++)
			cells[c] = m->v[i].row->child[c].text;
		sweep_cells_print(cells, m->v[i].row->n, m->v[i].error);
		if (m->v[i].error)
			rc = CLI_EXIT_FAIL;
	}
	return rc;
}

int sweep_merge(const struct sweep_opts *o, int argc, char **argv, int first)
{
	struct merge m = { 0 };
	FILE *svg = NULL;
	int rc = merge_load(&m, argc, argv, first);

	if (!rc)
		rc = merge_check_plot(o, &m);
	if (!rc)
		rc = sweep_outputs_open(o, &svg);
	if (!rc) {
		struct plot_src src = {
			.npoints = m.npoints,
			.vary = m.vary,
			.nvary = m.nvary,
			.idx = merge_idx,
			.runs = merge_runs,
			.value = merge_value,
			.strategy = merge_strategy,
			.ctx = &m,
			.bands = m.bands,
			.scenario = m.v[0].scenario,
			.draws = (size_t)m.v[0].draws,
		};

		rc = merge_write(&m);
		rc = sweep_outputs_finish(o, &svg, &src, rc);
	}
	sweep_svg_abandon(o, svg);
	merge_finish(&m);
	return rc;
}
