// SPDX-License-Identifier: MIT
/*
 * The simulator's trace callback (hvtlb_sim_config.trace_fn): the events
 * agree with the results (exits by reason, flushes by kind, shootdowns,
 * pages, violations), every kind a scenario exercises shows up, times lie
 * in [0, real], each VM's events come in non-decreasing emission time,
 * slices on one track do not overlap and a shootdown nests in its
 * thread's kernel slice, results are byte-identical with and without the
 * callback, and a partitioned run gives the same per-VM sequences on 1, 2
 * and 4 host threads.
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

#include "sim-test.h"

#define MAX_VMS 8u

/* Per-VM event buffers: the callback for one VM runs on one thread, so a
 * buffer needs no lock. Nothing here asserts (it may run on a worker). */
struct vm_buf {
	struct hvtlb_sim_trace_event *e;
	size_t n, cap;
	int oom;
};

struct collector {
	struct vm_buf vm[MAX_VMS];
	int bad_vm; /* an event named a VM out of range */
};

static void collect(void *data, const struct hvtlb_sim_trace_event *e)
{
	struct collector *c = data;
	struct vm_buf *b;

	if (e->vm >= MAX_VMS) {
		c->bad_vm = 1;
		return;
	}
	b = &c->vm[e->vm];
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		struct hvtlb_sim_trace_event *p =
			realloc(b->e, cap * sizeof(*p));

		if (!p) {
			b->oom = 1;
			return;
		}
		b->e = p;
		b->cap = cap;
	}
	b->e[b->n++] = *e;
}

static void collector_free(struct collector *c)
{
	for (unsigned i = 0; i < MAX_VMS; i++)
		free(c->vm[i].e);
	memset(c, 0, sizeof(*c));
}

static double cpu_mhz(const struct hvtlb_sim_config *c)
{
	const char *n;

	for (size_t i = 0; (n = hvtlb_sim_cost_name(i)); i++)
		if (!strcmp(n, "cpu_mhz"))
			return c->cost[i];
	fail_msg("no cost cpu_mhz");
	return 0;
}

/* Runs @p kv with a collector; returns the results. */
static struct hvtlb_sim_results *run_traced(const char *const *kv,
					    struct collector *col,
					    struct hvtlb_sim_config *cfg)
{
	struct hvtlb_sim_results *r = NULL;

	cfg_apply(cfg, kv);
	memset(col, 0, sizeof(*col));
	cfg->trace_fn = collect;
	cfg->trace_data = col;
	if (hvtlb_sim_run(cfg, &r))
		fail_msg("hvtlb_sim_run failed");
	assert_non_null(r);
	assert_false(col->bad_vm);
	for (unsigned i = 0; i < MAX_VMS; i++)
		assert_false(col->vm[i].oom);
	return r;
}

static uint64_t ev_end(const struct hvtlb_sim_trace_event *e)
{
	return e->start + e->dur;
}

/* When the engine emitted @p e: instants at their start, complete events
 * at their end. */
static uint64_t ev_emitted(const struct hvtlb_sim_trace_event *e)
{
	return hvtlb_sim_trace_kind_is_complete(e->kind) ? ev_end(e) : e->start;
}

/* Slices of one kind keyed by @p key must not overlap (sorted by start
 * within a key; O(n log n) with qsort). */
struct slice {
	uint64_t key, start, end;
};

static int slice_cmp(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static void check_no_overlap(struct slice *s, size_t n, const char *what)
{
	qsort(s, n, sizeof(*s), slice_cmp);
	for (size_t i = 1; i < n; i++)
		if (s[i].key == s[i - 1].key && s[i].start < s[i - 1].end)
			fail_msg("%s: overlapping slices on track %llu: "
				 "[%llu, %llu) and [%llu, %llu)",
				 what, (unsigned long long)s[i].key,
				 (unsigned long long)s[i - 1].start,
				 (unsigned long long)s[i - 1].end,
				 (unsigned long long)s[i].start,
				 (unsigned long long)s[i].end);
}

/*
 * Every invariant of a traced run: counts agree with the results, fields
 * in range, times in [0, real], per-VM emission order, no overlap on a
 * track, shootdowns nested in kernel slices. Returns a bit set of the
 * kinds seen.
 */
static unsigned check_trace(const struct hvtlb_sim_config *c,
			    const struct hvtlb_sim_results *r,
			    const struct collector *col)
{
	uint64_t exits[HVTLB_SIM_EXIT_COUNT_] = { 0 };
	uint64_t flushes[HVTLB_SIM_FLUSH_COUNT_] = { 0 };
	uint64_t shootdowns = 0, violations = 0, pages = 0;
	double mhz = cpu_mhz(c);
	/* real_s is a double: allow a cycle of rounding */
	uint64_t real = (uint64_t)(r->real_s * mhz * 1e6 + 1.5);
	size_t total = 0, nrun = 0, nmode = 0, nkern = 0;
	struct slice *vrun, *prun, *mode, *kern;
	unsigned seen = 0;

	for (unsigned vm = 0; vm < MAX_VMS; vm++)
		total += col->vm[vm].n;
	assert_true(total > 0);
	vrun = calloc(total, sizeof(*vrun));
	prun = calloc(total, sizeof(*prun));
	mode = calloc(total, sizeof(*mode));
	kern = calloc(total, sizeof(*kern));
	assert_non_null(kern);
	assert_non_null(vrun);
	assert_non_null(prun);
	assert_non_null(mode);

	for (unsigned vm = 0; vm < MAX_VMS; vm++) {
		const struct vm_buf *b = &col->vm[vm];
		uint64_t last = 0;

		if (vm >= c->vms) {
			assert_int_equal(b->n, 0);
			continue;
		}
		assert_true(b->n > 0);
		for (size_t i = 0; i < b->n; i++) {
			const struct hvtlb_sim_trace_event *e = &b->e[i];
			bool complete =
				hvtlb_sim_trace_kind_is_complete(e->kind);

			assert_true((unsigned)e->kind < HVTLB_SIM_TRACE_COUNT_);
			seen |= 1u << e->kind;
			assert_int_equal(e->vm, vm);
			assert_int_equal(e->reserved, 0);
			assert_true(e->vcpu < c->vcpus);
			assert_true(e->pcpu == HVTLB_SIM_TRACE_NONE ||
				    e->pcpu < c->pcpus);
			if (c->partition && e->pcpu != HVTLB_SIM_TRACE_NONE) {
				uint32_t per = c->pcpus / c->vms;

				assert_true(e->pcpu >= vm * per &&
					    e->pcpu < (vm + 1) * per);
			}
			if (!complete)
				assert_int_equal(e->dur, 0);
			if (ev_end(e) > real)
				fail_msg("%s event ends at %llu > real %llu",
					 hvtlb_sim_trace_kind_name(e->kind),
					 (unsigned long long)ev_end(e),
					 (unsigned long long)real);
			if (ev_emitted(e) < last)
				fail_msg("vm %u event %zu (%s) emitted at %llu "
					 "after one at %llu",
					 vm, i,
					 hvtlb_sim_trace_kind_name(e->kind),
					 (unsigned long long)ev_emitted(e),
					 (unsigned long long)last);
			last = ev_emitted(e);
			switch (e->kind) {
			case HVTLB_SIM_TRACE_VCPU_RUN:
				assert_true(e->pcpu < c->pcpus);
				assert_true(e->arg0 <= 2);
				vrun[nrun] = (struct slice){
					(uint64_t)vm * c->vcpus + e->vcpu,
					e->start, ev_end(e)
				};
				prun[nrun++] =
					(struct slice){ e->pcpu, e->start,
							ev_end(e) };
				break;
			case HVTLB_SIM_TRACE_USER:
			case HVTLB_SIM_TRACE_KERNEL:
				assert_true(e->thread < c->wl_threads);
				assert_true(e->dur > 0);
				mode[nmode++] = (struct slice){
					(uint64_t)vm * c->wl_threads +
						e->thread,
					e->start, ev_end(e)
				};
				if (e->kind == HVTLB_SIM_TRACE_KERNEL)
					kern[nkern++] = mode[nmode - 1];
				break;
			case HVTLB_SIM_TRACE_EXIT:
				assert_true(e->arg0 < HVTLB_SIM_EXIT_COUNT_);
				assert_true(e->arg1 > 0);
				/* an exit leaves a running vCPU */
				assert_true(e->pcpu != HVTLB_SIM_TRACE_NONE);
				exits[e->arg0] += e->arg1;
				break;
			case HVTLB_SIM_TRACE_SHOOTDOWN:
				assert_true(e->thread < c->wl_threads);
				assert_true(e->arg0 < c->vcpus);
				assert_true(e->arg1 < 0x40);
				shootdowns++;
				break;
			case HVTLB_SIM_TRACE_FLUSH:
				assert_true(e->arg0 < HVTLB_SIM_FLUSH_COUNT_);
				flushes[e->arg0]++;
				pages += e->arg1;
				break;
			case HVTLB_SIM_TRACE_IPI:
			case HVTLB_SIM_TRACE_KICK:
				assert_true(e->arg0 < c->vcpus);
				break;
			case HVTLB_SIM_TRACE_VIOLATION:
				assert_true(e->arg1 < HVTLB_SIM_STALE_COUNT_);
				violations++;
				break;
			default:
				break;
			}
		}
	}
	for (int k = 0; k < HVTLB_SIM_EXIT_COUNT_; k++)
		if (exits[k] != r->vm_exits[k])
			fail_msg("exit %s: %llu traced, %llu counted",
				 hvtlb_sim_exit_name((enum hvtlb_sim_exit)k),
				 (unsigned long long)exits[k],
				 (unsigned long long)r->vm_exits[k]);
	/* FULL and OVERFLOW are tallies of other flushes, not flushes */
	for (int k = 0; k < HVTLB_SIM_FLUSH_COUNT_; k++)
		if (k != HVTLB_SIM_FLUSH_FULL &&
		    k != HVTLB_SIM_FLUSH_OVERFLOW &&
		    flushes[k] != r->flushes[k])
			fail_msg("flush %s: %llu traced, %llu counted",
				 hvtlb_sim_flush_name(
					 (enum hvtlb_sim_flush_kind)k),
				 (unsigned long long)flushes[k],
				 (unsigned long long)r->flushes[k]);
	assert_int_equal(pages, r->pages_invalidated);
	assert_int_equal(shootdowns, r->shootdowns);
	assert_int_equal(violations, r->violations);

	/* One vCPU runs on one pCPU at a time and vice versa; a thread is
	 * in one mode at a time. */
	check_no_overlap(vrun, nrun, "vcpu_run per vCPU");
	check_no_overlap(prun, nrun, "vcpu_run per pCPU");
	check_no_overlap(mode, nmode, "user/kernel per thread");

	/* Each shootdown that takes time nests in a kernel slice of its
	 * thread (kern[] sorted by thread, then start). */
	qsort(kern, nkern, sizeof(*kern), slice_cmp);
	for (unsigned vm = 0; vm < c->vms; vm++) {
		const struct vm_buf *b = &col->vm[vm];

		for (size_t i = 0; i < b->n; i++) {
			const struct hvtlb_sim_trace_event *e = &b->e[i];
			uint64_t key = (uint64_t)vm * c->wl_threads + e->thread;
			size_t lo = 0, hi = nkern;

			if (e->kind != HVTLB_SIM_TRACE_SHOOTDOWN || !e->dur)
				continue;
			/* last slice of the thread starting <= e->start */
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;

				if (kern[mid].key < key ||
				    (kern[mid].key == key &&
				     kern[mid].start <= e->start))
					lo = mid + 1;
				else
					hi = mid;
			}
			if (!lo || kern[lo - 1].key != key ||
			    kern[lo - 1].end < ev_end(e))
				fail_msg("vm %u shootdown [%llu, %llu) of "
					 "thread %u outside a kernel slice",
					 vm, (unsigned long long)e->start,
					 (unsigned long long)ev_end(e),
					 e->thread);
		}
	}
	free(vrun);
	free(prun);
	free(mode);
	free(kern);
	return seen;
}

#define KIND(k) (1u << HVTLB_SIM_TRACE_##k)

/* An overcommitted VM: preemption, halts, wake-ups, IPIs, shootdowns. */
#define OVERCOMMIT                                                             \
	"machine.pcpus=4", "vm.vcpus=8", "hypervisor.profile=kvm",             \
		"workload.threads=12", "workload.iterations=25",               \
		"workload.pages=16", "workload.sleep_ns_max=20000", "seed=7"

static void expect_kinds(const char *const *kv, unsigned want)
{
	struct hvtlb_sim_config c;
	struct collector col;
	struct hvtlb_sim_results *r = run_traced(kv, &col, &c);
	unsigned seen = check_trace(&c, r, &col);

	if ((seen & want) != want)
		fail_msg("kinds seen 0x%x, want at least 0x%x", seen, want);
	hvtlb_sim_results_destroy(r);
	collector_free(&col);
}

static void test_kinds(void **state)
{
	const char *ipi[] = { OVERCOMMIT, "strategy=ipi", NULL };
	const char *hyperv[] = { OVERCOMMIT, "strategy=hyperv", NULL };
	const char *kvm_pv[] = { OVERCOMMIT, "strategy=kvm-pv",
				 "hypervisor.cfs=true", NULL };
	const char *lazy[] = { OVERCOMMIT, "strategy=lazy", NULL };
	/* as test-oracle's fault_no_wait case: acks are not awaited */
	const char *fault[] = { "workload.kind=madvise",
				"workload.shared=1",
				"workload.pages=4",
				"workload.iterations=300",
				"workload.threads=8",
				"vm.vcpus=8",
				"machine.pcpus=8",
				"strategy=ipi",
				"hypervisor.ipiv=1",
				"fault=no-wait",
				NULL };
	/* Free system calls: a shootdown may start while the thread is
	 * still accounted to user mode; its trace must still nest. */
	const char *free_calls[] = { OVERCOMMIT,
				     "strategy=ipi",
				     "workload.kind=mix",
				     "cost.syscall=0",
				     "cost.madvise=0",
				     "cost.munmap=0",
				     "cost.unmap_per_page=0",
				     NULL };
	const unsigned common = KIND(VCPU_RUN) | KIND(USER) | KIND(KERNEL) |
				KIND(EXIT) | KIND(SHOOTDOWN) | KIND(FLUSH) |
				KIND(HALT) | KIND(WAKE);

	(void)state;
	expect_kinds(ipi, common | KIND(IPI));
	expect_kinds(hyperv, common | KIND(KICK));
	expect_kinds(kvm_pv, common);
	expect_kinds(lazy, common);
	expect_kinds(fault, common | KIND(IPI) | KIND(VIOLATION));
	expect_kinds(free_calls, common | KIND(IPI));
}

/* Results are byte-identical with and without the callback. */
static void check_same_results(const char *const *kv)
{
	struct hvtlb_sim_config c;
	struct collector col;
	struct hvtlb_sim_results *plain = NULL, *traced;
	char *a, *b;

	cfg_apply(&c, kv);
	assert_int_equal(hvtlb_sim_run(&c, &plain), 0);
	traced = run_traced(kv, &col, &c);
	a = to_json(plain);
	b = to_json(traced);
	assert_string_equal(a, b);
	assert_int_equal(plain->events, traced->events);
	assert_int_equal(plain->target_flushes, traced->target_flushes);
	free(a);
	free(b);
	hvtlb_sim_results_destroy(plain);
	hvtlb_sim_results_destroy(traced);
	collector_free(&col);
}

static void test_same_results(void **state)
{
	const char *ipi[] = { OVERCOMMIT, "strategy=ipi", NULL };
	const char *hyperv[] = { OVERCOMMIT, "strategy=hyperv",
				 "workload.kind=mix", NULL };
	const char *kernel[] = { OVERCOMMIT, "strategy=kvm-pv",
				 "workload.kernel_pages=4", "machine.vms=2",
				 NULL };
	const char *parts[] = { OVERCOMMIT,
				"strategy=hyperv",
				"machine.vms=2",
				"machine.partition=1",
				"machine.pcpus=8",
				"threads=2",
				NULL };

	(void)state;
	check_same_results(ipi);
	check_same_results(hyperv);
	check_same_results(kernel);
	check_same_results(parts);
}

/* A partitioned run: each VM's sequence of events is the same on 1, 2
 * and 4 host threads, and VM 1's pCPUs are the upper half. */
static void test_partition(void **state)
{
	static const char *const threads[] = { "threads=1", "threads=2",
					       "threads=4" };
	struct collector ref = { 0 };

	(void)state;
	for (unsigned k = 0; k < 3; k++) {
		const char *kv[] = { OVERCOMMIT,
				     "strategy=ipi",
				     "machine.vms=2",
				     "machine.partition=1",
				     "machine.pcpus=8",
				     threads[k],
				     NULL };
		struct hvtlb_sim_config c;
		struct collector col;
		struct hvtlb_sim_results *r = run_traced(kv, &col, &c);

		check_trace(&c, r, &col);
		hvtlb_sim_results_destroy(r);
		if (!k) {
			ref = col;
			continue;
		}
		for (unsigned vm = 0; vm < 2; vm++) {
			assert_int_equal(col.vm[vm].n, ref.vm[vm].n);
			assert_memory_equal(col.vm[vm].e, ref.vm[vm].e,
					    col.vm[vm].n *
						    sizeof(*col.vm[vm].e));
		}
		collector_free(&col);
	}
	/* Both VMs traced, on their own halves of the machine. */
	for (unsigned vm = 0; vm < 2; vm++) {
		bool any_run = false;

		for (size_t i = 0; i < ref.vm[vm].n; i++) {
			const struct hvtlb_sim_trace_event *e =
				&ref.vm[vm].e[i];

			if (e->kind != HVTLB_SIM_TRACE_VCPU_RUN)
				continue;
			any_run = true;
			assert_true(e->pcpu / 4 == vm);
		}
		assert_true(any_run);
	}
	collector_free(&ref);
}

/* No padding: events copied by value compare with memcmp. */
_Static_assert(sizeof(struct hvtlb_sim_trace_event) ==
		       offsetof(struct hvtlb_sim_trace_event, arg1) +
			       sizeof(uint64_t),
	       "trace event has trailing padding");
_Static_assert(offsetof(struct hvtlb_sim_trace_event, start) ==
		       offsetof(struct hvtlb_sim_trace_event, reserved) +
			       sizeof(uint32_t),
	       "trace event has padding");

static void test_names(void **state)
{
	(void)state;
	for (int k = 0; k < HVTLB_SIM_TRACE_COUNT_; k++)
		assert_non_null(hvtlb_sim_trace_kind_name(
			(enum hvtlb_sim_trace_kind)k));
	assert_null(hvtlb_sim_trace_kind_name(HVTLB_SIM_TRACE_COUNT_));
	assert_string_equal(hvtlb_sim_trace_kind_name(HVTLB_SIM_TRACE_VCPU_RUN),
			    "vcpu_run");
	assert_true(
		hvtlb_sim_trace_kind_is_complete(HVTLB_SIM_TRACE_SHOOTDOWN));
	assert_false(hvtlb_sim_trace_kind_is_complete(HVTLB_SIM_TRACE_FLUSH));
	assert_false(hvtlb_sim_trace_kind_is_complete(HVTLB_SIM_TRACE_COUNT_));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_same_results),
		cmocka_unit_test(test_partition),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
