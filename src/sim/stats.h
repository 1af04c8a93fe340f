/* SPDX-License-Identifier: MIT */
/* VM-exit counters and the shootdown latency histogram (stats.c). */
#ifndef HVTLB_SIM_STATS_H
#define HVTLB_SIM_STATS_H

#include "sim/machine.h"

/* @p n VM exits of @p v for @p why. */
void count_exit(struct sim *s, const struct vcpu *v, enum hvtlb_sim_exit why,
		uint64_t n);
/* One shootdown latency of @p c cycles. */
void hist_add(struct sim *s, simtime c);

#endif
