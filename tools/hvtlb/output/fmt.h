/* SPDX-License-Identifier: MIT */
/* Text output for people: compact index lists and the hypercall wire
 * format, one annotated line per 64-bit word. */
#ifndef HVTLB_TOOL_FMT_H
#define HVTLB_TOOL_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** Writes the set bits of bits[0 .. nbits) as "0,5,64-127" ("none" when
 *  empty). */
void fmt_index_list(FILE *f, const uint64_t *bits, uint32_t nbits);

/** Writes the fields of a control word, one "  name  value" line each. */
void fmt_control(FILE *f, uint64_t control);

/**
 * Writes @p n input words of the call named by @p control, one per line:
 * "input[i] 0x<16 digits>  <field>". The layout comes from the call code,
 * the variable header size, the rep count and the flags word; words the
 * call does not use are marked "unused". Fast calls also name the register
 * each word travels in.
 */
void fmt_input_words(FILE *f, uint64_t control, const uint64_t *w, size_t n);

/** The short name of a page size in bytes ("4k", "2m", "1g"), or NULL. */
const char *fmt_page_size_name(uint64_t bytes);

#endif
