// SPDX-License-Identifier: MIT
/*
 * `hvtlb sweep --svg`: a line plot of one metric against the first --vary
 * key, one series per strategy and value of the other keys, each with its
 * p5..p95 band under --uncertainty (svg.c draws it). The numbers come
 * from a struct plot_src: the runs of this sweep, or the rows --merge
 * read back.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hvtlb/sim.h>

#include "cli.h"
#include "svg.h"
#include "sweep.h"

struct series {
	size_t nx, nseries, nruns, rest;
	double *y, *lo, *hi;
	char (*names)[256];
	const char **name_ptrs;
	char strategies[256]; /* "ipi, hyperv" for the title */
};

static void series_finish(struct series *s)
{
	free(s->y);
	free(s->lo);
	free(s->hi);
	free(s->names);
	free(s->name_ptrs);
}

static void series_name(const struct plot_src *src, size_t p, size_t r,
			char *name, size_t len)
{
	const char *strat = src->strategy(src->ctx, p, r);
	const size_t *idx = src->idx(src->ctx, p);
	int n = snprintf(name, len, "%s", strat && *strat ? strat : "run");

	for (size_t k = 1; k < src->nvary && n >= 0 && (size_t)n < len; k++)
		n += snprintf(name + n, len - (size_t)n, " %s=%s",
			      src->vary[k].key, src->vary[k].values[idx[k]]);
}

/* The sizes of the series, and their arrays (NaN: no point yet). */
static int series_alloc(struct series *s, const struct plot_src *src)
{
	s->nx = src->vary[0].n;
	s->rest = src->npoints / s->nx;
	for (size_t p = 0; p < src->npoints; p++)
		if (src->runs(src->ctx, p) > s->nruns)
			s->nruns = src->runs(src->ctx, p);
	s->nseries = s->rest * s->nruns;
	if (!s->nseries)
		return -EINVAL;
	s->y = malloc(s->nseries * s->nx * sizeof(*s->y));
	s->lo = malloc(s->nseries * s->nx * sizeof(*s->lo));
	s->hi = malloc(s->nseries * s->nx * sizeof(*s->hi));
	s->names = calloc(s->nseries, sizeof(*s->names));
	s->name_ptrs = calloc(s->nseries, sizeof(*s->name_ptrs));
	if (!s->y || !s->lo || !s->hi || !s->names || !s->name_ptrs)
		return -ENOMEM;
	for (size_t k = 0; k < s->nseries * s->nx; k++)
		s->y[k] = s->lo[k] = s->hi[k] = NAN;
	return 0;
}

/*
 * Fills the series with metric @p m: grid points are in row-major order,
 * so point p has x index p / rest and series group p % rest, where rest
 * is the product of the other keys' value counts.
 */
static int series_fill(struct series *s, const struct plot_src *src,
		       const struct metric *m)
{
	size_t used = 0;
	int rc = series_alloc(s, src);

	if (rc)
		return rc;
	for (size_t p = 0; p < src->npoints; p++) {
		size_t i = p / s->rest, j = p % s->rest;

		for (size_t r = 0; r < src->runs(src->ctx, p); r++) {
			size_t si = j * s->nruns + r;
			double y = src->value(src->ctx, m, p, r, 0);
			const char *strat = src->strategy(src->ctx, p, r);

			s->y[si * s->nx + i] = y;
			if (src->bands) {
				s->lo[si * s->nx + i] =
					src->value(src->ctx, m, p, r, 1);
				s->hi[si * s->nx + i] =
					src->value(src->ctx, m, p, r, 2);
			}
			if (strat && *strat && j == 0 && i == 0)
				used += (size_t)snprintf(
					s->strategies + used,
					used < sizeof(s->strategies)
						? sizeof(s->strategies) - used
						: 0,
					"%s%s", r ? ", " : "", strat);
			if (s->names[si][0] && isnan(y))
				continue;
			series_name(src, p, r, s->names[si],
				    sizeof(s->names[si]));
		}
	}
	for (size_t k = 0; k < s->nseries; k++)
		s->name_ptrs[k] = s->names[k];
	return 0;
}

/* "vm.vcpus (vCPUs)": a key with the unit the key table gives it. */
static void axis_label(const char *key, char *buf, size_t len)
{
	const struct hvtlb_sim_key *k = hvtlb_sim_key_find(key);
	const char *unit = k ? k->unit : NULL;
	size_t ci;

	if (!unit && !sim_cost_index(key, &ci))
		unit = hvtlb_sim_cost_unit(ci);
	if (unit && *unit)
		snprintf(buf, len, "%s (%s)", key, unit);
	else
		snprintf(buf, len, "%s", key);
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path ? path : "?";
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

/* The title says what was swept ("real time (s) against vm.vcpus: ipi,
 * hyperv; default.ini, p5..p95 of 64 draws shaded"). */
static void plot_title(const struct sweep_opts *o, const struct plot_src *src,
		       const struct series *s, char *title, size_t len)
{
	char others[256] = "";
	size_t n = 0;

	for (size_t k = 1; k < src->nvary; k++)
		n += (size_t)snprintf(
			others + n, n < sizeof(others) ? sizeof(others) - n : 0,
			", each %s", src->vary[k].key);
	n = (size_t)snprintf(title, len, "%s against %s: %s%s; %s",
			     o->metric->label, src->vary[0].key,
			     s->strategies[0] ? s->strategies : "one run",
			     others, base_name(src->scenario));
	if (src->draws && n < len)
		snprintf(title + n, len - n, ", p5..p95 of %zu draws shaded",
			 src->draws);
}

/* Plots the metric against the first --vary key into @p f; the axes
 * carry units. */
static int write_svg(FILE *f, const struct sweep_opts *o,
		     const struct plot_src *src)
{
	struct series s = { 0 };
	double xval[MAX_VALUES];
	char title[1024], xlabel[256];
	int rc = series_fill(&s, src, o->metric);

	if (rc)
		goto out;
	plot_title(o, src, &s, title, sizeof(title));
	axis_label(src->vary[0].key, xlabel, sizeof(xlabel));
	rc = svg_plot_write(
		f, &(struct svg_plot){
			   .title = title,
			   .xlabel = xlabel,
			   .ylabel = o->metric->label,
			   .nx = s.nx,
			   .xnames = (const char *const *)src->vary[0].values,
			   .xval = numeric_values(&src->vary[0], xval) ? xval
								       : NULL,
			   .nseries = s.nseries,
			   .names = s.name_ptrs,
			   .y = s.y,
			   .y_lo = src->bands ? s.lo : NULL,
			   .y_hi = src->bands ? s.hi : NULL,
			   .log_x = o->log_x,
			   .log_y = o->log_y,
		   });
out:
	series_finish(&s);
	return rc;
}

/* The plot file, opened before any work so that a bad path costs none.
 * Returns it, or NULL after printing why (exit 2). */
FILE *sweep_svg_open(const struct sweep_opts *o)
{
	FILE *f = fopen(o->svg_path, "w");

	if (!f)
		cli_usage_error("sweep", "--svg '%s': %s", o->svg_path,
				strerror(errno));
	return f;
}

static int report_svg_error(const struct sweep_opts *o, int e)
{
	if (e == -EDOM)
		fprintf(stderr,
			"hvtlb sweep: --svg '%s': %s needs positive numbers "
			"(%s)\n",
			o->svg_path, o->log_x ? "--log-x" : "--log-y",
			o->log_x ? "the first --vary key's values"
				 : "the metric");
	else
		fprintf(stderr, "hvtlb sweep: --svg '%s': %s\n", o->svg_path,
			strerror(-e));
	return CLI_EXIT_FAIL;
}

/* Writes the plot of @p src into @p f and closes it; a plot that could
 * not be written is removed. Returns 0, or 1 after printing why. */
int sweep_svg_finish(const struct sweep_opts *o, FILE *f,
		     const struct plot_src *src)
{
	int e = write_svg(f, o, src);

	if (fclose(f) && !e)
		e = -EIO;
	if (!e)
		return CLI_EXIT_OK;
	unlink(o->svg_path);
	return report_svg_error(o, e);
}

/* No plot after all (an error came first): @p f (NULL: none) closed and
 * removed. */
void sweep_svg_abandon(const struct sweep_opts *o, FILE *f)
{
	if (!f)
		return;
	fclose(f);
	unlink(o->svg_path);
}

/* The plot of a sweep that ran here: numbers from the results. */
static const size_t *run_idx(const void *ctx, size_t p)
{
	return ((const struct point *)ctx)[p].idx;
}

static size_t run_runs(const void *ctx, size_t p)
{
	return ((const struct point *)ctx)[p].b.nruns;
}

static double run_value(const void *ctx, const struct metric *m, size_t p,
			size_t r, int which)
{
	const struct point *pt = &((const struct point *)ctx)[p];
	struct band bd;

	if (!pt->b.res[r])
		return NAN;
	if (!which)
		return m->get(pt->b.res[r], &pt->b.cfg[r]);
	if (ensemble_first_failure(&pt->e, NULL, 0))
		return NAN;
	ensemble_band(&pt->e, r, m, &bd);
	return which == 1 ? bd.p5 : bd.p95;
}

static const char *run_strategy(const void *ctx, size_t p, size_t r)
{
	const struct point *pt = &((const struct point *)ctx)[p];

	return pt->b.res[r] ? sim_strategy_name(pt->b.res[r])
			    : pt->b.strategy[r];
}

void sweep_plot_points(const struct sweep_opts *o, const struct point *points,
		       struct plot_src *src)
{
	*src = (struct plot_src){
		.npoints = o->npoints,
		.vary = o->vary,
		.nvary = o->nvary,
		.idx = run_idx,
		.runs = run_runs,
		.value = run_value,
		.strategy = run_strategy,
		.ctx = points,
		.bands = o->draws > 0,
		.scenario = o->path,
		.draws = (size_t)o->draws,
	};
}
