// SPDX-License-Identifier: MIT
/*
 * The workloads as their programs do them, by what each operation makes
 * the kernel do (faults, flushes), counted exactly:
 *
 * - ebizzy: glibc decides. With -M and a 256 KiB chunk every free trims
 *   the heap (one flush per operation, the chunk refaulted); by default
 *   the first free of a mapped chunk raises the mmap threshold and the
 *   copies then reuse the heap without a system call; -m maps and unmaps
 *   every copy; glibc < 2.22 trims every thread heap at every free; a
 *   64 KiB chunk with -M stays under the trim threshold.
 * - tlb-flush2: two faults and one flush per loop, a remap every
 *   workload.pages loops.
 * - tlb-flush1: fault-around maps a 16-page window read-only, so fifteen
 *   writes in sixteen flush inside their copy-on-write fault.
 * - guest.fault_vma_lock: faults stop waiting for the mmap lock's
 *   writers.
 * - trace: a replayed script's steps, one operation each, a flush step
 *   faulting and flushing its range.
 *
 * Broken variants these catch: a dynamic threshold that never rises,
 * trimming whatever the threshold, a read fault that allocates (or maps
 * nothing), fault-around without its window, a write to a read-only page
 * that does not flush, fault_vma_lock ignored.
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

#define THREADS 8
#define ITERS 40

/* run_kv() of a run that must have no violation and every operation. */
static struct hvtlb_sim_results *run_ops(const char *const *kv)
{
	struct hvtlb_sim_results *r = run_kv(kv);

	assert_int_equal(r->violations, 0);
	assert_int_equal(r->ops, THREADS * ITERS);
	return r;
}

/* 8 threads on 8 vCPUs, ITERS operations each, anonymous memory. */
#define BASE                                                                   \
	"workload.threads=8", "vm.vcpus=8", "machine.pcpus=8",                 \
		"workload.iterations=40", "workload.file_backed=false",        \
		"strategy=ipi"

/* ebizzy with chunks of @p pages pages and the given options. */
static struct hvtlb_sim_results *ebizzy(const char *pages, const char *o1,
					const char *o2)
{
	const char *kv[] = {
		BASE, "workload.kind=ebizzy", pages, o1, o2, NULL
	};

	return run_ops(kv);
}

static void test_ebizzy_never_mmap(void **state)
{
	struct hvtlb_sim_results *r;

	(void)state;
	/* -M, 256 KiB: every free trims pages 1..64, the next copy faults
	 * them in again (page 0 holds the arena's header: faulted once);
	 * the thread's exit unmaps its heap (one flush more) */
	r = ebizzy("workload.pages=64", "workload.ebizzy_never_mmap=1",
		   "workload.glibc_trim_all=0");
	assert_int_equal(r->shootdowns, THREADS * (ITERS + 1));
	assert_int_equal(r->page_faults, THREADS * (ITERS * 64 + 1));
	hvtlb_sim_results_destroy(r);
	/* -M, 64 KiB: under M_TRIM_THRESHOLD, the heap keeps its pages */
	r = ebizzy("workload.pages=16", "workload.ebizzy_never_mmap=1",
		   "workload.glibc_trim_all=0");
	assert_int_equal(r->shootdowns, THREADS);
	assert_int_equal(r->page_faults, THREADS * 17);
	hvtlb_sim_results_destroy(r);
}

static void test_ebizzy_dynamic_threshold(void **state)
{
	struct hvtlb_sim_results *r;

	(void)state;
	/* no option: the first copies are mapped (one flush each) until a
	 * free raises the threshold; then the heap is reused, untrimmed,
	 * until the thread's exit unmaps it */
	r = ebizzy("workload.pages=64", "workload.glibc_trim_all=0",
		   "workload.ebizzy_never_mmap=0");
	print_message("ebizzy default: %llu shootdowns, %llu faults\n",
		      (unsigned long long)r->shootdowns,
		      (unsigned long long)r->page_faults);
	assert_true(r->shootdowns > THREADS && r->shootdowns <= 2 * THREADS);
	assert_true(r->page_faults <= 2 * THREADS * 65);
	hvtlb_sim_results_destroy(r);
	/* glibc < 2.22: the raised threshold does not stop heap_trim */
	r = ebizzy("workload.pages=64", "workload.glibc_trim_all=1",
		   "workload.ebizzy_never_mmap=0");
	assert_true(r->shootdowns >= THREADS * ITERS);
	assert_true(r->page_faults >= THREADS * ITERS * 64);
	hvtlb_sim_results_destroy(r);
}

static void test_ebizzy_always_mmap(void **state)
{
	struct hvtlb_sim_results *r;

	(void)state;
	/* -m: mmap, 65 faults, munmap, every operation */
	r = ebizzy("workload.pages=64", "workload.ebizzy_always_mmap=1",
		   "workload.glibc_trim_all=0");
	assert_int_equal(r->shootdowns, THREADS * ITERS);
	assert_int_equal(r->page_faults, THREADS * ITERS * 65);
	hvtlb_sim_results_destroy(r);
	/* 64 KiB: glibc would keep it in the heap; -m maps it anyway */
	r = ebizzy("workload.pages=16", "workload.ebizzy_always_mmap=1",
		   "workload.glibc_trim_all=0");
	assert_int_equal(r->shootdowns, THREADS * ITERS);
	assert_int_equal(r->page_faults, THREADS * ITERS * 17);
	hvtlb_sim_results_destroy(r);
}

static void test_tlb_flush2(void **state)
{
	const char *kv[] = { BASE, "workload.kind=tlb-flush2",
			     "workload.pages=16", NULL };
	struct hvtlb_sim_results *r;

	(void)state;
	r = run_ops(kv);
	/* per loop: the write fault, the read fault of the zero page; one
	 * flush of the madvised page; remaps after loops 16, 32 and the
	 * final munmap flush the zero-page PTEs */
	assert_int_equal(r->page_faults, 2 * THREADS * ITERS);
	assert_int_equal(r->shootdowns, THREADS * (ITERS + ITERS / 16 + 1));
	hvtlb_sim_results_destroy(r);
}

static void test_tlb_flush1(void **state)
{
	const char *kv[] = { BASE, "workload.kind=tlb-flush1",
			     "workload.pages=32", "workload.file_backed=true",
			     NULL };
	struct hvtlb_sim_results *r;

	(void)state;
	r = run_ops(kv);
	/* per 16-page window: 16 madvise flushes and 15 copy-on-write
	 * flushes; 40 loops = windows of 16, 16 and 8 (7 COW flushes), the
	 * remap after loop 32 and the final munmap flush too */
	assert_int_equal(r->page_faults, 2 * THREADS * ITERS);
	assert_int_equal(r->shootdowns,
			 THREADS * (ITERS + 15 + 15 + 7 + 1 + 1));
	hvtlb_sim_results_destroy(r);
}

/* Faults under the VMA lock do not queue behind mmap()'s writers. */
static void test_fault_vma_lock(void **state)
{
	const char *off[] = { BASE,
			      "workload.kind=trasher",
			      "workload.pages=64",
			      "workload.touch=all",
			      "cost.mmap=200000",
			      "guest.fault_vma_lock=0",
			      NULL };
	const char *on[] = { BASE,
			     "workload.kind=trasher",
			     "workload.pages=64",
			     "workload.touch=all",
			     "cost.mmap=200000",
			     "guest.fault_vma_lock=1",
			     NULL };
	struct hvtlb_sim_results *a, *b;

	(void)state;
	a = run_ops(off);
	b = run_ops(on);
	print_message("trasher, mmap 200000 cycles: %.6f s, with VMA-locked "
		      "faults %.6f s\n",
		      a->real_s, b->real_s);
	assert_int_equal(a->page_faults, b->page_faults);
	assert_true(b->real_s < 0.9 * a->real_s);
	hvtlb_sim_results_destroy(a);
	hvtlb_sim_results_destroy(b);
}

/* workload.kind = trace: each thread runs its script's steps, one
 * operation each; a flush step touches its range and flushes it (the
 * whole mapping for pages 0 or past workload.pages), so it faults and
 * flushes exactly that; guest thread k runs script thread k % nthreads;
 * without a script the config is refused. */
static void test_trace(void **state)
{
	static struct hvtlb_sim_step t0[] = {
		{ HVTLB_SIM_STEP_COMPUTE, 0, 5000 },
		{ HVTLB_SIM_STEP_MADVISE, 4, 0 },
		{ HVTLB_SIM_STEP_SLEEP, 0, 20000 },
		{ HVTLB_SIM_STEP_MUNMAP, 2, 0 },
		{ HVTLB_SIM_STEP_FLUSH, 0, 0 },
		{ HVTLB_SIM_STEP_MPROTECT, 100, 0 },
	};
	static const struct hvtlb_sim_step t1[] = {
		{ HVTLB_SIM_STEP_SLEEP, 0, 1000 },
		{ HVTLB_SIM_STEP_MADVISE, 8, 0 },
	};
	static const struct hvtlb_sim_script_thread th[] = {
		{ t0, sizeof(t0) / sizeof(t0[0]) },
		{ t1, sizeof(t1) / sizeof(t1[0]) },
	};
	static const struct hvtlb_sim_script sc = { th, 2 };
	const char *kv[] = {
		"workload.kind=trace", "workload.threads=2",
		"vm.vcpus=2",	       "machine.pcpus=2",
		"workload.pages=8",    "workload.file_backed=false",
		"strategy=ipi",	       NULL
	};
	struct hvtlb_sim_config c;
	struct hvtlb_sim_results *r;
	const char *bad = NULL;
	double real;

	(void)state;
	cfg_apply(&c, kv);
	assert_int_equal(hvtlb_sim_config_validate(&c, &bad), -ERANGE);
	assert_string_equal(bad, "workload.kind");
	/* a script built by hand is checked before it runs: steps where it
	 * says so, known kinds, at most an hour a step */
	{
		static const struct hvtlb_sim_script_thread nosteps[] = {
			{ NULL, 3 }
		};
		static const struct hvtlb_sim_step badkind[] = {
			{ HVTLB_SIM_STEP_KIND_COUNT_, 1, 0 }
		};
		static const struct hvtlb_sim_step longsleep[] = {
			{ HVTLB_SIM_STEP_SLEEP, 0, 3600ull * 1000000000ull + 1 }
		};
		static const struct hvtlb_sim_script_thread kind[] = {
			{ badkind, 1 }
		};
		static const struct hvtlb_sim_script_thread slp[] = {
			{ longsleep, 1 }
		};
		const struct hvtlb_sim_script bads[] = {
			{ nosteps, 1 }, { kind, 1 }, { slp, 1 }, { th, 0 }
		};

		for (size_t b = 0; b < sizeof(bads) / sizeof(bads[0]); b++) {
			c.wl_script = &bads[b];
			bad = NULL;
			assert_int_equal(hvtlb_sim_config_validate(&c, &bad),
					 -ERANGE);
			assert_string_equal(bad, "workload.kind");
		}
	}
	c.wl_script = &sc;
	assert_int_equal(hvtlb_sim_config_validate(&c, &bad), 0);
	r = run_cfg(&c);
	assert_int_equal(r->violations, 0);
	assert_int_equal(r->ops, 6 + 2);
	assert_int_equal(r->shootdowns, 4 + 1);
	assert_int_equal(r->page_faults, (4 + 2 + 8 + 8) + 8);
	real = r->real_s;
	hvtlb_sim_results_destroy(r);
	/* thread 0's sleep is in the run's time: 5 ms more, 5 ms later */
	t0[2].ns += 5000000;
	r = run_cfg(&c);
	t0[2].ns -= 5000000;
	assert_true(r->real_s - real > 4.99e-3 && r->real_s - real < 5.01e-3);
	hvtlb_sim_results_destroy(r);
	assert_int_equal(hvtlb_sim_config_set(&c, "workload.threads", "4"), 0);
	r = run_cfg(&c);
	assert_int_equal(r->ops, 2 * (6 + 2));
	assert_int_equal(r->shootdowns, 2 * (4 + 1));
	hvtlb_sim_results_destroy(r);
}

/* A script thread's process: two threads that flush while both run
 * reach each other's vCPU in one process (process 0 of 1, or 1 of 2),
 * never in two; a thread whose process is past workload.processes is
 * refused. */
static void test_trace_processes(void **state)
{
	static const struct hvtlb_sim_step st[] = {
		{ HVTLB_SIM_STEP_COMPUTE, 0, 200000 },
		{ HVTLB_SIM_STEP_MADVISE, 4, 0 },
		{ HVTLB_SIM_STEP_COMPUTE, 0, 200000 },
		{ HVTLB_SIM_STEP_MADVISE, 4, 0 },
		{ HVTLB_SIM_STEP_COMPUTE, 0, 200000 },
	};
	struct hvtlb_sim_script_thread th[] = { { st, 5, 0 }, { st, 5, 0 } };
	const struct hvtlb_sim_script sc = { th, 2 };
	const char *kv[] = { "workload.kind=trace",
			     "workload.threads=2",
			     "vm.vcpus=2",
			     "machine.pcpus=2",
			     "workload.pages=4",
			     "strategy=ipi",
			     NULL };
	struct hvtlb_sim_config c;
	struct hvtlb_sim_results *r;
	const char *bad = NULL;

	(void)state;
	cfg_apply(&c, kv);
	c.wl_script = &sc;
	r = run_cfg(&c);
	assert_int_equal(r->violations, 0);
	assert_int_equal(r->shootdowns, 4);
	assert_true(r->flushes[HVTLB_SIM_FLUSH_IPI] >= 2);
	hvtlb_sim_results_destroy(r);
	th[1].process = 1;
	assert_int_equal(hvtlb_sim_config_validate(&c, &bad), -ERANGE);
	assert_string_equal(bad, "workload.processes");
	assert_int_equal(hvtlb_sim_config_set(&c, "workload.processes", "2"),
			 0);
	r = run_cfg(&c);
	assert_int_equal(r->violations, 0);
	assert_int_equal(r->shootdowns, 4);
	assert_int_equal(r->flushes[HVTLB_SIM_FLUSH_IPI], 0);
	hvtlb_sim_results_destroy(r);
	/* both in process 1 of 2: together again, whatever k mod 2 says */
	th[0].process = 1;
	r = run_cfg(&c);
	assert_true(r->flushes[HVTLB_SIM_FLUSH_IPI] >= 2);
	hvtlb_sim_results_destroy(r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ebizzy_never_mmap),
		cmocka_unit_test(test_ebizzy_dynamic_threshold),
		cmocka_unit_test(test_ebizzy_always_mmap),
		cmocka_unit_test(test_tlb_flush2),
		cmocka_unit_test(test_tlb_flush1),
		cmocka_unit_test(test_fault_vma_lock),
		cmocka_unit_test(test_trace),
		cmocka_unit_test(test_trace_processes),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
