/* SPDX-License-Identifier: MIT */
/*
 * The uncertain parameters of a scenario and the parameter sets drawn from
 * them (`--uncertainty N`, `hvtlb sensitivity`).
 *
 * A parameter is a key whose effective setting (the last one in apply
 * order: profile, scenario file, --set) carries a range: a cost line
 * `name = default` or a cost no line sets (the library's range,
 * hvtlb_sim_cost_range()), or any line with `; range LO..HI [log] ;
 * source: ...`. A later exact setting (a --set, a validation case's
 * a/b/ci overrides) pins the key again.
 *
 * Draws: a Latin hypercube of N points. Each parameter's range is cut into
 * N strata of equal probability (uniform, or uniform in log space for a
 * `log` range); every stratum is used exactly once, at a uniform point
 * inside it, and each parameter's strata are shuffled independently. A
 * parameter whose value and range ends are all whole numbers draws whole
 * numbers (rounded); other values are rounded to 6 significant digits of
 * the range's width (more digits when the range is narrow against its
 * ends), so that the printed value is the value used. Each draw also gets its own
 * simulation seed. The generator (splitmix64) is seeded by the scenario's
 * seed, so the same seed and N give the same draws on any host.
 *
 * Thread rules: a plan is built by one thread, then read-only.
 */
#ifndef HVTLB_TOOL_UNCERTAIN_H
#define HVTLB_TOOL_UNCERTAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <hvtlb/sim.h>

#include "scenario.h"

#define UNC_KEY_MAX 64

/** One uncertain parameter. */
struct unc_param {
	char key[UNC_KEY_MAX]; /**< library key, e.g. "cost.halt_wake" */
	double nominal;	       /**< the value as written (or the default) */
	double lo, hi;
	bool log;
	bool integer; /**< draws whole numbers */
	int digits;   /**< significant digits of a drawn real value */
	/** Where the value and range come from: the line's source text, or
	 *  the library's (static storage or the scenario's; valid as long as
	 *  the scenario it was collected from). */
	const char *source;
	const char *file; /**< the declaring file, NULL for the library */
	unsigned line;
};

/** The parameters and the points drawn from them. */
struct unc_plan {
	struct unc_param *p;
	size_t n, cap;
	size_t ndraws;
	double *x;	/**< ndraws x n values; NaN: leave the nominal value */
	uint64_t *seed; /**< per draw; ignored when !reseed */
	bool reseed;	/**< draws run with their own simulation seed */
};

void unc_plan_init(struct unc_plan *u);
void unc_plan_finish(struct unc_plan *u);

/**
 * Adds the parameters of @p sc that the plan lacks: the costs in the
 * library's order, then the scenario's own ranged keys in file order.
 * Call it once per scenario whose runs share the draws (a validation
 * case's a and b). Returns 0 or -ENOMEM / -E2BIG (a key too long).
 */
int unc_plan_collect(struct unc_plan *u, const struct scenario *sc);

/**
 * Draws @p n >= 1 points (Latin hypercube, seeded by @p seed), replacing
 * any earlier draws. Returns 0 or -ENOMEM.
 */
int unc_plan_draw(struct unc_plan *u, size_t n, uint64_t seed);

/**
 * One-at-a-time points for a sensitivity analysis: draw 2j sets parameter
 * j to its low end, draw 2j + 1 to its high end, everything else stays at
 * its nominal value and the scenario's seed. Returns 0 or -ENOMEM.
 */
int unc_plan_one_at_a_time(struct unc_plan *u);

/** Significant digits that resolve a millionth of [@p lo, @p hi]. */
int unc_digits(double lo, double hi);

/** Whether @p key's effective setting in @p sc carries a range. */
bool unc_ranged_in(const struct scenario *sc, const char *key);

/**
 * Sets draw @p d's values in @p cfg: every parameter whose effective
 * setting in @p sc still carries its range, and the draw's seed. Returns
 * 0, or the hvtlb_sim_config_set() error with "draw D: ..." in @p err.
 */
int unc_plan_apply(const struct unc_plan *u, size_t d,
		   const struct scenario *sc, struct hvtlb_sim_config *cfg,
		   char *err, size_t errlen);

/**
 * Writes to @p f the values unc_plan_apply() sets for draw @p d in a run
 * of @p sc, as command-line options: " --set KEY=VALUE" each, in plan
 * order (the seed is the caller's: it may not be the draw's).
 */
void unc_plan_print_sets(const struct unc_plan *u, size_t d,
			 const struct scenario *sc, FILE *f);

/** Draw @p d's value of parameter @p j (NaN: nominal). */
double unc_value(const struct unc_plan *u, size_t d, size_t j);

/** Formats @p x as parameter @p p takes it ("%.0f", or "%.*g" with
 *  p->digits). */
void unc_format(const struct unc_param *p, double x, char *buf, size_t len);

#endif
