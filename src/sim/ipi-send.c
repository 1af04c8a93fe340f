// SPDX-License-Identifier: MIT
/*
 * How a guest vCPU sends one IPI to a set of vCPUs of its VM, by
 * hypervisor.ipi_delivery (docs/model.md, "IPI delivery"): the VM exits
 * the sender takes, when each target's IPI leaves it, and with the hyperv
 * delivery the target set the host decoded. APIC ID = vCPU index, as QEMU
 * numbers the vCPUs of a flat topology.
 *
 * - icr: Linux's x2apic_phys.c, one ICR write (a WRMSR exit) per target;
 *   hypervisor.ipi_batch groups them by count (the older model).
 * - cluster: Linux's x2apic_cluster.c, one write per cluster (APIC ID >>
 *   4) that holds a target.
 * - kvm-pv: Linux's kvm.c __send_ipi_mask (4.19): a KVM_HC_SEND_IPI per
 *   128-bit window whose base is the lowest target not yet sent; a target
 *   outside the window closes it. Linux replaces send_IPI_mask only, so
 *   one target alone (send_IPI) takes an ICR write.
 * - hyperv: Linux's hv_apic.c (4.18): HvCallSendSyntheticClusterIpi, fast
 *   input, when every target VP is below 64; else the Ex form with a
 *   sparse VP set in memory, if the host offers Ex (else ICR writes). A
 *   status other than success falls back to ICR writes, as Linux does.
 *
 * kvm-pv needs hypervisor.pv_send_ipi and hyperv hypervisor.cluster_ipi
 * (the host's CPUID bits): without them the guest sends by ICR writes.
 *
 * ICR and cluster writes cost nothing with hypervisor.ipiv (no exit); a
 * hypercall is an exit whatever the APIC does.
 */
#include "sim/backend.h"
#include "sim/hypervisor.h"
#include "sim/ipi-send.h"
#include "sim/machine.h"
#include "sim/stats.h"

/* KVM_IPI_CLUSTER_SIZE: 2 * BITS_PER_LONG destinations per hypercall. */
#define KVM_PV_WINDOW 128u
/* x2APIC logical cluster: the APIC ID's bits 4 and up. */
#define X2APIC_CLUSTER_SHIFT 4u

/*
 * The hyperv delivery: encodes the call as hv_apic.c would, lets the
 * host decode it, and replaces p->to by the set it decoded. Returns false
 * when the guest falls back to ICR writes (nothing to encode, Ex not
 * offered, the host refused the call).
 */
static bool hv_send(struct ipi_send *p, uint32_t vector)
{
	struct sim *s = p->s;
	struct hvtlb_vpmask vps = { { 0 } };
	struct hvtlb_encoded e;
	struct hvtlb_call_desc d = {
		.vps = &vps,
		.vpset_style = HVTLB_VPSET_LINUX,
		.vector = vector,
	};
	uint32_t max = 0;

	for (uint32_t c = hvtlb_cpumask_next(&p->to, 0); c < s->c->vcpus;
	     c = hvtlb_cpumask_next(&p->to, c + 1)) {
		uint32_t vp = sim_vp_index(p->v, c);

		if (vp >= HVTLB_MAX_VPS)
			return false;
		hvtlb_vpmask_set(&vps, vp);
		max = vp > max ? vp : max;
	}
	/* hv_apic.c: the non-Ex call in registers, the Ex one in memory. */
	d.call = max < 64 ? HVTLB_CALL_SEND_IPI : HVTLB_CALL_SEND_IPI_EX;
	d.fast = max < 64;
	if ((max >= 64 && !s->c->offer_ex) || hvtlb_encode(&d, &e))
		return false;
	p->exits[HVTLB_SIM_IPI_DELIVERY_HYPERV]++;
	p->spent += cyc(s, SIM_COST_hypercall);
	return sim_hv_ipi_call(s, p->v, e.control, e.input, e.len, &p->to) ==
	       HVTLB_STATUS_SUCCESS;
}

void sim_ipi_send_begin(struct ipi_send *p, struct vcpu *v,
			const struct hvtlb_cpumask *targets, uint32_t vector)
{
	struct sim *s = v->s;
	uint32_t n = 0;

	*p = (struct ipi_send){ .s = s, .v = v, .how = s->c->ipi_delivery };
	for (uint32_t c = hvtlb_cpumask_next(targets, 0); c < s->c->vcpus;
	     c = hvtlb_cpumask_next(targets, c + 1)) {
		if (c != v->idx) {
			hvtlb_cpumask_set(&p->to, c);
			n++;
		}
	}
	if (!n)
		return;
	/* Without the host's CPUID bit the guest keeps its APIC driver. */
	if ((p->how == HVTLB_SIM_IPI_DELIVERY_KVM_PV && !s->c->pv_send_ipi) ||
	    (p->how == HVTLB_SIM_IPI_DELIVERY_HYPERV && !s->c->cluster_ipi))
		p->how = HVTLB_SIM_IPI_DELIVERY_ICR;
	if (p->how == HVTLB_SIM_IPI_DELIVERY_KVM_PV && n == 1)
		p->how = HVTLB_SIM_IPI_DELIVERY_ICR;
	if (p->how == HVTLB_SIM_IPI_DELIVERY_HYPERV && !hv_send(p, vector))
		p->how = HVTLB_SIM_IPI_DELIVERY_ICR;
}

/* Whether @p cpu needs a new ICR write or hypercall. */
static bool new_exit(struct ipi_send *p, uint32_t cpu)
{
	switch (p->how) {
	case HVTLB_SIM_IPI_DELIVERY_ICR:
		return p->n % p->s->c->ipi_batch == 0;
	case HVTLB_SIM_IPI_DELIVERY_CLUSTER:
		if (p->n && cpu >> X2APIC_CLUSTER_SHIFT == p->base)
			return false;
		p->base = cpu >> X2APIC_CLUSTER_SHIFT;
		return true;
	case HVTLB_SIM_IPI_DELIVERY_KVM_PV:
		/* Ascending CPUs: only a target past the window closes it. */
		if (p->n && cpu - p->base < KVM_PV_WINDOW)
			return false;
		p->base = cpu;
		return true;
	default: /* hyperv: the one hypercall, counted in hv_send() */
		return false;
	}
}

simtime sim_ipi_send_next(struct ipi_send *p, uint32_t cpu)
{
	struct sim *s = p->s;
	bool hypercall = p->how == HVTLB_SIM_IPI_DELIVERY_KVM_PV ||
			 p->how == HVTLB_SIM_IPI_DELIVERY_HYPERV;

	if (new_exit(p, cpu)) {
		if (hypercall) {
			p->exits[p->how]++;
			p->spent += cyc(s, SIM_COST_hypercall);
		} else if (!s->c->ipiv) {
			p->exits[p->how]++;
			p->spent += cyc(s, SIM_COST_ipi_send);
		}
	}
	/* The host posts the interrupt to each destination in turn. */
	if (hypercall)
		p->spent += cyc(s, SIM_COST_hv_per_target);
	p->ipis[p->how]++;
	p->n++;
	return p->spent;
}

simtime sim_ipi_send_end(struct ipi_send *p)
{
	struct sim *s = p->s;
	uint64_t total = 0;

	/* An empty send (the sender alone) leaves p->how as configured. */
	for (int i = 0; i < HVTLB_SIM_IPI_DELIVERY_COUNT_; i++) {
		s->r->ipis_by_delivery[i] += p->ipis[i];
		if (!s->c->bare_metal)
			s->r->ipi_exits[i] += p->exits[i];
		total += p->exits[i];
	}
	if (total)
		sim_count_exit(s, p->v, HVTLB_SIM_EXIT_IPI_SEND, total);
	p->nexits = total;
	return p->spent;
}
