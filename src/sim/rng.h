/* SPDX-License-Identifier: MIT */
/* Deterministic random numbers for the simulator: splitmix64 seeding a
 * xoshiro256** stream. One stream per simulated entity; never global. */
#ifndef HVTLB_SIM_RNG_H
#define HVTLB_SIM_RNG_H

#include <stdint.h>

struct sim_rng {
	uint64_t s[4];
};

/** Seeds @p r from (@p seed, @p stream): distinct streams never overlap
 *  in practice, whatever the thread that uses them. */
void sim_rng_init(struct sim_rng *r, uint64_t seed, uint64_t stream);
uint64_t sim_rng_next(struct sim_rng *r);
/** Uniform in [0, bound), bound > 0, without modulo bias. */
uint64_t sim_rng_below(struct sim_rng *r, uint64_t bound);

#endif
