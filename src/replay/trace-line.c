// SPDX-License-Identifier: MIT
/*
 * The columns of an event line, before its body (trace-text.c says the
 * layout): task, pid, optional (TGID), [CPU], optional flags, the
 * timestamp, the event's name.
 */
#include <errno.h>

#include "trace-private.h"

static const char *const names[] = {
#define TRACE_X_NAME(id, sys, name) name,
	TRACE_EVENT_MAP(TRACE_X_NAME)
#undef TRACE_X_NAME
};

/* Whether @p l has a CPU column "[digits]" at @p i, after a blank. */
static bool cpu_column_at(struct trace_span l, size_t i)
{
	size_t j = i + 1;

	if (!i || (l.p[i - 1] != ' ' && l.p[i - 1] != '\t'))
		return false;
	while (j < l.len && l.p[j] >= '0' && l.p[j] <= '9')
		j++;
	return j > i + 1 && j < l.len && l.p[j] == ']';
}

/* TASK-PID [(TGID)] before the CPU column at @p head. */
static int parse_task(struct trace_reader *r, struct trace_span head,
		      struct trace_record *rec)
{
	struct trace_span t;
	size_t dash;
	int64_t pid;

	span_rtrim(&head);
	if (head.len && head.p[head.len - 1] == ')') {
		while (head.len && head.p[head.len - 1] != '(')
			head.len--;
		if (!head.len)
			return trace_fail(
				r, head.p,
				"')' without '(' before the CPU column");
		head.len--;
		span_rtrim(&head);
	}
	for (dash = head.len; dash && head.p[dash - 1] != '-'; dash--)
		;
	if (!dash || dash == 1)
		return trace_fail(r, head.p,
				  "want TASK-PID before the CPU column");
	t = (struct trace_span){ head.p + dash, head.len - dash };
	if (trace_span_i64(&t, 0, INT32_MAX, &pid) || t.len)
		return trace_fail(r, head.p + dash, "bad pid");
	rec->comm = (struct trace_span){ head.p, dash - 1 };
	rec->pid = (int32_t)pid;
	return 0;
}

/* "54686.387990" (seconds, up to 9 decimals) or "123456789" (raw). */
static int parse_ts(struct trace_reader *r, struct trace_span t,
		    struct trace_record *rec)
{
	const char *start = t.p;
	struct trace_span f;
	uint64_t sec, frac = 0;
	size_t digits;
	int kind;

	if (trace_span_u64(&t, 10, &sec))
		return trace_fail(r, t.p, "bad timestamp");
	kind = 2;
	if (span_skip(&t, ".")) {
		f = t;
		if (trace_span_u64(&t, 10, &frac) ||
		    (digits = f.len - t.len) > 9)
			return trace_fail(r, f.p, "bad timestamp fraction");
		for (; digits < 9; digits++)
			frac *= 10;
		if (sec > (UINT64_MAX - frac) / 1000000000u)
			return trace_fail(r, f.p, "timestamp out of range");
		sec = sec * 1000000000u + frac;
		kind = 1;
	}
	if (t.len)
		return trace_fail(r, t.p, "bad timestamp");
	if (r->clock_kind && r->clock_kind != kind)
		return trace_fail(r, t.p,
				  "timestamp in another clock's format than "
				  "the lines before");
	r->clock_kind = kind;
	rec->ts = sec;
	rec->ts_raw = kind == 2;
	if (rec->ts_raw && r->clock_khz) { /* counts at a known rate: ns */
		double ns = (double)sec * 1e6 / (double)r->clock_khz;

		/* a slow rate makes a large count more nanoseconds than
		 * 64 bits hold (2^64 is exact as a double) */
		if (ns >= 18446744073709551616.0)
			return trace_fail(r, start,
					  "timestamp out of range at this "
					  "clock rate");
		rec->ts = (uint64_t)ns;
		rec->ts_raw = false;
	}
	return 0;
}

/* The event's name and body; 0 for an event the reader skips. */
static int parse_name(struct trace_reader *r, struct trace_span t,
		      struct trace_record *rec)
{
	struct trace_span name = span_token(&t, ":(");
	size_t i;

	if (!name.len)
		return trace_fail(r, t.p, "no event name");
	if (span_starts(name, "sys_") && name.len > 4) {
		rec->u.sys.name =
			(struct trace_span){ name.p + 4, name.len - 4 };
		if (t.len && t.p[0] == '(') {
			rec->event = TRACE_EV_SYS_ENTER;
			return trace_parse_body(r, t, rec);
		}
		span_ws(&t);
		if (span_starts(t, "->")) {
			rec->event = TRACE_EV_SYS_EXIT;
			return trace_parse_body(r, t, rec);
		}
	}
	if (!span_skip(&t, ":"))
		return trace_fail(r, t.p, "no ':' after the event name");
	for (i = 0; i < TRACE_EV_SYS_ENTER; i++)
		if (span_eq(name, names[i]))
			break;
	if (i == TRACE_EV_SYS_ENTER)
		return 0;
	rec->event = (enum trace_event)i;
	span_ws(&t);
	span_rtrim(&t);
	return trace_parse_body(r, t, rec);
}

int trace_parse_event(struct trace_reader *r, struct trace_span l,
		      struct trace_record *rec)
{
	struct trace_span t, tok;
	uint64_t cpu;
	size_t i;
	int rc;

	for (i = 0; i < l.len; i++)
		if (l.p[i] == '[' && cpu_column_at(l, i))
			break;
	if (i == l.len)
		return trace_fail(r, l.p, "not an event line: no [CPU] column");
	rc = parse_task(r, (struct trace_span){ l.p, i }, rec);
	if (rc)
		return rc;
	t = (struct trace_span){ l.p + i + 1, l.len - i - 1 };
	if (trace_span_u64(&t, 10, &cpu) || cpu >= TRACE_MAX_CPUS)
		return trace_fail(r, t.p, "CPU number past %d",
				  TRACE_MAX_CPUS - 1);
	rec->cpu = (uint32_t)cpu;
	span_skip(&t, "]");
	span_ws(&t);
	tok = span_token(&t, "");
	if (!tok.len || tok.p[tok.len - 1] != ':') {
		/* the flags column ("d..2.") comes first */
		if (tok.len > 8)
			return trace_fail(
				r, tok.p,
				"want flags or a timestamp after the CPU");
		span_ws(&t);
		tok = span_token(&t, "");
	}
	if (!tok.len || tok.p[tok.len - 1] != ':')
		return trace_fail(r, tok.p, "want 'TIMESTAMP:'");
	tok.len--;
	rc = parse_ts(r, tok, rec);
	if (rc)
		return rc;
	span_ws(&t);
	rec->kind = TRACE_LINE_EVENT;
	return parse_name(r, t, rec);
}
