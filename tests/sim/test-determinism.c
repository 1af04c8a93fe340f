// SPDX-License-Identifier: MIT
/*
 * The simulator end to end, as a whole: byte-identical results on 1, 2
 * and 4 host threads (one VM, several, kernel pages, the host's
 * mechanisms, the Windows guest), and a 4096-vCPU VM.
 *
 * Each test is selectable by name (argv[1] is a cmocka filter) so meson
 * runs them as separate tests with their own timeouts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include <hvtlb/sim.h>

#include "sim-test.h"

/* Byte-identical JSON with threads 1, 2 and 4; another seed differs. */
static void check_deterministic(const char *const *kv)
{
	struct hvtlb_sim_config c;
	char *first = NULL;

	cfg_apply(&c, kv);
	for (uint32_t th = 1; th <= 4; th *= 2) {
		struct hvtlb_sim_results *r;
		char *j;

		c.threads = th;
		r = run_cfg(&c);
		r->threads = 0; /* the only field allowed to differ */
		j = to_json(r);
		if (!first)
			first = j;
		else {
			assert_string_equal(first, j);
			free(j);
		}
		hvtlb_sim_results_destroy(r);
	}
	/* Another seed gives another run (the seed is used at all). */
	c.seed++;
	struct hvtlb_sim_results *r = run_cfg(&c);

	r->threads = 0;
	char *j = to_json(r);

	assert_string_not_equal(first, j);
	free(j);
	free(first);
	hvtlb_sim_results_destroy(r);
}

static void test_determinism(void **state)
{
	/* One VM: the engine runs it on one host thread. */
	static const char *const one_vm[] = { "strategy=hyperv",
					      "workload.kind=mix",
					      "workload.pages=16",
					      "workload.threads=96",
					      "vm.vcpus=64",
					      "machine.pcpus=16",
					      "workload.iterations=30",
					      "workload.sleep_ns_max=20000",
					      "seed=42",
					      NULL };
	/* Four VMs on their own pCPUs: simulated on up to 4 host threads
	 * at once, merged in VM order. */
	static const char *const four_vms[] = { "strategy=ipi",
						"machine.vms=4",
						"machine.partition=1",
						"machine.pcpus=32",
						"vm.vcpus=16",
						"workload.kind=mix",
						"workload.pages=16",
						"workload.threads=24",
						"workload.iterations=40",
						"workload.sleep_ns_max=20000",
						"seed=42",
						NULL };

	/* Kernel (global) pages per VM, in two shared-pCPU VMs and in four
	 * partitioned ones. */
	static const char *const kernel_shared[] = { "strategy=hyperv",
						     "machine.vms=2",
						     "machine.pcpus=8",
						     "vm.vcpus=8",
						     "workload.threads=12",
						     "workload.iterations=60",
						     "workload.kernel_pages=6",
						     "seed=42",
						     NULL };
	static const char *const kernel_parts[] = { "strategy=ipi",
						    "machine.vms=4",
						    "machine.partition=1",
						    "machine.pcpus=16",
						    "vm.vcpus=8",
						    "workload.threads=12",
						    "workload.iterations=60",
						    "workload.kernel_pages=6",
						    "seed=42",
						    NULL };

	/* The host's mechanisms: CFS at ticks, the menu governor, directed
	 * yield, guest haltpoll, overcommitted partitions. */
	static const char *const host_parts[] = { "strategy=ipi",
						  "machine.vms=2",
						  "machine.partition=1",
						  "machine.pcpus=6",
						  "vm.vcpus=8",
						  "hypervisor.cfs=1",
						  "hypervisor.profile=kvm",
						  "guest.idle=haltpoll",
						  "workload.kind=mix",
						  "workload.threads=12",
						  "workload.iterations=30",
						  "workload.sleep_ns_max=20000",
						  "seed=42",
						  NULL };
	/* The Windows guest model, overcommitted, in partitioned VMs. */
	static const char *const windows[] = { "strategy=ipi",
					       "guest.os=windows",
					       "guest.group_size=8",
					       "hypervisor.hv_spinlocks=0xff",
					       "machine.vms=2",
					       "machine.partition=1",
					       "machine.pcpus=6",
					       "vm.vcpus=16",
					       "workload.kind=mix",
					       "workload.pages=16",
					       "workload.threads=12",
					       "workload.iterations=40",
					       "workload.sleep_ns_max=20000",
					       "seed=42",
					       NULL };

	(void)state;
	check_deterministic(one_vm);
	check_deterministic(four_vms);
	check_deterministic(host_parts);
	check_deterministic(windows);
	check_deterministic(kernel_shared);
	check_deterministic(kernel_parts);
}

static void test_4096_vcpus(void **state)
{
	static const char *const strategies[] = { "hyperv", "ipi" };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		char s[64];
		const char *kv[] = { s, "vm.vcpus=4096", "machine.pcpus=64",
				     "workload.threads=512",
				     "workload.iterations=4",
				     "workload.pages=4",
				     /* vCPUs that ran a thread stay targets:
				      * VP sets span many banks */
				     "strategy.lazy_skip=0", NULL };
		struct hvtlb_sim_results *r;

		snprintf(s, sizeof(s), "strategy=%s", strategies[i]);
		r = run_kv(kv);
		print_message("4096 vCPUs %s: real %.6f s, %llu shootdowns, "
			      "%llu target flushes, %llu bytes per vCPU\n",
			      strategies[i], r->real_s,
			      (unsigned long long)r->shootdowns,
			      (unsigned long long)r->target_flushes,
			      (unsigned long long)r->mem_per_vcpu_bytes);
		assert_int_equal(r->shootdowns, 512 * 4);
		assert_int_equal(r->violations, 0);
		assert_true(r->mem_per_vcpu_bytes > 0 &&
			    r->mem_per_vcpu_bytes < 64 * 1024);
		if (i == 0) /* VPs >= 64: Ex hypercalls */
			assert_true(r->hypercalls > 0);
		hvtlb_sim_results_destroy(r);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_4096_vcpus),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
