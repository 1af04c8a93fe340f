/* SPDX-License-Identifier: MIT */
/* Private helpers shared by src/sim/flushq.c and src/sim/vcpu-sync.c. */
#ifndef HVTLB_SIM_FLUSHQ_PRIVATE_H
#define HVTLB_SIM_FLUSHQ_PRIVATE_H

#include <hvtlb/flushq.h>

/*
 * hvtlb_flushq_push() with the HVTLB_FLUSH_FAULT_* switches: with
 * HVTLB_FLUSH_FAULT_DROP_OVERFLOW a push that does not fit is dropped.
 */
int flushq_push_flags(struct hvtlb_flushq *q, const struct hvtlb_gva_range *r,
		      size_t n, unsigned flags);

#endif /* HVTLB_SIM_FLUSHQ_PRIVATE_H */
