// SPDX-License-Identifier: MIT
/* The cost parameters' table (cost.h's list) and its accessors. */
#include <errno.h>

#include <hvtlb/sim.h>

#include "sim/cost.h"

_Static_assert(SIM_COST_COUNT <= HVTLB_SIM_COST_SLOTS, "too many costs");

enum cost_dist { DIST_EXACT, DIST_UNIFORM, DIST_LOG };

static const struct {
	const char *name;
	double def, lo, hi;
	enum cost_dist dist;
	const char *unit;
	const char *source;
} cost_table[] = {
#define HVTLB_X_(n, d, lo, hi, dist, u, s) { #n, d, lo, hi, DIST_##dist, u, s },
	HVTLB_SIM_COST_TABLE(HVTLB_X_)
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

int hvtlb_sim_cost_range(size_t i, double *lo, double *hi, bool *log_uniform)
{
	if (i >= SIM_COST_COUNT)
		return -ENOENT;
	if (lo)
		*lo = cost_table[i].lo;
	if (hi)
		*hi = cost_table[i].hi;
	if (log_uniform)
		*log_uniform = cost_table[i].dist == DIST_LOG;
	return 0;
}

bool hvtlb_sim_cost_used(const struct hvtlb_sim_config *c, size_t i)
{
	if (!c || i >= SIM_COST_COUNT)
		return false;
	switch ((enum sim_cost)i) {
	case SIM_COST_line_transfer:
	case SIM_COST_lru_lock_page:
	case SIM_COST_zone_lock_page:
	case SIM_COST_pcp_batch:
	case SIM_COST_lru_batch:
		return c->contention;
	case SIM_COST_line_transfer_socket:
		return c->contention && c->sockets > 1;
	case SIM_COST_copy_page:
		return c->workload == HVTLB_SIM_WORKLOAD_EBIZZY ||
		       c->workload == HVTLB_SIM_WORKLOAD_TLB_FLUSH1;
	default:
		return true;
	}
}
