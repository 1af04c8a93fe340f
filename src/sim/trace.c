// SPDX-License-Identifier: MIT
/* Tracing: the names of the simulator's trace event kinds, and the hooks
 * the engine calls when config.trace_fn is set (machine.h's TRACE()). */
#include <hvtlb/sim.h>

#include "sim/machine.h"

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

void sim_trace_emit(struct sim *s, enum hvtlb_sim_trace_kind k,
		    const struct vcpu *v, uint32_t thread, simtime start,
		    uint64_t a0, uint64_t a1)
{
	struct hvtlb_sim_trace_event e = {
		.kind = k,
		.vm = s->vm_base + v->vm,
		.vcpu = v->idx,
		.pcpu = v->hs == H_RUNNING ? s->pcpu_base + v->pcpu : TR_NONE,
		.thread = thread,
		.start = start,
		.dur = s->now - start,
		.arg0 = a0,
		.arg1 = a1,
	};

	s->c->trace_fn(s->c->trace_data, &e);
}

/* The shootdown @p req of task @p t, requested at @p t0, is complete. */
void sim_trace_shootdown(struct sim *s, struct task *t, simtime t0,
			 const struct hvtlb_flush_request *req,
			 const struct hvtlb_flush_outcome *out)
{
	const struct vcpu *v = &s->v[t->vcpu];
	uint32_t n = hvtlb_cpumask_weight(&req->targets);
	uint64_t what = 0;

	if (hvtlb_cpumask_test(&req->targets, v->idx))
		n--;
	what |= out->ipis ? HVTLB_SIM_TRACE_SD_IPI : 0;
	what |= out->hypercalls ? HVTLB_SIM_TRACE_SD_HYPERCALL : 0;
	what |= out->deferred ? HVTLB_SIM_TRACE_SD_DEFERRED : 0;
	what |= out->fell_back ? HVTLB_SIM_TRACE_SD_FELL_BACK : 0;
	what |= out->full_flush ? HVTLB_SIM_TRACE_SD_FULL : 0;
	what |= out->reuse_epoch ? HVTLB_SIM_TRACE_SD_LAZY : 0;
	sim_trace_emit(s, HVTLB_SIM_TRACE_SHOOTDOWN, v,
		       t->id % s->c->wl_threads, t0, n, what);
}

/* Tracing: the thread's mode in the trace becomes @p a; a USER/KERNEL
 * event closes when the mode changes. */
void sim_trace_mode(struct sim *s, struct task *t, enum acct a)
{
	if (t->tr_mode == a)
		return;
	if (t->tr_mode != ACCT_NONE && s->now > t->tr_since)
		sim_trace_emit(s,
			       t->tr_mode == ACCT_USER ? HVTLB_SIM_TRACE_USER
						       : HVTLB_SIM_TRACE_KERNEL,
			       &s->v[t->vcpu], t->id % s->c->wl_threads,
			       t->tr_since, 0, 0);
	t->tr_mode = (uint8_t)a;
	t->tr_since = s->now;
}
