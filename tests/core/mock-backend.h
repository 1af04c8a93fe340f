/* SPDX-License-Identifier: MIT */
/*
 * A cmocka backend for the strategy tests: the mocks sit in an ops table.
 * Actions append one token each to a log ("local 0 0x1000+4|ipi 1-3 ...|")
 * so a test asserts the exact ordered action list in one string; queries
 * (cpu_state, vp_index, hints, hypercall results, preempted bytes, CAS,
 * vmm_flush, lazy_post) answer with will_return values, so a query the
 * test did not expect fails it.
 */
#ifndef HVTLB_TEST_MOCK_BACKEND_H
#define HVTLB_TEST_MOCK_BACKEND_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hvtlb/core.h>

/* A hypercall result meaning "success, every rep" (computed). */
#define MOCK_ALL_REPS UINT64_MAX
#define MOCK_MAX_CALLS 32

struct mock_state {
	char log[16384];
	unsigned ncalls; /* hypercalls seen */
	uint64_t control[MOCK_MAX_CALLS];
	uint8_t input[MOCK_MAX_CALLS][HVTLB_PAGE_BYTES];
	size_t len[MOCK_MAX_CALLS];
};

static struct mock_state mock;

static void mock_reset(void)
{
	memset(&mock, 0, sizeof(mock));
}

__attribute__((format(printf, 1, 2))) static void mock_log(const char *fmt, ...)
{
	size_t n = strlen(mock.log);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(mock.log + n, sizeof(mock.log) - n, fmt, ap);
	va_end(ap);
	n = strlen(mock.log);
	if (n + 1 < sizeof(mock.log)) {
		mock.log[n] = '|';
		mock.log[n + 1] = '\0';
	}
}

/* "1-3,5" */
static const char *cpus_str(const struct hvtlb_cpumask *m)
{
	static char buf[4][512];
	static unsigned which;
	char *s = buf[which++ % 4];
	size_t n = 0;
	uint32_t cpu = hvtlb_cpumask_next(m, 0);

	s[0] = '\0';
	while (cpu < HVTLB_MAX_CPUS && n < 480) {
		uint32_t last = cpu;

		while (hvtlb_cpumask_test(m, last + 1))
			last++;
		n += (size_t)snprintf(s + n, 512 - n, n ? ",%u" : "%u", cpu);
		if (last != cpu)
			n += (size_t)snprintf(s + n, 512 - n, "-%u", last);
		cpu = hvtlb_cpumask_next(m, last + 1);
	}
	return s;
}

/* "all" or "0x1000+4" (start + stride pages) */
static const char *range_str(const struct hvtlb_flush_range *r)
{
	static char buf[4][64];
	static unsigned which;
	char *s = buf[which++ % 4];

	if (r->all)
		return "all";
	snprintf(s, 64, "0x%llx+%llu", (unsigned long long)r->start,
		 (unsigned long long)((r->end - r->start) >> r->stride_shift));
	return s;
}

static struct hvtlb_cpumask mask_of(const char *list)
{
	struct hvtlb_cpumask m = { { 0 } };
	char *end;

	while (*list) {
		unsigned long a = strtoul(list, &end, 10), b = a;

		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		for (unsigned long i = a; i <= b; i++)
			hvtlb_cpumask_set(&m, (uint32_t)i);
		list = *end == ',' ? end + 1 : end;
	}
	return m;
}

static void mock_local_flush(void *user, uint32_t cpu,
			     const struct hvtlb_flush_range *r)
{
	mock_log("local %u %s", cpu, range_str(r));
}

static void mock_send_ipis(void *user, const struct hvtlb_cpumask *targets,
			   const struct hvtlb_ipi_flush *f)
{
	mock_log("ipi %s %s%s", cpus_str(targets), range_str(&f->range),
		 f->early_ack ? " ack" : "");
}

static void mock_wait_acks(void *user, const struct hvtlb_cpumask *targets)
{
	mock_log("wait %s", cpus_str(targets));
}

static enum hvtlb_cpu_state mock_cpu_state(void *user, uint32_t cpu)
{
	return (enum hvtlb_cpu_state)mock_type(int);
}

static uint64_t mock_hypercall(void *user, uint64_t control, const void *input,
			       size_t len)
{
	uint64_t r = mock_type(uint64_t);
	unsigned i = mock.ncalls++;

	assert_true(i < MOCK_MAX_CALLS);
	assert_true(len <= HVTLB_PAGE_BYTES);
	mock.control[i] = control;
	memcpy(mock.input[i], input, len);
	mock.len[i] = len;
	mock_log("hc %s%s", hvtlb_call_name((uint16_t)control),
		 control & HVTLB_CTL_FAST ? " fast" : "");
	if (r == MOCK_ALL_REPS)
		r = hvtlb_result_pack(
			HVTLB_STATUS_SUCCESS,
			(uint16_t)((control & HVTLB_CTL_REP_COUNT_MASK) >>
				   HVTLB_CTL_REP_COUNT_SHIFT));
	return r;
}

static uint32_t mock_vp_index(void *user, uint32_t cpu)
{
	return mock_type(uint32_t);
}

static void mock_get_hints(void *user, struct hvtlb_hints *h)
{
	*h = *mock_ptr_type(const struct hvtlb_hints *);
}

static uint8_t mock_read_preempted(void *user, uint32_t cpu)
{
	return (uint8_t)mock_type(int);
}

static bool mock_cmpxchg(void *user, uint32_t cpu, uint8_t *expected,
			 uint8_t desired)
{
	bool won = mock_type(int);

	mock_log("cas %u 0x%x->0x%x%s", cpu, *expected, desired,
		 won ? "" : " lost");
	if (!won)
		*expected = 0;
	return won;
}

static void mock_broadcast(void *user, const struct hvtlb_flush_range *r)
{
	mock_log("bcast %s", range_str(r));
}

static void mock_broadcast_sync(void *user)
{
	mock_log("sync");
}

static int mock_vmm_flush(void *user, const struct hvtlb_cpumask *targets,
			  const struct hvtlb_flush_range *r)
{
	mock_log("vmm %s %s", cpus_str(targets), range_str(r));
	return mock_type(int);
}

static uint64_t mock_lazy_post(void *user, const struct hvtlb_cpumask *targets,
			       const struct hvtlb_flush_range *r)
{
	mock_log("lazy %s %s", cpus_str(targets), range_str(r));
	return mock_type(uint64_t);
}

static const struct hvtlb_backend_ops mock_ops = {
	.version = HVTLB_BACKEND_OPS_VERSION,
	.local_flush = mock_local_flush,
	.send_ipis = mock_send_ipis,
	.wait_acks = mock_wait_acks,
	.cpu_state = mock_cpu_state,
	.hypercall = mock_hypercall,
	.vp_index = mock_vp_index,
	.get_hints = mock_get_hints,
	.read_preempted = mock_read_preempted,
	.cmpxchg_preempted = mock_cmpxchg,
	.broadcast_invalidate = mock_broadcast,
	.broadcast_sync = mock_broadcast_sync,
	.vmm_flush = mock_vmm_flush,
	.lazy_post = mock_lazy_post,
};

#endif
