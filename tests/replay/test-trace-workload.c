// SPDX-License-Identifier: MIT
/*
 * A recorded trace as the simulator's step lists
 * (src/replay/trace-workload.h): which threads are replayed, and each
 * thread's steps to the nanosecond, on a trace written in the formats of
 * the lines of traces/ (Linux 6.18): compute between events, a sleep from
 * a switch out in state S to the wakeup, a late thread's wait for its
 * start, one step per flushing call (its length in pages), a flush
 * outside a call, the local half of a remote flush and the task-switch
 * flushes of other tasks left out. Then the errors.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "trace-workload.h"

#define L(task, cpu, ts, body) "  " task " [" cpu "] ..... " ts ": " body "\n"
#define CSD0 "func=flush_tlb_func, csd=0000000000000000"

/* clang-format off */
static const char trace[] =
	"# tracer: nop\n"
	L("app-100", "000", "10.000000", "sys_mmap(addr: 0, len: 0x8000, prot: 3, flags: 0x22, fd: 0xffffffff, off: 0)")
	L("app-100", "000", "10.000010", "sys_mmap -> 0x7f0000000000")
	L("app-100", "000", "10.000110", "sys_madvise(start: 0x7f0000000000, len_in: 0x8000, behavior: 4)")
	L("app-100", "000", "10.000120", "tlb_flush: pages:8 reason:remote IPI send (4)")
	L("app-100", "000", "10.000121", "csd_function_entry: " CSD0)
	L("app-100", "000", "10.000125", "tlb_flush: pages:8 reason:local MM shootdown (3)")
	L("app-100", "000", "10.000126", "csd_function_exit: " CSD0)
	L("app-100", "000", "10.000130", "sys_madvise -> 0x0")
	L("app-100", "000", "10.000230", "tlb_flush: pages:1 reason:local MM shootdown (3)")
	L("app-100", "000", "10.000240", "tlb_flush: pages:2 reason:remote IPI send (4)")
	L("app-100", "000", "10.000241", "csd_function_entry: " CSD0)
	L("app-100", "000", "10.000242", "tlb_flush: pages:2 reason:local MM shootdown (3)")
	L("app-100", "000", "10.000243", "csd_function_exit: " CSD0)
	L("app-100", "000", "10.000300", "sched_switch: prev_comm=app prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=other next_pid=7 next_prio=120")
	L("other-7", "000", "10.000301", "tlb_flush: pages:-1 reason:flush on task switch (0)")
	L("other-7", "000", "10.001300", "sched_wakeup: comm=app pid=100 prio=120 target_cpu=000")
	L("other-7", "000", "10.001400", "sched_switch: prev_comm=other prev_pid=7 prev_prio=120 prev_state=R ==> next_comm=app next_pid=100 next_prio=120")
	L("app-101", "001", "10.002000", "sys_munmap(addr: 0x7f0000000000, len: 0x1001)")
	L("app-101", "001", "10.002005", "tlb_flush: pages:2 reason:remote IPI send (4)")
	L("app-101", "001", "10.002010", "tlb_flush: pages:-1 reason:local MM shootdown (3)")
	L("app-101", "001", "10.002020", "sys_munmap -> 0x0")
	L("app-100", "000", "10.002400", "sys_mprotect(start: 0x7f0000000000, len: 0x800000, prot: 1)")
	L("app-100", "000", "10.002410", "sys_mprotect -> 0x0")
	L("app-100", "000", "10.002500", "mmap_lock_start_locking: mm=000000007379c6dc memcg_id=1 write=true");

/* Processes: 200, 201 and 400 lock mm a (400 inside its munmap, after an
 * exec from mm c and before a fork's copy d), 300 mm b, 500 none. 200's first remote flush finds
 * only process b on CPU 1; the switch to 201 there is followed by a flush
 * on task switch in 300's name, after which 300 neither runs nor is what
 * CPU 1 runs; 200's second remote flush finds 201 there. */
static const char procs[] =
	L("p-300", "001", "5.000000", "sys_munmap(addr: 0, len: 0x1000)")
	L("p-300", "001", "5.000001", "mmap_lock_start_locking: mm=00000000000000bb memcg_id=1 write=true")
	L("p-300", "001", "5.000002", "tlb_flush: pages:1 reason:local MM shootdown (3)")
	L("p-300", "001", "5.000003", "sys_munmap -> 0x0")
	L("p-200", "000", "5.000010", "sys_madvise(start: 0, len_in: 0x1000, behavior: 4)")
	L("p-200", "000", "5.000011", "mmap_lock_start_locking: mm=00000000000000aa memcg_id=1 write=false")
	L("p-200", "000", "5.000012", "tlb_flush: pages:1 reason:remote IPI send (4)")
	L("p-200", "000", "5.000013", "sys_madvise -> 0x0")
	L("p-300", "001", "5.000100", "sched_switch: prev_comm=p prev_pid=300 prev_prio=120 prev_state=S ==> next_comm=p next_pid=201 next_prio=120")
	L("p-300", "001", "5.000101", "tlb_flush: pages:-1 reason:flush on task switch (0)")
	L("p-200", "000", "5.000200", "tlb_flush: pages:1 reason:remote IPI send (4)")
	L("p-201", "001", "5.000300", "mmap_lock_start_locking: mm=00000000000000aa memcg_id=1 write=false")
	L("p-201", "001", "5.000400", "sched_wakeup: comm=p pid=300 prio=120 target_cpu=000")
	L("p-400", "000", "5.000500", "mmap_lock_start_locking: mm=00000000000000cc memcg_id=1 write=true")
	L("p-400", "000", "5.000510", "sys_munmap(addr: 0, len: 0x1000)")
	L("p-400", "000", "5.000511", "mmap_lock_start_locking: mm=00000000000000aa memcg_id=1 write=true")
	L("p-400", "000", "5.000512", "tlb_flush: pages:1 reason:local MM shootdown (3)")
	L("p-400", "000", "5.000513", "sys_munmap -> 0x0")
	L("p-400", "000", "5.000520", "mmap_lock_start_locking: mm=00000000000000dd memcg_id=1 write=true")
	L("p-500", "000", "5.000600", "sys_mprotect(start: 0, len: 0x1000, prot: 1)")
	L("p-500", "000", "5.000601", "sys_mprotect -> 0x0")
	L("p-300", "000", "5.001400", "sys_munmap(addr: 0, len: 0x1000)");

/* A thread that made no flush; flushes past workload.pages' bound. */
static const char quiet[] =
	L("app-1", "000", "1.000000", "sys_munmap(addr: 0, len: 1)")
	L("app-1", "000", "1.000500", "sys_munmap -> 0x0");
static const char huge[] =
	L("app-1", "000", "1.000000", "tlb_flush: pages:99999999999 reason:3")
	L("app-1", "000", "1.000001", "sys_madvise(start: 0, len_in: 0xffffffffffffffff, behavior: 4)")
	L("app-1", "000", "1.000002", "tlb_flush: pages:1 reason:4")
	L("app-1", "000", "1.000003", "sys_madvise -> 0x0");
static const char bad_pages[] =
	L("app-1", "000", "1.0", "sys_munmap(addr: 0, len: 1)")
	L("app-1", "000", "1.1", "tlb_flush: pages:zz reason:3");
static const char no_thread[] =
	L("cc1-5", "000", "1.0", "tlb_flush: pages:-1 reason:flush on task switch (0)");
static const char raw_clock[] =
	L("app-1", "000", "123456789", "sys_munmap(addr: 0, len: 1)");
/* clang-format on */

#define C HVTLB_SIM_STEP_COMPUTE
#define S HVTLB_SIM_STEP_SLEEP

static void expect_steps(const struct hvtlb_sim_script_thread *th,
			 const struct hvtlb_sim_step *want, size_t n)
{
	assert_int_equal(th->nsteps, n);
	for (size_t i = 0; i < n; i++) {
		print_message("step %zu\n", i);
		assert_int_equal(th->steps[i].kind, want[i].kind);
		assert_int_equal(th->steps[i].pages, want[i].pages);
		assert_int_equal(th->steps[i].ns, want[i].ns);
	}
}

static void test_steps(void **state)
{
	static const struct hvtlb_sim_step t100[] = {
		{ C, 0, 110000 },
		{ HVTLB_SIM_STEP_MADVISE, 8, 0 }, /* one step, 2 lines */
		{ C, 0, 100000 },
		{ HVTLB_SIM_STEP_FLUSH, 1, 0 }, /* outside a call */
		{ C, 0, 10000 },
		/* a remote flush outside a call; its local half (the
		 * sender's own flush_tlb_func) is no step */
		{ HVTLB_SIM_STEP_FLUSH, 2, 0 },
		{ C, 0, 60000 },
		{ S, 0, 1000000 }, /* switched out in S until the wakeup */
		/* from the switch in; the mprotect flushed nothing */
		{ C, 0, 1100000 },
	};
	static const struct hvtlb_sim_step t101[] = {
		{ S, 0, 2000000 }, /* starts 2 ms after the first thread */
		{ HVTLB_SIM_STEP_MUNMAP, 2, 0 }, /* 0x1001 bytes: 2 pages */
	};
	struct trace_workload w;

	(void)state;
	assert_int_equal(trace_workload_read(&w, trace, sizeof(trace) - 1), 0);
	assert_int_equal(w.script.nthreads, 2); /* not pid 7 */
	assert_int_equal(w.pids[0], 100);
	assert_int_equal(w.pids[1], 101);
	assert_ptr_equal(w.script.threads, w.threads);
	expect_steps(&w.threads[0], t100, sizeof(t100) / sizeof(t100[0]));
	expect_steps(&w.threads[1], t101, sizeof(t101) / sizeof(t101[0]));
	assert_int_equal(w.flushes, 4);
	assert_int_equal(w.by_kind[HVTLB_SIM_STEP_MADVISE], 1);
	assert_int_equal(w.by_kind[HVTLB_SIM_STEP_MUNMAP], 1);
	assert_int_equal(w.by_kind[HVTLB_SIM_STEP_MPROTECT], 0);
	assert_int_equal(w.by_kind[HVTLB_SIM_STEP_FLUSH], 2);
	assert_int_equal(w.pages, 8);
	assert_int_equal(w.cpus, 2);
	/* the local half of the reason-4 flush; pid 7's reason 0 is not
	 * a replayed thread's */
	assert_int_equal(w.not_steps[3], 3); /* and the munmap's second */
	/* three remote requests: while CPU 0 ran app-100 (the munmap's), and
	 * two before CPU 1 ran anything */
	assert_int_equal(w.remote, 3);
	assert_int_equal(w.remote_elsewhere, 2);
	assert_int_equal(w.not_steps[0], 0);
	trace_workload_free(&w);
}

/* Reads @p text, which must fail with -EINVAL and a message holding
 * @p what. */
static void expect_error(const char *text, const char *what)
{
	struct trace_workload w;

	assert_int_equal(trace_workload_read(&w, text, strlen(text)), -EINVAL);
	print_message("%s\n", w.err);
	assert_non_null(strstr(w.err, what));
	trace_workload_free(&w);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error(bad_pages, "line 2 (byte ");
	expect_error(no_thread, "no thread to replay");
	expect_error("", "no thread to replay");
	expect_error(raw_clock,
		     "line 1: the trace's clock counts in an unknown unit");
}

/* A thread that made no flush still runs (its time); page counts past
 * workload.pages' bound are held to it. */
static void test_no_flush_and_bounds(void **state)
{
	struct trace_workload w;

	(void)state;
	assert_int_equal(trace_workload_read(&w, quiet, sizeof(quiet) - 1), 0);
	assert_int_equal(w.flushes, 0);
	assert_int_equal(w.pages, 1);
	assert_int_equal(w.threads[0].nsteps, 1);
	assert_int_equal(w.threads[0].steps[0].ns, 500000);
	trace_workload_free(&w);
	assert_int_equal(trace_workload_read(&w, huge, sizeof(huge) - 1), 0);
	assert_int_equal(w.flushes, 2);
	assert_int_equal(w.threads[0].steps[0].pages, TRACE_WL_MAX_PAGES);
	assert_int_equal(w.threads[0].steps[2].pages, TRACE_WL_MAX_PAGES);
	assert_int_equal(w.pages, TRACE_WL_MAX_PAGES);
	trace_workload_free(&w);
}

/* Threads grouped into processes by the mm their flushing calls lock; a
 * remote flush is "elsewhere" when no other CPU runs a thread of its own
 * process; a flush on task switch is no sign of the switched-out task. */
static void test_processes(void **state)
{
	static const uint32_t want[] = { 0, 0, 1, 0, 0 }; /* 200 .. 500 */
	struct trace_workload w;
	uint64_t compute = 0;

	(void)state;
	assert_int_equal(trace_workload_read(&w, procs, sizeof(procs) - 1), 0);
	assert_int_equal(w.script.nthreads, 5);
	assert_int_equal(w.processes, 2);
	assert_int_equal(w.no_mm, 1);
	for (uint32_t i = 0; i < 5; i++) {
		assert_int_equal(w.procs[i], want[i]);
		assert_int_equal(w.threads[i].process, want[i]);
	}
	assert_int_equal(w.remote, 2);
	assert_int_equal(w.remote_elsewhere, 1);
	/* 300 ran 5.000000 .. 5.000100 (its munmap's time is the call's);
	 * from its wakeup it ran nothing the trace shows until 5.001400 */
	for (uint64_t k = 0; k < w.threads[2].nsteps; k++)
		if (w.threads[2].steps[k].kind == HVTLB_SIM_STEP_COMPUTE)
			compute += w.threads[2].steps[k].ns;
	assert_int_equal(compute, 97000);
	trace_workload_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_no_flush_and_bounds),
		cmocka_unit_test(test_processes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
