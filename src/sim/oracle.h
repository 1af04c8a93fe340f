/* SPDX-License-Identifier: MIT */
/* The oracle (oracle.c). */
#ifndef HVTLB_SIM_ORACLE_H
#define HVTLB_SIM_ORACLE_H

#include "sim/machine.h"

/* vCPU @p v used a stale translation of @p va: count and record it. */
void violation(struct sim *s, struct vcpu *v, uint64_t va);

/* A translation of @p va through an entry filled from generation @p gen,
 * where the last completed flush covered @p flushed. */
static inline void oracle_use(struct sim *s, struct vcpu *v, uint64_t va,
			      uint32_t gen, uint32_t flushed)
{
	if (gen < flushed)
		violation(s, v, va);
}

/* The flush of a slot's zap is complete (lazy strategy, at reuse): entries
 * older than the current generation are stale now. */
void mark_slot_flushed(struct mm *m, uint32_t slot);
/* The flush of @p t's last zap of @p slot is complete: entries older than
 * the generation it covered are stale now. */
void mark_zapped_flushed(struct task *t, struct mm *m, uint32_t slot);
void oracle_check_freed_tables(struct sim *s, struct task *t,
			       const struct mm *m, const struct vcpu *v,
			       uint64_t va);

#endif
