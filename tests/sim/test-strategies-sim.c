// SPDX-License-Identifier: MIT
/*
 * Every strategy through the simulator's backend: which flushes, exits
 * and hypercalls each one causes; flushes deferred for preempted targets
 * and done by the hypervisor at entry; a full flush queue turned into
 * one flush-all; the same runs on bare metal, which counts no VM exit
 * and refuses the strategies that need a hypervisor.
 *
 * Each test is selectable by name (argv[1] is a cmocka filter) so meson
 * runs them as separate tests with their own timeouts.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include <hvtlb/sim.h>

#include "sim-test.h"

static struct hvtlb_sim_results *
run_strategy_n(const char *strat, const char *pcpus, const char *iters)
{
	char s[64];
	const char *kv[] = { s,
			     "workload.kind=madvise",
			     "workload.shared=1",
			     "workload.pages=4",
			     "workload.threads=8",
			     "vm.vcpus=8",
			     pcpus,
			     iters,
			     NULL };

	snprintf(s, sizeof(s), "strategy=%s", strat);
	return run_kv(kv);
}

static struct hvtlb_sim_results *run_strategy(const char *strat,
					      const char *pcpus)
{
	return run_strategy_n(strat, pcpus, "workload.iterations=200");
}

static void test_strategies_backend(void **state)
{
	struct hvtlb_sim_results *r;
	uint64_t full;

	(void)state;
	/* Native IPIs: flush IPIs delivered, no hypercall. */
	r = run_strategy("ipi", "machine.pcpus=8");
	assert_true(r->flushes[HVTLB_SIM_FLUSH_IPI] > 0);
	assert_int_equal(r->hypercalls, 0);
	assert_int_equal(r->flushes[HVTLB_SIM_FLUSH_HYPERVISOR], 0);
	assert_true(r->vm_exits[HVTLB_SIM_EXIT_IPI_SEND] > 0);
	hvtlb_sim_results_destroy(r);
	/* Hyper-V: the hypervisor decodes and flushes, no flush IPI. */
	r = run_strategy("hyperv", "machine.pcpus=8");
	assert_true(r->hypercalls > 0);
	assert_true(r->flushes[HVTLB_SIM_FLUSH_HYPERVISOR] > 0);
	assert_int_equal(r->flushes[HVTLB_SIM_FLUSH_IPI], 0);
	assert_int_equal(r->vm_exits[HVTLB_SIM_EXIT_HYPERCALL], r->hypercalls);
	hvtlb_sim_results_destroy(r);
	/* Shoot4U: one hypercall, host invalidation. */
	r = run_strategy("vmm-assist", "machine.pcpus=8");
	assert_true(r->hypercalls > 0);
	assert_true(r->flushes[HVTLB_SIM_FLUSH_HYPERVISOR] > 0);
	assert_int_equal(r->flushes[HVTLB_SIM_FLUSH_IPI], 0);
	hvtlb_sim_results_destroy(r);
	/* Xen PV: the same host call, but the 4-page madvise ranges are
	 * full flushes of the targets (MMUEXT_TLB_FLUSH_MULTI). */
	r = run_strategy("xen-pv", "machine.pcpus=8");
	assert_true(r->hypercalls > 0);
	assert_true(r->flushes[HVTLB_SIM_FLUSH_HYPERVISOR] > 0);
	assert_int_equal(r->flushes[HVTLB_SIM_FLUSH_IPI], 0);
	assert_int_equal(r->violations, 0);
	full = r->flushes[HVTLB_SIM_FLUSH_FULL];
	hvtlb_sim_results_destroy(r);
	r = run_strategy("vmm-assist", "machine.pcpus=8");
	assert_true(full > r->flushes[HVTLB_SIM_FLUSH_FULL]);
	hvtlb_sim_results_destroy(r);
	/* INVLPGB: nothing but broadcasts. */
	r = run_strategy("broadcast", "machine.pcpus=8");
	assert_true(r->flushes[HVTLB_SIM_FLUSH_BROADCAST] > 0);
	assert_int_equal(r->flushes[HVTLB_SIM_FLUSH_IPI], 0);
	assert_int_equal(r->hypercalls, 0);
	hvtlb_sim_results_destroy(r);
	/* LATR: invalidations applied later by the targets. */
	r = run_strategy("lazy", "machine.pcpus=8");
	assert_true(r->flushes[HVTLB_SIM_FLUSH_LAZY] > 0);
	assert_int_equal(r->flushes[HVTLB_SIM_FLUSH_IPI], 0);
	hvtlb_sim_results_destroy(r);
}

/* Preempted targets: kvm-pv marks them instead of interrupting, the host
 * flushes them at entry; the hypercall path flushes non-running targets
 * at entry instead of kicking them. */
static void test_preempted_deferred(void **state)
{
	struct hvtlb_sim_results *r;

	(void)state;
	/* Long enough for several host time slices. */
	r = run_strategy_n("kvm-pv", "machine.pcpus=3",
			   "workload.iterations=3000");
	assert_true(r->deferred_marked > 0);
	assert_true(r->flushes[HVTLB_SIM_FLUSH_DEFERRED] > 0);
	assert_true(r->vm_exits[HVTLB_SIM_EXIT_PREEMPTION] > 0);
	assert_int_equal(r->violations, 0);
	hvtlb_sim_results_destroy(r);

	r = run_strategy("kvm-pv", "machine.pcpus=8");
	/* Nobody is preempted without overcommit. */
	assert_int_equal(r->flushes[HVTLB_SIM_FLUSH_DEFERRED], 0);
	hvtlb_sim_results_destroy(r);

	r = run_strategy_n("hyperv", "machine.pcpus=3",
			   "workload.iterations=3000");
	/* Fewer kicks than remote hypervisor flushes: the rest happened
	 * before entry, without the initiator waiting. */
	assert_true(r->vm_exits[HVTLB_SIM_EXIT_KICK] + r->hypercalls <
		    r->flushes[HVTLB_SIM_FLUSH_HYPERVISOR]);
	assert_int_equal(r->violations, 0);
	hvtlb_sim_results_destroy(r);
}

/* A target whose queue is full gets one flush-all instead. */
static void test_queue_overflow(void **state)
{
	const char *kv[] = { "strategy=hyperv",
			     "workload.kind=madvise",
			     "workload.shared=1",
			     "workload.pages=4",
			     "workload.threads=16",
			     "vm.vcpus=16",
			     "machine.pcpus=4",
			     "workload.iterations=300",
			     NULL };
	struct hvtlb_sim_results *r;

	(void)state;
	r = run_kv(kv);
	assert_true(r->flushes[HVTLB_SIM_FLUSH_OVERFLOW] > 0);
	assert_true(r->flushes[HVTLB_SIM_FLUSH_FULL] > 0);
	assert_int_equal(r->violations, 0);
	hvtlb_sim_results_destroy(r);
}

/*
 * machine.bare_metal: the same run counts no VM exit at all (it still
 * sends IPIs and halts), where the same machine as a VM counts them; a
 * bare-metal machine is one VM on every CPU and refuses the strategies
 * that need a hypervisor. (Counting exits on bare metal fails the first
 * check.)
 */
static void test_bare_metal(void **state)
{
	static const char *const strategies[] = { "strategy=ipi",
						  "strategy=broadcast",
						  "strategy=lazy" };
	struct hvtlb_sim_config c;
	const char *bad = NULL;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		const char *kv[] = { strategies[i],
				     "machine.pcpus=8",
				     "vm.vcpus=8",
				     "workload.threads=16",
				     "workload.iterations=50",
				     "workload.sleep_ns_max=20000",
				     "machine.bare_metal=false",
				     NULL };
		struct hvtlb_sim_results *vm, *native;

		vm = run_kv(kv);
		kv[6] = "machine.bare_metal=true";
		native = run_kv(kv);
		assert_true(vm->vm_exits_total > 0);
		assert_true(vm->vm_exits[HVTLB_SIM_EXIT_HLT] > 0);
		assert_int_equal(native->vm_exits_total, 0);
		for (int k = 0; k < HVTLB_SIM_EXIT_COUNT_; k++)
			assert_int_equal(native->vm_exits[k], 0);
		assert_true(native->ipis_sent > 0);
		assert_true(native->shootdowns > 0);
		assert_int_equal(native->violations, 0);
		hvtlb_sim_results_destroy(vm);
		hvtlb_sim_results_destroy(native);
	}
	cfg_apply(&c, (const char *const[]){ "machine.bare_metal=true",
					     "machine.pcpus=8", "vm.vcpus=16",
					     NULL });
	assert_int_equal(hvtlb_sim_config_validate(&c, &bad), -ERANGE);
	assert_string_equal(bad, "machine.bare_metal");
	cfg_apply(&c, (const char *const[]){ "machine.bare_metal=true",
					     "machine.pcpus=8", "vm.vcpus=8",
					     "strategy=hyperv", NULL });
	assert_int_equal(hvtlb_sim_config_validate(&c, &bad), -ERANGE);
	assert_string_equal(bad, "strategy");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strategies_backend),
		cmocka_unit_test(test_preempted_deferred),
		cmocka_unit_test(test_queue_overflow),
		cmocka_unit_test(test_bare_metal),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
