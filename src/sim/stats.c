// SPDX-License-Identifier: MIT
/* Counters the engine keeps besides the tasks' times: VM exits by
 * reason, and the histogram of shootdown latencies. */
#include "sim/machine.h"
#include "sim/stats.h"

/* On bare metal (machine.bare_metal) nothing exits: a halt is an idle
 * state, an IPI an ICR write; their costs are the profile's. */
void count_exit(struct sim *s, const struct vcpu *v, enum hvtlb_sim_exit why,
		uint64_t n)
{
	if (s->c->bare_metal)
		return;
	TRACE(s, HVTLB_SIM_TRACE_EXIT, v, TR_NONE, s->now, why, n);
	s->r->vm_exits[why] += n;
	s->r->vm_exits_total += n;
}

void hist_add(struct sim *s, simtime c)
{
	hist_record(s->hist, c);
	if (c > s->lat_max)
		s->lat_max = c;
}
