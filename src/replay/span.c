// SPDX-License-Identifier: MIT
/* Numbers out of spans, with overflow checked (trace-private.h). */
#include <errno.h>

#include "trace-private.h"

static int digit(char c, int base)
{
	int d;

	if (c >= '0' && c <= '9')
		d = c - '0';
	else if (c >= 'a' && c <= 'f')
		d = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		d = c - 'A' + 10;
	else
		return -1;
	return d < base ? d : -1;
}

int trace_span_u64(struct trace_span *s, int base, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	int d;

	if (!base) {
		base = 10;
		if (s->len > 2 && s->p[0] == '0' &&
		    (s->p[1] == 'x' || s->p[1] == 'X') &&
		    digit(s->p[2], 16) >= 0) {
			base = 16;
			i = 2;
		}
	}
	if (i >= s->len || digit(s->p[i], base) < 0)
		return -EINVAL;
	for (; i < s->len && (d = digit(s->p[i], base)) >= 0; i++) {
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -ERANGE;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	s->p += i;
	s->len -= i;
	*out = v;
	return 0;
}

int trace_span_i64(struct trace_span *s, int64_t min, int64_t max, int64_t *out)
{
	struct trace_span t = *s;
	bool neg = span_skip(&t, "-");
	uint64_t v;
	int rc = trace_span_u64(&t, 10, &v);

	if (rc)
		return rc;
	/* -(min + 1) + 1 is |min| without overflowing int64_t. */
	if (neg ? v > (uint64_t)(-(min + 1)) + 1 : v > (uint64_t)max)
		return -ERANGE;
	*out = neg ? (v ? -(int64_t)(v - 1) - 1 : 0) : (int64_t)v;
	*s = t;
	return 0;
}
