// SPDX-License-Identifier: MIT
/*
 * What `hvtlb sweep` writes: a CSV row (RFC 4180) per run, with the
 * p5/p50/p95 band of each metric under --uncertainty; with --shard, a
 * JSON line per run instead, which carries its CSV row for --merge; and
 * the files of --svg and -o, opened before any output.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvtlb/sim.h>

#include "cli.h"
#include "csv.h"
#include "json.h"
#include "sweep.h"

/* The header: the --vary keys, then the fixed columns (those a --vary key
 * does not replace), the bands with @p bands, and error. */
void sweep_csv_header(const struct vary *vary, size_t nvary, bool bands)
{
	bool seed = true, strategy = true;

	for (size_t k = 0; k < nvary; k++) {
		csv_field(stdout, vary[k].key);
		putchar(',');
		seed &= strcmp(vary[k].key, "seed") != 0;
		strategy &= strcmp(vary[k].key, "strategy") != 0;
	}
	if (strategy)
		fputs("strategy,", stdout);
	if (seed)
		fputs("seed,", stdout);
	for (size_t m = 0; m < CSV_NSWEEP; m++)
		printf("%s,", csv_sweep_column(m)->name);
	for (size_t m = 0; bands && m < CSV_NSWEEP; m++) {
		const char *name = csv_sweep_column(m)->name;

		printf("%s_p5,%s_p50,%s_p95,", name, name, name);
	}
	fputs("error\n", stdout);
}

static void add_cell(struct row *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_cell(struct row *r, const char *fmt, ...)
{
	va_list ap;

	if (r->n == MAX_CELLS)
		return;
	va_start(ap, fmt);
	vsnprintf(r->cell[r->n++], CELL_LEN, fmt, ap);
	va_end(ap);
}

/* A failed draw of the point: its message, or "" if none failed. */
static void draw_failure(const struct point *pt, char *err, size_t len)
{
	char msg[SCENARIO_ERR_MAX];

	err[0] = '\0';
	if (ensemble_first_failure(&pt->e, msg, sizeof(msg)))
		snprintf(err, len, "%s", msg);
}

/* --uncertainty: the p5, p50 and p95 cells of every metric of run @p run,
 * empty when a draw failed (r->error says which). */
static void add_bands(const struct point *p, size_t run, struct row *r)
{
	draw_failure(p, r->error, sizeof(r->error));
	for (size_t m = 0; m < CSV_NSWEEP; m++) {
		struct band bd;

		if (r->error[0]) {
			add_cell(r, "%s", "");
			add_cell(r, "%s", "");
			add_cell(r, "%s", "");
			continue;
		}
		ensemble_band(&p->e, run,
			      metric_find(csv_sweep_column(m)->name), &bd);
		add_cell(r, "%.9g", bd.p5);
		add_cell(r, "%.9g", bd.p50);
		add_cell(r, "%.9g", bd.p95);
	}
}

/* Run @p run of point @p p as CSV cells (error text apart). */
void sweep_row_build(const struct sweep_opts *o, const struct point *p,
		     size_t run, struct row *r)
{
	const struct hvtlb_sim_results *res = p->b.res[run];
	const char *strat = p->b.strategy[run];

	r->n = 0;
	r->error[0] = '\0';
	for (size_t k = 0; k < o->nvary; k++)
		add_cell(r, "%s", o->vary[k].values[p->idx[k]]);
	if (res)
		strat = sim_strategy_name(res);
	if (!o->vary_strategy)
		add_cell(r, "%s", strat ? strat : "");
	if (!res) {
		if (!o->vary_seed)
			add_cell(r, "%s", "");
		for (size_t m = 0; m < CSV_NSWEEP * (o->draws ? 4 : 1); m++)
			add_cell(r, "%s", "");
		snprintf(r->error, sizeof(r->error), "%s",
			 strerror(-p->b.run_rc[run]));
		return;
	}
	if (!o->vary_seed)
		add_cell(r, "%llu", (unsigned long long)res->seed);
	for (size_t m = 0; m < CSV_NSWEEP; m++) {
		char cell[CSV_CELL_MAX];

		csv_column_format(csv_sweep_column(m), res, cell, sizeof(cell));
		add_cell(r, "%s", cell);
	}
	if (o->draws)
		add_bands(p, run, r);
}

void sweep_cells_print(const char *const *cells, size_t n, const char *error)
{
	for (size_t i = 0; i < n; i++) {
		csv_field(stdout, cells[i]);
		putchar(',');
	}
	csv_field(stdout, error);
	putchar('\n');
}

void sweep_row_print(const struct row *r)
{
	const char *cells[MAX_CELLS];

	for (size_t i = 0; i < r->n; i++)
		cells[i] = r->cell[i];
	sweep_cells_print(cells, r->n, r->error);
}

/* ,"bands":{METRIC:{"p5":..,"p50":..,"p95":..},...} of every metric. */
static void json_bands(const struct point *p, size_t run)
{
	printf(",\"bands\":{");
	for (size_t m = 0; m < metric_count(); m++) {
		struct band bd;

		ensemble_band(&p->e, run, metric_at(m), &bd);
		printf("%s\"%s\":{\"p5\":%.9g,\"p50\":%.9g,"
		       "\"p95\":%.9g}",
		       m ? "," : "", metric_at(m)->name, bd.p5, bd.p50, bd.p95);
	}
	putchar('}');
}

/* --shard: run @p run of point @p pindex as one JSON line, with its CSV
 * row @p r. */
void sweep_json_line(const struct sweep_opts *o, const struct point *p,
		     size_t pindex, size_t run, const struct row *r)
{
	const struct hvtlb_sim_results *res = p->b.res[run];

	putchar('{');
	json_meta(stdout, SWEEP_SHARD_JSON_SCHEMA);
	printf(",\"point\":%zu,\"points\":%zu,\"run\":%zu,\"runs\":%zu,"
	       "\"draws\":%llu,\"scenario\":",
	       pindex, o->npoints, run, p->b.nruns,
	       (unsigned long long)o->draws);
	json_string(stdout, o->path);
	printf(",\"values\":{");
	for (size_t k = 0; k < o->nvary; k++) {
		if (k)
			putchar(',');
		json_string(stdout, o->vary[k].key);
		putchar(':');
		json_string(stdout, o->vary[k].values[p->idx[k]]);
	}
	printf("},\"strategy\":");
	json_string(stdout, res ? sim_strategy_name(res) : p->b.strategy[run]);
	printf(",\"row\":[");
	for (size_t i = 0; i < r->n; i++) {
		if (i)
			putchar(',');
		json_string(stdout, r->cell[i]);
	}
	printf("],\"error\":");
	json_string(stdout, r->error[0] ? r->error : NULL);
	printf(",\"result\":");
	if (!res) {
		printf("null}\n");
		return;
	}
	hvtlb_sim_results_write_json(res, stdout);
	if (o->draws && !r->error[0])
		json_bands(p, run);
	printf("}\n");
}

/* The plot file (when --svg) and -o FILE, opened before any work so that
 * a bad path costs none. Returns 0, or 2 after printing why. */
int sweep_outputs_open(const struct sweep_opts *o, FILE **svg)
{
	if (o->svg_path && !(*svg = sweep_svg_open(o)))
		return CLI_EXIT_USAGE;
	if (o->output && cli_output_open("sweep", o->output))
		return CLI_EXIT_USAGE;
	return 0;
}

/* After the rows: the plot of @p src into *@p svg (closed), and -o FILE
 * into place. Returns @p rc, or 1 when any of them could not be
 * written. */
int sweep_outputs_finish(const struct sweep_opts *o, FILE **svg,
			 const struct plot_src *src, int rc)
{
	if (fflush(stdout) || ferror(stdout))
		rc = CLI_EXIT_FAIL;
	if (*svg) {
		if (sweep_svg_finish(o, *svg, src))
			rc = CLI_EXIT_FAIL;
		*svg = NULL;
	}
	if (cli_output_finish("sweep", true))
		rc = CLI_EXIT_FAIL;
	return rc;
}

/* Oracle violations in a run that asked for no fault make the sweep fail,
 * as they make `hvtlb sim` fail: printed, and 1 for the exit status. */
static int point_violations(const struct point *pt, size_t p, size_t run)
{
	const struct hvtlb_sim_results *res = pt->b.res[run];

	if (pt->b.run_rc[run] || !res || !res->violations ||
	    pt->b.cfg[run].fault != HVTLB_SIM_FAULT_NONE)
		return 0;
	fprintf(stderr,
		"hvtlb sweep: point %zu, %s: oracle violations without a "
		"fault: %llu latent, %llu used\n",
		p, sim_strategy_name(res),
		(unsigned long long)res->latent_violations,
		(unsigned long long)res->used_violations);
	return 1;
}

/* Point @p p's rows: CSV, or with --shard JSON lines. */
int sweep_point_write(const struct sweep_opts *o, const struct point *pt,
		      size_t p, size_t *rows)
{
	struct row *r = malloc(sizeof(*r));
	int fail = 0;

	if (!r)
		return 1;
	for (size_t run = 0; run < pt->b.nruns; run++) {
		sweep_row_build(o, pt, run, r);
		if (r->error[0] || point_violations(pt, p, run))
			fail = 1;
		if (o->shard_n)
			sweep_json_line(o, pt, p, run, r);
		else
			sweep_row_print(r);
		(*rows)++;
	}
	free(r);
	return fail;
}
