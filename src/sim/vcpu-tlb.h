/* SPDX-License-Identifier: MIT */
/* Flushing a vCPU's TLB (vcpu-tlb.c). */
#ifndef HVTLB_SIM_VCPU_TLB_H
#define HVTLB_SIM_VCPU_TLB_H

#include "sim/machine.h"

/* Allocates the TLB at first use (sets s->failed when out of memory). */
void sim_vcpu_tlb_ready(struct sim *s, struct vcpu *v);
/* A full flush; @p global: global entries too (unless the fault
 * global-survives, which treats every such flush as non-global). */
void sim_vcpu_flush_all(struct sim *s, struct vcpu *v,
			enum hvtlb_sim_flush_kind kind, bool global);
/* A flush of @p r in address space @p asid (~0u: any). */
void sim_vcpu_flush_range(struct sim *s, struct vcpu *v,
			  const struct hvtlb_flush_range *r, uint32_t asid,
			  enum hvtlb_sim_flush_kind kind);

#endif
