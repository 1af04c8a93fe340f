/* SPDX-License-Identifier: MIT */
/*
 * A simulated machine built by sim_setup() and not started, for the tests
 * that drive the engine's parts by hand (every vCPU halted, every pCPU
 * idle, time 0). Include after <cmocka.h>, "sim/engine.h",
 * "sim/machine.h" and "sim-test.h".
 */
#ifndef HVTLB_TESTS_SIM_RIG_H
#define HVTLB_TESTS_SIM_RIG_H

#include <stdlib.h>

struct rig {
	struct hvtlb_sim_config c;
	struct sim s;
};

/* A machine from the "key=value" pairs @p kv (cfg_apply()). */
static inline struct rig *rig_new(const char *const *kv)
{
	struct rig *g = calloc(1, sizeof(*g));

	assert_non_null(g);
	cfg_apply(&g->c, kv);
	g->s.c = &g->c;
	for (size_t i = 0; i < SIM_COST_COUNT; i++)
		g->s.cost[i] = g->c.cost[i];
	g->s.r = calloc(1, sizeof(*g->s.r));
	assert_non_null(g->s.r);
	assert_int_equal(sim_setup(&g->s), 0);
	return g;
}

static inline void rig_free(struct rig *g)
{
	sim_teardown(&g->s);
	free(g->s.r);
	free(g);
}

#endif
