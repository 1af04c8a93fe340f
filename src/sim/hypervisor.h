/* SPDX-License-Identifier: MIT */
/* The hypervisor side of the guest's flush calls (hypervisor.c). */
#ifndef HVTLB_SIM_HYPERVISOR_H
#define HVTLB_SIM_HYPERVISOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hvtlb/core.h>
#include <hvtlb/flushq.h>
#include <hvtlb/hypercall.h>

#include "sim/event.h"

struct sim;
struct vcpu;

/*
 * The hypervisor's state of one vCPU (struct vcpu's hv), written by
 * hypervisor.c alone: the flush queue its flush hypercalls post to (set
 * up once fq_ready), and whether a pending "flush everything" drops
 * global entries too. A new per-vCPU field the hypervisor's flush path
 * alone writes goes here.
 */
struct vcpu_hv {
	struct hvtlb_flushq fq;
	bool fq_ready;
	bool fq_global;
};

/* Sets up / frees @p v's hv; 0 or -ENOMEM. */
int sim_hv_vcpu_init(struct vcpu *v);
void sim_hv_vcpu_finish(struct vcpu *v);

/* Work before @p v enters its pCPU (deferred flush, flush queue); returns
 * its cycles. */
simtime sim_hv_vcpu_entry(struct sim *s, struct vcpu *v);
/* The backend ops the hypervisor implements (@p user: the calling vCPU). */
uint64_t sim_op_hypercall(void *user, uint64_t control, const void *input,
			  size_t len);
int sim_op_vmm_flush(void *user, const struct hvtlb_cpumask *targets,
		     const struct hvtlb_flush_range *r);
void sim_hv_on_kick(struct sim *s, const struct event *e);
/* The host's side of a send-IPI hypercall of @p v: decodes it under
 * hypervisor.profile and, on success, stores in @p to the CPUs of v's VM
 * it names (VP indexes mapped back through hypervisor.vp_index_offset).
 * Returns the TLFS status. */
hvtlb_status sim_hv_ipi_call(struct sim *s, struct vcpu *v, uint64_t control,
			     const void *input, size_t len,
			     struct hvtlb_cpumask *to);

#endif
