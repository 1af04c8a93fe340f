/* SPDX-License-Identifier: MIT */
/* VM-exit counters and the shootdown latency histogram (stats.c). */
#ifndef HVTLB_SIM_STATS_H
#define HVTLB_SIM_STATS_H

#include "sim/machine.h"

/* @p n VM exits of @p v for @p why. */
void sim_count_exit(struct sim *s, const struct vcpu *v,
		    enum hvtlb_sim_exit why, uint64_t n);
/* One shootdown latency of @p c cycles. */
void sim_hist_add(struct sim *s, simtime c);
/* A flush is posted to @p tv now: what it is doing (counted). */
enum hvtlb_sim_target_state sim_target_posted(struct sim *s,
					      const struct vcpu *tv);
/* A target that was in state @p st when its flush was posted took @p c
 * cycles to acknowledge. */
void sim_target_acked(struct sim *s, enum hvtlb_sim_target_state st, simtime c);
/* A flush IPI is sent to @p tv now: where it stands with the guest's PV
 * spinlock (counted in results.ipi_lock). */
enum hvtlb_sim_target_lock sim_target_lock(struct sim *s,
					   const struct vcpu *tv);
/* The same as sim_target_acked() for a flush IPI the guest handled, its
 * target in lock state @p lk when it was sent: also counted in the IPI
 * row (results.ipi_acks) and the lock row (results.ipi_lock). */
void sim_ipi_acked(struct sim *s, enum hvtlb_sim_target_state st,
		   enum hvtlb_sim_target_lock lk, simtime c);

#endif
