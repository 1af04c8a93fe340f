// SPDX-License-Identifier: MIT
/*
 * A strategy written the way a user adds one: against the public API only
 * (<hvtlb/core.h> for the request and the backend ops, <hvtlb/sim.h> to
 * plug it in with hvtlb_sim_config.flush_fn), run by the simulator, judged
 * by the oracle.
 *
 * The strategy defers the flush of preempted targets to the hypervisor, as
 * KVM's PV flush does: it reads each target's preempted byte and, instead
 * of an IPI, sets FLUSH_TLB by compare-and-swap so that the host flushes
 * the vCPU before it runs again. The deliberate bug: it reads the byte,
 * sees PREEMPTED, and skips the target without setting FLUSH_TLB ("a
 * preempted vCPU is not running, it cannot use the translation"). The
 * oracle must report latent violations for the buggy version on an
 * overcommitted machine and none for the correct one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <hvtlb/core.h>
#include <hvtlb/sim.h>

#include "sim-test.h"

struct deferring {
	bool forget_flag; /* the bug */
	uint64_t calls, deferred;
};

static int deferring_flush(void *data, const struct hvtlb_backend_ops *ops,
			   void *user, const struct hvtlb_flush_request *req,
			   struct hvtlb_flush_outcome *out)
{
	struct deferring *d = data;
	struct hvtlb_cpumask ipis = req->targets;
	struct hvtlb_ipi_flush ipi = { .range = req->range };
	uint32_t n = 0;

	d->calls++;
	hvtlb_cpumask_clear(&ipis, req->initiator);
	for (uint32_t c = hvtlb_cpumask_next(&ipis, 0); c < req->ncpus;
	     c = hvtlb_cpumask_next(&ipis, c + 1)) {
		uint8_t st = ops->read_preempted(user, c);

		if (!(st & HVTLB_KVM_VCPU_PREEMPTED))
			continue;
		if (d->forget_flag ||
		    ops->cmpxchg_preempted(user, c, &st,
					   st | HVTLB_KVM_VCPU_FLUSH_TLB)) {
			hvtlb_cpumask_clear(&ipis, c);
			out->deferred++;
		}
	}
	d->deferred += out->deferred;
	if (hvtlb_cpumask_test(&req->targets, req->initiator))
		ops->local_flush(user, req->initiator, &req->range);
	n = hvtlb_cpumask_weight(&ipis);
	if (n) {
		ops->send_ipis(user, &ipis, &ipi);
		ops->wait_acks(user, &ipis);
		out->ipis = n;
	}
	return 0;
}

/* An overcommitted machine: 8 vCPUs on 3 pCPUs, busy threads. */
static const char *const machine[] = { "workload.kind=oracle-stress",
				       "workload.pages=4",
				       "workload.threads=12",
				       "workload.iterations=200",
				       "vm.vcpus=8",
				       "machine.pcpus=3",
				       "strategy=kvm-pv",
				       NULL };

static struct hvtlb_sim_results *run_with(struct deferring *d)
{
	struct hvtlb_sim_config c;
	struct hvtlb_sim_results *r = NULL;

	cfg_apply(&c, machine);
	c.flush_fn = deferring_flush;
	c.flush_data = d;
	assert_int_equal(hvtlb_sim_run(&c, &r), 0);
	assert_non_null(r);
	assert_int_equal(d->calls, r->shootdowns);
	return r;
}

static void test_correct(void **state)
{
	struct deferring d = { .forget_flag = false };
	struct hvtlb_sim_results *r;

	(void)state;
	r = run_with(&d);
	print_message("correct: %llu shootdowns, %llu targets deferred, "
		      "%llu latent, %llu used\n",
		      (unsigned long long)r->shootdowns,
		      (unsigned long long)d.deferred,
		      (unsigned long long)r->latent_violations,
		      (unsigned long long)r->used_violations);
	/* the deferral really ran, and the host flushed the marked vCPUs */
	assert_true(d.deferred > 0);
	assert_int_equal(r->deferred_marked, d.deferred);
	assert_true(r->flushes[HVTLB_SIM_FLUSH_DEFERRED] > 0);
	assert_int_equal(r->violations, 0);
	hvtlb_sim_results_destroy(r);
}

static void test_forgotten_flag(void **state)
{
	struct deferring d = { .forget_flag = true };
	struct hvtlb_sim_results *r;

	(void)state;
	r = run_with(&d);
	print_message("bug: %llu shootdowns, %llu targets skipped, %llu "
		      "latent, %llu used\n",
		      (unsigned long long)r->shootdowns,
		      (unsigned long long)d.deferred,
		      (unsigned long long)r->latent_violations,
		      (unsigned long long)r->used_violations);
	assert_true(d.deferred > 0);
	assert_int_equal(r->deferred_marked, 0);
	assert_true(r->latent_violations > 0);
	/* threads touch the shared pages all the time: the stale entries
	 * are used too */
	assert_true(r->used_violations > 0);
	assert_int_equal(r->violations,
			 r->latent_violations + r->used_violations);
	assert_true(r->nrecorded > 0);
	/* The first one names the skipped vCPU, out of guest mode with no
	 * flush pending, and the flush that left it stale. */
	assert_int_equal(r->violation[0].why, HVTLB_SIM_STALE_NOT_PENDING);
	assert_true(r->violation[0].shootdown > 0);
	assert_true(r->violation[0].vcpu != r->violation[0].initiator);
	assert_true(r->violation[0].generation < r->violation[0].covered);
	hvtlb_sim_results_destroy(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_correct),
		cmocka_unit_test(test_forgotten_flag),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
