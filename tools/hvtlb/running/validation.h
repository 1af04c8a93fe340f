/* SPDX-License-Identifier: MIT */
/*
 * A validation case: a scenario file validation/<id>.ini describing the
 * published base configuration, plus a [validation] section:
 *
 *   title      one line: what was measured
 *   source     the primary source: an address or a commit id
 *   kind       validation (never used to choose a value) or calibration
 *   setup      the published setup, in one line
 *   quantity   ratio (metric(a) / metric(b)) or value (metric(a))
 *   metric     a metrics.h name: real_s, sys_s, latency_us_p50, ...,
 *              or ops_per_s
 *   a, b       overrides of run a and run b: KEY=VALUE pairs separated by
 *              ';', applied on top of the file like `hvtlb sim --set`
 *              (b only for a ratio)
 *   published  the published value of the quantity
 *   derivation how `published` follows from the source's numbers
 *   ci         optional overrides for both runs that make the case small
 *              enough for CI (`hvtlb validate --quick`)
 *   superseded_by  optional: the id of the case that replaced this one
 *              (its next version, in the same directory). A directory's
 *              superseded cases run only with `--all-versions`; the
 *              file stays as the record of what its version gave.
 *
 * and, optionally, further published observables of the same runs,
 * numbered 1..N without a gap (N <= VCASE_OBS_MAX), five keys each:
 *
 *   observable.N.title       one line: what was measured
 *   observable.N.metric      a metrics.h name, as `metric`
 *   observable.N.run         a (metric of run a), b (of run b; a ratio
 *                            case only) or ratio (a over b; likewise)
 *   observable.N.published   the published value (> 0 for a ratio, not
 *                            0 for a value: the relative error divides
 *                            by it)
 *   observable.N.derivation  where the number is and how it follows
 *
 * Values run to the end of their line (no comments). The file's `compare`
 * is ignored: a and b are one run each.
 */
#ifndef HVTLB_TOOL_VALIDATION_H
#define HVTLB_TOOL_VALIDATION_H

#include <stdbool.h>
#include <stddef.h>

#include "metrics.h"
#include "scenario.h"

#define VCASE_ID_MAX 64
#define VCASE_OBS_MAX 16

/** Which run an observable reads. */
enum vobs_run {
	VOBS_A,	    /**< metric of run a */
	VOBS_B,	    /**< metric of run b */
	VOBS_RATIO, /**< metric of run a over metric of run b */
};

/** A further published observable of a case's runs. */
struct vobservable {
	unsigned number; /**< N of observable.N.* */
	const char *title, *derivation, *metric_name, *run_name;
	const struct metric *metric;
	enum vobs_run run;
	double published;
};

/** The fields of a case; strings point into the scenario it came from. */
struct vcase {
	char id[VCASE_ID_MAX]; /**< the file stem */
	const char *title, *source, *kind, *setup, *quantity, *derivation;
	const struct metric *metric;
	const char *metric_name;
	bool ratio;	  /**< quantity = ratio */
	bool calibration; /**< kind = calibration */
	double published;
	/** The override lists and where they are (NULL: absent). */
	const struct scenario_setting *a, *b, *ci;
	/** superseded_by: the id of its successor, and where it was given
	 * (NULL: a current case). */
	const char *superseded_by;
	const struct scenario_setting *superseded_at;
	/** observable.1 .. observable.nobs, in number order. */
	struct vobservable obs[VCASE_OBS_MAX];
	size_t nobs;
};

/**
 * Reads the [validation] section of @p sc (loaded from @p path) into
 * @p c. Returns 0, or -EINVAL with "file:line: message" (or "file:
 * message" for a missing key) in @p err.
 */
int vcase_parse(struct vcase *c, const struct scenario *sc, const char *path,
		char *err, size_t errlen);

/**
 * Calls @p fn with each override of @p list ("K=V; K=V"), trimmed, in
 * order; an empty piece is skipped. Stops at, and returns, fn's first
 * nonzero return; -ENOMEM.
 */
int vcase_each_override(const struct scenario_setting *list,
			int (*fn)(void *ctx, const char *piece), void *ctx);

/**
 * Adds the overrides of @p list ("K=V; K=V") to @p sc, each remembered at
 * the list's file and line. An empty piece is skipped. Returns 0 or the
 * error of scenario_add_override_at() (message in sc->err).
 */
int vcase_add_overrides(struct scenario *sc,
			const struct scenario_setting *list);

#endif
