// SPDX-License-Identifier: MIT
/*
 * What every workload does: the per-thread loop over the workload's
 * operations (workload.iterations of them), and the operations they share:
 * touching a mapping, user-space work, a random sleep.
 */
#include <stdlib.h>

#include "sim/guest.h"
#include "sim/machine.h"
#include "sim/mm.h"
#include "sim/workload.h"

void sim_touch(struct task *t, uint32_t slot, enum hvtlb_sim_touch how,
	       uint32_t count)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	uint64_t va = slot_va(m, slot);
	simtime user = 0, sys = 0;

	for (uint32_t rep = 0; rep < s->c->wl_touch_repeat; rep++) {
		switch (how) {
		case HVTLB_SIM_TOUCH_NONE:
			break;
		case HVTLB_SIM_TOUCH_FIRST:
			sim_t_touch(t, va, &user, &sys);
			break;
		case HVTLB_SIM_TOUCH_ALL:
			for (uint32_t i = 0; i < m->pages; i++)
				sim_t_touch(t, va + ((uint64_t)i << m->shift),
					    &user, &sys);
			break;
		case HVTLB_SIM_TOUCH_RANDOM:
			for (uint32_t i = 0; i < count; i++) {
				uint64_t p = sim_rng_below(&t->rng, m->pages);

				sim_t_touch(t, va + (p << m->shift), &user,
					    &sys);
			}
			break;
		}
	}
	sim_t_work(t, sys, ACCT_SYS);
	sim_t_work(t, user, ACCT_USER);
}

void sim_user_work(struct task *t)
{
	struct sim *s = t->s;

	sim_t_work(t,
		   cyc(s, SIM_COST_user_op) +
			   us_to_cyc(s, (double)s->c->wl_user_ns / 1000.0),
		   ACCT_USER);
}

void sim_maybe_sleep(struct task *t)
{
	struct sim *s = t->s;

	if (!s->c->wl_sleep_ns_max)
		return;
	uint64_t ns = sim_rng_below(&t->rng, s->c->wl_sleep_ns_max + 1);

	if (ns)
		sim_sleep_timer(s, t, us_to_cyc(s, (double)ns / 1000.0));
}

static const struct sim_workload *const workloads[] = {
#define WORKLOAD_X_(n, s) [HVTLB_SIM_WORKLOAD_##n] = &sim_workload_##n,
	HVTLB_SIM_WORKLOAD_MAP(WORKLOAD_X_)
#undef WORKLOAD_X_
};
_Static_assert(sizeof(workloads) / sizeof(workloads[0]) ==
		       HVTLB_SIM_WORKLOAD_COUNT_,
	       "one entry per workload.kind");

uint32_t sim_workload_shared_slots(const struct hvtlb_sim_config *c)
{
	uint32_t n = workloads[c->workload]->shared_slots;

	return c->wl_shared && !n ? 1 : n;
}

uint32_t sim_workload_slot_pages(const struct hvtlb_sim_config *c)
{
	return c->wl_pages + workloads[c->workload]->extra_pages;
}

uint32_t sim_workload_reserved_slots(const struct hvtlb_sim_config *c)
{
	const struct sim_workload *w = workloads[c->workload];

	return w->reserved_slots ? w->reserved_slots(c) : 0;
}

uint32_t sim_workload_process(const struct hvtlb_sim_config *c, uint32_t k)
{
	const struct sim_workload *w = workloads[c->workload];

	return w->process ? w->process(c, k) : k % c->wl_processes;
}

uint32_t sim_workload_threads_per_process(const struct hvtlb_sim_config *c)
{
	uint32_t most = 0, *n;

	if (!workloads[c->workload]->process)
		return (c->wl_threads + c->wl_processes - 1) / c->wl_processes;
	n = calloc(c->wl_processes, sizeof(*n));
	if (!n) /* every thread in one process: an upper bound */
		return c->wl_threads;
	for (uint32_t k = 0; k < c->wl_threads; k++) {
		uint32_t p = sim_workload_process(c, k);

		if (p < c->wl_processes && ++n[p] > most)
			most = n[p];
	}
	free(n);
	return most;
}

/* Whether thread @p t runs operation @p i: workload.iterations of them,
 * or, with workload.duration_s, as many as start before that time. */
static bool more(const struct sim_workload *w, struct task *t, uint64_t i)
{
	struct sim *s = t->s;

	if (s->failed)
		return false;
	if (w->ops)
		return i < w->ops(t);
	if (s->c->wl_duration_s > 0)
		return s->now < us_to_cyc(s, s->c->wl_duration_s * 1e6);
	return i < s->c->wl_iterations;
}

/* The body of task @p t: its workload's operations, then exit. */
void sim_workload_run(struct task *t)
{
	struct sim *s = t->s;
	const struct sim_workload *w = workloads[s->c->workload];
	bool shared = sim_workload_shared_slots(s->c) > 0;
	uint32_t own = NONE_ID;

	if (w->own_slot) {
		if (shared && !w->never_shared)
			own = 0; /* the process's shared mapping, slot 0 */
		else
			sim_do_mmap(t, &own);
	}
	for (uint64_t i = 0; more(w, t, i); i++) {
		if (s->c->wl_kernel_pages)
			sim_kernel_op(t);
		w->op(t, &own, i);
		s->r->ops++;
	}
	if (own != NONE_ID && (!shared || w->never_shared))
		sim_do_munmap(t, own);
	if (t->debt)
		sim_t_work(t, 0, ACCT_SYS);
}
