/* SPDX-License-Identifier: MIT */
/* Small helpers for writing JSON to a FILE*: the caller writes the
 * punctuation, these write the values that need care. */
#ifndef HVTLB_TOOL_JSON_H
#define HVTLB_TOOL_JSON_H

#include <stdint.h>
#include <stdio.h>

/** Writes @p s as a quoted JSON string (escapes ", \ and control
 *  characters); NULL is written as null. */
void json_string(FILE *f, const char *s);
/** Writes "0x" and 16 lowercase hex digits, quoted. */
void json_hex64(FILE *f, uint64_t v);
/** Writes the set bits of bits[0 .. nbits) as a JSON array of numbers. */
void json_index_array(FILE *f, const uint64_t *bits, uint32_t nbits);

#endif
