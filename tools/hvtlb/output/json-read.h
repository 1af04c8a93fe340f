/* SPDX-License-Identifier: MIT */
/*
 * A small JSON reader (RFC 8259) for what the tool reads back: `hvtlb
 * encode --json` output piped into `hvtlb decode -`, and the JSON lines
 * of `hvtlb sweep --shard` joined by `hvtlb sweep --merge`. It builds a
 * tree in one allocation; numbers keep their text, so that a number read
 * back prints exactly as it was written. Strings are unescaped (\uXXXX
 * into UTF-8; a lone surrogate is an error). Depth is limited to
 * JSON_MAX_DEPTH; input is never read past @p len.
 *
 * Thread rules: a tree belongs to one thread; nothing here prints.
 */
#ifndef HVTLB_TOOL_JSON_READ_H
#define HVTLB_TOOL_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 32

enum json_type {
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT
};

struct json_value {
	enum json_type type;
	bool boolean;
	/** JSON_STRING: the unescaped text; JSON_NUMBER: the number as
	 *  written; an object member's value also has its name in @key. */
	const char *text;
	const char *key;
	/** JSON_ARRAY / JSON_OBJECT: the elements (members in order). */
	struct json_value *child;
	size_t n;
};

/** A parsed document: json_parse() fills it, json_free() frees it. */
struct json_doc {
	struct json_value *root;
	void *mem;
};

/**
 * Parses @p len bytes at @p text: one JSON value with only white space
 * around it. Returns 0, or -EINVAL (syntax; @p err gets "offset N: what")
 * / -ENOMEM.
 */
int json_parse(struct json_doc *d, const char *text, size_t len, char *err,
	       size_t errlen);

void json_free(struct json_doc *d);

/** The member @p key of object @p v, or NULL (also when @p v is not an
 *  object). */
const struct json_value *json_get(const struct json_value *v, const char *key);

/** A JSON_NUMBER that is a whole number in 0..UINT64_MAX: 0, else -EINVAL
 *  / -ERANGE. */
int json_u64(const struct json_value *v, uint64_t *out);

#endif
