/* SPDX-License-Identifier: MIT */
/* Private helpers of src/runtime/flushq.c for vcpu-sync.c and the
 * simulator's oracle. */
#ifndef HVTLB_RUNTIME_FLUSHQ_PRIVATE_H
#define HVTLB_RUNTIME_FLUSHQ_PRIVATE_H

#include <hvtlb/flushq.h>

/*
 * hvtlb_flushq_push() with the HVTLB_FLUSH_FAULT_* switches: with
 * HVTLB_FLUSH_FAULT_DROP_OVERFLOW a push that does not fit is dropped.
 */
int runtime_flushq_push_flags(struct hvtlb_flushq *q,
			      const struct hvtlb_gva_range *r, size_t n,
			      unsigned flags);

/* What hvtlb_flushq_drain() would return, leaving the queue as it is (the
 * oracle reads what a vCPU has pending). */
void runtime_flushq_peek(struct hvtlb_flushq *q,
			 struct hvtlb_flushq_batch *out);

#endif /* HVTLB_RUNTIME_FLUSHQ_PRIVATE_H */
