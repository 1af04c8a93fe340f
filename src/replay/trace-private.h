/* SPDX-License-Identifier: MIT */
/*
 * Inside the text reader: bounded scanning of spans, and the seams
 * between the line reader (trace-text.c), the event line's columns
 * (trace-line.c) and the event bodies (trace-fields.c).
 */
#ifndef HVTLB_REPLAY_TRACE_PRIVATE_H
#define HVTLB_REPLAY_TRACE_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "trace-text.h"

/** Records the error at @p at (NULL: the line's start); -EINVAL. */
int trace_fail(struct trace_reader *r, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** Reads an event line: 1 a record, 0 an event the reader skips,
 *  -EINVAL an error. */
int trace_parse_event(struct trace_reader *r, struct trace_span l,
		      struct trace_record *rec);

/** Reads the body of a known event into rec->u: 1, or -EINVAL. */
int trace_parse_body(struct trace_reader *r, struct trace_span body,
		     struct trace_record *rec);

static inline bool span_starts(struct trace_span s, const char *lit)
{
	size_t n = strlen(lit);

	return s.len >= n && !memcmp(s.p, lit, n);
}

/* Consumes @p lit at the start of @p s; false (s unchanged) otherwise. */
static inline bool span_skip(struct trace_span *s, const char *lit)
{
	size_t n = strlen(lit);

	if (s->len < n || memcmp(s->p, lit, n))
		return false;
	s->p += n;
	s->len -= n;
	return true;
}

static inline void span_ws(struct trace_span *s)
{
	while (s->len && (s->p[0] == ' ' || s->p[0] == '\t')) {
		s->p++;
		s->len--;
	}
}

static inline void span_rtrim(struct trace_span *s)
{
	while (s->len && (s->p[s->len - 1] == ' ' || s->p[s->len - 1] == '\t'))
		s->len--;
}

static inline bool span_eq(struct trace_span s, const char *lit)
{
	return s.len == strlen(lit) && !memcmp(s.p, lit, s.len);
}

/* Splits off the first token of @p s, up to a space, tab or one of
 * @p stops; s keeps the rest. */
static inline struct trace_span span_token(struct trace_span *s,
					   const char *stops)
{
	struct trace_span t = { s->p, 0 };

	while (t.len < s->len && s->p[t.len] != ' ' && s->p[t.len] != '\t' &&
	       !strchr(stops, s->p[t.len]))
		t.len++;
	s->p += t.len;
	s->len -= t.len;
	return t;
}

/**
 * Reads an unsigned number at the start of @p s in @p base (10 or 16;
 * 0: "0x" means hex, else decimal) and consumes it. Returns 0, -EINVAL
 * without a digit, -ERANGE past 2^64-1.
 */
int trace_span_u64(struct trace_span *s, int base, uint64_t *out);

/** A signed decimal ("-1") into [@p min, @p max]; 0 or negative errno. */
int trace_span_i64(struct trace_span *s, int64_t min, int64_t max,
		   int64_t *out);

#endif
