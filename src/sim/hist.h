/* SPDX-License-Identifier: MIT */
/*
 * A log-linear latency histogram in the manner of HdrHistogram: values
 * below 2^HIST_SUB_BITS have a bucket each; above, every power of two is
 * cut into 2^HIST_SUB_BITS buckets of equal width, so a bucket is at most
 * 1/128 of its lower edge wide. A quantile is reported as the middle of
 * its bucket (never above the largest value recorded): within 1/256 (0.4 %)
 * of the exact nearest-rank quantile of the recorded values.
 */
#ifndef HVTLB_SIM_HIST_H
#define HVTLB_SIM_HIST_H

#include <stdint.h>

#include <hvtlb/sim.h>

#define HIST_SUB_BITS 7u
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_BUCKETS (64u * HIST_SUB)

/* Rows of acknowledgement histograms: one per target state, then the
 * flush IPIs a guest handled in any state, then those IPIs by their
 * target's PV spinlock state. */
#define SIM_TARGET_IPI ((unsigned)HVTLB_SIM_TARGET_COUNT_)
#define SIM_TARGET_LOCK (SIM_TARGET_IPI + 1u)
#define SIM_TARGET_ROWS (SIM_TARGET_LOCK + HVTLB_SIM_TARGET_LOCK_COUNT_)

/* Counts one value @p v in @p hist (HIST_BUCKETS counters). */
void sim_hist_record(uint64_t *hist, uint64_t v);

/* The nearest-rank @p q quantile (0 < q <= 1) of the values in @p hist, at
 * most @p max (the largest value recorded); 0 for an empty histogram. */
uint64_t sim_hist_quantile(const uint64_t *hist, uint64_t max, double q);

#endif
