// SPDX-License-Identifier: MIT
#include <math.h>
#include <stdlib.h>

#include "band.h"

double quantile_sorted(const double *v, size_t n, double p)
{
	double h = (double)(n - 1) * p, lo = floor(h);
	size_t i = (size_t)lo;

	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (h - lo) * (v[i + 1] - v[i]);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void band_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

void band_of(double *v, size_t n, struct band *b)
{
	band_sort(v, n);
	b->p5 = quantile_sorted(v, n, 0.05);
	b->p50 = quantile_sorted(v, n, 0.50);
	b->p95 = quantile_sorted(v, n, 0.95);
}

/* Width of the 90 % interval of the p-quantile of n >= 2 sorted values:
 * from the floor(np - z s)-th to the ceil(np + z s)-th smallest (1-based,
 * clamped to the sample), s the binomial standard deviation. */
static double quantile_spread(const double *v, size_t n, double p)
{
	double np = (double)n * p, zs = 1.645 * sqrt(np * (1 - p));
	double lo = floor(np - zs), hi = ceil(np + zs);
	size_t i = lo < 1 ? 0 : (size_t)lo - 1;
	size_t j = hi > (double)n ? n - 1 : (size_t)hi - 1;

	return v[j] - v[i];
}

bool band_settled(const double *v, size_t n, double tol)
{
	static const double q[] = { 0.05, 0.50, 0.95 };
	double limit;

	if (n < 2)
		return false;
	limit = tol * fabs(quantile_sorted(v, n, 0.50));
	for (size_t k = 0; k < sizeof(q) / sizeof(q[0]); k++)
		if (!(quantile_spread(v, n, q[k]) <= limit))
			return false;
	return true;
}

bool band_contains(const struct band *b, double x)
{
	return x >= b->p5 && x <= b->p95;
}
