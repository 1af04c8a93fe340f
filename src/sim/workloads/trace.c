// SPDX-License-Identifier: MIT
/*
 * A recorded kernel trace, replayed (workload.kind = trace): guest thread
 * k runs the steps of the script's thread k % nthreads (config.wl_script,
 * made by the tool from the trace: docs/replay.md says what is mapped to
 * what). A COMPUTE step is user work on the CPU, a SLEEP step a timed
 * sleep, and each flush step the thread's own mapping touched over the
 * flushed range and then zapped and flushed with it, as madvise(DONTNEED)
 * does: the trace says which calls flushed and how many pages, not which
 * pages the thread had touched (docs/model.md, "Replayed traces").
 */
#include "sim/guest.h"
#include "sim/machine.h"
#include "sim/mm.h"
#include "sim/workload.h"

static const struct hvtlb_sim_script_thread *script_thread(const struct task *t)
{
	const struct hvtlb_sim_config *c = t->s->c;
	const struct hvtlb_sim_script *sc = c->wl_script;

	return &sc->threads[(t->id % c->wl_threads) % sc->nthreads];
}

static uint32_t trace_process(const struct hvtlb_sim_config *c, uint32_t k)
{
	const struct hvtlb_sim_script *sc = c->wl_script;

	return sc->threads[k % sc->nthreads].process;
}

static uint64_t trace_ops(const struct task *t)
{
	return script_thread(t)->nsteps;
}

/* Touches pages [0, n) of the slot, then zaps and flushes them. */
static void trace_flush(struct task *t, uint32_t slot, uint32_t pages)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	uint32_t n = pages && pages < m->pages ? pages : m->pages;
	uint64_t va = slot_va(m, slot);
	simtime user = 0, sys = 0;

	for (uint32_t i = 0; i < n; i++)
		sim_t_touch(t, va + ((uint64_t)i << m->shift), &user, &sys);
	sim_t_work(t, sys, ACCT_SYS);
	sim_t_work(t, user, ACCT_USER);
	sim_do_madvise_range(t, slot, 0, n);
}

static void trace_op(struct task *t, uint32_t *own, uint64_t i)
{
	const struct hvtlb_sim_script_thread *th = script_thread(t);
	const struct hvtlb_sim_step *st;
	struct sim *s = t->s;

	if (i >= th->nsteps)
		return;
	st = &th->steps[i];
	switch (st->kind) {
	case HVTLB_SIM_STEP_COMPUTE:
		sim_t_work(t, us_to_cyc(s, (double)st->ns / 1000.0), ACCT_USER);
		break;
	case HVTLB_SIM_STEP_SLEEP:
		if (st->ns)
			sim_sleep_timer(s, t,
					us_to_cyc(s, (double)st->ns / 1000.0));
		break;
	default:
		trace_flush(t, *own, st->pages);
		break;
	}
}

bool sim_trace_script_ok(const struct hvtlb_sim_script *sc)
{
	if (!sc || !sc->nthreads || !sc->threads)
		return false;
	for (uint32_t k = 0; k < sc->nthreads; k++) {
		const struct hvtlb_sim_script_thread *th = &sc->threads[k];

		if (th->nsteps && !th->steps)
			return false;
		for (uint64_t i = 0; i < th->nsteps; i++)
			if ((unsigned)th->steps[i].kind >=
				    HVTLB_SIM_STEP_KIND_COUNT_ ||
			    th->steps[i].ns > 3600ull * 1000000000ull)
				return false;
	}
	return true;
}

uint32_t sim_trace_script_processes(const struct hvtlb_sim_script *sc)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < sc->nthreads; k++)
		if (sc->threads[k].process >= n)
			n = sc->threads[k].process + 1;
	return n;
}

const struct sim_workload sim_workload_TRACE = {
	.own_slot = true,
	.never_shared = true,
	.op = trace_op,
	.ops = trace_ops,
	.process = trace_process,
};
