/* SPDX-License-Identifier: MIT */
/* How a guest vCPU sends one IPI to a set of vCPUs (ipi-send.c). */
#ifndef HVTLB_SIM_IPI_SEND_H
#define HVTLB_SIM_IPI_SEND_H

#include <hvtlb/core.h>
#include <hvtlb/sim.h>

#include "sim/event.h"

struct sim;
struct vcpu;

/* Linux's x86 vectors (arch/x86/include/asm/irq_vectors.h): what the
 * hyperv delivery's hypercall names. */
#define IPI_VECTOR_CALL_FUNCTION 0xfcu
#define IPI_VECTOR_RESCHEDULE 0xfdu

/*
 * One send, from sim_ipi_send_begin() to sim_ipi_send_end(): sim_ipi_send_next() for
 * each CPU of .to in ascending order. .to is what the host delivers: the
 * targets asked for (the VM's, the sender left out), or with the hyperv
 * delivery the set the host decoded from the hypercall.
 */
struct ipi_send {
	struct sim *s;
	struct vcpu *v;
	struct hvtlb_cpumask to;
	enum hvtlb_sim_ipi_delivery how; /* what carries the IPIs of .to */
	uint32_t n;			 /* CPUs of .to passed so far */
	uint32_t base; /* first APIC ID of the cluster or window open */
	simtime spent; /* the sender's cycles so far */
	uint32_t exits[HVTLB_SIM_IPI_DELIVERY_COUNT_];
	uint32_t ipis[HVTLB_SIM_IPI_DELIVERY_COUNT_];
	uint64_t nexits; /* the exits, set by sim_ipi_send_end() */
};

/* Starts @p v's send of @p vector to @p targets (CPU numbers of its VM). */
void sim_ipi_send_begin(struct ipi_send *p, struct vcpu *v,
			const struct hvtlb_cpumask *targets, uint32_t vector);
/* The next CPU of p->to: returns the sender's cycles from the start of
 * the send to the moment the write or hypercall carrying it is done. */
simtime sim_ipi_send_next(struct ipi_send *p, uint32_t cpu);
/* Counts the send's exits and IPIs by delivery; returns the sender's
 * cycles. The caller charges them. */
simtime sim_ipi_send_end(struct ipi_send *p);

#endif
