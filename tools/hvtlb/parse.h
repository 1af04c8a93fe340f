/* SPDX-License-Identifier: MIT */
/* Strict parsers for the command line and scenario files. Each returns 0 or
 * a negative errno and writes its output only on success. */
#ifndef HVTLB_TOOL_PARSE_H
#define HVTLB_TOOL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Decimal, or hexadecimal with 0x. No sign, no spaces, no trailing text.
 *  -EINVAL for syntax, -ERANGE for overflow. */
int parse_u64(const char *s, uint64_t *out);
/** Hexadecimal with or without 0x. */
int parse_hex_u64(const char *s, uint64_t *out);
/** parse_u64 with an inclusive upper bound (-ERANGE above it). */
int parse_u64_max(const char *s, uint64_t max, uint64_t *out);
/** 0/1/true/false/yes/no/on/off. */
int parse_bool(const char *s, bool *out);
/** A list like "0,5,64-127" into @p bits (nbits bits, zeroed first).
 *  -ERANGE for an index >= nbits, -EINVAL for syntax or a reversed range. */
int parse_index_list(const char *s, uint64_t *bits, uint32_t nbits);
/** "GVA+PAGES": GVA in hexadecimal (with or without 0x), PAGES as for
 *  parse_u64 and not 0. */
int parse_gva_range(const char *s, uint64_t *gva, uint64_t *pages);
/** Hexadecimal words (with or without 0x) separated by commas and/or white
 *  space; '#' starts a comment that runs to the end of the line. A comma
 *  must stand between two words. An empty text gives 0 words. -E2BIG when
 *  there are more than @p max words. */
int parse_hex_words(const char *s, uint64_t *out, size_t max, size_t *count);
/** "4k", "2m", "1g" (any case) into a shift 12, 21 or 30. */
int parse_page_size(const char *s, unsigned *shift);

#endif
