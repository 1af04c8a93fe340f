// SPDX-License-Identifier: MIT
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

void *grow(void *v, size_t n, size_t *cap, size_t size, size_t first)
{
	size_t want;

	if (n < *cap)
		return v;
	if (!*cap)
		want = first;
	else if (*cap > SIZE_MAX / 2)
		return NULL;
	else
		want = 2 * *cap;
	if (!size || want > SIZE_MAX / size)
		return NULL;
	v = realloc(v, want * size);
	if (v)
		*cap = want;
	return v;
}
