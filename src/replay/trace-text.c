// SPDX-License-Identifier: MIT
/*
 * The ftrace text reader (trace-text.h). A line looks like
 *
 *   TASK-PID [(TGID)] [CPU] [FLAGS] TIMESTAMP: EVENT: BODY
 *   tlb-churn-7699    [001] ...1. 54686.387990: tlb_flush: pages:8 reason:remote IPI send (4)
 *
 * The task's name may hold spaces and dashes, so the line is anchored on
 * the CPU column. FLAGS (irqs-off, need-resched, ...) is there in the
 * tracefs file and with trace-cmd report -l, not otherwise. TIMESTAMP is
 * seconds with a fraction for the time clocks, a bare count for x86-tsc
 * and counter. The text never names the event's system: it comes from
 * the table of known events. Syscall events print as "sys_munmap(addr:
 * 0x7f.., len: 0x1000)" and "sys_munmap -> 0x0".
 *
 * Every scan is bounded by the span it reads; nothing here reads past
 * the buffer's length or relies on a NUL.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "trace-text.h"
#include "trace-private.h"

static const struct {
	const char *sys, *name;
} events[] = {
#define TRACE_X_ROW(id, sys, name) { sys, name },
	TRACE_EVENT_MAP(TRACE_X_ROW)
#undef TRACE_X_ROW
};

const char *trace_event_system(enum trace_event ev)
{
	return (unsigned)ev < TRACE_EV_COUNT ? events[ev].sys : NULL;
}

const char *trace_event_name(enum trace_event ev)
{
	return (unsigned)ev < TRACE_EV_COUNT ? events[ev].name : NULL;
}

bool trace_mask_test(const uint64_t *mask, uint32_t cpu)
{
	return cpu < TRACE_MAX_CPUS && (mask[cpu / 64] >> (cpu % 64)) & 1;
}

bool trace_is_flush_func(struct trace_span s)
{
	static const char f[] = "flush_tlb_func";
	size_t n = sizeof(f) - 1;

	return s.len >= n && !memcmp(s.p, f, n) &&
	       (s.len == n || s.p[n] == '+');
}

void trace_reader_init(struct trace_reader *r, const char *buf, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->len = len;
}

/* Records "line N (byte B): ..." with B the offset of @p at in the
 * buffer; returns -EINVAL. */
int trace_fail(struct trace_reader *r, const char *at, const char *fmt, ...)
{
	va_list ap;
	size_t off = at ? (size_t)(at - r->buf) : r->pos;
	int n;

	r->err_line = r->line;
	r->err_byte = off;
	n = snprintf(r->err, sizeof(r->err),
		     "line %llu (byte %zu): ", (unsigned long long)r->line,
		     off);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(r->err))
		vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	va_end(ap);
	r->pos = r->len + 1; /* sticky: every later call fails */
	return -EINVAL;
}

/* "CPU:N [LOST M EVENTS]": the kernel overwrote or dropped M events of
 * CPU N's buffer here. */
static int parse_lost(struct trace_reader *r, struct trace_span l,
		      struct trace_record *rec)
{
	struct trace_span t = l;
	uint64_t cpu, lost;

	span_skip(&t, "CPU:");
	if (trace_span_u64(&t, 10, &cpu) || cpu >= TRACE_MAX_CPUS)
		return trace_fail(r, t.p, "bad CPU number in a LOST line");
	span_ws(&t);
	if (!span_skip(&t, "[LOST ") || trace_span_u64(&t, 10, &lost) ||
	    !span_skip(&t, " EVENTS]"))
		return trace_fail(r, t.p, "want CPU:N [LOST M EVENTS]");
	span_ws(&t);
	if (t.len)
		return trace_fail(r, t.p, "text after a LOST line");
	rec->kind = TRACE_LINE_LOST;
	rec->cpu = (uint32_t)cpu;
	rec->lost = lost;
	return 1;
}

/* trace-cmd report's own lines before the events. */
static bool is_header(struct trace_span l)
{
	static const char *const heads[] = { "cpus=", "version = ", "trace-cmd",
					     NULL };
	struct trace_span t = l;
	uint64_t cpu;

	for (size_t i = 0; heads[i]; i++)
		if (span_starts(l, heads[i]))
			return true;
	/* "CPU 3 is empty" */
	return span_skip(&t, "CPU ") && !trace_span_u64(&t, 10, &cpu) &&
	       span_skip(&t, " is empty") && !t.len;
}

/* "# hvtlb-clock-mhz: 2694.884": the rate of a raw clock (x86-tsc), in
 * MHz with up to 3 decimals, which the recording wrote (docs/replay.md).
 * Returns 0 (also for any other comment) or -EINVAL. */
static int clock_line(struct trace_reader *r, struct trace_span t)
{
	uint64_t mhz, frac = 0;
	struct trace_span f;
	size_t digits = 0;

	if (!span_skip(&t, "# hvtlb-clock-mhz:"))
		return 0;
	span_ws(&t);
	if (r->events)
		return trace_fail(r, t.p, "a clock rate after the first event");
	if (trace_span_u64(&t, 10, &mhz) || mhz > 1000000)
		return trace_fail(r, t.p,
				  "bad clock rate: want MHz, "
				  "e.g. 2694.884");
	if (span_skip(&t, ".")) {
		f = t;
		if (trace_span_u64(&t, 10, &frac) ||
		    (digits = f.len - t.len) > 3)
			return trace_fail(r, f.p,
					  "bad clock rate: at most 3 "
					  "decimals");
	}
	for (; digits < 3; digits++)
		frac *= 10;
	span_ws(&t);
	if (t.len || !(mhz * 1000 + frac))
		return trace_fail(r, t.p,
				  "bad clock rate: want MHz, "
				  "e.g. 2694.884");
	r->clock_khz = mhz * 1000 + frac;
	return 0;
}

/* The next line, without its newline and a trailing CR; false at the
 * end of the buffer. */
static bool next_line(struct trace_reader *r, struct trace_span *l)
{
	const char *nl;
	size_t left;

	if (r->pos >= r->len)
		return false;
	left = r->len - r->pos;
	l->p = r->buf + r->pos;
	nl = memchr(l->p, '\n', left);
	l->len = nl ? (size_t)(nl - l->p) : left;
	r->pos += l->len + (nl ? 1 : 0);
	r->line++;
	if (l->len && l->p[l->len - 1] == '\r')
		l->len--;
	return true;
}

int trace_reader_next(struct trace_reader *r, struct trace_record *rec)
{
	struct trace_span l, t;
	const char *nul;
	int rc;

	if (r->pos > r->len)
		return -EINVAL;
	while (next_line(r, &l)) {
		nul = memchr(l.p, 0, l.len);
		if (nul)
			return trace_fail(r, nul, "NUL byte in the line");
		t = l;
		span_ws(&t);
		if (t.len && t.p[0] == '#' && clock_line(r, t))
			return -EINVAL;
		if (!t.len || t.p[0] == '#' || is_header(t))
			continue;
		memset(rec, 0, sizeof(*rec));
		if (span_starts(t, "CPU:"))
			return parse_lost(r, t, rec);
		rc = trace_parse_event(r, t, rec);
		if (rc == 0) {
			r->unknown++;
			continue;
		}
		if (rc > 0)
			r->events++;
		return rc;
	}
	return 0;
}
