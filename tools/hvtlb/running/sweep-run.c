// SPDX-License-Identifier: MIT
/*
 * The runs of `hvtlb sweep`: every job of every point of the grid (its
 * strategies, each on every --uncertainty draw) in one pool of host
 * threads (runpool.h). Each run is deterministic, so the order in which
 * they finish does not matter: a point is written once it and every point
 * before it are done, in grid order. SIGINT stops the sweep: the points
 * finished by then are written, out of order if need be, and the exit
 * status is 130.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hvtlb/sim.h>

#include "cli.h"
#include "progress.h"
#include "sweep.h"

/* With --uncertainty, the draws every point shares (so that the bands of
 * neighbouring points are comparable). Returns 0, or 1 after printing
 * why. */
static int draw_once(const struct sweep_opts *o, struct point *points,
		     struct unc_plan *u)
{
	uint64_t seed = 0;
	int rc = 0;

	for (size_t p = 0; o->draws && !rc && p < o->npoints; p++) {
		if (!points[p].configured)
			continue;
		if (!seed)
			seed = points[p].b.cfg[0].seed;
		rc = unc_plan_collect(u, &points[p].b.sc);
	}
	if (!rc && o->draws)
		rc = unc_plan_draw(u, (size_t)o->draws, seed);
	if (rc) {
		fprintf(stderr, "hvtlb sweep: %s\n", strerror(-rc));
		return CLI_EXIT_FAIL;
	}
	return 0;
}

/* Each configured point's ensemble on the draws of @p u. Returns 0, or
 * an exit code (message printed). */
static int build_ensembles(const struct sweep_opts *o, struct point *points,
			   const struct unc_plan *u, size_t *total)
{
	char err[SCENARIO_ERR_MAX];

	*total = 0;
	for (size_t p = 0; p < o->npoints; p++) {
		struct point *pt = &points[p];
		struct ens_run runs[SCENARIO_COMPARE_MAX];

		if (!pt->configured)
			continue;
		for (size_t r = 0; r < pt->b.nruns; r++)
			runs[r] = (struct ens_run){ &pt->b.sc, &pt->b.cfg[r],
						    pt->b.strategy[r] };
		if (ensemble_init(&pt->e, u, runs, pt->b.nruns, err,
				  sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return CLI_EXIT_USAGE;
		}
		pt->remaining = ensemble_njobs(&pt->e);
		*total += pt->remaining;
	}
	return 0;
}

/* Builds every point's ensemble on one set of draws. Returns the jobs in
 * @p j (with the point of each), -1 to go on, or an exit code (message
 * printed). */
int sweep_jobs_build(const struct sweep_opts *o, struct point *points,
		     struct unc_plan *u, struct sweep_jobs *j)
{
	size_t k = 0;
	int rc = draw_once(o, points, u);

	if (!rc)
		rc = build_ensembles(o, points, u, &j->total);
	if (rc)
		return rc;
	j->list = malloc((j->total ? j->total : 1) * sizeof(*j->list));
	j->owner = malloc((j->total ? j->total : 1) * sizeof(*j->owner));
	if (!j->list || !j->owner) {
		fprintf(stderr, "hvtlb sweep: out of memory\n");
		return CLI_EXIT_FAIL;
	}
	for (size_t p = 0; p < o->npoints; p++) {
		if (!points[p].configured)
			continue;
		ensemble_job_list(&points[p].e, j->list + k);
		for (size_t i = 0; i < ensemble_njobs(&points[p].e); i++)
			j->owner[k + i] = p;
		k += ensemble_njobs(&points[p].e);
	}
	return -1;
}

void sweep_jobs_finish(struct sweep_jobs *j)
{
	free(j->list);
	free(j->owner);
}

/* What the watcher needs while the runs go. */
struct stream {
	const struct sweep_opts *o;
	struct point *points;
	const size_t *owner;
	size_t next;	/* the first point not written in grid order */
	size_t written; /* rows */
	int rc;		/* CLI_EXIT_FAIL once a run failed */
	sweep_point_writer *write;
};

/* Point @p p's rows, by the command's writer. */
static void write_point(struct stream *st, size_t p)
{
	struct point *pt = &st->points[p];
	size_t rows = 0;

	pt->written = true;
	if (st->write(st->o, pt, p, &rows))
		st->rc = CLI_EXIT_FAIL;
	st->written += rows;
	fflush(stdout);
}

/* A job finished: when its point is complete, write every point that is
 * next in grid order. */
static void job_done(void *data, size_t index)
{
	struct stream *st = data;
	struct point *pt = &st->points[st->owner[index]];

	if (--pt->remaining)
		return;
	for (size_t r = 0; r < pt->b.nruns; r++) {
		struct run_job *j = ensemble_job(&pt->e, 0, r);

		pt->b.run_rc[r] = j->rc;
		pt->b.res[r] = j->res;
		j->res = NULL;
	}
	pt->ready = true;
	while (st->next < st->o->npoints &&
	       (st->points[st->next].ready ||
		!st->points[st->next].configured)) {
		if (st->points[st->next].configured)
			write_point(st, st->next);
		st->next++;
	}
}

/* Before any job: the points this shard does not run are "written". */
static void job_done_empty(struct stream *st)
{
	while (st->next < st->o->npoints && !st->points[st->next].configured)
		st->next++;
}

/* SIGINT: every finished point out of order, then the file into place.
 * The runs still going are abandoned with the process. */
static void __attribute__((noreturn)) interrupted(struct stream *st)
{
	size_t total = 0;

	for (size_t p = 0; p < st->o->npoints; p++) {
		if (st->points[p].ready && !st->points[p].written)
			write_point(st, p);
		if (st->points[p].configured)
			total += st->points[p].b.nruns;
	}
	progress_end();
	fflush(stdout);
	fprintf(stderr,
		"hvtlb sweep: interrupted: %zu of %zu rows written%s%s\n",
		st->written, total, st->o->output ? " to " : "",
		st->o->output ? st->o->output : "");
	cli_output_finish("sweep", true);
	_exit(CLI_EXIT_INTERRUPTED);
}

/* Runs the jobs of @p j, -j at a time, writing each point in grid order
 * as it completes, with @p write. Returns 0, or 1 when a run failed; after SIGINT it
 * writes what finished and exits (130), and the plot is removed. */
int sweep_jobs_run(const struct sweep_opts *o, struct point *points,
		   const struct sweep_jobs *j, sweep_point_writer *write)
{
	struct stream st = {
		.o = o, .points = points, .owner = j->owner, .write = write
	};

	progress_begin("sweep", "runs", j->total);
	/* A shard may hold no point at all. */
	job_done_empty(&st);
	if (runpool_run_watched(j->list, j->total, (unsigned)o->jobs,
				&(struct runpool_watch){ job_done, &st })) {
		if (o->svg_path)
			unlink(o->svg_path); /* no plot of half a grid */
		interrupted(&st);
	}
	progress_end();
	return st.rc;
}
