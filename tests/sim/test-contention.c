// SPDX-License-Identifier: MIT
/*
 * machine.contention: the line model in isolation (queueing, transfers,
 * readers, lock sections), then its effect end to end: a single thread
 * sees none of it, zero transfer and hold costs change nothing, and a
 * madvise loop whose flushes cost no IPI (INVLPGB) stops scaling with
 * threads.
 *
 * Broken variants these catch (each tried by hand, see the notes of the
 * change that added them): a line that does not queue (every access
 * pays one transfer from now), readers that queue behind each other, a
 * section whose hold does not delay the next holder, transfers charged
 * to the CPU that already owns the line, the socket of the wrong pCPU.
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

#include "sim/contention.h"
#include "sim/machine.h"

#include "sim-test.h"

#define XFER 100
#define XSOCK 300

/* A machine of 4 pCPUs on 2 sockets and 4 vCPUs, vCPU i on pCPU i; only
 * what the line primitives read. */
struct rig {
	struct hvtlb_sim_config c;
	struct sim s;
	struct vcpu v[4];
};

static void rig_init(struct rig *r)
{
	memset(r, 0, sizeof(*r));
	hvtlb_sim_config_init(&r->c);
	r->c.contention = true;
	r->c.sockets = 2;
	r->c.pcpus = 4;
	r->c.vcpus = 4;
	r->s.c = &r->c;
	r->s.pcpus_total = 4;
	for (size_t i = 0; i < SIM_COST_COUNT; i++)
		r->s.cost[i] = r->c.cost[i];
	r->s.cost[SIM_COST_line_transfer] = XFER;
	r->s.cost[SIM_COST_line_transfer_socket] = XSOCK;
	assert_int_equal(sim_contention_setup(&r->s), 0);
	assert_non_null(r->s.ct);
	for (uint32_t i = 0; i < 4; i++) {
		r->v[i].gid = r->v[i].idx = r->v[i].pcpu = i;
		r->v[i].s = &r->s;
	}
}

static void rig_finish(struct rig *r)
{
	sim_contention_teardown(&r->s);
	assert_null(r->s.ct);
}

static struct cline line(uint64_t *readers)
{
	return (struct cline){ .owner = NONE_ID,
			       .owner_pcpu = NONE_ID,
			       .readers = readers };
}

/* Writes at one instant queue: the k-th waits for k-1 transfers. */
static void test_writes_queue(void **state)
{
	struct rig r;
	struct cline l = line(NULL);

	(void)state;
	rig_init(&r);
	/* first touch of a line nobody wrote: nothing to transfer */
	assert_int_equal(sim_cl_write(&r.s, &l, &r.v[0]), 0);
	/* the owner writes again: free */
	assert_int_equal(sim_cl_write(&r.s, &l, &r.v[0]), 0);
	/* vCPU 1 (same socket), then 0 and 1 again, all at time 0 */
	assert_int_equal(sim_cl_write(&r.s, &l, &r.v[1]), XFER);
	assert_int_equal(sim_cl_write(&r.s, &l, &r.v[0]), 2 * XFER);
	assert_int_equal(sim_cl_write(&r.s, &l, &r.v[1]), 3 * XFER);
	/* later than the queue: one transfer again */
	r.s.now = 1000;
	assert_int_equal(sim_cl_write(&r.s, &l, &r.v[0]), XFER);
	rig_finish(&r);
}

/* pCPUs 0-1 are socket 0, 2-3 socket 1. */
static void test_sockets(void **state)
{
	struct rig r;
	struct cline l = line(NULL);

	(void)state;
	rig_init(&r);
	sim_cl_write(&r.s, &l, &r.v[1]);
	r.s.now = 10000;
	assert_int_equal(sim_cl_write(&r.s, &l, &r.v[2]), XSOCK);
	r.s.now = 20000;
	assert_int_equal(sim_cl_write(&r.s, &l, &r.v[3]), XFER);
	/* vCPUs sharing a pCPU share its cache */
	r.v[0].pcpu = 3;
	r.s.now = 30000;
	assert_int_equal(sim_cl_write(&r.s, &l, &r.v[0]), 0);
	rig_finish(&r);
}

/* Readers pay one transfer each, in parallel, once per write. */
static void test_readers(void **state)
{
	struct rig r;
	uint64_t bits = 0;
	struct cline l = line(&bits);

	(void)state;
	rig_init(&r);
	sim_cl_write(&r.s, &l, &r.v[0]);
	r.s.now = 1000;
	assert_int_equal(sim_cl_read(&r.s, &l, &r.v[1]), XFER);
	assert_int_equal(sim_cl_read(&r.s, &l, &r.v[1]), 0);
	/* a second reader at the same instant does not wait for the first */
	assert_int_equal(sim_cl_read(&r.s, &l, &r.v[2]), XSOCK);
	assert_int_equal(sim_cl_read(&r.s, &l, &r.v[0]), 0); /* the writer */
	/* a write by a CPU that holds a copy invalidates the others */
	assert_int_equal(sim_cl_write(&r.s, &l, &r.v[1]), XFER);
	assert_int_equal(sim_cl_read(&r.s, &l, &r.v[2]), XFER + XSOCK);
	/* a read waits for the write queued before it, then transfers */
	r.s.now = 5000;
	assert_int_equal(sim_cl_write(&r.s, &l, &r.v[0]), XFER);
	assert_int_equal(sim_cl_read(&r.s, &l, &r.v[1]), 2 * XFER);
	rig_finish(&r);
}

/* A section holds the line: the next holder waits for its end. */
static void test_sections(void **state)
{
	struct rig r;
	struct cline l = line(NULL);

	(void)state;
	rig_init(&r);
	assert_int_equal(sim_cl_section(&r.s, &l, &r.v[0], 500), 0);
	assert_int_equal(sim_cl_section(&r.s, &l, &r.v[1], 500), 500 + XFER);
	assert_int_equal(sim_cl_write(&r.s, &l, &r.v[0]),
			 500 + XFER + 500 + XFER);
	/* the holder takes it again: no transfer, no wait for itself */
	r.s.now = 100000;
	sim_cl_section(&r.s, &l, &r.v[2], 500);
	assert_int_equal(sim_cl_section(&r.s, &l, &r.v[2], 500), 0);
	rig_finish(&r);
}

/* Gives @p v the section window [@p got, @p end), preempts it at @p at
 * and runs it again at @p back. */
static void preempt_at(struct rig *r, struct vcpu *v, simtime got, simtime end,
		       simtime at, simtime back)
{
	v->ct.sect_got = got;
	v->ct.sect_end = end;
	r->s.now = at;
	assert_true(sim_vcpu_move(&r->s, v, H_READY));
	r->s.now = back;
	assert_true(sim_vcpu_move(&r->s, v, H_RUNNING));
}

/* A preemption inside a section's window is counted as the waiter's
 * (before its turn) or the holder's (after), with the time until the
 * vCPU runs again; outside the window, or moves other than a
 * preemption, count nothing. */
static void test_preempted_in_window(void **state)
{
	struct rig r;
	struct hvtlb_sim_results res;
	struct vcpu *v = &r.v[0];

	(void)state;
	rig_init(&r);
	memset(&res, 0, sizeof(res));
	r.s.r = &res;
	r.s.cost[SIM_COST_cpu_mhz] = 1000; /* 1 cycle = 1 ns */
	v->hs = H_RUNNING;
	preempt_at(&r, v, 100, 200, 50, 1050); /* before its turn */
	assert_int_equal(res.lock_waiters_preempted, 1);
	assert_int_equal(res.lock_holders_preempted, 0);
	assert_int_equal(res.lock_preempted_off_ns, 1000);
	preempt_at(&r, v, 1100, 1300, 1200, 1700); /* holding it */
	assert_int_equal(res.lock_holders_preempted, 1);
	assert_int_equal(res.lock_preempted_off_ns, 1500);
	preempt_at(&r, v, 1100, 1300, 1300, 1400); /* released */
	/* a halt and a wake-up inside a window count nothing */
	v->ct.sect_end = 5000;
	assert_true(sim_vcpu_move(&r.s, v, H_HALTED));
	assert_true(sim_vcpu_move(&r.s, v, H_WAKING));
	assert_true(sim_vcpu_move(&r.s, v, H_READY));
	r.s.now = 9000;
	assert_true(sim_vcpu_move(&r.s, v, H_RUNNING));
	assert_int_equal(res.lock_waiters_preempted, 1);
	assert_int_equal(res.lock_holders_preempted, 1);
	assert_int_equal(res.lock_preempted_off_ns, 1500);
	/* without contention nothing is counted */
	rig_finish(&r);
	preempt_at(&r, v, 10000, 20000, 15000, 16000);
	assert_int_equal(res.lock_holders_preempted, 1);
}

/* ------------------------------------------------------ end to end */
/* A madvise(DONTNEED) loop of one page per thread with INVLPGB on a
 * 64-CPU bare-metal machine (the native profile's wake-up, no C-state
 * exits: threads that queue for the mmap lock at start must not decide
 * the rate). */
#define LOOP_64                                                                \
	"hypervisor.profile=strict", "workload.kind=madvise",                  \
		"workload.pages=1", "workload.touch=all",                      \
		"workload.file_backed=false", "strategy=broadcast",            \
		"strategy.lazy_skip=1", "machine.pcpus=64", "vm.vcpus=64",     \
		"workload.iterations=2000", "cost.halt_wake=2400",             \
		"cost.cstate_exit_us=0", "cost.thread_create_us=0"

static struct hvtlb_sim_results *run(const char *const *kv, const char *more,
				     const char *more2)
{
	struct hvtlb_sim_config c;
	struct hvtlb_sim_results *r = NULL;

	cfg_apply(&c, kv);
	if (more) {
		const char *m[] = { more, more2, NULL };

		for (const char *const *p = m; *p; p++) {
			char k[64];
			const char *eq = strchr(*p, '=');

			snprintf(k, sizeof(k), "%.*s", (int)(eq - *p), *p);
			assert_int_equal(hvtlb_sim_config_set(&c, k, eq + 1),
					 0);
		}
	}
	assert_int_equal(hvtlb_sim_run(&c, &r), 0);
	assert_int_equal(r->violations, 0);
	return r;
}

static double ops_per_s(const struct hvtlb_sim_results *r)
{
	return (double)r->ops / r->real_s;
}

/* One thread owns every line: contention changes nothing. Zero transfer
 * and hold costs change nothing either, whatever the threads. */
static void test_nothing_to_contend(void **state)
{
	const char *one[] = { LOOP_64, "workload.threads=1", NULL };
	const char *many[] = { LOOP_64, "workload.threads=16", NULL };
	const char *zero[] = { "cost.line_transfer=0", "cost.lru_lock_page=0",
			       "cost.zone_lock_page=0", NULL };
	struct hvtlb_sim_results *a, *b;
	char *ja, *jb;

	(void)state;
	a = run(one, "machine.contention=0", NULL);
	b = run(one, "machine.contention=1", NULL);
	/* the sections are counted, and nothing else differs */
	assert_int_equal(a->lock_sections, 0);
	assert_true(b->lock_sections > 0);
	a->events = b->events = 0;
	b->lock_sections = 0;
	ja = to_json(a);
	jb = to_json(b);
	assert_string_equal(ja, jb);
	free(ja);
	free(jb);
	hvtlb_sim_results_destroy(a);
	hvtlb_sim_results_destroy(b);

	a = run(many, "machine.contention=0", NULL);
	{
		struct hvtlb_sim_config c;

		cfg_apply(&c, many);
		c.contention = true;
		for (const char *const *z = zero; *z; z++) {
			char k[64];
			const char *eq = strchr(*z, '=');

			snprintf(k, sizeof(k), "%.*s", (int)(eq - *z), *z);
			assert_int_equal(hvtlb_sim_config_set(&c, k, eq + 1),
					 0);
		}
		b = NULL;
		assert_int_equal(hvtlb_sim_run(&c, &b), 0);
	}
	assert_true(b->lock_sections > 0);
	a->events = b->events = 0;
	b->lock_sections = 0;
	ja = to_json(a);
	jb = to_json(b);
	assert_string_equal(ja, jb);
	free(ja);
	free(jb);
	hvtlb_sim_results_destroy(a);
	hvtlb_sim_results_destroy(b);
}

/*
 * Without contention nothing limits that loop: 64 threads do four times
 * what 16 do (all threads start at once: creating 64 one after another
 * would take a few percent of so short a run). With it the mmap lock word, tlb_gen and the LRU lock
 * serialize every loop: 64 threads get hardly more than 16 (under 1.3x),
 * and far less than without.
 */
static void test_saturates(void **state)
{
	const char *t16[] = { LOOP_64, "workload.threads=16", NULL };
	const char *t64[] = { LOOP_64, "workload.threads=64", NULL };
	struct hvtlb_sim_results *off16, *off64, *on16, *on64;

	(void)state;
	off16 = run(t16, "machine.contention=0", NULL);
	off64 = run(t64, "machine.contention=0", NULL);
	on16 = run(t16, "machine.contention=1", NULL);
	on64 = run(t64, "machine.contention=1", NULL);
	print_message("madvise loop, INVLPGB, ops/s: 16 threads %.3g -> %.3g, "
		      "64 threads %.3g -> %.3g with contention\n",
		      ops_per_s(off16), ops_per_s(on16), ops_per_s(off64),
		      ops_per_s(on64));
	assert_true(ops_per_s(off64) > 3.5 * ops_per_s(off16));
	assert_true(ops_per_s(on64) < 1.3 * ops_per_s(on16));
	assert_true(ops_per_s(on64) < 0.5 * ops_per_s(off64));
	hvtlb_sim_results_destroy(off16);
	hvtlb_sim_results_destroy(off64);
	hvtlb_sim_results_destroy(on16);
	hvtlb_sim_results_destroy(on64);
}

/*
 * What the model leaves out, counted (lock_sections): two VMs of 4 vCPUs
 * whose threads fault and zap pages. On 4 pCPUs the host preempts vCPUs,
 * some of them inside the window of a zone or LRU lock section, and they
 * stay off their pCPU a while; on 8 nobody is preempted; without
 * contention there are no sections. The counters change no other
 * result.
 */
#define TWO_VMS                                                                \
	"hypervisor.profile=kvm", "hypervisor.cfs=true",                       \
		"workload.kind=madvise", "workload.pages=64",                  \
		"workload.file_backed=false", "strategy=ipi", "machine.vms=2", \
		"vm.vcpus=4", "workload.threads=4", "workload.iterations=200"

static void test_sections_preempted(void **state)
{
	const char *kv[] = { TWO_VMS, NULL };
	struct hvtlb_sim_results *over, *fit, *off;
	uint64_t p;

	(void)state;
	over = run(kv, "machine.contention=1", "machine.pcpus=4");
	fit = run(kv, "machine.contention=1", "machine.pcpus=8");
	off = run(kv, "machine.contention=0", "machine.pcpus=4");
	p = over->lock_waiters_preempted + over->lock_holders_preempted;
	print_message(
		"sections %llu, waiter %llu, holder %llu preempted, "
		"off %.1f us; on 8 pCPUs %llu sections, %llu "
		"preemptions\n",
		(unsigned long long)over->lock_sections,
		(unsigned long long)over->lock_waiters_preempted,
		(unsigned long long)over->lock_holders_preempted,
		(double)over->lock_preempted_off_ns / 1e3,
		(unsigned long long)fit->lock_sections,
		(unsigned long long)fit->vm_exits[HVTLB_SIM_EXIT_PREEMPTION]);
	assert_true(over->lock_sections > 0);
	assert_true(over->lock_holders_preempted > 0);
	/* only preemptions inside a window: not every one */
	assert_true(p < over->vm_exits[HVTLB_SIM_EXIT_PREEMPTION]);
	assert_true(p < over->lock_sections);
	/* each stayed off its pCPU a while */
	assert_true(over->lock_preempted_off_ns >= p * 1000);
	assert_true(fit->lock_sections > 0);
	assert_int_equal(fit->vm_exits[HVTLB_SIM_EXIT_PREEMPTION], 0);
	assert_int_equal(fit->lock_waiters_preempted, 0);
	assert_int_equal(fit->lock_holders_preempted, 0);
	assert_int_equal(fit->lock_preempted_off_ns, 0);
	assert_int_equal(off->lock_sections, 0);
	assert_int_equal(off->lock_waiters_preempted, 0);
	assert_int_equal(off->lock_holders_preempted, 0);
	assert_int_equal(off->lock_preempted_off_ns, 0);
	hvtlb_sim_results_destroy(over);
	hvtlb_sim_results_destroy(fit);
	hvtlb_sim_results_destroy(off);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writes_queue),
		cmocka_unit_test(test_sockets),
		cmocka_unit_test(test_readers),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_preempted_in_window),
		cmocka_unit_test(test_nothing_to_contend),
		cmocka_unit_test(test_saturates),
		cmocka_unit_test(test_sections_preempted),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
