// SPDX-License-Identifier: MIT
/* Names of the simulator's trace event kinds (the hooks are in engine.c). */
#include <hvtlb/sim.h>

static const char *const kind_names[] = {
#define HVTLB_X_(n, s, c) s,
	HVTLB_SIM_TRACE_MAP(HVTLB_X_)
#undef HVTLB_X_
};

static const bool kind_complete[] = {
#define HVTLB_X_(n, s, c) c,
	HVTLB_SIM_TRACE_MAP(HVTLB_X_)
#undef HVTLB_X_
};

const char *hvtlb_sim_trace_kind_name(enum hvtlb_sim_trace_kind k)
{
	return (unsigned)k < HVTLB_SIM_TRACE_COUNT_ ? kind_names[k] : NULL;
}

bool hvtlb_sim_trace_kind_is_complete(enum hvtlb_sim_trace_kind k)
{
	return (unsigned)k < HVTLB_SIM_TRACE_COUNT_ && kind_complete[k];
}
