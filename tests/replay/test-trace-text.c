// SPDX-License-Identifier: MIT
/*
 * The ftrace text reader (src/replay/trace-text.h) on lines copied from
 * the traces in traces/ (recorded on a 6.18 kernel), on the forms other
 * kernels and trace-cmd report print, and on malformed input, which
 * must give an error naming the right line and byte.
 *
 * This machine sends no shootdown IPIs (its guest kernel flushes remote
 * TLBs by hypercall), so the lines of IPI-delivered shootdowns below
 * (ipi_send_cpumask with flush_tlb_func, csd_queue_cpu, a csd_function
 * with a csd) are written from the kernel's print formats; they are
 * marked "format" where the real ones are marked "recorded".
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "replay-check.h"
#include "trace-text.h"

/* Reads one record out of @p text (a C string here, for brevity; the
 * reader gets its length). */
static int read_one(const char *text, struct trace_reader *r,
		    struct trace_record *rec)
{
	trace_reader_init(r, text, strlen(text));
	return trace_reader_next(r, rec);
}

static bool span_is(struct trace_span s, const char *lit)
{
	return s.len == strlen(lit) && !memcmp(s.p, lit, s.len);
}

/* recorded */
static void test_tlb_flush(void **state)
{
	struct trace_reader r;
	struct trace_record rec;

	assert_int_equal(
		read_one("       tlb-churn-18258   [001] ...1. 55057.174131: "
			 "tlb_flush: pages:8 reason:remote IPI send (4)\n",
			 &r, &rec),
		1);
	assert_int_equal(rec.event, TRACE_EV_TLB_FLUSH);
	assert_true(span_is(rec.comm, "tlb-churn"));
	assert_int_equal(rec.pid, 18258);
	assert_int_equal(rec.cpu, 1);
	assert_false(rec.ts_raw);
	assert_int_equal(rec.ts, 55057174131000ull);
	assert_int_equal(rec.u.tlb.reason, 4);
	assert_int_equal(rec.u.tlb.pages, 8);
	assert_string_equal(trace_event_system(rec.event), "tlb");
	assert_int_equal(
		read_one("             cc1-7687    [001] d..2. 54686.377562: "
			 "tlb_flush: pages:-1 reason:flush on task switch (0)",
			 &r, &rec),
		1);
	assert_int_equal(rec.u.tlb.pages, -1);
	assert_int_equal(rec.u.tlb.reason, 0);
	assert_int_equal(
		read_one("       tlb-churn-7108    [001] d..2. 54664.465727: "
			 "tlb_flush: pages:0 reason:remote wrong CPU (5)\n",
			 &r, &rec),
		1);
	assert_int_equal(rec.u.tlb.reason, 5);
	assert_string_equal(trace_tlb_reason_name(5), "TLB_REMOTE_WRONG_CPU");
}

/* Reasons as other kernels and tools print them (format). */
static void test_tlb_reason_forms(void **state)
{
	static const struct {
		const char *reason;
		int32_t nr;
	} ok[] = {
		{ "5", 5 },   /* 6.14-6.18: no name for TLB_REMOTE_WRONG_CPU */
		{ "0x5", 5 }, /* __print_symbolic of a value without a name */
		{ "TLB_REMOTE_SHOOTDOWN", 1 },
		{ "TLB_LOCAL_SHOOTDOWN", 2 },
		{ "TLB_LOCAL_MM_SHOOTDOWN", 3 },
		{ "TLB_REMOTE_SEND_IPI", 4 },
		{ "TLB_FLUSH_ON_TASK_SWITCH", 0 },
		{ "42", 42 },		    /* a reason from a later kernel */
		{ "something new (9)", 9 }, /* ditto, with a name */
	};
	struct trace_reader r;
	struct trace_record rec;
	char line[256];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(line, sizeof(line),
			 "  a-1 [000] 1.5: tlb_flush: pages:1 reason:%s\n",
			 ok[i].reason);
		assert_int_equal(read_one(line, &r, &rec), 1);
		assert_int_equal(rec.u.tlb.reason, ok[i].nr);
	}
	assert_int_equal(read_one("  a-1 [000] 1.5: tlb_flush: pages:1 "
				  "reason:TLB_BOGUS\n",
				  &r, &rec),
			 -EINVAL);
	assert_non_null(strstr(r.err, "unknown tlb_flush reason"));
}

/* recorded: a reschedule IPI (no callback) and the sender running
 * flush_tlb_func itself (csd 0) */
static void test_ipi_cpu_and_csd(void **state)
{
	struct trace_reader r;
	struct trace_record rec;

	assert_int_equal(
		read_one("       tlb-churn-18257   [000] d..2. "
			 "491088341694870: ipi_send_cpu: cpu=1 "
			 "callsite=wakeup_preempt+0x55/0xa0 callback=0x0\n",
			 &r, &rec),
		1);
	assert_int_equal(rec.event, TRACE_EV_IPI_SEND_CPU);
	assert_true(rec.ts_raw);
	assert_int_equal(rec.ts, 491088341694870ull);
	assert_true(trace_mask_test(rec.u.ipi.mask, 1));
	assert_false(trace_mask_test(rec.u.ipi.mask, 0));
	assert_true(span_is(rec.u.ipi.callsite, "wakeup_preempt+0x55/0xa0"));
	assert_false(trace_is_flush_func(rec.u.ipi.callback));
	assert_int_equal(read_one("       tlb-churn-18258   [001] d..2. "
				  "491088342476655: csd_function_entry: "
				  "func=flush_tlb_func, csd=0000000000000000\n",
				  &r, &rec),
			 1);
	assert_int_equal(rec.event, TRACE_EV_CSD_FUNCTION_ENTRY);
	assert_true(trace_is_flush_func(rec.u.csd.func));
	assert_int_equal(rec.u.csd.csd, 0);
}

/* format: the IPI-delivered side */
static void test_ipi_mask_and_csd_queue(void **state)
{
	struct trace_reader r;
	struct trace_record rec;

	/* __get_cpumask() prints "%*pb": hex, 32-bit groups, most
	 * significant first; CPUs 0, 1, 3 and 1023 */
	assert_int_equal(
		read_one(
			"  a-10 [002] d..1. 2.000001: ipi_send_cpumask: "
			"cpumask=80000000,00000000,00000000,00000000,00000000,"
			"00000000,00000000,00000000,00000000,00000000,00000000,"
			"00000000,00000000,00000000,00000000,00000000,00000000,"
			"00000000,00000000,00000000,00000000,00000000,00000000,"
			"00000000,00000000,00000000,00000000,00000000,00000000,"
			"00000000,00000000,0000000b "
			"callsite=on_each_cpu_cond_mask+0x20/0x30 "
			"callback=flush_tlb_func+0x0/0x1f0\n",
			&r, &rec),
		1);
	assert_int_equal(rec.event, TRACE_EV_IPI_SEND_CPUMASK);
	for (uint32_t c = 0; c < 5; c++)
		assert_int_equal(trace_mask_test(rec.u.ipi.mask, c),
				 c != 2 && c != 4);
	assert_true(trace_mask_test(rec.u.ipi.mask, 1023));
	assert_false(trace_mask_test(rec.u.ipi.mask, 1024));
	assert_true(trace_is_flush_func(rec.u.ipi.callback));
	assert_int_equal(
		read_one("  a-10 [002] d..1. 2.000001: ipi_send_cpumask: "
			 "cpumask=00000001,00000000,00000000,00000000,00000000,"
			 "00000000,00000000,00000000,00000000,00000000,"
			 "00000000,00000000,00000000,00000000,00000000,"
			 "00000000,00000000,00000000,00000000,00000000,"
			 "00000000,00000000,00000000,00000000,00000000,"
			 "00000000,00000000,00000000,00000000,00000000,"
			 "00000000,00000000,00000000 callsite=x callback=y\n",
			 &r, &rec),
		-EINVAL);
	assert_non_null(strstr(r.err, "cpumask past CPU 1023"));
	/* a narrow mask, and one whose groups are not all written */
	assert_int_equal(
		read_one("  a-10 [002] d..1. 2.000001: ipi_send_cpumask: "
			 "cpumask=6 callsite=x callback=y\n",
			 &r, &rec),
		1);
	assert_int_equal(rec.u.ipi.mask[0], 6);
	assert_int_equal(
		read_one("  a-10 [002] d..1. 2.000001: ipi_send_cpumask: "
			 "cpumask=1,00000000 callsite=x callback=y\n",
			 &r, &rec),
		1);
	assert_int_equal(rec.u.ipi.mask[0], 1ull << 32);
	assert_int_equal(
		read_one("  a-10 [002] d..1. 2.000001: ipi_send_cpumask: "
			 "cpumask=0-2 callsite=x callback=y\n",
			 &r, &rec),
		-EINVAL);
	assert_non_null(strstr(r.err, "bad cpumask"));
	assert_int_equal(
		read_one("  a-10 [002] d..1. 2.000001: ipi_send_cpumask: "
			 "cpumask=3,,0 callsite=x callback=y\n",
			 &r, &rec),
		-EINVAL);
	assert_int_equal(
		read_one("  a-10 [002] d..1. 2.000001: csd_queue_cpu: cpu=3 "
			 "callsite=smp_call_function_many_cond+0x1a0/0x4d0 "
			 "func=flush_tlb_func csd=ffff8880bbc3a1e0\n",
			 &r, &rec),
		1);
	assert_int_equal(rec.u.csd.cpu, 3);
	assert_int_equal(rec.u.csd.csd, 0xffff8880bbc3a1e0ull);
	assert_int_equal(read_one("  b-0 [003] d.h1. 2.000003: "
				  "call_function_single_entry: vector=251\n",
				  &r, &rec),
			 1);
	assert_int_equal(rec.event, TRACE_EV_CALL_FUNCTION_SINGLE_ENTRY);
	assert_int_equal(rec.u.irq.vector, 251);
	assert_true(trace_is_flush_func(
		(struct trace_span){ "flush_tlb_func", 14 }));
	assert_false(trace_is_flush_func(
		(struct trace_span){ "flush_tlb_func_x", 16 }));
}

/* recorded, and a task name with a blank (format) */
static void test_sched(void **state)
{
	struct trace_reader r;
	struct trace_record rec;

	assert_int_equal(
		read_one("       tlb-churn-18235   [001] d..2. 55057.174098: "
			 "sched_switch: prev_comm=tlb-churn prev_pid=18235 "
			 "prev_prio=98 prev_state=S ==> next_comm=tlb-churn "
			 "next_pid=18239 next_prio=98\n",
			 &r, &rec),
		1);
	assert_true(span_is(rec.u.sw.prev_comm, "tlb-churn"));
	assert_int_equal(rec.u.sw.prev_pid, 18235);
	assert_int_equal(rec.u.sw.prev_prio, 98);
	assert_true(span_is(rec.u.sw.prev_state, "S"));
	assert_int_equal(rec.u.sw.next_pid, 18239);
	assert_int_equal(
		read_one("  Web Content-77 [000] d..2. 3.0: sched_switch: "
			 "prev_comm=Web Content prev_pid=77 prev_prio=120 "
			 "prev_state=R+ ==> next_comm=kworker/u8:0 "
			 "next_pid=16586 next_prio=120\n",
			 &r, &rec),
		1);
	assert_true(span_is(rec.comm, "Web Content"));
	assert_true(span_is(rec.u.sw.prev_comm, "Web Content"));
	assert_true(span_is(rec.u.sw.next_comm, "kworker/u8:0"));
	assert_int_equal(
		read_one("       tlb-churn-18257   [000] d.s4. "
			 "491088341199123: sched_wakeup: comm=rcu_preempt "
			 "pid=15 prio=120 target_cpu=000\n",
			 &r, &rec),
		1);
	assert_true(span_is(rec.u.wake.comm, "rcu_preempt"));
	assert_int_equal(rec.u.wake.pid, 15);
	assert_int_equal(rec.u.wake.target_cpu, 0);
}

/* recorded */
static void test_mmap_lock_and_syscalls(void **state)
{
	struct trace_reader r;
	struct trace_record rec;

	assert_int_equal(
		read_one(
			"       tlb-churn-18257   [000] ..... 491088269749401: "
			"mmap_lock_acquire_returned: mm=00000000ef8a1ea6 "
			"memcg_id=32639 write=true success=true\n",
			&r, &rec),
		1);
	assert_int_equal(rec.event, TRACE_EV_MMAP_LOCK_ACQUIRE_RETURNED);
	assert_int_equal(rec.u.lock.mm, 0xef8a1ea6);
	assert_int_equal(rec.u.lock.memcg_id, 32639);
	assert_true(rec.u.lock.write && rec.u.lock.success);
	assert_int_equal(
		read_one("       tlb-churn-7108    [000] ..... 54664.447138: "
			 "mmap_lock_start_locking: mm=0000000080a04985 "
			 "memcg_id=32639 write=false\n",
			 &r, &rec),
		1);
	assert_false(rec.u.lock.write);
	assert_int_equal(
		read_one("       tlb-churn-18258   [001] ..... "
			 "491088342409695: sys_madvise(start: 0x7f135f57c000, "
			 "len_in: 0x4000, behavior: 4)\n",
			 &r, &rec),
		1);
	assert_int_equal(rec.event, TRACE_EV_SYS_ENTER);
	assert_true(span_is(rec.u.sys.name, "madvise"));
	assert_int_equal(rec.u.sys.nargs, 3);
	assert_int_equal(rec.u.sys.args[0], 0x7f135f57c000ull);
	assert_int_equal(rec.u.sys.args[1], 0x4000);
	assert_int_equal(rec.u.sys.args[2], 4);
	assert_int_equal(
		read_one("       tlb-churn-7108    [001] ..... 54664.468465: "
			 "sys_mmap(addr: 0x7fc38ee51000, len: 0x156000, prot: "
			 "5, flags: 0x812, fd: 3, off: 0x26000)\n",
			 &r, &rec),
		1);
	assert_int_equal(rec.u.sys.nargs, 6);
	assert_int_equal(rec.u.sys.args[5], 0x26000);
	assert_int_equal(read_one("       tlb-churn-18257   [000] ..... "
				  "491088302893332: sys_munmap -> 0x0\n",
				  &r, &rec),
			 1);
	assert_int_equal(rec.event, TRACE_EV_SYS_EXIT);
	assert_true(span_is(rec.u.sys.name, "munmap"));
	assert_int_equal(rec.u.sys.ret, 0);
}

/* recorded on Linux 6.12 (Debian's 6.12.95 in a QEMU guest, no entropy
 * source): pointers withheld as "(____ptrval____)", the memory cgroup
 * as memcg_path (memcg_id is 6.13's), syscall arguments in bare hex. */
static void test_linux_6_12_formats(void **state)
{
	struct trace_reader r;
	struct trace_record rec;

	assert_int_equal(
		read_one("       tlb-churn-177     [000] .....     2.813509: "
			 "mmap_lock_start_locking: mm=(____ptrval____) "
			 "memcg_path=/ write=true\n",
			 &r, &rec),
		1);
	assert_int_equal(rec.event, TRACE_EV_MMAP_LOCK_START_LOCKING);
	assert_true(rec.u.lock.mm == TRACE_PTR_HIDDEN);
	assert_int_equal(rec.u.lock.memcg_id, 0);
	assert_true(rec.u.lock.write);
	assert_int_equal(
		read_one("       tlb-churn-177     [000] .....     2.813512: "
			 "mmap_lock_acquire_returned: mm=(____ptrval____) "
			 "memcg_path=/system.slice/a b.scope write=false "
			 "success=true\n",
			 &r, &rec),
		1);
	assert_false(rec.u.lock.write);
	assert_true(rec.u.lock.success);
	/* a target's exit (a withheld csd is not null) and the sender's own
	 * run of the function (csd=0) stay apart */
	assert_int_equal(
		read_one("       tlb-churn-178     [002] d.h..     2.859254: "
			 "csd_function_exit: func=flush_tlb_func, "
			 "csd=(____ptrval____)\n",
			 &r, &rec),
		1);
	assert_true(rec.u.csd.csd == TRACE_PTR_HIDDEN);
	assert_int_equal(
		read_one("       tlb-churn-180     [001] d..2.     2.859270: "
			 "csd_function_entry: func=flush_tlb_func, "
			 "csd=0000000000000000\n",
			 &r, &rec),
		1);
	assert_int_equal(rec.u.csd.csd, 0);
	assert_int_equal(
		read_one("       tlb-churn-177     [000] ...1.     2.822793: "
			 "sys_mmap(addr: 0, len: 2000, prot: 3, flags: 22, fd: "
			 "ffffffff, off: 0)\n",
			 &r, &rec),
		1);
	assert_int_equal(rec.u.sys.nargs, 6);
	assert_int_equal(rec.u.sys.args[1], 0x2000);
	assert_int_equal(rec.u.sys.args[3], 0x22);
	assert_int_equal(rec.u.sys.args[4], 0xffffffff);
	/* neither id nor path: the field is named */
	assert_int_equal(read_one("  a-1 [000] 1.5: mmap_lock_released: mm=1 "
				  "write=true\n",
				  &r, &rec),
			 -EINVAL);
	assert_non_null(strstr(r.err, "memcg_path="));
}

/* What trace-cmd report prints: no flags column unless -l, an optional
 * (TGID), the event name padded, up to nine decimals. */
static void test_trace_cmd_report(void **state)
{
	static const char text[] =
		"version = 7\n"
		"cpus=2\n"
		"CPU 1 is empty\n"
		"       tlb-churn-18258 [001] 55057.174131234: tlb_flush:      "
		"      pages:8 reason:remote IPI send (4)\r\n"
		"       tlb-churn-18258 (18256) [001] 55057.174131: sys_munmap "
		"-> 0xfffffffffffffff2\n"
		"          <idle>-0     [000] d..2. 55057.2: sched_wakeup:     "
		"    comm=a b pid=3 prio=1 target_cpu=001";
	struct trace_reader r;
	struct trace_record rec;

	trace_reader_init(&r, text, sizeof(text) - 1);
	assert_int_equal(trace_reader_next(&r, &rec), 1);
	assert_int_equal(r.line, 4);
	assert_int_equal(rec.ts, 55057174131234ull);
	assert_int_equal(rec.u.tlb.reason, 4);
	assert_int_equal(trace_reader_next(&r, &rec), 1);
	assert_int_equal(rec.pid, 18258);
	assert_int_equal(rec.u.sys.ret, (uint64_t)-14);
	assert_int_equal(trace_reader_next(&r, &rec), 1);
	assert_true(span_is(rec.comm, "<idle>"));
	assert_true(span_is(rec.u.wake.comm, "a b"));
	assert_int_equal(rec.ts, 55057200000000ull);
	assert_int_equal(trace_reader_next(&r, &rec), 0);
	assert_int_equal(r.events, 3);
}

static void test_lost_comments_unknown(void **state)
{
	static const char text[] =
		"# tracer: nop\n"
		"#\n"
		"\n"
		"  a-1 [000] 1.000001: sched_stat_runtime: comm=a pid=1 "
		"runtime=5\n"
		"CPU:1 [LOST 1234 EVENTS]\n"
		"  a-1 [000] 1.000002: irq_handler_entry: irq=5 name=x\n"
		"  a-1 [000] 1.000003: tlb_flush: pages:1 reason:2\n";
	struct trace_reader r;
	struct trace_record rec;

	trace_reader_init(&r, text, sizeof(text) - 1);
	assert_int_equal(trace_reader_next(&r, &rec), 1);
	assert_int_equal(rec.kind, TRACE_LINE_LOST);
	assert_int_equal(rec.cpu, 1);
	assert_int_equal(rec.lost, 1234);
	assert_int_equal(r.line, 5);
	assert_int_equal(trace_reader_next(&r, &rec), 1);
	assert_int_equal(rec.u.tlb.reason, 2);
	assert_int_equal(trace_reader_next(&r, &rec), 0);
	assert_int_equal(r.unknown, 2);
	assert_int_equal(trace_reader_next(&r, &rec), 0);
}

/* Malformed input: the error's line and byte. @p bad is line @p line of
 * @p text, which starts at byte @p line_start; the byte named must be in
 * that line. */
static void expect_error(const char *text, size_t len, uint64_t line,
			 size_t line_start, const char *what)
{
	struct trace_reader r;
	struct trace_record rec;
	int rc;

	trace_reader_init(&r, text, len);
	while ((rc = trace_reader_next(&r, &rec)) > 0)
		;
	if (rc != -EINVAL || r.err_line != line || !strstr(r.err, what))
		fail_msg("want line %llu '%s', got %d '%s'",
			 (unsigned long long)line, what, rc, r.err);
	assert_true(r.err_byte >= line_start && r.err_byte <= len);
	/* the error sticks */
	assert_int_equal(trace_reader_next(&r, &rec), -EINVAL);
}

/* fuzzed: a raw count at a slow rate is more nanoseconds than 64 bits
 * hold; the conversion was undefined behaviour (UBSan), now an error */
static void test_raw_clock_out_of_range(void **state)
{
	static const char ok[] = "# hvtlb-clock-mhz: 1000\n"
				 "  a-1 [000] 18446744073709551: tlb_flush: "
				 "pages:1 reason:2\n";
	static const char head[] = "# hvtlb-clock-mhz: 0.001\n";
	static const char bad[] = "# hvtlb-clock-mhz: 0.001\n"
				  "  a-1 [000] 18446744073709551: tlb_flush: "
				  "pages:1 reason:2\n";
	struct trace_reader r;
	struct trace_record rec;

	assert_int_equal(read_one(ok, &r, &rec), 1);
	assert_false(rec.ts_raw);
	/* at 1000 MHz a count is a nanosecond (to the double's 53 bits); at
	 * 0.001 MHz the same count is 10^6 times as many, past 2^64 */
	assert_true(rec.ts > 18446744073709000ull &&
		    rec.ts < 18446744073710000ull);
	expect_error(bad, strlen(bad), 2, strlen(head),
		     "out of range at this clock rate");
}

#define GOOD "  a-1 [000] 1.000001: tlb_flush: pages:1 reason:2\n"

static void test_malformed(void **state)
{
	static const struct {
		const char *bad, *what;
	} cases[] = {
		{ "  tlb-churn-18258   [001] d..2. 4910883", "TIMESTAMP" },
		{ "  tlb-churn-18258   [001", "no [CPU] column" },
		{ "  a-1 [000] 1.5: tlb_flush: pages:8x reason:2",
		  "bad number in 'pages:'" },
		{ "  a-1 [000] 1.5: tlb_flush: pages:18446744073709551616 "
		  "reason:2",
		  "out of range" },
		{ "  a-1 [000] 1.5: tlb_flush: pages:-2 reason:2",
		  "out of range" },
		{ "  a-1 [000] 1.5: tlb_flush: reason:2", "no 'pages:' field" },
		{ "  a-1 [000] 1.5: tlb_flush: pages:1", "no 'reason:' field" },
		{ "  a-1 [000] 1.5: tlb_flush: pages:1 reason:x (99999999999)",
		  "bad reason number" },
		{ "  a-99999999999 [000] 1.5: tlb_flush: pages:1 reason:2",
		  "bad pid" },
		{ "  a-1 [99999] 1.5: tlb_flush: pages:1 reason:2",
		  "CPU number" },
		{ "  a-1 [000] 99999999999999999999.5: tlb_flush: pages:1 "
		  "reason:2",
		  "bad timestamp" },
		{ "  a-1 [000] 18446744073.709551616: tlb_flush: pages:1 "
		  "reason:2",
		  "out of range" },
		{ "  a-1 [000] 1.0123456789: tlb_flush: pages:1 reason:2",
		  "fraction" },
		{ "  a-1 [000] 7: tlb_flush: pages:1 reason:2",
		  "another clock" },
		{ "  a-1 [000] 1.5: ipi_send_cpu: cpu=1 callsite=x",
		  "no 'callback=' field" },
		{ "  a-1 [000] 1.5: sched_switch: prev_comm=a prev_pid=1",
		  "no 'prev_prio=' field" },
		{ "  a-1 [000] 1.5: sched_switch: prev_comm=a prev_pid=1 "
		  "prev_prio=1 prev_state=S ==> next_pid=2",
		  "no 'next_comm=' field" },
		{ "  a-1 [000] 1.5: mmap_lock_released: mm=zz memcg_id=1 "
		  "write=true",
		  "bad hex" },
		{ "  a-1 [000] 1.5: mmap_lock_released: mm=1 memcg_id=1 "
		  "write=yes",
		  "neither true" },
		{ "  a-1 [000] 1.5: sys_munmap(addr: 0x1, len: 0x1000",
		  "without ')'" },
		{ "  a-1 [000] 1.5: sys_munmap(a: 1, b: 2, c: 3, d: 4, e: 5, "
		  "f: 6, g: 7)",
		  "more than 6" },
		{ "  a-1 [000] 1.5: sys_munmap -> banana",
		  "bad syscall return" },
		{ "  a-1 [000] 1.5 tlb_flush: pages:1 reason:2",
		  "bad timestamp" },
		{ "  a-1 [000] 1.5: tlb_flush pages:1 reason:2",
		  "no ':' after the event name" },
		{ "CPU:1 [LOST x EVENTS]", "LOST" },
		{ "CPU:1 [LOST 5 EVENTS] more", "text after" },
		{ "  -1 [000] 1.5: tlb_flush: pages:1 reason:2", "TASK-PID" },
	};
	char text[512];
	size_t n;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* two good lines, then the bad one, then a good one */
		n = (size_t)snprintf(text, sizeof(text), "%s%s%s\n%s", GOOD,
				     GOOD, cases[i].bad, GOOD);
		expect_error(text, n, 3, 2 * strlen(GOOD), cases[i].what);
	}
}

static void test_nul_and_truncated(void **state)
{
	char text[256];
	size_t n = (size_t)snprintf(text, sizeof(text), "%s%s", GOOD, GOOD);

	/* a NUL inside line 2: the error names that byte */
	text[strlen(GOOD) + 10] = 0;
	expect_error(text, n, 2, strlen(GOOD), "NUL byte");
	/* the buffer ends inside a number: no read past its length, even
	 * though the bytes after it in memory would complete it */
	n = (size_t)snprintf(text, sizeof(text), "%s%s", GOOD, GOOD);
	expect_error(text,
		     strlen(GOOD) + strlen("  a-1 [000] 1.000001: tlb_flush: "
					   "pages:1 reason:"),
		     2, strlen(GOOD), "unknown tlb_flush reason");
	/* a last line without a newline is read */
	{
		struct trace_reader r;
		struct trace_record rec;

		trace_reader_init(&r, text, n - 1);
		assert_int_equal(trace_reader_next(&r, &rec), 1);
		assert_int_equal(trace_reader_next(&r, &rec), 1);
		assert_int_equal(trace_reader_next(&r, &rec), 0);
		trace_reader_init(&r, text, 0);
		assert_int_equal(trace_reader_next(&r, &rec), 0);
	}
}

/* format: shootdowns delivered by IPI, paired as replay-check.h says */
static void test_pairing_ipi(void **state)
{
	static const char text[] =
		/* A: to CPUs 1 and 2 at 10 us; 1 done at 13, 2 at 16: 6 us */
		"  a-10 [000] d..1. 1.000010: ipi_send_cpumask: "
		"cpumask=00000000,00000006 "
		"callsite=on_each_cpu_cond_mask+0x20/0x30 "
		"callback=flush_tlb_func+0x0/0x1f0\n"
		"  a-10 [000] d..1. 1.000011: csd_function_exit: "
		"func=flush_tlb_func, csd=0000000000000000\n"
		"  b-11 [001] d.h1. 1.000013: csd_function_exit: "
		"func=flush_tlb_func, csd=ffff8880bbc3a1e0\n"
		/* B: to CPU 1 at 14 us, done at 15 */
		"  c-12 [003] d..1. 1.000014: ipi_send_cpu: cpu=1 callsite=x "
		"callback=flush_tlb_func\n"
		"  b-11 [001] d.h1. 1.000015: csd_function_exit: "
		"func=flush_tlb_func, csd=ffff8880bbc3a1e8\n"
		"  d-13 [002] d.h1. 1.000016: csd_function_exit: "
		"func=flush_tlb_func, csd=ffff8880bbc3a1f0\n"
		/* not a shootdown: another callback, another func */
		"  d-13 [002] d..1. 1.000017: ipi_send_cpu: cpu=1 callsite=x "
		"callback=0x0\n"
		"  b-11 [001] d.h1. 1.000018: csd_function_exit: "
		"func=do_sync_core, csd=ffff8880bbc3a1e0\n"
		/* C: opened, then a LOST line: unpaired */
		"  a-10 [000] d..1. 1.000020: ipi_send_cpu: cpu=1 callsite=x "
		"callback=flush_tlb_func\n"
		"CPU:1 [LOST 3 EVENTS]\n"
		/* its exit, now matching nothing */
		"  b-11 [001] d.h1. 1.000030: csd_function_exit: "
		"func=flush_tlb_func, csd=ffff8880bbc3a1e0\n"
		/* D: open at the end: unpaired */
		"  a-10 [000] d..1. 1.000040: ipi_send_cpu: cpu=1 callsite=x "
		"callback=flush_tlb_func\n"
		"  a-10 [000] d..1. 1.000041: tlb_flush: pages:-1 reason:4\n"
		"  a-10 [000] d..1. 1.000042: tlb_flush: pages:3 reason:4\n"
		"  a-10 [000] d..1. 1.000043: tlb_flush: pages:2 reason:77\n";
	struct replay_check c;

	assert_int_equal(replay_check_run(&c, text, sizeof(text) - 1), 0);
	assert_int_equal(c.source, REPLAY_SRC_IPI);
	assert_int_equal(c.shootdowns, 4);
	assert_int_equal(c.paired, 2);
	assert_int_equal(c.unpaired, 2);
	assert_int_equal(c.stray_exits, 1);
	assert_int_equal(c.nlatency, 2);
	assert_int_equal(c.latency[0], 1000);
	assert_int_equal(c.latency[1], 6000);
	assert_int_equal(replay_check_quantile(&c, 0.5), 1000);
	assert_int_equal(replay_check_quantile(&c, 0.99), 6000);
	assert_int_equal(c.lost_events, 3);
	assert_int_equal(c.threads, 4);
	assert_int_equal(c.nreasons, 2);
	assert_int_equal(c.reasons[0].flushes, 2);
	assert_int_equal(c.reasons[0].pages, 3);
	assert_int_equal(c.reasons[0].full, 1);
	assert_int_equal(c.reasons[1].reason, 77);
	replay_check_finish(&c);
}

/* format: a kernel with csd events but no ipi ones, then one with
 * neither (irq_vectors exits end the targets) */
static void test_pairing_fallbacks(void **state)
{
	static const char csd[] =
		"  a-10 [000] d..1. 5: csd_queue_cpu: cpu=1 callsite=s "
		"func=flush_tlb_func csd=1\n"
		"  a-10 [000] d..1. 6: csd_queue_cpu: cpu=2 callsite=s "
		"func=flush_tlb_func csd=2\n"
		"  b-11 [001] d.h1. 9: csd_function_exit: func=flush_tlb_func, "
		"csd=1\n"
		"  a-10 [000] d..1. 10: tlb_flush: pages:1 reason:4\n"
		"  a-10 [000] d..1. 11: csd_queue_cpu: cpu=1 callsite=s "
		"func=flush_tlb_func csd=1\n"
		"  c-12 [002] d.h1. 12: csd_function_exit: "
		"func=flush_tlb_func, csd=2\n"
		"  b-11 [001] d.h1. 20: csd_function_exit: "
		"func=flush_tlb_func, csd=1\n";
	static const char irq[] =
		"  a-10 [000] d..1. 5: csd_queue_cpu: cpu=1 callsite=s "
		"func=flush_tlb_func csd=1\n"
		"  b-11 [001] d.h1. 7: call_function_single_exit: vector=251\n";
	static const char early[] =
		"  a-10 [000] d..1. 1.000010: ipi_send_cpu: cpu=1 callsite=x "
		"callback=flush_tlb_func\n"
		"  b-11 [001] d.h1. 1.000009: csd_function_exit: "
		"func=flush_tlb_func, csd=1\n";
	struct replay_check c;

	assert_int_equal(replay_check_run(&c, csd, sizeof(csd) - 1), 0);
	assert_int_equal(c.source, REPLAY_SRC_CSD);
	assert_true(c.ts_raw);
	assert_int_equal(c.shootdowns, 2);
	assert_int_equal(c.paired, 2);
	assert_int_equal(c.latency[0], 7); /* 12 - 5 */
	assert_int_equal(c.latency[1], 9); /* 20 - 11 */
	replay_check_finish(&c);
	assert_int_equal(replay_check_run(&c, irq, sizeof(irq) - 1), 0);
	assert_int_equal(c.paired, 1);
	assert_int_equal(c.latency[0], 2);
	replay_check_finish(&c);
	/* an exit stamped before the start (clocks of two CPUs apart) does
	 * not finish it: no negative latency */
	assert_int_equal(replay_check_run(&c, early, sizeof(early) - 1), 0);
	assert_int_equal(c.paired, 0);
	assert_int_equal(c.stray_exits, 1);
	assert_int_equal(c.unpaired, 1);
	replay_check_finish(&c);
	assert_int_equal(replay_check_run(&c, "x\n", 2), -EINVAL);
	assert_non_null(strstr(c.err, "line 1 (byte 0)"));
	replay_check_finish(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tlb_flush),
		cmocka_unit_test(test_tlb_reason_forms),
		cmocka_unit_test(test_ipi_cpu_and_csd),
		cmocka_unit_test(test_ipi_mask_and_csd_queue),
		cmocka_unit_test(test_sched),
		cmocka_unit_test(test_mmap_lock_and_syscalls),
		cmocka_unit_test(test_linux_6_12_formats),
		cmocka_unit_test(test_raw_clock_out_of_range),
		cmocka_unit_test(test_trace_cmd_report),
		cmocka_unit_test(test_lost_comments_unknown),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_nul_and_truncated),
		cmocka_unit_test(test_pairing_ipi),
		cmocka_unit_test(test_pairing_fallbacks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
