/* SPDX-License-Identifier: MIT */
/* Order statistics of a set of TSC samples. */
#ifndef KVMVMM_STATS_H
#define KVMVMM_STATS_H

#include <stddef.h>
#include <stdint.h>

struct kvmvmm_dist {
	size_t n;
	uint64_t min, p10, p50, p90, p99, max;
};

/**
 * Sorts @p samples in place and fills @p d with nearest-rank percentiles
 * (the smallest sample with at least p% of the samples at or below it).
 * All zero when @p n is 0.
 */
void kvmvmm_dist_compute(uint64_t *samples, size_t n, struct kvmvmm_dist *d);

/** The nearest-rank @p p-th percentile (0 < p <= 100) of @p n sorted
 *  samples; 0 when @p n is 0. */
uint64_t kvmvmm_percentile(const uint64_t *sorted, size_t n, unsigned p);

#endif
