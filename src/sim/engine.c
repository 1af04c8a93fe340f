// SPDX-License-Identifier: MIT
/*
 * The simulation engine: a discrete-event simulation in virtual time.
 *
 * A task runs straight-line workload code (workloads/) and calls the real
 * strategies of src/core through hvtlb_flush(); the backend (backend.c,
 * hypervisor.c) charges virtual time by yielding to the engine, which
 * resumes the task when its vCPU has executed that many cycles on a pCPU.
 * Remote effects (IPIs, kicks, acknowledgements, wakeups, timers) are
 * events stamped in the future (event.c); this file pops them in order
 * and hands each to the part of the machine it belongs to. machine.h says
 * which file does what.
 *
 * Threads: one machine is simulated on one host thread. With
 * machine.partition every VM owns its own pCPUs, shares nothing with the
 * others and becomes a separate simulation ("part"); parts run on up to
 * `threads` host threads and are merged in VM order, so the result does
 * not depend on the thread count.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvtlb/sim.h>

#include "sim/engine.h"
#include "sim/gate.h"
#include "sim/guest.h"
#include "sim/host.h"
#include "sim/hypervisor.h"
#include "sim/lock.h"
#include "sim/machine.h"
#include "sim/stats.h"
#include "sim/workload.h"

void sim_slog(struct sim *s, enum hvtlb_sim_log_level lv, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	if (!s->c->log_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	s->c->log_fn(s->c->log_data, lv, buf);
}

/* Hands event @p e to the part of the machine it belongs to. */
static void dispatch(struct sim *s, const struct event *e)
{
	switch ((enum ev_kind)e->kind) {
	case EV_RUN:
		sim_host_on_run(s, e);
		return;
	case EV_SLICE:
		sim_host_on_slice(s, e);
		return;
	case EV_IPI:
		sim_guest_on_ipi(s, e);
		return;
	case EV_KICK:
		sim_hv_on_kick(s, e);
		return;
	case EV_WAKE:
		sim_host_on_wake(s, e);
		return;
	case EV_TIMER:
		sim_guest_on_timer(s, e);
		return;
	case EV_TICK:
		sim_guest_on_tick(s, e);
		return;
	case EV_ACK:
		sim_guest_on_ack(s, e);
		return;
	case EV_PLE:
		sim_host_on_ple(s, e);
		return;
	case EV_SPIN_END:
		sim_lock_on_spin_end(s, e);
		return;
	case EV_PVL_SPIN:
		sim_pvl_on_spin_end(s, e);
		return;
	case EV_IDLE_POLL:
		sim_guest_on_idle_poll(s, e);
		return;
	case EV_LONG_SPIN:
		sim_host_on_long_spin(s, e);
		return;
	case EV_SPAWN:
		sim_guest_on_spawn(s, e);
		return;
	case EV_BALANCE:
		sim_host_on_balance(s, e);
		return;
	case EV_KICK_YIELD:
		sim_host_on_kick_yield(s, e);
		return;
	}
}

struct part {
	const struct hvtlb_sim_config *c;
	uint32_t stream_base;
	uint32_t vm_base, pcpu_base; /* tracing: machine-wide numbering */
	uint32_t pcpus_total;
	int rc;
	struct hvtlb_sim_results *r;
	uint64_t hist[HIST_BUCKETS];
	simtime lat_max;
	simtime real, user, sys, sys_cons;
	simtime user_cons, ackw_cons;
	uint64_t *thist; /* taken from the part's struct sim */
	simtime tmax[SIM_TARGET_ROWS];
};

static void finish_part(struct sim *s, struct part *pt)
{
	for (uint32_t i = 0; i < s->ntasks; i++) {
		struct task *t = &s->t[i];

		if (t->done_at > pt->real)
			pt->real = t->done_at;
		pt->user += t->user;
		pt->sys += t->sys;
		pt->sys_cons += t->sys_cons;
		pt->user_cons += t->user_cons;
		pt->ackw_cons += t->ackw_cons;
	}
	memcpy(pt->hist, s->hist, sizeof(pt->hist));
	pt->lat_max = s->lat_max;
	pt->thist = s->thist;
	s->thist = NULL;
	memcpy(pt->tmax, s->tmax, sizeof(pt->tmax));
}

/* The VMs' co-running shares, up to the end of the run; false when out
 * of memory. */
static bool finish_corun(struct sim *s)
{
	struct hvtlb_sim_results *r = s->r;

	r->corun = calloc(s->c->vms, sizeof(*r->corun));
	if (!r->corun)
		return false;
	r->nvms = s->c->vms;
	for (uint32_t vm = 0; vm < s->c->vms; vm++) {
		const simtime *t = s->vmh[vm].corun;
		double all;

		sim_vm_corun_step(s, vm, 0);
		all = (double)(t[0] + t[1] + t[2]);
		if (all <= 0) {
			r->corun[vm].none = 1;
			continue;
		}
		r->corun[vm].none = (double)t[0] / all;
		r->corun[vm].some = (double)t[1] / all;
		r->corun[vm].all = (double)t[2] / all;
	}
	return true;
}

/* Runs the machine from time 0 until every task is done, the run failed
 * or it passed engine.max_virtual_s. */
static void run_events(struct sim *s)
{
	/* Each VM's workload creates its threads one after another, from
	 * time 0 (sim_workload_spawn_at()); each wakes a vCPU as it starts. */
	for (uint32_t i = 0; i < s->ntasks; i++)
		ev_push(s, sim_workload_spawn_at(s, &s->t[i]), EV_SPAWN, i, 0);
	while (evq_pending(&s->q) && s->tasks_left && !s->failed) {
		struct event e = evq_pop(&s->q);

		if (e.t > s->limit) {
			s->timed_out = true;
			break;
		}
		s->now = e.t;
		s->r->events++;
		if (e.kind > EV_KIND_MASK)
			sim_send_popped(s, &e);
		dispatch(s, &e);
		s->failed |= s->q.failed;
	}
	/* Tracing: the vCPUs still on a pCPU close their VCPU_RUN. */
	for (uint32_t i = 0; TRACING(s) && i < s->nvcpus; i++)
		if (s->v[i].hs == H_RUNNING)
			sim_trace_emit(s, HVTLB_SIM_TRACE_VCPU_RUN, &s->v[i],
				       TR_NONE, s->v[i].host.run_start, 2, 0);
}

/* The lazy strategy's waits and slot pools, at DEBUG level (the tests
 * read them). */
static void log_lazy(struct sim *s)
{
	uint32_t start = sim_workload_reserved_slots(s->c);

	sim_slog(
		s, HVTLB_SIM_LOG_DEBUG,
		"lazy: %llu ticks waited for a free slot, %llu for an epoch in "
		"madvise",
		(unsigned long long)s->slot_waits,
		(unsigned long long)s->epoch_waits);
	for (uint32_t i = 0; i < s->nmms; i++) {
		const struct mm *m = &s->mm[i];

		if (m->nslots != m->rbase + start)
			sim_slog(s, HVTLB_SIM_LOG_DEBUG,
				 "lazy: process %u grew from %u to %u slots",
				 m->id, m->rbase + start, m->nslots);
	}
}

static int run_part(struct part *pt)
{
	const struct hvtlb_sim_config *c = pt->c;
	struct sim *s;
	int rc;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->c = c;
	s->stream_base = pt->stream_base;
	s->vm_base = pt->vm_base;
	s->pcpu_base = pt->pcpu_base;
	s->pcpus_total = pt->pcpus_total;
	for (size_t i = 0; i < SIM_COST_COUNT; i++)
		s->cost[i] = c->cost[i];
	s->r = calloc(1, sizeof(*s->r));
	if (!s->r) {
		free(s);
		return -ENOMEM;
	}
	s->r->violation =
		calloc(c->max_violations + 1, sizeof(*s->r->violation));
	if (!s->r->violation) {
		rc = -ENOMEM;
		goto out;
	}
	rc = sim_setup(s);
	if (rc)
		goto out;
	run_events(s);
	if (s->c->strategy.kind == HVTLB_STRATEGY_LAZY)
		log_lazy(s);
	if (s->failed) {
		rc = s->fail_rc ? s->fail_rc : -EPROTO;
		sim_slog(s, HVTLB_SIM_LOG_ERROR, "simulation failed");
		goto out;
	}
	if (s->timed_out || s->tasks_left) {
		rc = -ETIME;
		sim_slog(s, HVTLB_SIM_LOG_ERROR,
			 "stopped at %.6f s virtual with %u tasks left",
			 cyc_to_s(s, s->now), s->tasks_left);
		goto out;
	}
	if (!finish_corun(s)) {
		rc = -ENOMEM;
		goto out;
	}
	finish_part(s, pt);
	pt->r = s->r;
	s->r = NULL;
out:
	sim_teardown(s);
	hvtlb_sim_results_destroy(s->r);
	free(s);
	return rc;
}

struct pool {
	struct part *parts;
	uint32_t n;
	uint32_t next; /* atomic */
};

static void *pool_worker(void *arg)
{
	struct pool *p = arg;
	uint32_t i;

	while ((i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->n)
		p->parts[i].rc = run_part(&p->parts[i]);
	return NULL;
}

/* Runs the parts on up to @p threads host threads. Which thread runs
 * which part does not matter: parts share nothing. */
static void run_parts(struct part *parts, uint32_t n, uint32_t threads)
{
	struct pool p = { parts, n, 0 };
	pthread_t tid[HVTLB_SIM_MAX_THREADS];
	uint32_t started = 0;

	if (threads > n)
		threads = n;
	for (uint32_t i = 1; i < threads; i++) {
		if (pthread_create(&tid[started], NULL, pool_worker, &p))
			break;
		started++;
	}
	pool_worker(&p);
	for (uint32_t i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
}

/* The parts' VMs in part order. */
static bool merge_corun(struct hvtlb_sim_results *r, const struct part *parts,
			uint32_t n)
{
	uint32_t total = 0, at = 0;
	struct hvtlb_sim_vm_corun *all;

	for (uint32_t k = 0; k < n; k++)
		total += parts[k].r->nvms;
	all = calloc(total, sizeof(*all));
	if (!all)
		return false;
	for (uint32_t k = 0; k < n; k++) {
		const struct hvtlb_sim_results *q = parts[k].r;

		for (uint32_t i = 0; i < q->nvms; i++)
			all[at++] = q->corun[i];
	}
	free(r->corun);
	r->corun = all;
	r->nvms = total;
	return true;
}

/* Adds part @p k (k > 0) to the result of part 0, which becomes the
 * merged one: the per-target ack histograms and maxima (in part 0's),
 * the recorded violations (up to the limit, tagged with the part's VM)
 * and every counter. */
static void merge_into_first(const struct hvtlb_sim_config *c,
			     struct part *parts, uint32_t k)
{
	struct hvtlb_sim_results *r = parts[0].r;
	const struct part *pt = &parts[k];
	const struct hvtlb_sim_results *q = pt->r;

	for (unsigned i = 0; i < SIM_TARGET_ROWS; i++) {
		uint64_t *h = parts[0].thist + (size_t)i * HIST_BUCKETS;
		const uint64_t *g = pt->thist + (size_t)i * HIST_BUCKETS;

		for (unsigned b = 0; b < HIST_BUCKETS; b++)
			h[b] += g[b];
		if (pt->tmax[i] > parts[0].tmax[i])
			parts[0].tmax[i] = pt->tmax[i];
		if (i < SIM_TARGET_IPI)
			r->targets[i].posted += pt->r->targets[i].posted;
	}
	for (int i = 0; i < HVTLB_SIM_TARGET_LOCK_COUNT_; i++)
		r->ipi_lock[i].posted += q->ipi_lock[i].posted;
	r->ipi_acks.targets += q->ipi_acks.targets;
	for (uint32_t i = 0; i < q->nrecorded; i++) {
		if (r->nrecorded < c->max_violations) {
			r->violation[r->nrecorded] = q->violation[i];
			r->violation[r->nrecorded++].vm = k;
		}
	}
	for (int i = 0; i < HVTLB_SIM_EXIT_COUNT_; i++)
		r->vm_exits[i] += q->vm_exits[i];
	for (int i = 0; i < HVTLB_SIM_FLUSH_COUNT_; i++)
		r->flushes[i] += q->flushes[i];
	for (int i = 0; i < HVTLB_SIM_IPI_COUNT_; i++)
		r->ipis[i] += q->ipis[i];
	for (int i = 0; i < HVTLB_SIM_IPI_DELIVERY_COUNT_; i++) {
		r->ipis_by_delivery[i] += q->ipis_by_delivery[i];
		r->ipi_exits[i] += q->ipi_exits[i];
	}
#define C_(field, group, key, label, metric) r->field += q->field;
#define S_(step)
	HVTLB_SIM_COUNTER_MAP(C_, S_)
#undef S_
#undef C_
}

/* The simulator's memory per vCPU (mem_per_vcpu_bytes): its state, TLB
 * and encoded request, and with the lazy strategy its lazy records. */
static size_t mem_per_vcpu(const struct hvtlb_sim_config *c)
{
	size_t vb = sizeof(struct vcpu) + sim_tlb_bytes(c) +
		    sizeof(struct hvtlb_encoded) + 64;

	if (c->strategy.kind == HVTLB_STRATEGY_LAZY)
		vb += ((size_t)c->cost[SIM_COST_lazy_slots] + 1) *
		      sizeof(struct lazy_rec);
	return vb;
}

/* Sums the parts in part order into one result. */
/* The acknowledgement p50 and p99 of @p n target rows @p t from the
 * merged histograms of @p pt, rows @p row0 on. */
static void ack_quantiles(struct hvtlb_sim_target_stats *t, int n,
			  const struct part *pt, unsigned row0, double mhz)
{
	for (int i = 0; i < n; i++) {
		unsigned row = row0 + (unsigned)i;
		const uint64_t *h = pt->thist + (size_t)row * HIST_BUCKETS;
		simtime mx = pt->tmax[row];

		t[i].ack_us_p50 = (double)sim_hist_quantile(h, mx, 0.50) / mhz;
		t[i].ack_us_p99 = (double)sim_hist_quantile(h, mx, 0.99) / mhz;
	}
}

/* results.ipi_acks from the IPI row @p h of the merged histograms. */
static void ipi_acks_finish(struct hvtlb_sim_results *r, const uint64_t *h,
			    simtime max, double mhz)
{
	r->ipi_acks.us_p50 = (double)sim_hist_quantile(h, max, 0.50) / mhz;
	r->ipi_acks.us_p99 = (double)sim_hist_quantile(h, max, 0.99) / mhz;
	r->ipi_acks.us_max = (double)max / mhz;
}

static struct hvtlb_sim_results *merge(const struct hvtlb_sim_config *c,
				       struct part *parts, uint32_t n)
{
	struct hvtlb_sim_results *r = parts[0].r;
	double mhz = c->cost[SIM_COST_cpu_mhz];
	simtime real = 0, user = 0, sys = 0, sys_cons = 0, lat_max = 0;
	simtime user_cons = 0, ackw_cons = 0;
	uint64_t *hist = calloc(HIST_BUCKETS, sizeof(*hist));

	if (!hist)
		return NULL;
	for (uint32_t k = 0; k < n; k++) {
		const struct part *pt = &parts[k];

		for (unsigned b = 0; b < HIST_BUCKETS; b++)
			hist[b] += pt->hist[b];
		if (pt->lat_max > lat_max)
			lat_max = pt->lat_max;
		if (pt->real > real)
			real = pt->real;
		user += pt->user;
		sys += pt->sys;
		sys_cons += pt->sys_cons;
		user_cons += pt->user_cons;
		ackw_cons += pt->ackw_cons;
		if (k)
			merge_into_first(c, parts, k);
	}
	if (n > 1 && !merge_corun(r, parts, n)) {
		free(hist);
		return NULL;
	}
	r->real_s = (double)real / (mhz * 1e6);
	r->user_s = (double)user / (mhz * 1e6);
	r->sys_s = (double)sys / (mhz * 1e6);
	r->sys_consumed_s = (double)sys_cons / (mhz * 1e6);
	r->latency_us_p50 =
		(double)sim_hist_quantile(hist, lat_max, 0.50) / mhz;
	r->latency_us_p99 =
		(double)sim_hist_quantile(hist, lat_max, 0.99) / mhz;
	r->latency_us_max = (double)lat_max / mhz;
	ack_quantiles(r->targets, HVTLB_SIM_TARGET_COUNT_, &parts[0], 0, mhz);
	ack_quantiles(r->ipi_lock, HVTLB_SIM_TARGET_LOCK_COUNT_, &parts[0],
		      SIM_TARGET_LOCK, mhz);
	ipi_acks_finish(r,
			parts[0].thist + (size_t)SIM_TARGET_IPI * HIST_BUCKETS,
			parts[0].tmax[SIM_TARGET_IPI], mhz);
	r->ack_wait_share =
		user_cons + sys_cons
			? (double)ackw_cons / (double)(user_cons + sys_cons)
			: 0;
	free(hist);
	r->mem_per_vcpu_bytes = mem_per_vcpu(c);
	r->seed = c->seed;
	r->threads = c->threads;
	r->strategy = c->strategy.kind;
	r->fault = c->fault;
	return r;
}

int hvtlb_sim_run(const struct hvtlb_sim_config *c,
		  struct hvtlb_sim_results **out)
{
	struct hvtlb_sim_config sub;
	struct sim_delivery how;
	struct part *parts;
	uint32_t n = 1;
	int rc;

	if (!c || !out)
		return -EINVAL;
	*out = NULL;
	rc = hvtlb_sim_config_validate(c, NULL);
	if (rc)
		return rc;
	sub = *c;
	sim_gate_apply(&sub, &how);
	if (c->partition && c->vms > 1) {
		/* Each VM alone on its share of the pCPUs: independent. */
		n = c->vms;
		sub.vms = 1;
		sub.pcpus = c->pcpus / c->vms;
	}
	parts = calloc(n, sizeof(*parts));
	if (!parts)
		return -ENOMEM;
	for (uint32_t k = 0; k < n; k++) {
		parts[k].c = &sub;
		parts[k].stream_base = k * c->wl_threads;
		parts[k].vm_base = k;
		parts[k].pcpu_base = k * sub.pcpus;
		parts[k].pcpus_total = c->pcpus;
	}
	run_parts(parts, n, c->threads);
	for (uint32_t k = 0; k < n && !rc; k++)
		rc = parts[k].rc;
	if (!rc) {
		*out = merge(c, parts, n);
		if (*out) {
			parts[0].r = NULL;
			(*out)->ipi_delivery = how.how;
			(*out)->ipi_delivery_origin = how.origin;
			(*out)->ipi_delivery_why = how.why;
		} else
			rc = -ENOMEM;
	}
	for (uint32_t k = 0; k < n; k++) {
		hvtlb_sim_results_destroy(parts[k].r);
		free(parts[k].thist);
	}
	free(parts);
	return rc;
}
