// SPDX-License-Identifier: MIT
#include "core/core-private.h"

uint32_t core_cpumask_weight_n(const struct hvtlb_cpumask *m, uint32_t n)
{
	uint32_t words = (n + 63) / 64, weight = 0;

	/* Most words are empty: without a popcount instruction each
	 * __builtin_popcountll is a libgcc call, so skip them. */
	for (uint32_t i = 0; i < words && i < HVTLB_MAX_CPUS / 64; i++)
		if (m->bits[i])
			weight += (uint32_t)__builtin_popcountll(m->bits[i]);
	return weight;
}

uint32_t core_cpumask_next_n(const struct hvtlb_cpumask *m, uint32_t from,
			     uint32_t n)
{
	uint32_t words, i, cpu;
	uint64_t w;

	if (n > HVTLB_MAX_CPUS)
		n = HVTLB_MAX_CPUS;
	if (from >= n)
		return HVTLB_MAX_CPUS;
	words = (n + 63) / 64;
	i = from / 64;
	w = m->bits[i] & (~0ULL << (from % 64));
	while (!w) {
		/* A sparse mask of a large VM: skip empty words four at a
		 * time. */
		i++;
		while (i + 4 <= words && !(m->bits[i] | m->bits[i + 1] |
					   m->bits[i + 2] | m->bits[i + 3]))
			i += 4;
		if (i == words)
			return HVTLB_MAX_CPUS;
		w = m->bits[i];
	}
	cpu = i * 64 + (uint32_t)__builtin_ctzll(w);
	return cpu < n ? cpu : HVTLB_MAX_CPUS;
}

uint32_t hvtlb_cpumask_weight(const struct hvtlb_cpumask *m)
{
	return core_cpumask_weight_n(m, HVTLB_MAX_CPUS);
}

uint32_t hvtlb_cpumask_next(const struct hvtlb_cpumask *m, uint32_t from)
{
	return core_cpumask_next_n(m, from, HVTLB_MAX_CPUS);
}
