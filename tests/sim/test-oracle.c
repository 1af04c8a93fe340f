// SPDX-License-Identifier: MIT
/*
 * The oracle as a checker of flush protocols, on configurations it was
 * not written for:
 *
 * - mutation_matrix: for each fault switch, seeded random configurations
 *   (machine, overcommit, VMs, workload, guest switches, and the
 *   strategies the fault applies to). The engine counts in fault_hits how
 *   often the faulty path withheld a flush a vCPU needed; among the runs
 *   where it did, the latent check must fire in at least 95 % (and there
 *   must be at least MIN_RAN such runs). Prints the table.
 * - clean_configs: 300 random configurations drawn the same way without a
 *   fault: no violation of either kind.
 * - fault_*: each fault switch on the one scenario that exposes it: it
 *   must fire there, and the same run without the fault must not.
 * - kernel_pages, no_violations, windows_no_violations: no fault, every
 *   strategy on every workload and on the Windows guest model, with and
 *   without overcommit: no violation.
 * - random_configs: 300 random machines, every key drawn: no fault, no
 *   error, no violation.
 *
 * The configurations come from a fixed xorshift sequence, so a failure
 * names its index and reproduces. Each test is selectable by name
 * (argv[1] is a cmocka filter).
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

#include "sim-test.h"

static uint64_t xs_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

#define N_(a) (sizeof(a) / sizeof((a)[0]))
#define PICK(x, a) (a)[xs_next(x) % N_(a)]

/* What a fault needs from a configuration to have anything to break. */
enum need {
	/* preempted vCPUs: twice the vCPUs of the pCPUs, all busy */
	NEED_OVERCOMMIT = 1u << 0,
	NEED_FREED = 1u << 1,  /* munmaps that free page tables */
	NEED_KERNEL = 1u << 2, /* global (kernel) pages */
	/* vCPUs in lazy TLB mode, skipped (strategy.lazy_skip) */
	NEED_LAZY = 1u << 3,
	/* flushes of some of the VM's CPUs: several processes */
	NEED_SPARSE = 1u << 4,
	NEED_VP_OFFSET = 1u << 5, /* VP index != CPU number */
	/* oracle-stress: translations shared by every thread of a process,
	 * batched flushes (no tlb generation) */
	NEED_STRESS = 1u << 6,
	/* the initiator sends its IPIs last (strategy.concurrent off) */
	NEED_SERIAL = 1u << 7,
};

/* A configuration as text: the keys set, for failure messages. */
struct desc {
	char buf[1024];
	size_t len;
};

static void set(struct hvtlb_sim_config *c, struct desc *d, const char *key,
		const char *value)
{
	int rc = hvtlb_sim_config_set(c, key, value);
	int w;

	if (rc)
		fail_msg("set %s=%s: %d", key, value, rc);
	w = snprintf(d->buf + d->len, sizeof(d->buf) - d->len, " %s=%s", key,
		     value);
	if (w > 0 && (size_t)w < sizeof(d->buf) - d->len)
		d->len += (size_t)w;
}

static void setu(struct hvtlb_sim_config *c, struct desc *d, const char *key,
		 uint64_t value)
{
	char v[32];

	snprintf(v, sizeof(v), "%llu", (unsigned long long)value);
	set(c, d, key, v);
}

/*
 * A random configuration for @p strategy, with what @p need asks for.
 * Mostly oracle-stress, sometimes another workload; @p scale times a
 * small number of operations per thread, so that a run takes well under
 * a second.
 */
static void random_config(struct hvtlb_sim_config *c, struct desc *d,
			  uint64_t *x, const char *strategy, unsigned need,
			  unsigned scale)
{
	static const char *const kinds[] = {
		"oracle-stress", "oracle-stress", "oracle-stress",
		"oracle-stress", "oracle-stress", "oracle-stress",
		"mix",		 "madvise",	  "ebizzy",
		"mmap-search",	 "trasher",
	};
	static const uint32_t vcpus[] = { 2, 3, 4, 6, 8, 12, 16 };
	static const uint32_t pages[] = { 1, 2, 4, 4, 8, 16 };
	static const uint32_t sleeps[] = { 0, 2000, 20000, 100000 };
	static const uint32_t kpages[] = { 0, 0, 4, 16 };
	static const char *const prof[] = { "strict", "kvm", "xen", "openvmm" };
	static const char *const b01[] = { "0", "1" };
	const char *kind = PICK(x, kinds);
	uint32_t nv = PICK(x, vcpus), np, vms = 1 + xs_next(x) % 4 / 3;
	uint32_t npages = PICK(x, pages), kp = PICK(x, kpages);
	uint32_t threads = nv / 2 + (uint32_t)(xs_next(x) % (nv + nv / 2 + 1));
	uint32_t sleep = PICK(x, sleeps);
	uint32_t procs = 1 + (uint32_t)(xs_next(x) % 5) / 3, vpo = 0;
	bool lazy_skip = xs_next(x) & 1, big = false;

	hvtlb_sim_config_init(c);
	d->len = 0;
	d->buf[0] = 0;
	set(c, d, "strategy", strategy);
	/* pCPUs: from a quarter of the vCPUs (overcommit) to all of them */
	np = 1 + (uint32_t)(xs_next(x) % nv);
	if (need & NEED_OVERCOMMIT) {
		np = nv > 2 ? nv / 2 : 1;
		threads = nv + (uint32_t)(xs_next(x) % (nv + 1));
		sleep = sleep > 2000 ? 2000 : sleep;
	}
	if (need & NEED_FREED) {
		/* a chunk of 2 MiB of 4 KiB pages frees a page-table page;
		 * other threads search it */
		static const char *const freeing[] = { "oracle-stress",
						       "mmap-search" };
		kind = PICK(x, freeing);
		npages = 512;
		big = true;
	}
	if (need & NEED_KERNEL)
		kp = 4 + (uint32_t)(xs_next(x) % 13);
	if (need & NEED_LAZY) {
		lazy_skip = true;
		threads = nv / 2 + (uint32_t)(xs_next(x) % (nv / 2 + 1));
		sleep = sleep < 20000 ? 20000 : sleep;
	}
	if (need & NEED_SPARSE) {
		/* two or three processes of several threads each, most of
		 * them running: each flushes some of the VM's CPUs */
		nv = nv < 4 ? 4 + nv : nv;
		procs = 2 + (uint32_t)(xs_next(x) % 2);
		threads = procs * (2 + (uint32_t)(xs_next(x) % 3));
		np = nv / 2 + (uint32_t)(xs_next(x) % (nv / 2 + 1));
	}
	if (need & NEED_VP_OFFSET)
		vpo = 1 + (uint32_t)(xs_next(x) % (nv - 1));
	else if (xs_next(x) % 4 == 0)
		vpo = (uint32_t)(xs_next(x) % nv);
	if (need & NEED_STRESS)
		kind = "oracle-stress";
	set(c, d, "workload.kind", kind);
	setu(c, d, "vm.vcpus", nv);
	setu(c, d, "machine.pcpus", np * vms);
	setu(c, d, "machine.vms", vms);
	if (vms > 1)
		set(c, d, "machine.partition", PICK(x, b01));
	setu(c, d, "workload.threads", threads > procs ? threads : procs);
	setu(c, d, "workload.processes", procs);
	setu(c, d, "hypervisor.vp_index_offset", vpo);
	setu(c, d, "workload.pages", npages);
	if (!big && xs_next(x) % 4 == 0)
		set(c, d, "workload.page_size", "2m");
	setu(c, d, "workload.iterations",
	     (big ? 6 + xs_next(x) % 6 : 10 + xs_next(x) % 21) * scale);
	setu(c, d, "workload.sleep_ns_max", sleep);
	setu(c, d, "workload.kernel_pages", kp);
	set(c, d, "workload.touch", xs_next(x) & 1 ? "all" : "random");
	setu(c, d, "workload.search_pages", big ? 64 : 8);
	set(c, d, "workload.file_backed", PICK(x, b01));
	if (!strcmp(kind, "madvise"))
		set(c, d, "workload.shared", "1");
	set(c, d, "strategy.lazy_skip", lazy_skip ? "1" : "0");
	set(c, d, "strategy.concurrent",
	    need & NEED_SERIAL ? "0" : PICK(x, b01));
	set(c, d, "strategy.early_ack", PICK(x, b01));
	set(c, d, "hypervisor.profile", PICK(x, prof));
	set(c, d, "hypervisor.ipiv", PICK(x, b01));
	set(c, d, "hypervisor.ple", PICK(x, b01));
	set(c, d, "hypervisor.cfs", PICK(x, b01));
	set(c, d, "hypervisor.xmm", PICK(x, b01));
	set(c, d, "hypervisor.ex", PICK(x, b01));
	set(c, d, "tlb.pcid", PICK(x, b01));
	set(c, d, "tlb.levels", xs_next(x) % 4 ? "2" : "1");
	set(c, d, "guest.lazy_leave", PICK(x, b01));
	set(c, d, "guest.migrate", PICK(x, b01));
	/* Linux without tlb_gen never skipped lazy CPUs (unsafe: the
	 * oracle flags it, see the clean test) */
	set(c, d, "guest.tlb_gen", lazy_skip ? "1" : PICK(x, b01));
	setu(c, d, "seed", xs_next(x) % 100000);
}

struct fault_case {
	const char *fault;
	/* the strategies whose protocol it breaks */
	const char *strategies[6];
	unsigned need;
};

static const struct fault_case cases[] = {
	{ "no-wait",
	  { "ipi", "kvm-pv", "hyperv", "vmm-assist", "xen-pv" },
	  NEED_SERIAL | NEED_SPARSE },
	{ "lose-deferred", { "kvm-pv" }, NEED_OVERCOMMIT | NEED_STRESS },
	{ "skip-lazy-freed",
	  { "ipi", "kvm-pv", "hyperv", "vmm-assist", "lazy" },
	  NEED_FREED | NEED_LAZY },
	{ "drop-target",
	  { "ipi", "kvm-pv", "hyperv", "vmm-assist", "xen-pv" },
	  0 },
	{ "global-survives",
	  { "ipi", "kvm-pv", "hyperv", "vmm-assist", "broadcast", "lazy" },
	  NEED_KERNEL },
	{ "host-no-wait", { "hyperv" }, NEED_SPARSE | NEED_STRESS },
	{ "vp-as-cpu", { "hyperv" }, NEED_SPARSE | NEED_VP_OFFSET },
	{ "gen-zero-skip",
	  { "ipi", "kvm-pv", "hyperv", "vmm-assist", "lazy" },
	  NEED_STRESS },
};

/* Configurations per fault, and how many of them at least must have the
 * fault do harm (so that the detection rate means something). */
#define PER_FAULT 32
#define MIN_RAN 12

static size_t nstrategies(const struct fault_case *f)
{
	size_t n = 0;

	while (n < N_(f->strategies) && f->strategies[n])
		n++;
	return n;
}

static struct hvtlb_sim_results *run(const struct hvtlb_sim_config *c,
				     const struct desc *d)
{
	struct hvtlb_sim_results *r = NULL;
	int rc = hvtlb_sim_run(c, &r);

	if (rc)
		fail_msg("hvtlb_sim_run: %d:%s", rc, d->buf);
	return r;
}

static void test_mutation_matrix(void **state)
{
	uint64_t x = 0x2545f4914f6cdd1dULL;
	int bad = 0;

	(void)state;
	print_message("%-16s %7s %4s %6s %6s %5s %7s\n", "fault", "configs",
		      "ran", "latent", "used", "both", "caught");
	for (size_t k = 0; k < N_(cases); k++) {
		const struct fault_case *f = &cases[k];
		uint32_t ran = 0, latent = 0, used = 0, missed = 0;

		for (int i = 0; i < PER_FAULT; i++) {
			struct hvtlb_sim_config c;
			struct hvtlb_sim_results *r;
			struct desc d;
			const char *st =
				f->strategies[xs_next(&x) % nstrategies(f)];

			random_config(&c, &d, &x, st, f->need, 5);
			set(&c, &d, "fault", f->fault);
			r = run(&c, &d);
			/* a stale entry is reported latent before it is used */
			if (r->used_violations && !r->latent_violations)
				fail_msg("%s #%d: used without latent:%s",
					 f->fault, i, d.buf);
			if (getenv("HVTLB_ORACLE_VERBOSE"))
				print_message("  %s #%d: %llu hits, %llu "
					      "latent:%s\n",
					      f->fault, i,
					      (unsigned long long)r->fault_hits,
					      (unsigned long long)
						      r->latent_violations,
					      d.buf);
			if (r->fault_hits) {
				ran++;
				latent += r->latent_violations > 0;
				used += r->used_violations > 0;
				if (!r->latent_violations) {
					missed++;
					print_message("  missed %s #%d (%llu "
						      "hits):%s\n",
						      f->fault, i,
						      (unsigned long long)
							      r->fault_hits,
						      d.buf);
				}
			}
			hvtlb_sim_results_destroy(r);
		}
		print_message("%-16s %7d %4u %6u %6u %5u %6.0f%%\n", f->fault,
			      PER_FAULT, ran, latent, used, latent,
			      ran ? 100.0 * latent / ran : 0.0);
		/* The path must run often enough, and be caught. */
		if (ran < MIN_RAN || latent * 100 < ran * 95)
			bad++;
	}
	assert_int_equal(bad, 0);
}

/*
 * A target that runs when the flush is requested and goes idle (lazy TLB
 * mode) before it completes was a target like any other: lazy mode
 * excuses only a vCPU lazy since before the request. drop-target with
 * strategy.lazy_skip on one shared mapping, threads that sleep: the
 * dropped vCPU often goes idle while the initiator waits, and only the
 * latent check sees it (no thread uses the page meanwhile). An oracle
 * that excused every vCPU lazy at completion misses these runs; the
 * random draws of the matrix reach this case too rarely to show it.
 */
static void test_lazy_at_request(void **state)
{
	static const char *const strategies[] = { "ipi", "vmm-assist",
						  "hyperv" };

	(void)state;
	for (size_t k = 0; k < N_(strategies); k++) {
		for (int seed = 1; seed <= 8; seed++) {
			struct hvtlb_sim_config c;
			struct hvtlb_sim_results *r;
			struct desc d = { .len = 0 };

			hvtlb_sim_config_init(&c);
			set(&c, &d, "strategy", strategies[k]);
			set(&c, &d, "workload.kind", "madvise");
			set(&c, &d, "workload.shared", "1");
			set(&c, &d, "workload.pages", "4");
			set(&c, &d, "workload.threads", "4");
			set(&c, &d, "workload.iterations", "60");
			set(&c, &d, "workload.sleep_ns_max", "20000");
			set(&c, &d, "vm.vcpus", "6");
			set(&c, &d, "machine.pcpus", "3");
			set(&c, &d, "strategy.lazy_skip", "1");
			set(&c, &d, "fault", "drop-target");
			setu(&c, &d, "seed", (uint64_t)seed);
			r = run(&c, &d);
			if (r->fault_hits && !r->latent_violations)
				fail_msg("%llu hits, no latent violation:%s",
					 (unsigned long long)r->fault_hits,
					 d.buf);
			hvtlb_sim_results_destroy(r);
		}
	}
}

static void test_clean_configs(void **state)
{
	static const char *const strategies[] = { "ipi",       "hyperv",
						  "kvm-pv",    "vmm-assist",
						  "broadcast", "lazy",
						  "xen-pv" };
	uint64_t x = 0x9e3779b97f4a7c15ULL, shootdowns = 0;

	(void)state;
	for (int i = 0; i < 300; i++) {
		struct hvtlb_sim_config c;
		struct hvtlb_sim_results *r;
		struct desc d;
		unsigned need = (unsigned)(xs_next(&x) % 128);

		random_config(&c, &d, &x, PICK(&x, strategies), need, 1);
		r = run(&c, &d);
		if (r->violations)
			fail_msg("config %d: %llu latent, %llu used "
				 "violations (first: %s):%s",
				 i, (unsigned long long)r->latent_violations,
				 (unsigned long long)r->used_violations,
				 hvtlb_sim_stale_name(r->violation[0].why),
				 d.buf);
		shootdowns += r->shootdowns;
		hvtlb_sim_results_destroy(r);
	}
	print_message("300 configurations, %llu shootdowns, no violation\n",
		      (unsigned long long)shootdowns);
}

/* Each fault with the scenario that exposes it: madvise of one shared
 * mapping (every vCPU holds its translations), overcommit for the KVM
 * flag, 2 MiB chunks (freed page tables) searched by every thread for the
 * lazy rule. */
#define SHARED_MADVISE                                                         \
	"workload.kind=madvise", "workload.shared=1", "workload.pages=4",      \
		"workload.iterations=3000"

static const char *const nowait_kv[] = { SHARED_MADVISE,  "workload.threads=8",
					 "vm.vcpus=8",	  "machine.pcpus=8",
					 "strategy=ipi",  "hypervisor.ipiv=1",
					 "fault=no-wait", NULL };
static const char *const lose_kv[] = { SHARED_MADVISE,
				       "workload.threads=16",
				       "vm.vcpus=16",
				       "machine.pcpus=3",
				       "strategy=kvm-pv",
				       "fault=lose-deferred",
				       NULL };
static const char *const skip_kv[] = { "workload.kind=mmap-search",
				       "workload.pages=512",
				       "workload.threads=8",
				       "vm.vcpus=16",
				       "workload.iterations=200",
				       "workload.search_pages=64",
				       "workload.sleep_ns_max=20000",
				       "strategy=ipi",
				       "strategy.lazy_skip=1",
				       "fault=skip-lazy-freed",
				       NULL };
static const char *const drop_kv[] = { SHARED_MADVISE,
				       "workload.threads=8",
				       "vm.vcpus=8",
				       "machine.pcpus=8",
				       "strategy=hyperv",
				       "fault=drop-target",
				       NULL };

/* Runs @p kv as given (must fire) and with fault=none (must not). */
static void fault_case(const char *const *kv)
{
	struct hvtlb_sim_config c;
	struct hvtlb_sim_results *r;

	cfg_apply(&c, kv);
	r = run_cfg(&c);
	print_message("fault %s: %llu hits, %llu latent, %llu used "
		      "violations\n",
		      hvtlb_sim_fault_name(c.fault),
		      (unsigned long long)r->fault_hits,
		      (unsigned long long)r->latent_violations,
		      (unsigned long long)r->used_violations);
	/* it did harm, and the latent check saw it */
	assert_true(r->fault_hits > 0);
	assert_true(r->latent_violations > 0);
	assert_int_equal(r->violations,
			 r->latent_violations + r->used_violations);
	assert_true(r->nrecorded > 0);
	assert_true(r->violation[0].time_s > 0);
	assert_true(r->violation[0].vcpu < c.vcpus);
	assert_true(r->violation[0].why != HVTLB_SIM_STALE_USED);
	assert_true(r->violation[0].shootdown > 0);
	assert_true(r->violation[0].generation < r->violation[0].covered);
	hvtlb_sim_results_destroy(r);

	c.fault = HVTLB_SIM_FAULT_NONE;
	r = run_cfg(&c);
	assert_int_equal(r->latent_violations, 0);
	assert_int_equal(r->used_violations, 0);
	assert_int_equal(r->fault_hits, 0);
	assert_int_equal(r->nrecorded, 0);
	hvtlb_sim_results_destroy(r);
}

static void test_fault_no_wait(void **state)
{
	(void)state;
	fault_case(nowait_kv);
}

static void test_fault_lose_deferred(void **state)
{
	(void)state;
	fault_case(lose_kv);
}

static void test_fault_skip_lazy_freed(void **state)
{
	(void)state;
	fault_case(skip_kv);
}

static void test_fault_drop_target(void **state)
{
	(void)state;
	fault_case(drop_kv);
}

/* Kernel (global) pages shared by 8 threads on 8 vCPUs: with
 * global-survives the vfree shootdown keeps the other vCPUs' global
 * entries, which are used once the page is mapped again. */
#define KERNEL_PAGES                                                           \
	"workload.kernel_pages=8", "workload.threads=8", "vm.vcpus=8",         \
		"machine.pcpus=8", "workload.iterations=400",                  \
		"fault=global-survives"

static const char *const global_ipi_kv[] = { KERNEL_PAGES, "strategy=ipi",
					     NULL };
static const char *const global_hv_kv[] = { KERNEL_PAGES, "strategy=hyperv",
					    NULL };

static void test_fault_global_survives(void **state)
{
	struct hvtlb_sim_results *r;

	(void)state;
	fault_case(global_ipi_kv);
	fault_case(global_hv_kv);
	/* a kept global entry is read again once the page is mapped again:
	 * used violations, each named as such */
	r = run_kv(global_ipi_kv);
	assert_true(r->used_violations > 0);
	for (uint32_t i = 0; i < r->nrecorded; i++)
		if (r->violation[i].why == HVTLB_SIM_STALE_USED) {
			assert_int_equal(r->violation[i].shootdown, 0);
			assert_true(r->violation[i].generation <
				    r->violation[i].covered);
		}
	hvtlb_sim_results_destroy(r);
}

/* Kernel pages under every strategy, overcommitted (preempted targets,
 * deferred and hypervisor-queued flushes): no violation. */
static void test_kernel_pages(void **state)
{
	static const char *const kinds[] = { "ipi",	  "hyperv",
					     "kvm-pv",	  "vmm-assist",
					     "broadcast", "lazy" };

	(void)state;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct hvtlb_sim_config c;
		struct hvtlb_sim_results *r;
		const char *const kv[] = { "workload.kernel_pages=4",
					   "workload.threads=12",
					   "vm.vcpus=8",
					   "machine.pcpus=3",
					   "workload.iterations=200",
					   "strategy.lazy_skip=1",
					   NULL };

		cfg_apply(&c, kv);
		assert_int_equal(hvtlb_sim_config_set(&c, "strategy", kinds[i]),
				 0);
		assert_int_equal(
			hvtlb_sim_config_set(&c, "strategy.lazy_skip", "1"), 0);
		r = run_cfg(&c);
		print_message("kernel pages, %s: %llu shootdowns, %llu "
			      "violations\n",
			      kinds[i], (unsigned long long)r->shootdowns,
			      (unsigned long long)r->violations);
		assert_int_equal(r->violations, 0);
		hvtlb_sim_results_destroy(r);
	}
}

/* No fault: every strategy on every workload, overcommitted and not. */
static void test_no_violations(void **state)
{
	static const char *const strategies[] = { "ipi",       "hyperv",
						  "kvm-pv",    "vmm-assist",
						  "broadcast", "lazy",
						  "xen-pv" };
	static const char *const workloads[][3] = {
		{ "workload.kind=trasher", "workload.pages=8",
		  "workload.touch=all" },
		{ "workload.kind=madvise", "workload.shared=1",
		  "workload.pages=4" },
		{ "workload.kind=mmap-search", "workload.pages=512",
		  "workload.search_pages=32" },
		/* the programs: ebizzy -M (a trim and refault each
		 * operation), will-it-scale's tlb_flush2 and tlb_flush1
		 * (copy-on-write flushes inside faults) */
		{ "workload.kind=ebizzy", "workload.pages=40",
		  "workload.ebizzy_never_mmap=1" },
		{ "workload.kind=tlb-flush2", "workload.pages=16",
		  "machine.contention=1" },
		{ "workload.kind=tlb-flush1", "workload.pages=40",
		  "guest.fault_vma_lock=1" },
		{ "workload.kind=mix", "workload.pages=16",
		  "workload.sleep_ns_max=5000" },
		/* 2 MiB pages: 4 KiB-granular remote flushes (the
		 * hypervisor's, without extended ranges) must drop them */
		{ "workload.kind=mix", "workload.page_size=2m",
		  "workload.pages=3" },
	};
	static const char *const machines[][2] = {
		{ "vm.vcpus=8", "machine.pcpus=8" },
		{ "vm.vcpus=8", "machine.pcpus=3" },
	};

	(void)state;
	for (size_t s = 0; s < 6; s++) {
		for (size_t w = 0; w < sizeof(workloads) / sizeof(workloads[0]);
		     w++) {
			for (size_t m = 0; m < 2; m++) {
				char strat[64];
				const char *kv[] = { strat,
						     workloads[w][0],
						     workloads[w][1],
						     workloads[w][2],
						     machines[m][0],
						     machines[m][1],
						     "workload.threads=12",
						     "workload.iterations=60",
						     "strategy.lazy_skip=1",
						     NULL };
				struct hvtlb_sim_results *r;

				snprintf(strat, sizeof(strat), "strategy=%s",
					 strategies[s]);
				r = run_kv(kv);
				if (r->violations)
					fail_msg("%s %s %s: %llu violations",
						 strategies[s], workloads[w][0],
						 machines[m][1],
						 (unsigned long long)
							 r->violations);
				assert_true(r->shootdowns > 0);
				assert_true(r->real_s > 0);
				hvtlb_sim_results_destroy(r);
			}
		}
	}
}

/* The Windows guest model: every strategy, overcommitted and not, with
 * processor groups, the long-spin notification and pushlock spinning. */
static void test_windows_no_violations(void **state)
{
	static const char *const strategies[] = { "ipi",       "hyperv",
						  "kvm-pv",    "vmm-assist",
						  "broadcast", "lazy" };
	static const char *const pcpus[] = { "machine.pcpus=8",
					     "machine.pcpus=3" };

	(void)state;
	for (size_t i = 0; i < 6; i++) {
		for (size_t m = 0; m < 2; m++) {
			char strat[64];
			const char *kv[] = { strat,
					     "guest.os=windows",
					     "guest.group_size=8",
					     "hypervisor.hv_spinlocks=0x3f",
					     "workload.kind=mix",
					     "workload.pages=16",
					     "workload.sleep_ns_max=5000",
					     "workload.threads=12",
					     "workload.iterations=60",
					     "vm.vcpus=12",
					     pcpus[m],
					     NULL };
			struct hvtlb_sim_results *r;

			snprintf(strat, sizeof(strat), "strategy=%s",
				 strategies[i]);
			r = run_kv(kv);
			if (r->violations)
				fail_msg("windows %s %s: %llu violations",
					 strategies[i], pcpus[m],
					 (unsigned long long)r->violations);
			assert_true(r->shootdowns > 0);
			hvtlb_sim_results_destroy(r);
		}
	}
}

/* Property: no fault, no violation, no stall, on random machines. The
 * configs come from a fixed xorshift sequence, so a failure names its
 * index and reproduces. */
static void test_random_configs(void **state)
{
	static const char *const strat[] = { "ipi",	  "hyperv",
					     "kvm-pv",	  "vmm-assist",
					     "broadcast", "lazy" };
	static const char *const kind[] = { "trasher",	  "madvise",
					    "ebizzy",	  "mix",
					    "tlb-flush1", "tlb-flush2",
					    "mmap-search" };
	static const char *const vcpus[] = { "1", "2", "3", "8", "33", "64" };
	static const char *const pcpus[] = { "1", "2", "4", "8", "64" };
	static const char *const threads[] = { "1", "5", "16", "40" };
	static const char *const pages[] = { "1", "3", "17", "512" };
	static const char *const psize[] = { "4k", "4k", "2m" };
	static const char *const touch[] = { "none", "first", "all", "random" };
	static const char *const sleep[] = { "0", "1000", "100000" };
	static const char *const prof[] = { "strict", "kvm", "xen", "openvmm" };
	static const char *const b01[] = { "0", "1" };
	static const char *const spin[] = { "0", "5", "500" };
	static const char *const levels[] = { "1", "2" };
	static const char *const gov[] = { "menu", "residency" };
	static const char *const gidle[] = { "halt", "poll", "haltpoll" };
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	(void)state;
	for (int n = 0; n < 300; n++) {
		struct hvtlb_sim_config c;
		struct hvtlb_sim_results *r = NULL;
		char st[64];
		int rc;

		hvtlb_sim_config_init(&c);
		snprintf(st, sizeof(st), "%s", PICK(&x, strat));
		assert_int_equal(hvtlb_sim_config_set(&c, "strategy", st), 0);
#define SET(k, arr)                                                            \
	assert_int_equal(hvtlb_sim_config_set(&c, k, PICK(&x, arr)), 0)
		SET("vm.vcpus", vcpus);
		SET("machine.pcpus", pcpus);
		SET("workload.kind", kind);
		SET("workload.threads", threads);
		SET("workload.pages", pages);
		SET("workload.page_size", psize);
		SET("workload.touch", touch);
		SET("workload.sleep_ns_max", sleep);
		SET("workload.shared", b01);
		SET("workload.file_backed", b01);
		SET("strategy.lazy_skip", b01);
		SET("strategy.concurrent", b01);
		SET("strategy.early_ack", b01);
		SET("hypervisor.profile", prof);
		SET("hypervisor.ipiv", b01);
		SET("hypervisor.ple", b01);
		SET("hypervisor.xmm", b01);
		SET("hypervisor.ex", b01);
		SET("tlb.pcid", b01);
		SET("tlb.levels", levels);
		SET("guest.lazy_leave", b01);
		SET("guest.migrate", b01);
		SET("guest.lock_spin_us", spin);
		SET("hypervisor.cfs", b01);
		SET("hypervisor.cfs_tick", b01);
		SET("hypervisor.idle_governor", gov);
		SET("guest.idle", gidle);
		SET("hypervisor.directed_yield", b01);
		SET("hypervisor.ple_boost_ready", b01);
		SET("machine.contention", b01);
		SET("guest.fault_vma_lock", b01);
		SET("workload.ebizzy_never_mmap", b01);
#undef SET
		c.wl_iterations = 1 + xs_next(&x) % 20;
		c.seed = xs_next(&x) % 1000;
		rc = hvtlb_sim_run(&c, &r);
		if (rc) {
			char v[64];
			const char *k;

			for (size_t i = 0; (k = hvtlb_sim_config_key_name(i));
			     i++)
				if (strncmp(k, "cost.", 5) &&
				    !hvtlb_sim_config_get(&c, k, v, sizeof(v)))
					print_error("  %s = %s\n", k, v);
			fail_msg("config %d (%s): rc %d", n, st, rc);
		}
		if (r->violations)
			fail_msg("config %d (%s): %llu violations", n, st,
				 (unsigned long long)r->violations);
		hvtlb_sim_results_destroy(r);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mutation_matrix),
		cmocka_unit_test(test_lazy_at_request),
		cmocka_unit_test(test_clean_configs),
		cmocka_unit_test(test_fault_no_wait),
		cmocka_unit_test(test_fault_lose_deferred),
		cmocka_unit_test(test_fault_skip_lazy_freed),
		cmocka_unit_test(test_fault_drop_target),
		cmocka_unit_test(test_fault_global_survives),
		cmocka_unit_test(test_kernel_pages),
		cmocka_unit_test(test_no_violations),
		cmocka_unit_test(test_windows_no_violations),
		cmocka_unit_test(test_random_configs),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
