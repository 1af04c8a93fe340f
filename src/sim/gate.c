// SPDX-License-Identifier: MIT
/*
 * guest.kernel and machine.backing (docs/model.md, "Version gates and
 * backings"): what a Linux guest of a given version has, what a
 * confidential-VM platform allows, and the IPI delivery a guest of that
 * version picks itself.
 *
 * Versions, each the release whose merge window took the commit:
 * - Hyper-V flush hypercalls in a Linux guest: 4.14, 2ffd9e33ce4a
 *   (arch/x86/hyperv/mmu.c);
 * - KVM PV TLB flush: 4.16, 858a43aae236 (arch/x86/kernel/kvm.c);
 * - Hyper-V synthetic cluster IPI: 4.18, 68bb7bfb7985
 *   (arch/x86/hyperv/hv_apic.c);
 * - KVM PV send-IPI: 4.19, aaffcfd1e82d (arch/x86/kernel/kvm.c);
 * - lazy TLB CPUs skipped: 4.19, 145f573b89a6 (arch/x86/mm/tlb.c);
 * - remote and local flushes concurrent: 5.13, 4ce94eabac16;
 * - INVLPGB broadcast flushes: 6.15, 4afeb0ed1753.
 */
#include <stddef.h>

#include "sim/gate.h"

#define V_HV_FLUSH HVTLB_SIM_KVER(4, 14)
#define V_KVM_FLUSH HVTLB_SIM_KVER(4, 16)
#define V_HV_IPI HVTLB_SIM_KVER(4, 18)
#define V_KVM_IPI HVTLB_SIM_KVER(4, 19)
#define V_LAZY_SKIP HVTLB_SIM_KVER(4, 19)
#define V_CONCURRENT HVTLB_SIM_KVER(5, 13)
#define V_INVLPGB HVTLB_SIM_KVER(6, 15)

/* The guest's host, as hypervisor.profile's decoder host says it is. A
 * Xen guest is not modelled as using either send-IPI call. */
enum host { HOST_KVM, HOST_HYPERV, HOST_OTHER };

static enum host host_of(const struct hvtlb_sim_config *c)
{
	switch (hvtlb_profile_hypervisor(c->decoder)) {
	case HVTLB_HYPERVISOR_KVM:
		return HOST_KVM;
	case HVTLB_HYPERVISOR_HYPERV:
		return HOST_HYPERV;
	default:
		return HOST_OTHER;
	}
}

/* The Linux version that gates @p c, or 0 for none. */
static unsigned kver(const struct hvtlb_sim_config *c)
{
	return c->guest_os == HVTLB_SIM_GUEST_OS_LINUX ? c->guest_kernel : 0;
}

/* What machine.backing refuses, or NULL. */
static const char *backing_refused(const struct hvtlb_sim_config *c,
				   const char **why)
{
	enum hvtlb_strategy_kind sk = c->strategy.kind;

	if (c->backing == HVTLB_SIM_BACKING_PLAIN)
		return NULL;
	if (c->bare_metal) {
		*why = "a confidential VM needs a hypervisor, and "
		       "machine.bare_metal has none";
		return "machine.backing";
	}
	if (c->backing == HVTLB_SIM_BACKING_TDX &&
	    sk == HVTLB_STRATEGY_KVM_PV) {
		*why = "machine.backing = tdx: the VMM gives a TD no KVM steal "
		       "time (QEMU's TDX_SUPPORTED_KVM_FEATURES), and Linux "
		       "uses the PV TLB flush only with it "
		       "(pv_tlb_flush_supported)";
		return "strategy";
	}
	if (sk == HVTLB_STRATEGY_XEN_PV) {
		*why = "a Xen PV guest runs without "
		       "hardware virtualization; a confidential VM (TDX, "
		       "SEV-SNP) is a hardware-virtualized guest";
		return "strategy";
	}
	if (c->backing == HVTLB_SIM_BACKING_TDX &&
	    sk == HVTLB_STRATEGY_BROADCAST) {
		*why = "machine.backing = tdx: INVLPGB is an AMD instruction, "
		       "a TD has none";
		return "strategy";
	}
	if (c->backing == HVTLB_SIM_BACKING_SNP_SAVIC &&
	    c->ipi_delivery == HVTLB_SIM_IPI_DELIVERY_HYPERV) {
		*why = "machine.backing = snp-savic: with Secure AVIC the host "
		       "no longer recommends the synthetic cluster IPI "
		       "(OpenVMM); the guest sends IPIs by its APIC";
		return "hypervisor.ipi_delivery";
	}
	return NULL;
}

/* What guest.kernel refuses, or NULL. */
static const char *kernel_refused(const struct hvtlb_sim_config *c,
				  const char **why)
{
	unsigned v = kver(c);
	enum hvtlb_strategy_kind sk = c->strategy.kind;

	if (c->guest_kernel && c->guest_os != HVTLB_SIM_GUEST_OS_LINUX) {
		*why = "guest.kernel is a Linux version, and guest.os is not "
		       "linux";
		return "guest.kernel";
	}
	if (!v)
		return NULL;
	if (c->ipi_batch != 1 &&
	    !sim_config_given(c, "hypervisor.ipi_delivery")) {
		*why = "the icr model's grouping, and guest.kernel derives the "
		       "delivery: give hypervisor.ipi_delivery = icr with it";
		return "hypervisor.ipi_batch";
	}
	if (c->ipi_delivery == HVTLB_SIM_IPI_DELIVERY_KVM_PV && v < V_KVM_IPI) {
		*why = "guest.kernel predates it: KVM PV send-IPI needs "
		       "Linux 4.19 (aaffcfd1e82d)";
		return "hypervisor.ipi_delivery";
	}
	if (c->ipi_delivery == HVTLB_SIM_IPI_DELIVERY_HYPERV && v < V_HV_IPI) {
		*why = "guest.kernel predates it: the Hyper-V synthetic "
		       "cluster IPI needs Linux 4.18 (68bb7bfb7985)";
		return "hypervisor.ipi_delivery";
	}
	if (sk == HVTLB_STRATEGY_KVM_PV && v < V_KVM_FLUSH) {
		*why = "guest.kernel predates it: the KVM PV TLB flush needs "
		       "Linux 4.16 (858a43aae236)";
		return "strategy";
	}
	if (sk == HVTLB_STRATEGY_HYPERV && v < V_HV_FLUSH) {
		*why = "guest.kernel predates it: the Hyper-V flush "
		       "hypercalls need Linux 4.14 (2ffd9e33ce4a)";
		return "strategy";
	}
	if (sk == HVTLB_STRATEGY_BROADCAST && v < V_INVLPGB) {
		*why = "guest.kernel predates it: INVLPGB flushes need Linux "
		       "6.15 (4afeb0ed1753)";
		return "strategy";
	}
	if (c->strategy.lazy_skip && v < V_LAZY_SKIP &&
	    sim_config_given(c, "strategy.lazy_skip")) {
		*why = "guest.kernel predates it: skipping lazy TLB CPUs needs "
		       "Linux 4.19 (145f573b89a6)";
		return "strategy.lazy_skip";
	}
	if (c->strategy.concurrent && v < V_CONCURRENT &&
	    sim_config_given(c, "strategy.concurrent")) {
		*why = "guest.kernel predates it: concurrent local and remote "
		       "flushes need Linux 5.13 (4ce94eabac16)";
		return "strategy.concurrent";
	}
	return NULL;
}

const char *sim_gate_refused(const struct hvtlb_sim_config *c, const char **why)
{
	const char *bad = backing_refused(c, why);

	return bad ? bad : kernel_refused(c, why);
}

/* The delivery a Linux of version @p v picks on @p c's host. */
static void derive(const struct hvtlb_sim_config *c, unsigned v,
		   struct sim_delivery *d)
{
	enum host h = c->bare_metal ? HOST_OTHER : host_of(c);

	d->how = HVTLB_SIM_IPI_DELIVERY_ICR;
	d->origin = HVTLB_SIM_ORIGIN_DERIVED;
	if (c->bare_metal)
		d->why = "no hypervisor: x2APIC physical ICR writes";
	else if (h == HOST_KVM && v < V_KVM_IPI)
		d->why = "KVM host, Linux before 4.19: x2APIC physical ICR "
			 "writes";
	else if (h == HOST_KVM && !c->pv_send_ipi)
		d->why = "KVM host without KVM_FEATURE_PV_SEND_IPI: x2APIC "
			 "physical ICR writes";
	else if (h == HOST_KVM) {
		d->how = HVTLB_SIM_IPI_DELIVERY_KVM_PV;
		d->why = "KVM host, Linux >= 4.19, KVM_FEATURE_PV_SEND_IPI "
			 "offered";
	} else if (h == HOST_HYPERV && v < V_HV_IPI)
		d->why = "Hyper-V host, Linux before 4.18: x2APIC physical ICR "
			 "writes";
	else if (h == HOST_HYPERV && c->backing == HVTLB_SIM_BACKING_SNP_SAVIC)
		d->why = "snp-savic: Secure AVIC, the cluster IPI is not "
			 "recommended: x2APIC physical ICR writes";
	else if (h == HOST_HYPERV && !c->cluster_ipi)
		d->why = "Hyper-V host without HV_X64_CLUSTER_IPI_RECOMMENDED: "
			 "x2APIC physical ICR writes";
	else if (h == HOST_HYPERV) {
		d->how = HVTLB_SIM_IPI_DELIVERY_HYPERV;
		d->why = "Hyper-V host, Linux >= 4.18, "
			 "HV_X64_CLUSTER_IPI_RECOMMENDED offered";
	} else
		d->why = "a host with neither KVM's nor Hyper-V's send-IPI "
			 "hypercall modelled: x2APIC physical ICR writes";
}

void sim_gate_apply(struct hvtlb_sim_config *c, struct sim_delivery *d)
{
	unsigned v = kver(c);
	bool given = sim_config_given(c, "hypervisor.ipi_delivery");

	*d = (struct sim_delivery){
		.how = c->ipi_delivery,
		.origin = given ? HVTLB_SIM_ORIGIN_GIVEN
				: HVTLB_SIM_ORIGIN_DEFAULT,
		.why = "",
	};
	if (!v)
		return;
	if (!given) {
		derive(c, v, d);
		c->ipi_delivery = d->how;
	}
	/* A knob not given is on from the version that has it. */
	if (!sim_config_given(c, "strategy.lazy_skip"))
		c->strategy.lazy_skip = v >= V_LAZY_SKIP;
	if (!sim_config_given(c, "strategy.concurrent"))
		c->strategy.concurrent = v >= V_CONCURRENT;
}
