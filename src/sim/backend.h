/* SPDX-License-Identifier: MIT */
/* The backend the guest's strategies flush through (backend.c). */
#ifndef HVTLB_SIM_BACKEND_H
#define HVTLB_SIM_BACKEND_H

#include <hvtlb/core.h>

struct vcpu;

/* Every op's user pointer is the calling vCPU (struct vcpu). */
extern const struct hvtlb_backend_ops sim_backend_ops;

/* The state of CPU @p cpu of @p v's VM as the guest sees it (the
 * cpu_state op). */
enum hvtlb_cpu_state sim_cpu_state(const struct vcpu *v, uint32_t cpu);

/* The VP index the guest names for its CPU @p cpu (the vp_index op). */
uint32_t sim_vp_index(const struct vcpu *v, uint32_t cpu);

/* The highest CPU of @p m, which the drop-target fault loses, or
 * HVTLB_MAX_CPUS if none. */
static inline uint32_t last_cpu(const struct hvtlb_cpumask *m)
{
	uint32_t last = HVTLB_MAX_CPUS;

	for (uint32_t c = hvtlb_cpumask_next(m, 0); c < HVTLB_MAX_CPUS;
	     c = hvtlb_cpumask_next(m, c + 1))
		last = c;
	return last;
}

#endif
