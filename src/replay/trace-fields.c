// SPDX-License-Identifier: MIT
/*
 * The bodies of the events the reader knows, as the kernel's print
 * formats (events/SYSTEM/NAME/format) write them: "key=value" pairs
 * (tlb_flush: "key:value"), names of kernel functions as %pS prints
 * them ("flush_tlb_func+0x0/0x1b0", or "0x0" for none), pointers in hex
 * without 0x. A missing or malformed field is an error naming it.
 */
#include <errno.h>

#include "trace-private.h"

static const struct {
	int32_t nr;
	const char *name, *text;
} reasons[] = {
#define TRACE_X_REASON(nr, name, text) { nr, name, text },
	TRACE_TLB_REASON_MAP(TRACE_X_REASON)
#undef TRACE_X_REASON
};

const char *trace_tlb_reason_name(int32_t reason)
{
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (reasons[i].nr == reason)
			return reasons[i].name;
	return NULL;
}

/* What follows @p key ("cpu=") in @p body, where the key starts the body
 * or follows a blank or a comma (so "cpu=" is not "target_cpu="). */
static bool field_find(struct trace_span body, const char *key,
		       struct trace_span *rest)
{
	size_t n = strlen(key);

	for (size_t i = 0; i + n <= body.len; i++) {
		if ((i && body.p[i - 1] != ' ' && body.p[i - 1] != ',') ||
		    memcmp(body.p + i, key, n))
			continue;
		*rest = (struct trace_span){ body.p + i + n, body.len - i - n };
		return true;
	}
	return false;
}

static int missing(struct trace_reader *r, struct trace_span body,
		   const char *key)
{
	return trace_fail(r, body.p, "no '%s' field", key);
}

/* A word-valued field: up to a blank or one of @p stops. */
static int field_until(struct trace_reader *r, struct trace_span body,
		       const char *key, const char *stops,
		       struct trace_span *out)
{
	struct trace_span rest;

	if (!field_find(body, key, &rest))
		return missing(r, body, key);
	*out = span_token(&rest, stops);
	return 0;
}

/* Up to a blank or a comma ("func=flush_tlb_func, csd=..."). */
static int field_word(struct trace_reader *r, struct trace_span body,
		      const char *key, struct trace_span *out)
{
	return field_until(r, body, key, ",", out);
}

/* A number field in [@p min, @p max]; base as trace_span_u64 (signed: 10). */
static int field_num(struct trace_reader *r, struct trace_span body,
		     const char *key, int base, int64_t min, int64_t max,
		     int64_t *out)
{
	struct trace_span v;
	uint64_t u;
	int rc;

	if (field_word(r, body, key, &v))
		return -EINVAL;
	if (base == 10 || min < 0) {
		rc = trace_span_i64(&v, min, max, out);
	} else {
		rc = trace_span_u64(&v, base, &u);
		if (!rc && u > (uint64_t)max)
			rc = -ERANGE;
		*out = (int64_t)u;
	}
	if (rc || v.len)
		return trace_fail(r, v.p, "bad number in '%s'%s", key,
				  rc == -ERANGE ? " (out of range)" : "");
	return 0;
}

/* Hex digits with or without a leading 0x, as trace_span_u64 consumes. */
static int span_hex(struct trace_span *v, uint64_t *out)
{
	if (v->len > 2 && v->p[0] == '0' &&
	    (v->p[1] == 'x' || v->p[1] == 'X')) {
		v->p += 2;
		v->len -= 2;
	}
	return trace_span_u64(v, 16, out);
}

/* A hex field that may take all 64 bits (pointers, masks). A pointer the
 * kernel withheld ("(____ptrval____)") is TRACE_PTR_HIDDEN. */
static int field_hex(struct trace_reader *r, struct trace_span body,
		     const char *key, uint64_t *out)
{
	struct trace_span v;

	if (field_word(r, body, key, &v))
		return -EINVAL;
	/* The kernel prints a bare hex word; libtraceevent (trace-cmd
	 * report, a trace.dat) prints %p as C does: 0x..., "(nil)". */
	if (span_eq(v, "(nil)")) {
		*out = 0;
		return 0;
	}
	if (span_eq(v, "(____ptrval____)")) {
		*out = TRACE_PTR_HIDDEN;
		return 0;
	}
	if (span_hex(&v, out) || v.len)
		return trace_fail(r, v.p, "bad hex number in '%s'", key);
	return 0;
}

static int field_bool(struct trace_reader *r, struct trace_span body,
		      const char *key, bool *out)
{
	struct trace_span v;

	if (field_word(r, body, key, &v))
		return -EINVAL;
	if (!span_eq(v, "true") && !span_eq(v, "false"))
		return trace_fail(r, v.p, "'%s' is neither true nor false",
				  key);
	*out = span_eq(v, "true");
	return 0;
}

/* A text field that may hold blanks (a task's name): from @p key to
 * @p next_key. */
static int field_text(struct trace_reader *r, struct trace_span body,
		      const char *key, const char *next_key,
		      struct trace_span *out)
{
	struct trace_span rest, after;

	if (!field_find(body, key, &rest))
		return missing(r, body, key);
	if (!field_find(rest, next_key, &after))
		return missing(r, rest, next_key);
	*out = (struct trace_span){ rest.p, (size_t)(after.p - rest.p) -
						    strlen(next_key) };
	span_rtrim(out);
	return 0;
}

/* "remote shootdown (1)" (the kernel's text and number), or a bare
 * TLB_* name, text, decimal or 0x number: kernels 6.14 to 6.18 print
 * TLB_REMOTE_WRONG_CPU as a number, and __print_symbolic prints any
 * reason it has no name for in hex. */
static int parse_reason(struct trace_reader *r, struct trace_span v,
			int32_t *out)
{
	struct trace_span num = v;
	size_t open;
	int64_t nr;
	uint64_t u;

	span_rtrim(&v);
	if (v.len && v.p[v.len - 1] == ')') {
		for (open = v.len; open && v.p[open - 1] != '('; open--)
			;
		num = (struct trace_span){ v.p + open, v.len - open - 1 };
		if (!open || trace_span_i64(&num, INT32_MIN, INT32_MAX, &nr) ||
		    num.len)
			return trace_fail(r, v.p, "bad reason number");
		*out = (int32_t)nr;
		return 0;
	}
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		if (span_eq(v, reasons[i].name) ||
		    span_eq(v, reasons[i].text)) {
			*out = reasons[i].nr;
			return 0;
		}
	}
	num = v;
	if (trace_span_u64(&num, 0, &u) || num.len || u > INT32_MAX)
		return trace_fail(r, v.p, "unknown tlb_flush reason '%.*s'",
				  (int)(v.len > 40 ? 40 : v.len), v.p);
	*out = (int32_t)u;
	return 0;
}

static int parse_tlb_flush(struct trace_reader *r, struct trace_span b,
			   struct trace_record *rec)
{
	struct trace_span v;
	int64_t pages;

	/* TLB_FLUSH_ALL (-1UL) prints as -1 through %ld. */
	if (field_num(r, b, "pages:", 10, -1, INT64_MAX, &pages))
		return -EINVAL;
	if (!field_find(b, "reason:", &v))
		return missing(r, b, "reason:");
	rec->u.tlb.pages = pages;
	return parse_reason(r, v, &rec->u.tlb.reason) ? -EINVAL : 1;
}

/* The value of a hex digit, or -1. */
static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * A cpumask as the kernel prints it (__get_cpumask(): "%*pb", a bitmap in
 * hexadecimal, most significant first, a comma between 32-bit groups:
 * "00000000,00000006" is CPUs 1 and 2). Read from its last digit, so bit
 * n is CPU n; a set bit at or past TRACE_MAX_CPUS is an error, leading
 * zeros of a wide mask are not.
 */
static int parse_cpumask(struct trace_reader *r, struct trace_span v,
			 uint64_t *mask)
{
	size_t nibble = 0;

	if (!v.len || v.p[0] == ',' || v.p[v.len - 1] == ',')
		return trace_fail(r, v.p, "bad cpumask");
	for (size_t i = v.len; i-- > 0;) {
		int d = hex_digit(v.p[i]);

		if (v.p[i] == ',' && v.p[i - 1] != ',')
			continue;
		if (d < 0)
			return trace_fail(r, v.p + i, "bad cpumask");
		for (unsigned b = 0; b < 4; b++) {
			size_t cpu = nibble * 4 + b;

			if (!((d >> b) & 1))
				continue;
			if (cpu >= TRACE_MAX_CPUS)
				return trace_fail(r, v.p + i,
						  "cpumask past CPU %d",
						  TRACE_MAX_CPUS - 1);
			mask[cpu / 64] |= 1ull << (cpu % 64);
		}
		nibble++;
	}
	return 0;
}

static int parse_ipi(struct trace_reader *r, struct trace_span b,
		     struct trace_record *rec)
{
	struct trace_span v;
	int64_t cpu;

	if (rec->event == TRACE_EV_IPI_SEND_CPU) {
		if (field_num(r, b, "cpu=", 10, 0, TRACE_MAX_CPUS - 1, &cpu))
			return -EINVAL;
		rec->u.ipi.mask[cpu / 64] |= 1ull << (cpu % 64);
	} else if (field_until(r, b, "cpumask=", "", &v) ||
		   parse_cpumask(r, v, rec->u.ipi.mask)) {
		return -EINVAL;
	}
	if (field_word(r, b, "callsite=", &rec->u.ipi.callsite) ||
	    field_word(r, b, "callback=", &rec->u.ipi.callback))
		return -EINVAL;
	return 1;
}

static int parse_csd(struct trace_reader *r, struct trace_span b,
		     struct trace_record *rec)
{
	int64_t cpu;

	if (rec->event == TRACE_EV_CSD_QUEUE_CPU) {
		if (field_num(r, b, "cpu=", 10, 0, TRACE_MAX_CPUS - 1, &cpu) ||
		    field_word(r, b, "callsite=", &rec->u.csd.callsite))
			return -EINVAL;
		rec->u.csd.cpu = (uint32_t)cpu;
	}
	if (field_word(r, b, "func=", &rec->u.csd.func) ||
	    field_hex(r, b, "csd=", &rec->u.csd.csd))
		return -EINVAL;
	return 1;
}

static int parse_sched_switch(struct trace_reader *r, struct trace_span b,
			      struct trace_record *rec)
{
	int64_t v[4];

	if (field_text(r, b, "prev_comm=", "prev_pid=", &rec->u.sw.prev_comm) ||
	    field_num(r, b, "prev_pid=", 10, 0, INT32_MAX, &v[0]) ||
	    field_num(r, b, "prev_prio=", 10, INT32_MIN, INT32_MAX, &v[1]) ||
	    field_word(r, b, "prev_state=", &rec->u.sw.prev_state) ||
	    field_text(r, b, "next_comm=", "next_pid=", &rec->u.sw.next_comm) ||
	    field_num(r, b, "next_pid=", 10, 0, INT32_MAX, &v[2]) ||
	    field_num(r, b, "next_prio=", 10, INT32_MIN, INT32_MAX, &v[3]))
		return -EINVAL;
	rec->u.sw.prev_pid = (int32_t)v[0];
	rec->u.sw.prev_prio = (int32_t)v[1];
	rec->u.sw.next_pid = (int32_t)v[2];
	rec->u.sw.next_prio = (int32_t)v[3];
	return 1;
}

static int parse_sched_wakeup(struct trace_reader *r, struct trace_span b,
			      struct trace_record *rec)
{
	int64_t v[3];

	if (field_text(r, b, "comm=", "pid=", &rec->u.wake.comm) ||
	    field_num(r, b, "pid=", 10, 0, INT32_MAX, &v[0]) ||
	    field_num(r, b, "prio=", 10, INT32_MIN, INT32_MAX, &v[1]) ||
	    field_num(r, b, "target_cpu=", 10, 0, TRACE_MAX_CPUS - 1, &v[2]))
		return -EINVAL;
	rec->u.wake.pid = (int32_t)v[0];
	rec->u.wake.prio = (int32_t)v[1];
	rec->u.wake.target_cpu = (uint32_t)v[2];
	return 1;
}

static int parse_mmap_lock(struct trace_reader *r, struct trace_span b,
			   struct trace_record *rec)
{
	struct trace_span rest, path;
	int64_t memcg = 0;

	/* Linux 6.13 prints the memory cgroup's id (memcg_id=); earlier
	 * kernels print its path (memcg_path=/...), which the replay does
	 * not use. */
	if (field_hex(r, b, "mm=", &rec->u.lock.mm))
		return -EINVAL;
	if (field_find(b, "memcg_id=", &rest)) {
		if (field_num(r, b, "memcg_id=", 10, 0, INT64_MAX, &memcg))
			return -EINVAL;
	} else if (field_text(r, b, "memcg_path=", "write=", &path)) {
		return -EINVAL;
	}
	if (field_bool(r, b, "write=", &rec->u.lock.write))
		return -EINVAL;
	rec->u.lock.memcg_id = (uint64_t)memcg;
	if (rec->event == TRACE_EV_MMAP_LOCK_ACQUIRE_RETURNED &&
	    field_bool(r, b, "success=", &rec->u.lock.success))
		return -EINVAL;
	return 1;
}

/* "(addr: 0x7f.., len: 0x1000)": up to six "name: value" arguments. */
static int parse_sys_enter(struct trace_reader *r, struct trace_span b,
			   struct trace_record *rec)
{
	span_skip(&b, "(");
	span_rtrim(&b);
	if (!b.len || b.p[b.len - 1] != ')')
		return trace_fail(r, b.p, "syscall arguments without ')'");
	b.len--;
	while (b.len) {
		span_token(&b, ":");
		if (!span_skip(&b, ":"))
			return trace_fail(
				r, b.p, "want 'name: value' in the arguments");
		span_ws(&b);
		if (rec->u.sys.nargs == 6)
			return trace_fail(r, b.p,
					  "more than 6 syscall arguments");
		/* Hex: Linux up to 6.17 prints each as %lx ("len: 2000"),
		 * 6.18 prints 0x%lx from 10 up ("len: 0x2000", "prot: 3"). */
		if (span_hex(&b, &rec->u.sys.args[rec->u.sys.nargs++]))
			return trace_fail(r, b.p, "bad syscall argument");
		if (b.len && !span_skip(&b, ", "))
			return trace_fail(r, b.p,
					  "want ', ' between arguments");
	}
	return 1;
}

static int parse_sys_exit(struct trace_reader *r, struct trace_span b,
			  struct trace_record *rec)
{
	span_skip(&b, "->");
	span_ws(&b);
	span_rtrim(&b);
	if (trace_span_u64(&b, 0, &rec->u.sys.ret) || b.len)
		return trace_fail(r, b.p, "bad syscall return value");
	return 1;
}

static int parse_vector(struct trace_reader *r, struct trace_span b,
			struct trace_record *rec)
{
	int64_t v;

	if (field_num(r, b, "vector=", 10, INT32_MIN, INT32_MAX, &v))
		return -EINVAL;
	rec->u.irq.vector = (int32_t)v;
	return 1;
}

int trace_parse_body(struct trace_reader *r, struct trace_span b,
		     struct trace_record *rec)
{
	switch (rec->event) {
	case TRACE_EV_TLB_FLUSH:
		return parse_tlb_flush(r, b, rec);
	case TRACE_EV_IPI_SEND_CPUMASK:
	case TRACE_EV_IPI_SEND_CPU:
		return parse_ipi(r, b, rec);
	case TRACE_EV_CSD_QUEUE_CPU:
	case TRACE_EV_CSD_FUNCTION_ENTRY:
	case TRACE_EV_CSD_FUNCTION_EXIT:
		return parse_csd(r, b, rec);
	case TRACE_EV_SCHED_SWITCH:
		return parse_sched_switch(r, b, rec);
	case TRACE_EV_SCHED_WAKEUP:
		return parse_sched_wakeup(r, b, rec);
	case TRACE_EV_MMAP_LOCK_START_LOCKING:
	case TRACE_EV_MMAP_LOCK_ACQUIRE_RETURNED:
	case TRACE_EV_MMAP_LOCK_RELEASED:
		return parse_mmap_lock(r, b, rec);
	case TRACE_EV_SYS_ENTER:
		return parse_sys_enter(r, b, rec);
	case TRACE_EV_SYS_EXIT:
		return parse_sys_exit(r, b, rec);
	default:
		return parse_vector(r, b, rec);
	}
}
