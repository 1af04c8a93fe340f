/* SPDX-License-Identifier: MIT */
/*
 * What the files of `hvtlb validate` share (the case files themselves are
 * validation.h's):
 *   cmd-validate.c  the options, the cases to run, loading each, the main
 *                   flow
 *   validate-run.c  every case's runs in one pool (--converge in stages),
 *                   and the verdict on each published value
 *   validate-out.c  the summary, the table and --json
 *
 * Thread rules: the main thread only; the runs go in runpool.h's pool.
 */
#ifndef HVTLB_TOOL_VALIDATE_H
#define HVTLB_TOOL_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ensemble.h"
#include "scenario.h"
#include "sim-run.h"
#include "uncertain.h"
#include "validation.h"

#define SETS_MAX 32u

struct vopts {
	const char *output;
	uint64_t draws;
	bool json, quick, converge, fail_on_miss;
	bool all_versions; /* a directory's superseded cases too */
	bool paths;	   /* cases or directories named on the command line */
	const char *seed;
	const char *sets[SETS_MAX]; /* --set, in command-line order */
	size_t nsets;
	unsigned threads;
};

/* A published value against its simulated band. */
struct verdict {
	double nominal; /* without drawing */
	struct band band;
	double rel_error;
	bool inside, decided, sign_right;
};

/* One case and its runs. */
struct vrun {
	char *path;
	unsigned dir; /* the directory it was found in (1, ...); 0: named */
	/* superseded_by of a directory's case, its line, and why its chain
	 * of successors does not end at a current case beside it (an error
	 * of the case) */
	char successor[VCASE_ID_MAX];
	unsigned successor_line;
	enum {
		SUCCESSOR_OK,
		SUCCESSOR_NOT_BESIDE,
		SUCCESSOR_NO_END
	} successor_error;
	struct vcase c;
	struct sim_batch a, b;
	struct unc_plan u;
	struct ensemble e;
	int status; /* 0, CLI_EXIT_USAGE (did not load), CLI_EXIT_FAIL */
	char err[2 * SCENARIO_ERR_MAX];
	struct verdict v;		   /* the headline quantity */
	struct verdict obs[VCASE_OBS_MAX]; /* c.obs[i] */
	bool settled;			   /* --converge: no more draws */
};

struct vlist {
	struct vrun *v;
	size_t n, cap;
	unsigned ndirs;	   /* directories read */
	size_t superseded; /* superseded cases left out */
};

struct summary {
	size_t validation, inside, ratios, decided, right;
	/* the observables of the validation cases that ran */
	size_t observables, observables_inside;
	double median_rel_error;
	bool have_median;
};

/* validate-run.c */
int validate_run_all(const struct vopts *o, struct vlist *l);

/**
 * For a case whose run failed (its ensemble's first failed job): writes to
 * @p f a line with the `hvtlb sim` command that runs that job alone, as
 * validate ran it: the case file, its `ci` (--quick), the --set options,
 * the run's own a or b lines, the draw's values and the job's seed.
 * Nothing when no job failed.
 */
void validate_print_rerun(const struct vopts *o, const struct vrun *r, FILE *f);

/* validate-out.c */
void validate_summarize(const struct vlist *l, struct summary *s);
void validate_print_table(const struct vopts *o, const struct vlist *l,
			  const struct summary *s);
void validate_print_json(const struct vopts *o, const struct vlist *l,
			 const struct summary *s);

#endif
