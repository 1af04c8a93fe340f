// SPDX-License-Identifier: MIT
/*
 * hypervisor.ipi_delivery (src/sim/ipi-send.c): the sender exits each
 * delivery takes for one broadcast, on a machine built by sim_setup() and
 * left at time 0; the target set the host decodes from the hyperv
 * delivery's hypercall against the sender's mask on seeded random masks;
 * and whole runs of each delivery under every strategy, checked by the
 * oracle, whose counters add up.
 *
 * Each test is selectable by name (argv[1] is a cmocka filter).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hvtlb/sim.h>

#include "sim/engine.h"
#include "sim/ipi-send.h"
#include "sim/machine.h"

#include "sim-test.h"
#include "sim-rig.h"

static const char *const deliveries[] = { "icr", "cluster", "kvm-pv",
					  "hyperv" };

/* One send from vCPU @p from to @p targets, every target passed. Returns
 * the sender exits counted (the results' vm_exits.ipi_send). */
static uint64_t send_once(struct rig *g, uint32_t from,
			  const struct hvtlb_cpumask *targets,
			  struct ipi_send *p)
{
	uint64_t before = g->s.r->vm_exits[HVTLB_SIM_EXIT_IPI_SEND];

	sim_ipi_send_begin(p, &g->s.v[from], targets, IPI_VECTOR_CALL_FUNCTION);
	for (uint32_t c = hvtlb_cpumask_next(&p->to, 0); c < g->c.vcpus;
	     c = hvtlb_cpumask_next(&p->to, c + 1))
		sim_ipi_send_next(p, c);
	sim_ipi_send_end(p);
	return g->s.r->vm_exits[HVTLB_SIM_EXIT_IPI_SEND] - before;
}

/* Every vCPU of a VM of @p vcpus but @p from, sent by @p delivery;
 * returns the sender exits and checks the per-delivery counters. */
static uint64_t broadcast(uint32_t vcpus, uint32_t from, const char *delivery,
			  const char *extra)
{
	char v[32], d[64];
	const char *kv[] = { v, "machine.pcpus=4", d, extra, NULL };
	struct hvtlb_cpumask all;
	struct ipi_send p;
	struct rig *g;
	uint64_t exits, ipis = 0, by = 0;

	snprintf(v, sizeof(v), "vm.vcpus=%u", vcpus);
	snprintf(d, sizeof(d), "hypervisor.ipi_delivery=%s", delivery);
	g = rig_new(kv);
	memset(&all, 0, sizeof(all));
	for (uint32_t c = 0; c < vcpus; c++)
		hvtlb_cpumask_set(&all, c);
	exits = send_once(g, from, &all, &p);
	for (int i = 0; i < HVTLB_SIM_IPI_DELIVERY_COUNT_; i++) {
		ipis += g->s.r->ipis_by_delivery[i];
		by += g->s.r->ipi_exits[i];
	}
	assert_int_equal(ipis, vcpus - 1); /* the sender left out */
	assert_int_equal(by, exits);
	rig_free(g);
	return exits;
}

/*
 * An 80-vCPU VM, vCPU 0 to the 79 others: 79 ICR writes; 5 cluster writes
 * (APIC IDs 1-15, 16-31, ..., 64-79); one KVM_HC_SEND_IPI (IDs 1-79 fit
 * the 128-ID window from 1); one HvCallSendSyntheticClusterIpiEx (VPs
 * above 63: hv_apic.c sends one Ex call whatever the count of banks, here
 * two). From vCPU 80 of an 81-vCPU VM, to 80 targets: 80, 5, 1, 1.
 */
static void test_broadcast_exits(void **state)
{
	static const uint64_t want79[] = { 79, 5, 1, 1 };
	static const uint64_t want80[] = { 80, 5, 1, 1 };

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		uint64_t got = broadcast(80, 0, deliveries[i], NULL);

		if (got != want79[i])
			fail_msg("%s, 79 targets: %llu exits, want %llu",
				 deliveries[i], (unsigned long long)got,
				 (unsigned long long)want79[i]);
		got = broadcast(81, 80, deliveries[i], NULL);
		if (got != want80[i])
			fail_msg("%s, 80 targets: %llu exits, want %llu",
				 deliveries[i], (unsigned long long)got,
				 (unsigned long long)want80[i]);
	}
	/* The older count-based grouping stays as it was: ceil(79 / 16). */
	assert_int_equal(broadcast(80, 0, "icr", "hypervisor.ipi_batch=16"), 5);
	/* IPI virtualization: no exit for a write, a hypercall still one. */
	assert_int_equal(broadcast(80, 0, "icr", "hypervisor.ipiv=1"), 0);
	assert_int_equal(broadcast(80, 0, "cluster", "hypervisor.ipiv=1"), 0);
	assert_int_equal(broadcast(80, 0, "kvm-pv", "hypervisor.ipiv=1"), 1);
	assert_int_equal(broadcast(80, 0, "hyperv", "hypervisor.ipiv=1"), 1);
}

/* Sends to @p n listed CPUs of a VM of @p vcpus from @p from. */
static uint64_t send_list(const char *delivery, uint32_t vcpus, uint32_t from,
			  const uint32_t *cpus, size_t n, const char *extra,
			  enum hvtlb_sim_ipi_delivery *how)
{
	char v[32], d[64];
	const char *kv[] = { v, "machine.pcpus=4", d, extra, NULL };
	struct hvtlb_cpumask m;
	struct ipi_send p;
	struct rig *g;
	uint64_t exits;

	snprintf(v, sizeof(v), "vm.vcpus=%u", vcpus);
	snprintf(d, sizeof(d), "hypervisor.ipi_delivery=%s", delivery);
	g = rig_new(kv);
	memset(&m, 0, sizeof(m));
	for (size_t i = 0; i < n; i++)
		hvtlb_cpumask_set(&m, cpus[i]);
	exits = send_once(g, from, &m, &p);
	*how = p.how;
	rig_free(g);
	return exits;
}

/*
 * Where the windows and clusters close: kvm-pv opens a window at the
 * lowest target and a target 128 IDs on opens the next; a lone target is
 * an ICR write. Cluster mode writes once per cluster touched, not per 16
 * targets. hyperv without the Ex calls offered falls back to ICR writes
 * for VPs above 63, and stays one hypercall below. Without the host's
 * CPUID bit (hypervisor.pv_send_ipi, hypervisor.cluster_ipi) a guest set
 * to kvm-pv or hyperv writes the ICR.
 */
static void test_windows(void **state)
{
	static const uint32_t far[] = { 5, 132, 133 };
	static const uint32_t near[] = { 5, 132 };
	static const uint32_t spread[] = { 1, 17, 33, 49 };
	static const uint32_t one[] = { 7 };
	static const uint32_t high[] = { 1, 70 };
	static const uint32_t low[] = { 1, 63 };
	uint32_t all199[199];
	enum hvtlb_sim_ipi_delivery how;

	(void)state;
	for (uint32_t i = 0; i < 199; i++)
		all199[i] = i + 1;
	/* 1..128 in the first window, 129..199 in the second */
	assert_int_equal(send_list("kvm-pv", 200, 0, all199, 199, NULL, &how),
			 2);
	/* 132 - 5 = 127: one window; 133 - 5 = 128: the next */
	assert_int_equal(send_list("kvm-pv", 200, 0, near, 2, NULL, &how), 1);
	assert_int_equal(send_list("kvm-pv", 200, 0, far, 3, NULL, &how), 2);
	assert_int_equal(send_list("kvm-pv", 16, 0, one, 1, NULL, &how), 1);
	assert_int_equal(how, HVTLB_SIM_IPI_DELIVERY_ICR);
	assert_int_equal(send_list("cluster", 64, 0, spread, 4, NULL, &how), 4);
	assert_int_equal(send_list("icr", 64, 0, spread, 4,
				   "hypervisor.ipi_batch=16", &how),
			 1);
	assert_int_equal(
		send_list("hyperv", 80, 0, high, 2, "hypervisor.ex=0", &how),
		2);
	assert_int_equal(how, HVTLB_SIM_IPI_DELIVERY_ICR);
	assert_int_equal(
		send_list("hyperv", 80, 0, low, 2, "hypervisor.ex=0", &how), 1);
	assert_int_equal(how, HVTLB_SIM_IPI_DELIVERY_HYPERV);
	/* The host's CPUID bits withheld: the guest keeps ICR writes. */
	assert_int_equal(send_list("kvm-pv", 200, 0, all199, 199,
				   "hypervisor.pv_send_ipi=0", &how),
			 199);
	assert_int_equal(how, HVTLB_SIM_IPI_DELIVERY_ICR);
	assert_int_equal(send_list("hyperv", 80, 0, low, 2,
				   "hypervisor.cluster_ipi=0", &how),
			 2);
	assert_int_equal(how, HVTLB_SIM_IPI_DELIVERY_ICR);
}

/* xorshift64: a seeded sequence of masks. */
static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * The hyperv delivery on seeded random masks: what the host decoded from
 * the hypercall (the set delivered) is the sender's mask without the
 * sender, for the non-Ex call (all VPs below 64) and the Ex one, under
 * every decoder profile and with VP indexes apart from CPU numbers.
 */
static void test_hyperv_decoded_mask(void **state)
{
	static const char *const profiles[] = {
		"hypervisor.profile=strict", "hypervisor.profile=kvm",
		"hypervisor.profile=openvmm-tdx",
		"hypervisor.profile=openvmm-snp", "hypervisor.profile=xen"
	};
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	for (size_t pr = 0; pr < 5; pr++) {
		const char *kv[] = { "vm.vcpus=100",
				     "machine.pcpus=4",
				     "hypervisor.ipi_delivery=hyperv",
				     profiles[pr],
				     "hypervisor.vp_index_offset=0",
				     NULL };
		char off[48];

		for (int round = 0; round < 2; round++) {
			struct rig *g;

			snprintf(off, sizeof(off),
				 "hypervisor.vp_index_offset=%u",
				 round ? 37u : 0u);
			kv[4] = off;
			g = rig_new(kv);
			for (int k = 0; k < 200; k++) {
				struct hvtlb_cpumask m, want;
				struct ipi_send p;
				uint32_t from = (uint32_t)(next_rand(&x) % 100);
				/* half the masks below CPU 64 */
				uint32_t span = k % 2 ? 100 : 64;

				memset(&m, 0, sizeof(m));
				for (uint32_t c = 0; c < span; c++)
					if (next_rand(&x) & 1)
						hvtlb_cpumask_set(&m, c);
				want = m;
				hvtlb_cpumask_clear(&want, from);
				send_once(g, from, &m, &p);
				if (memcmp(&p.to, &want, sizeof(want)))
					fail_msg(
						"%s offset %d mask %d: decoded "
						"set differs",
						profiles[pr], round ? 37 : 0,
						k);
			}
			/* every send went by the hypercall (no fallback) */
			assert_int_equal(g->s.r->ipis_by_delivery
						 [HVTLB_SIM_IPI_DELIVERY_ICR],
					 0);
			rig_free(g);
		}
	}
}

/* A run of the oracle-stress workload (scenarios/oracle-stress.ini, a
 * third of its iterations) by @p delivery under @p strategy. */
static struct hvtlb_sim_results *stress(const char *delivery,
					const char *strategy, const char *fault)
{
	char dv[64], st[64], ft[64];
	const char *kv[] = { dv,
			     st,
			     ft,
			     "vm.vcpus=12",
			     "machine.pcpus=6",
			     "hypervisor.profile=kvm",
			     "workload.kind=oracle-stress",
			     "workload.threads=16",
			     "workload.iterations=100",
			     "workload.pages=4",
			     "workload.kernel_pages=8",
			     "workload.sleep_ns_max=20000",
			     "workload.file_backed=false",
			     NULL };

	snprintf(dv, sizeof(dv), "hypervisor.ipi_delivery=%s", delivery);
	snprintf(st, sizeof(st), "strategy=%s", strategy);
	snprintf(ft, sizeof(ft), "fault=%s", fault);
	return run_kv(kv);
}

/*
 * Whole runs, each delivery under every strategy (broadcast and lazy send
 * flush IPIs only as a fallback, but every run sends reschedule IPIs): no
 * oracle violation, and the counters add up (IPIs by delivery to
 * ipis.sent, send exits by delivery to vm_exits.ipi_send).
 * The same runs with the drop-target fault do show violations: the
 * oracle can still fire whatever the delivery.
 */
static void test_oracle_each_delivery(void **state)
{
	static const char *const strategies[] = { "ipi",       "hyperv",
						  "kvm-pv",    "vmm-assist",
						  "broadcast", "lazy",
						  "xen-pv" };
	size_t ns = sizeof(strategies) / sizeof(strategies[0]);

	(void)state;
	/* every strategy of the map, so a new one joins this test */
	assert_int_equal(ns, HVTLB_STRATEGY_COUNT_);
	for (size_t d = 0; d < 4; d++) {
		for (size_t s = 0; s < ns; s++) {
			struct hvtlb_sim_results *r =
				stress(deliveries[d], strategies[s], "none");
			uint64_t ipis = 0, exits = 0;

			for (int i = 0; i < HVTLB_SIM_IPI_DELIVERY_COUNT_;
			     i++) {
				ipis += r->ipis_by_delivery[i];
				exits += r->ipi_exits[i];
			}
			if (r->violations)
				fail_msg("%s %s: %llu violations",
					 deliveries[d], strategies[s],
					 (unsigned long long)r->violations);
			assert_true(r->ipis_sent > 0);
			assert_int_equal(ipis, r->ipis_sent);
			assert_int_equal(exits,
					 r->vm_exits[HVTLB_SIM_EXIT_IPI_SEND]);
			hvtlb_sim_results_destroy(r);
		}
		struct hvtlb_sim_results *r =
			stress(deliveries[d], "ipi", "drop-target");

		if (!r->fault_hits || !r->violations)
			fail_msg("%s drop-target: %llu hits, %llu violations",
				 deliveries[d],
				 (unsigned long long)r->fault_hits,
				 (unsigned long long)r->violations);
		hvtlb_sim_results_destroy(r);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_broadcast_exits),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_hyperv_decoded_mask),
		cmocka_unit_test(test_oracle_each_delivery),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
