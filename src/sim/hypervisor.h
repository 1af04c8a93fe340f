/* SPDX-License-Identifier: MIT */
/* The hypervisor side of the guest's flush calls (hypervisor.c). */
#ifndef HVTLB_SIM_HYPERVISOR_H
#define HVTLB_SIM_HYPERVISOR_H

#include <stddef.h>
#include <stdint.h>

#include <hvtlb/core.h>

#include "sim/event.h"

struct sim;
struct vcpu;

/* Work before @p v enters its pCPU (deferred flush, flush queue); returns
 * its cycles. */
simtime hv_vcpu_entry(struct sim *s, struct vcpu *v);
/* The backend ops the hypervisor implements (@p user: the calling vCPU). */
uint64_t op_hypercall(void *user, uint64_t control, const void *input,
		      size_t len);
int op_vmm_flush(void *user, const struct hvtlb_cpumask *targets,
		 const struct hvtlb_flush_range *r);
void hv_on_kick(struct sim *s, const struct event *e);

#endif
