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

enum hvtlb_sim_target_lock sim_target_lock(struct sim *s, const struct vcpu *tv)
{
	const struct vcpu_pvl *p = &tv->pvl;
	enum hvtlb_sim_target_lock lk;

	if (p->phase == PVL_WAIT || p->phase == PVL_KICKED)
		lk = HVTLB_SIM_TARGET_LOCK_HALTED;
	else if (p->phase == PVL_SPIN || p->phase == PVL_STEAL)
		lk = HVTLB_SIM_TARGET_LOCK_SPINNING;
	else if (sim_pvl_irqs_off(p))
		lk = HVTLB_SIM_TARGET_LOCK_HOLDING;
	else
		lk = HVTLB_SIM_TARGET_LOCK_NONE;
	s->r->ipi_lock[lk].posted++;
	return lk;
}

void sim_ipi_acked(struct sim *s, enum hvtlb_sim_target_state st,
		   enum hvtlb_sim_target_lock lk, simtime c)
{
	ack_record(s, (unsigned)st, c);
	ack_record(s, SIM_TARGET_IPI, c);
	ack_record(s, SIM_TARGET_LOCK + (unsigned)lk, c);
	s->r->ipi_acks.targets++;
}
