/* SPDX-License-Identifier: MIT */
/*
 * The tool's growing arrays (scenario settings, validation cases, draws'
 * parameters, merged lines, JSON arrays): room for one more element by
 * doubling the capacity, so that adding n elements costs O(n) copies.
 *
 * Thread rules: none of its own; an array belongs to its caller.
 */
#ifndef HVTLB_TOOL_GROW_H
#define HVTLB_TOOL_GROW_H

#include <stddef.h>

/**
 * Room for element @p n of the array @p v (@p n used, *@p cap allocated,
 * each @p size bytes): @p v itself while @p n < *@p cap, else @p v
 * reallocated to twice *@p cap elements (@p first when *@p cap is 0) with
 * *@p cap updated. Returns NULL, with @p v and *@p cap unchanged, when
 * the memory cannot be had or its size would overflow a size_t.
 */
void *grow(void *v, size_t n, size_t *cap, size_t size, size_t first);

#endif
