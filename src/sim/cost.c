// SPDX-License-Identifier: MIT
/* The cost parameters' table (cost.h's list) and its accessors. */
#include <hvtlb/sim.h>

#include "sim/cost.h"

_Static_assert(SIM_COST_COUNT <= HVTLB_SIM_COST_SLOTS, "too many costs");

static const struct {
	const char *name;
	double def;
	const char *unit;
	const char *source;
} cost_table[] = {
#define HVTLB_X_(n, d, u, s) { #n, d, u, s },
	HVTLB_SIM_COST_MAP(HVTLB_X_)
#undef HVTLB_X_
};

size_t hvtlb_sim_cost_count(void)
{
	return SIM_COST_COUNT;
}

const char *hvtlb_sim_cost_name(size_t i)
{
	return i < SIM_COST_COUNT ? cost_table[i].name : NULL;
}

const char *hvtlb_sim_cost_unit(size_t i)
{
	return i < SIM_COST_COUNT ? cost_table[i].unit : NULL;
}

const char *hvtlb_sim_cost_source(size_t i)
{
	return i < SIM_COST_COUNT ? cost_table[i].source : NULL;
}

double hvtlb_sim_cost_default(size_t i)
{
	return i < SIM_COST_COUNT ? cost_table[i].def : 0;
}
