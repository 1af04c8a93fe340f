// SPDX-License-Identifier: MIT
/*
 * guest.kernel and machine.backing (src/sim/gate.c): each gate refuses
 * what it should, naming the key and why, and allows the version or
 * platform that has the feature; the delivery a guest of a version picks
 * on each host, as a run reports it and as its counters show; the knobs
 * that follow the version; and a config without either key runs exactly
 * as before.
 *
 * Each test is selectable by name (argv[1] is a cmocka filter).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hvtlb/sim.h>

#include "sim/gate.h"

#include "sim-test.h"

/*
 * Checks @p kv (NULL-terminated "key=value"s on a default config): with
 * @p bad NULL it must be valid; otherwise refused with @p bad as the key
 * and a reason that contains @p why.
 */
static void expect(const char *const *kv, const char *bad, const char *why)
{
	struct hvtlb_sim_config c;
	const char *k = NULL, *r = NULL;
	int rc;

	cfg_apply(&c, kv);
	rc = hvtlb_sim_config_check(&c, &k, &r);
	if (!bad) {
		if (rc)
			fail_msg("%s...: refused %s: %s", kv[0], k,
				 r ? r : "(no reason)");
		assert_null(r);
		return;
	}
	if (rc != -ERANGE)
		fail_msg("%s, %s...: allowed, want %s refused", kv[0],
			 kv[1] ? kv[1] : "", bad);
	assert_string_equal(k, bad);
	assert_non_null(r);
	if (!strstr(r, why))
		fail_msg("reason '%s' lacks '%s'", r, why);
	/* validate() refuses the same key */
	assert_int_equal(hvtlb_sim_config_validate(&c, &k), -ERANGE);
	assert_string_equal(k, bad);
}

#define KV(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Each version gate: refused one minor release before, allowed at it. */
static void test_gate_kernel(void **state)
{
	(void)state;
	expect(KV("guest.kernel=4.18", "hypervisor.ipi_delivery=kvm-pv"),
	       "hypervisor.ipi_delivery", "Linux 4.19 (aaffcfd1e82d)");
	expect(KV("guest.kernel=4.19", "hypervisor.ipi_delivery=kvm-pv"), NULL,
	       NULL);
	expect(KV("guest.kernel=4.17", "hypervisor.ipi_delivery=hyperv"),
	       "hypervisor.ipi_delivery", "Linux 4.18 (68bb7bfb7985)");
	expect(KV("guest.kernel=4.18", "hypervisor.ipi_delivery=hyperv"), NULL,
	       NULL);
	/* x2APIC cluster mode and ICR writes: every version */
	expect(KV("guest.kernel=3.10", "hypervisor.ipi_delivery=cluster"), NULL,
	       NULL);
	expect(KV("guest.kernel=4.15", "strategy=kvm-pv"), "strategy",
	       "Linux 4.16 (858a43aae236)");
	expect(KV("guest.kernel=4.16", "strategy=kvm-pv"), NULL, NULL);
	expect(KV("guest.kernel=4.13", "strategy=hyperv"), "strategy",
	       "Linux 4.14 (2ffd9e33ce4a)");
	expect(KV("guest.kernel=4.14", "strategy=hyperv"), NULL, NULL);
	expect(KV("guest.kernel=6.14", "strategy=broadcast"), "strategy",
	       "Linux 6.15 (4afeb0ed1753)");
	expect(KV("guest.kernel=6.15", "strategy=broadcast"), NULL, NULL);
	/* the knobs: refused on when given, allowed off, or at the version */
	expect(KV("guest.kernel=4.18", "strategy.lazy_skip=true"),
	       "strategy.lazy_skip", "Linux 4.19 (145f573b89a6)");
	expect(KV("guest.kernel=4.18", "strategy.lazy_skip=false"), NULL, NULL);
	expect(KV("guest.kernel=4.19", "strategy.lazy_skip=true"), NULL, NULL);
	expect(KV("guest.kernel=5.12", "strategy.concurrent=on"),
	       "strategy.concurrent", "Linux 5.13 (4ce94eabac16)");
	expect(KV("guest.kernel=5.12", "strategy.concurrent=off"), NULL, NULL);
	expect(KV("guest.kernel=5.13", "strategy.concurrent=on"), NULL, NULL);
	/* knobs left to their defaults follow the version: never refused */
	expect(KV("guest.kernel=4.15", "strategy=ipi"), NULL, NULL);
	/* the version of a Linux guest only */
	expect(KV("guest.os=windows", "guest.kernel=5.10"), "guest.kernel",
	       "guest.os is not linux");
	/* the icr grouping needs the delivery given */
	expect(KV("guest.kernel=5.10", "hypervisor.ipi_batch=4"),
	       "hypervisor.ipi_batch", "hypervisor.ipi_delivery = icr");
	expect(KV("guest.kernel=5.10", "hypervisor.ipi_batch=4",
		  "hypervisor.ipi_delivery=icr"),
	       NULL, NULL);
	/* no version: nothing gated, as before */
	expect(KV("hypervisor.ipi_delivery=kvm-pv", "strategy=kvm-pv"), NULL,
	       NULL);
}

/* The value parser: MAJOR.MINOR, "any", nothing else. */
static void test_gate_kernel_parse(void **state)
{
	struct hvtlb_sim_config c;
	char buf[16];

	(void)state;
	hvtlb_sim_config_init(&c);
	assert_int_equal(c.guest_kernel, 0);
	assert_int_equal(
		hvtlb_sim_config_get(&c, "guest.kernel", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "any");
	assert_int_equal(hvtlb_sim_config_set(&c, "guest.kernel", "5.13"), 0);
	assert_int_equal(c.guest_kernel, HVTLB_SIM_KVER(5, 13));
	assert_int_equal(
		hvtlb_sim_config_get(&c, "guest.kernel", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "5.13");
	assert_int_equal(hvtlb_sim_config_set(&c, "guest.kernel", "4.9"), 0);
	assert_int_equal(c.guest_kernel, HVTLB_SIM_KVER(4, 9));
	assert_true(HVTLB_SIM_KVER(4, 9) < HVTLB_SIM_KVER(4, 19));
	const char *bad[] = { "4", "4.",    ".4",   "4.x",  "x",
			      "",  "4.1.2", "-4.1", " 4.1", "4.-1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(
			hvtlb_sim_config_set(&c, "guest.kernel", bad[i]),
			-EINVAL);
	assert_int_equal(hvtlb_sim_config_set(&c, "guest.kernel", "4.100"),
			 -ERANGE);
	assert_int_equal(hvtlb_sim_config_set(&c, "guest.kernel", "100.1"),
			 -ERANGE);
	assert_int_equal(hvtlb_sim_config_set(&c, "guest.kernel", "1.0"),
			 -ERANGE);
	assert_int_equal(c.guest_kernel, HVTLB_SIM_KVER(4, 9)); /* kept */
	assert_int_equal(hvtlb_sim_config_set(&c, "guest.kernel", "any"), 0);
	assert_int_equal(c.guest_kernel, 0);
	/* written directly past the range */
	c.guest_kernel = HVTLB_SIM_KVER(99, 99) + 1;
	assert_int_equal(hvtlb_sim_config_validate(&c, NULL), -ERANGE);
	c.guest_kernel = 0;
	c.backing = HVTLB_SIM_BACKING_COUNT_;
	assert_int_equal(hvtlb_sim_config_validate(&c, NULL), -ERANGE);
	assert_string_equal(hvtlb_sim_backing_name(HVTLB_SIM_BACKING_SNP_SAVIC),
			    "snp-savic");
	assert_null(hvtlb_sim_backing_name(HVTLB_SIM_BACKING_COUNT_));
}

/* Each backing gate, and what each backing still allows. */
static void test_gate_backing(void **state)
{
	(void)state;
	expect(KV("machine.backing=tdx", "strategy=kvm-pv"), "strategy",
	       "no KVM steal time");
	expect(KV("machine.backing=tdx", "strategy=broadcast"), "strategy",
	       "INVLPGB");
	expect(KV("machine.backing=tdx", "strategy=hyperv"), NULL, NULL);
	expect(KV("machine.backing=tdx", "hypervisor.ipi_delivery=kvm-pv"),
	       NULL, NULL);
	expect(KV("machine.backing=snp", "strategy=kvm-pv"), NULL, NULL);
	expect(KV("machine.backing=snp", "strategy=broadcast"), NULL, NULL);
	expect(KV("machine.backing=snp", "hypervisor.ipi_delivery=hyperv"),
	       NULL, NULL);
	expect(KV("machine.backing=snp-savic",
		  "hypervisor.ipi_delivery=hyperv"),
	       "hypervisor.ipi_delivery", "Secure AVIC");
	/* the flush hypercalls stay recommended */
	expect(KV("machine.backing=snp-savic", "strategy=hyperv"), NULL, NULL);
	expect(KV("machine.backing=snp-savic", "strategy=broadcast"), NULL,
	       NULL);
	expect(KV("machine.backing=tdx", "machine.bare_metal=true",
		  "machine.pcpus=16", "vm.vcpus=16"),
	       "machine.backing", "needs a hypervisor");
	expect(KV("machine.backing=plain", "strategy=broadcast"), NULL, NULL);
	/* a Xen PV guest is no confidential VM */
	expect(KV("machine.backing=tdx", "strategy=xen-pv"), "strategy",
	       "Xen PV guest");
	expect(KV("machine.backing=snp", "strategy=xen-pv"), "strategy",
	       "Xen PV guest");
	expect(KV("machine.backing=plain", "strategy=xen-pv"), NULL, NULL);
}

/* A short run of @p kv (two VMs' worth of flushes on 8 vCPUs). */
static struct hvtlb_sim_results *small_run(const char *const *kv)
{
	struct hvtlb_sim_config c;
	char key[128];

	hvtlb_sim_config_init(&c);
	const char *base[] = { "vm.vcpus=8", "machine.pcpus=8",
			       "workload.threads=8", "workload.iterations=30",
			       NULL };
	for (const char *const *p = base; *p; p++) {
		const char *eq = strchr(*p, '=');

		memcpy(key, *p, (size_t)(eq - *p));
		key[eq - *p] = 0;
		assert_int_equal(hvtlb_sim_config_set(&c, key, eq + 1), 0);
	}
	for (; *kv; kv++) {
		const char *eq = strchr(*kv, '=');

		assert_non_null(eq);
		memcpy(key, *kv, (size_t)(eq - *kv));
		key[eq - *kv] = 0;
		assert_int_equal(hvtlb_sim_config_set(&c, key, eq + 1), 0);
	}
	return run_cfg(&c);
}

/* A derived delivery: the run reports @p want, derived, and the IPIs
 * with more than one target went by it (kvm-pv's lone targets by icr). */
static void derived(const char *const *kv, enum hvtlb_sim_ipi_delivery want)
{
	struct hvtlb_sim_results *r = small_run(kv);

	assert_int_equal(r->ipi_delivery, want);
	assert_int_equal(r->ipi_delivery_origin, HVTLB_SIM_ORIGIN_DERIVED);
	assert_non_null(r->ipi_delivery_why);
	assert_true(strlen(r->ipi_delivery_why) > 10);
	assert_true(r->ipis_by_delivery[want] > 0);
	for (int i = 0; i < HVTLB_SIM_IPI_DELIVERY_COUNT_; i++) {
		if (i != (int)want && i != HVTLB_SIM_IPI_DELIVERY_ICR)
			assert_int_equal(r->ipis_by_delivery[i], 0);
	}
	if (want == HVTLB_SIM_IPI_DELIVERY_HYPERV)
		assert_int_equal(r->ipis_by_delivery[0], 0);
	hvtlb_sim_results_destroy(r);
}

static void test_gate_derived(void **state)
{
	(void)state;
	derived(KV("hypervisor.profile=kvm", "guest.kernel=4.15"),
		HVTLB_SIM_IPI_DELIVERY_ICR);
	derived(KV("hypervisor.profile=kvm", "guest.kernel=4.18"),
		HVTLB_SIM_IPI_DELIVERY_ICR);
	derived(KV("hypervisor.profile=kvm", "guest.kernel=4.19"),
		HVTLB_SIM_IPI_DELIVERY_KVM_PV);
	derived(KV("hypervisor.profile=kvm", "guest.kernel=4.19",
		   "hypervisor.pv_send_ipi=false"),
		HVTLB_SIM_IPI_DELIVERY_ICR);
	derived(KV("hypervisor.profile=strict", "guest.kernel=4.17"),
		HVTLB_SIM_IPI_DELIVERY_ICR);
	derived(KV("hypervisor.profile=strict", "guest.kernel=4.18"),
		HVTLB_SIM_IPI_DELIVERY_HYPERV);
	derived(KV("hypervisor.profile=openvmm-snp", "guest.kernel=6.6",
		   "hypervisor.cluster_ipi=false"),
		HVTLB_SIM_IPI_DELIVERY_ICR);
	derived(KV("hypervisor.profile=openvmm-snp", "guest.kernel=6.6",
		   "machine.backing=snp"),
		HVTLB_SIM_IPI_DELIVERY_HYPERV);
	derived(KV("hypervisor.profile=openvmm-snp", "guest.kernel=6.6",
		   "machine.backing=snp-savic"),
		HVTLB_SIM_IPI_DELIVERY_ICR);
	derived(KV("hypervisor.profile=xen", "guest.kernel=6.6"),
		HVTLB_SIM_IPI_DELIVERY_ICR);
	/* The host family comes from the decoder host's own file: KVM 5.10
	 * offers KVM's PV send-IPI as 6.12 does. */
	derived(KV("hypervisor.profile=kvm-5.10", "guest.kernel=5.10"),
		HVTLB_SIM_IPI_DELIVERY_KVM_PV);
	derived(KV("hypervisor.profile=kvm-5.10", "guest.kernel=4.18"),
		HVTLB_SIM_IPI_DELIVERY_ICR);

	/* given: kept, and so reported */
	struct hvtlb_sim_results *r =
		small_run(KV("hypervisor.profile=kvm", "guest.kernel=6.6",
			     "hypervisor.ipi_delivery=cluster"));
	assert_int_equal(r->ipi_delivery, HVTLB_SIM_IPI_DELIVERY_CLUSTER);
	assert_int_equal(r->ipi_delivery_origin, HVTLB_SIM_ORIGIN_GIVEN);
	assert_string_equal(r->ipi_delivery_why, "");
	char *j = to_json(r);
	assert_non_null(strstr(j, "\"ipi_delivery\":{\"effective\":\"cluster\","
				  "\"origin\":\"given\",\"why\":\"\"}"));
	free(j);
	hvtlb_sim_results_destroy(r);
}

/* The knobs guest.kernel decides when not given. */
static void test_gate_knobs(void **state)
{
	struct hvtlb_sim_config c;
	struct sim_delivery d;

	(void)state;
	cfg_apply(&c, KV("guest.kernel=4.15"));
	sim_gate_apply(&c, &d);
	assert_false(c.strategy.lazy_skip);
	assert_false(c.strategy.concurrent);
	cfg_apply(&c, KV("guest.kernel=4.19"));
	sim_gate_apply(&c, &d);
	assert_true(c.strategy.lazy_skip);
	assert_false(c.strategy.concurrent);
	cfg_apply(&c, KV("guest.kernel=5.13"));
	sim_gate_apply(&c, &d);
	assert_true(c.strategy.lazy_skip && c.strategy.concurrent);
	/* given: kept */
	cfg_apply(&c, KV("guest.kernel=6.6", "strategy.lazy_skip=false"));
	sim_gate_apply(&c, &d);
	assert_false(c.strategy.lazy_skip);
	assert_true(c.strategy.concurrent);
	/* no version: untouched, the delivery its default */
	cfg_apply(&c, KV("strategy.concurrent=false"));
	sim_gate_apply(&c, &d);
	assert_true(c.strategy.lazy_skip);
	assert_false(c.strategy.concurrent);
	assert_int_equal(d.origin, HVTLB_SIM_ORIGIN_DEFAULT);
	assert_int_equal(d.how, HVTLB_SIM_IPI_DELIVERY_ICR);
}

/*
 * Without guest.kernel and machine.backing, or with them at values that
 * change nothing, a run's JSON (every counter) is byte for byte the same.
 */
static void test_gate_unset_identical(void **state)
{
	static const char *const strategies[] = { "ipi", "kvm-pv", "hyperv" };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		char s[32];

		snprintf(s, sizeof(s), "strategy=%s", strategies[i]);
		struct hvtlb_sim_results *a =
			small_run(KV(s, "hypervisor.ipi_delivery=icr"));
		struct hvtlb_sim_results *b = small_run(
			KV(s, "hypervisor.ipi_delivery=icr", "guest.kernel=any",
			   "machine.backing=plain"));
		/* a version that has every feature, each given */
		struct hvtlb_sim_results *v = small_run(
			KV(s, "hypervisor.ipi_delivery=icr",
			   "guest.kernel=6.15", "machine.backing=snp"));
		char *ja = to_json(a), *jb = to_json(b), *jv = to_json(v);

		assert_true(a->shootdowns > 0);
		assert_string_equal(ja, jb);
		assert_string_equal(ja, jv);
		free(ja);
		free(jb);
		free(jv);
		hvtlb_sim_results_destroy(a);
		hvtlb_sim_results_destroy(b);
		hvtlb_sim_results_destroy(v);
	}
	/* a version that predates them turns the knobs off: it differs */
	struct hvtlb_sim_results *a = small_run(KV("strategy=ipi"));
	struct hvtlb_sim_results *o =
		small_run(KV("strategy=ipi", "guest.kernel=4.15",
			     "hypervisor.profile=strict"));
	assert_int_equal(o->ipi_delivery, HVTLB_SIM_IPI_DELIVERY_ICR);
	assert_true(a->real_s != o->real_s || a->ipis_sent != o->ipis_sent);
	hvtlb_sim_results_destroy(a);
	hvtlb_sim_results_destroy(o);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate_kernel),
		cmocka_unit_test(test_gate_kernel_parse),
		cmocka_unit_test(test_gate_backing),
		cmocka_unit_test(test_gate_derived),
		cmocka_unit_test(test_gate_knobs),
		cmocka_unit_test(test_gate_unset_identical),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
