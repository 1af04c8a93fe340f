// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

uint64_t kvmvmm_percentile(const uint64_t *sorted, size_t n, unsigned p)
{
	size_t rank;

	if (!n)
		return 0;
	if (p > 100)
		p = 100;
	/* ceil(p/100 * n), at least 1 */
	rank = (n * p + 99) / 100;
	return sorted[rank ? rank - 1 : 0];
}

void kvmvmm_dist_compute(uint64_t *samples, size_t n, struct kvmvmm_dist *d)
{
	memset(d, 0, sizeof(*d));
	if (!n)
		return;
	qsort(samples, n, sizeof(*samples), cmp_u64);
	d->n = n;
	d->min = samples[0];
	d->p10 = kvmvmm_percentile(samples, n, 10);
	d->p50 = kvmvmm_percentile(samples, n, 50);
	d->p90 = kvmvmm_percentile(samples, n, 90);
	d->p99 = kvmvmm_percentile(samples, n, 99);
	d->max = samples[n - 1];
}
