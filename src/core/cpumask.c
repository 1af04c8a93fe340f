// SPDX-License-Identifier: MIT
#include <hvtlb/core.h>

uint32_t hvtlb_cpumask_weight(const struct hvtlb_cpumask *m)
{
	uint32_t n = 0;

	for (unsigned i = 0; i < HVTLB_MAX_CPUS / 64; i++)
		n += (uint32_t)__builtin_popcountll(m->bits[i]);
	return n;
}

uint32_t hvtlb_cpumask_next(const struct hvtlb_cpumask *m, uint32_t from)
{
	if (from >= HVTLB_MAX_CPUS)
		return HVTLB_MAX_CPUS;

	unsigned i = from / 64;
	uint64_t w = m->bits[i] & (~0ULL << (from % 64));

	for (;;) {
		if (w)
			return i * 64 + (uint32_t)__builtin_ctzll(w);
		if (++i == HVTLB_MAX_CPUS / 64)
			return HVTLB_MAX_CPUS;
		w = m->bits[i];
	}
}
