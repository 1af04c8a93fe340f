/* SPDX-License-Identifier: MIT */
/* Writing a cost profile whose measured lines replace a base profile's. */
#ifndef KVMVMM_PROFILE_H
#define KVMVMM_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** One measured cost. */
struct kvmvmm_profile_line {
	const char *key; /**< cost name, as in the profile ("vmexit") */
	uint64_t value;
	/** The range; lo == hi writes an exact value (no range), which the
	 *  source must then justify. Otherwise lo < hi and lo <= value <= hi
	 *  (kvmvmm_profile_write() refuses anything else). */
	uint64_t lo, hi;
	const char *source; /**< the text after "source: ", one line */
};

/**
 * Writes a profile to @p out: @p header (written as is; may be NULL),
 * then every line of @p base with each `KEY = ...` line whose KEY is in
 * @p lines replaced by `KEY = VALUE ; range LO..HI ; source: SOURCE`, then
 * the lines of @p lines the base did not have. Blank, '#' and other lines
 * of the base are copied unchanged. @p base may be NULL (no base).
 *
 * Returns 0; -EINVAL for a line that breaks the rules above (a key or a
 * source with a newline, a reversed or empty range, a value outside it, a
 * key twice in @p lines); -E2BIG for a base line longer than 4095 bytes;
 * -EIO when reading or writing fails. Nothing is written for -EINVAL.
 */
int kvmvmm_profile_write(FILE *out, FILE *base, const char *header,
			 const struct kvmvmm_profile_line *lines, size_t n);

#endif
