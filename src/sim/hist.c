// SPDX-License-Identifier: MIT
/* The log-linear latency histogram (hist.h). */
#include <math.h>

#include "sim/hist.h"

/* Bucket of @p v: its top bit picks the power of two, the next
 * HIST_SUB_BITS bits the bucket within it. */
static unsigned hist_bucket(uint64_t v)
{
	unsigned msb = 63 - (unsigned)__builtin_clzll(v | 1);

	if (msb < HIST_SUB_BITS)
		return (unsigned)v; /* exact: buckets 0 .. HIST_SUB - 1 */
	return (msb - HIST_SUB_BITS + 1) * HIST_SUB +
	       (unsigned)(v >> (msb - HIST_SUB_BITS)) - HIST_SUB;
}

/* The middle of bucket @p b (its only value below HIST_SUB). */
static uint64_t hist_middle(unsigned b)
{
	unsigned shift = b / HIST_SUB, sub = b % HIST_SUB;
	uint64_t lo;

	if (!shift)
		return sub;
	shift--;
	lo = (uint64_t)(HIST_SUB + sub) << shift;
	return lo + ((1ULL << shift) >> 1);
}

void sim_hist_record(uint64_t *hist, uint64_t v)
{
	hist[hist_bucket(v)]++;
}

uint64_t sim_hist_quantile(const uint64_t *hist, uint64_t max, double q)
{
	uint64_t total = 0, want, acc = 0;

	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		total += hist[b];
	if (!total)
		return 0;
	want = (uint64_t)ceil(q * (double)total);
	if (want < 1)
		want = 1;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		acc += hist[b];
		if (acc >= want) {
			uint64_t v = hist_middle(b);

			return v < max ? v : max;
		}
	}
	return max;
}
