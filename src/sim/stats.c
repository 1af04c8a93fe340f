// SPDX-License-Identifier: MIT
/* Counters the engine keeps besides the tasks' times: VM exits by
 * reason, the histogram of shootdown latencies, and flush targets by
 * their state at the post with their acknowledgement latencies. */
#include "sim/machine.h"
#include "sim/stats.h"

/* On bare metal (machine.bare_metal) nothing exits: a halt is an idle
 * state, an IPI an ICR write; their costs are the profile's. */
void sim_count_exit(struct sim *s, const struct vcpu *v,
		    enum hvtlb_sim_exit why, uint64_t n)
{
	if (s->c->bare_metal)
		return;
	TRACE(s, HVTLB_SIM_TRACE_EXIT, v, TR_NONE, s->now, why, n);
	s->r->vm_exits[why] += n;
	s->r->vm_exits_total += n;
}

void sim_hist_add(struct sim *s, simtime c)
{
	sim_hist_record(s->hist, c);
	if (c > s->lat_max)
		s->lat_max = c;
}

enum hvtlb_sim_target_state sim_target_posted(struct sim *s,
					      const struct vcpu *tv)
{
	enum hvtlb_sim_target_state st;

	if (tv->hs == H_RUNNING)
		st = tv->seg.busy_until > s->now ? HVTLB_SIM_TARGET_EXIT
						 : HVTLB_SIM_TARGET_RUNNING;
	else if (tv->hs == H_READY)
		st = HVTLB_SIM_TARGET_PREEMPTED;
	else
		st = HVTLB_SIM_TARGET_HALTED;
	s->r->targets[st].posted++;
	return st;
}

static void ack_record(struct sim *s, unsigned row, simtime c)
{
	sim_hist_record(s->thist + (size_t)row * HIST_BUCKETS, c);
	if (c > s->tmax[row])
		s->tmax[row] = c;
}

void sim_target_acked(struct sim *s, enum hvtlb_sim_target_state st, simtime c)
{
	ack_record(s, (unsigned)st, c);
}

void sim_ipi_acked(struct sim *s, enum hvtlb_sim_target_state st, simtime c)
{
	ack_record(s, (unsigned)st, c);
	ack_record(s, SIM_TARGET_IPI, c);
	s->r->ipi_acks.targets++;
}
