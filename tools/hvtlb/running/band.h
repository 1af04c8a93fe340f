/* SPDX-License-Identifier: MIT */
/*
 * Percentile bands of a sample: p5 / p50 / p95, linearly interpolated
 * between order statistics (the "type 7" estimator of R and NumPy's
 * default: the p-quantile of n sorted values x[0..n) is
 * x[h] + (h - floor h)(x[h + 1] - x[h]) at h = (n - 1) p).
 */
#ifndef HVTLB_TOOL_BAND_H
#define HVTLB_TOOL_BAND_H

#include <stdbool.h>
#include <stddef.h>

struct band {
	double p5, p50, p95;
};

/** The @p p-quantile (0 <= p <= 1) of the @p n >= 1 sorted values @p v. */
double quantile_sorted(const double *v, size_t n, double p);

/** Sorts the @p n values @p v (no NaN) in ascending order. */
void band_sort(double *v, size_t n);

/** Sorts @p v (n >= 1 values, no NaN) and stores its band in @p b. */
void band_of(double *v, size_t n, struct band *b);

/**
 * Whether more values could hardly move the band of the @p n sorted
 * values @p v: for each of p5, p50 and p95, the distribution-free 90 %
 * interval of that quantile (the order statistics whose ranks bound the
 * binomial count of values below it, np -/+ 1.645 sqrt(np(1 - p))) is
 * at most @p tol x |p50| wide. False for n < 2.
 */
bool band_settled(const double *v, size_t n, double tol);

/** Whether @p x lies in [p5, p95]. */
bool band_contains(const struct band *b, double x);

#endif
