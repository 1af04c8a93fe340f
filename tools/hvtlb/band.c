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

void band_of(double *v, size_t n, struct band *b)
{
	qsort(v, n, sizeof(*v), cmp_double);
	b->p5 = quantile_sorted(v, n, 0.05);
	b->p50 = quantile_sorted(v, n, 0.50);
	b->p95 = quantile_sorted(v, n, 0.95);
}

bool band_contains(const struct band *b, double x)
{
	return x >= b->p5 && x <= b->p95;
}
