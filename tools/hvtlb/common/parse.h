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
/** A list like "0,5,64-127" into @p bits (nbits bits, zeroed first).
 *  -ERANGE for an index >= nbits, -EINVAL for syntax or a reversed range. */
int parse_index_list(const char *s, uint64_t *bits, uint32_t nbits);
/** A range of addresses as typed (parse_range()). */
struct parse_range {
	uint64_t start; /**< byte address */
	uint64_t end;	/**< START-END: byte address, exclusive */
	uint64_t pages; /**< START+PAGES: the count, >= 1; 0 for START-END */
	bool all;	/**< "all": nothing else is set */
};

/** The part of a range parse_range() refused, and where it is in the text. */
struct parse_range_error {
	enum {
		PARSE_RANGE_FORM, /**< neither START+PAGES, START-END nor all */
		PARSE_RANGE_START, /**< START */
		PARSE_RANGE_END,   /**< END */
		PARSE_RANGE_ORDER, /**< END below START (at, len: END) */
		PARSE_RANGE_PAGES, /**< PAGES, or 0 */
	} part;
	size_t at, len; /**< the part's characters in the text */
};

/**
 * "START+PAGES", "START-END" or "all" (the --range of every command).
 * START and END are byte addresses in hexadecimal, END exclusive and not
 * below START; 0x may be left out only where no one could read the number
 * as decimal: a number with a digit a-f, or a single digit. PAGES is a
 * count as parse_u64 reads it (decimal, or hexadecimal with 0x), at least
 * 1. Returns 0; -EINVAL for syntax, -ERANGE for a number past 64 bits,
 * -EDOM for an address of two or more digits 0-9 without 0x (one that
 * fits 64 bits as a decimal number); on error
 * @p err (if not NULL) says which part.
 */
int parse_range(const char *s, struct parse_range *r,
		struct parse_range_error *err);
/** The bytes [*start, *end) of a range that is not "all", with pages of
 *  1 << @p shift. -ERANGE when the end passes 2^64 - 1. */
int parse_range_bytes(const struct parse_range *r, unsigned shift,
		      uint64_t *start, uint64_t *end);
/** The first page's address and the page count of a range that is not
 *  "all", with pages of 1 << @p shift: START+PAGES as typed (a start
 *  inside a page spills into one more page at the end), START-END as the
 *  pages it touches. -EINVAL for an empty START-END. */
int parse_range_pages(const struct parse_range *r, unsigned shift,
		      uint64_t *gva, uint64_t *pages);
/** Hexadecimal words (with or without 0x) separated by commas and/or white
 *  space; '#' starts a comment that runs to the end of the line. A comma
 *  must stand between two words. An empty text gives 0 words. -E2BIG when
 *  there are more than @p max words. */
int parse_hex_words(const char *s, uint64_t *out, size_t max, size_t *count);
/** "4k", "2m", "1g" (any case) into a shift 12, 21 or 30. */
int parse_page_size(const char *s, unsigned *shift);

#endif
