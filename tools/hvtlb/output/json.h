/* SPDX-License-Identifier: MIT */
/* Small helpers for writing JSON to a FILE*: the caller writes the
 * punctuation, these write the values that need care. */
#ifndef HVTLB_TOOL_JSON_H
#define HVTLB_TOOL_JSON_H

#include <stdint.h>
#include <stdio.h>

/* The version of each document's shape, its "schema" (docs/json.md and
 * docs/json/NAME.schema.json): raised when a member changes meaning or
 * goes away, not when one is added. */
#define ENCODE_JSON_SCHEMA 1
#define DECODE_JSON_SCHEMA 1
#define PLAN_JSON_SCHEMA 1
#define KEYS_JSON_SCHEMA 1
#define SCENARIOS_JSON_SCHEMA 1
#define SIM_JSON_SCHEMA 1
#define SWEEP_SHARD_JSON_SCHEMA 1
#define REPRODUCE_JSON_SCHEMA 1
#define SENSITIVITY_JSON_SCHEMA 1
#define VALIDATE_JSON_SCHEMA 1
#define REPLAY_JSON_SCHEMA 1

/** Writes @p s as a quoted JSON string (escapes ", \ and control
 *  characters); NULL is written as null. */
void json_string(FILE *f, const char *s);
/** Writes "0x" and 16 lowercase hex digits, quoted. */
void json_hex64(FILE *f, uint64_t v);
/** Writes the members every document hvtlb prints starts with, without
 *  braces or a trailing comma: "schema":@p schema, the version of the
 *  document's shape, and "hvtlb":{"version":...,"commit":...}, what built
 *  the tool (docs/json.md, "Every document"). */
void json_meta(FILE *f, int schema);
/** Writes the set bits of bits[0 .. nbits) as a JSON array of numbers. */
void json_index_array(FILE *f, const uint64_t *bits, uint32_t nbits);

#endif
