// SPDX-License-Identifier: MIT
/* Building a machine (struct sim) from its config, and freeing it. */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "sim/backend.h"
#include "sim/contention.h"
#include "sim/engine.h"
#include "sim/guest.h"
#include "sim/host.h"
#include "sim/hypervisor.h"
#include "sim/machine.h"
#include "sim/oracle.h"
#include "sim/workload.h"

/* Coroutine stacks are registered with valgrind when its header exists
 * (client requests cost a few instructions outside valgrind): without it,
 * valgrind takes a switch to a stack mapped near a thread's own stack for
 * a huge frame and reports false errors. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define HAVE_VALGRIND 1
#endif
#endif

/* A task's stack (the deepest path measured: 8.5 KiB) above a PROT_NONE
 * guard page, so an overflow faults instead of corrupting a neighbour. */
#define STACK_BYTES (64u * 1024u)
#define STACK_GUARD 4096u

/* The object arrays, and workload.kernel_pages' per-VM free lists. */
static int setup_arrays(struct sim *s)
{
	const struct hvtlb_sim_config *c = s->c;

	s->nvcpus = c->vms * c->vcpus;
	s->npcpus = c->pcpus;
	s->ntasks = c->vms * c->wl_threads;
	s->nmms = c->vms * c->wl_processes;
	s->v = calloc(s->nvcpus, sizeof(*s->v));
	s->p = calloc(s->npcpus, sizeof(*s->p));
	s->t = calloc(s->ntasks, sizeof(*s->t));
	s->mm = calloc(s->nmms, sizeof(*s->mm));
	s->vmh = calloc(c->vms, sizeof(*s->vmh));
	s->thist = calloc((size_t)SIM_TARGET_ROWS * HIST_BUCKETS,
			  sizeof(*s->thist));
	if (!s->v || !s->p || !s->t || !s->mm || !s->vmh || !s->thist)
		return -ENOMEM;
	if (c->wl_kernel_pages) {
		size_t nk = (size_t)c->vms * c->wl_kernel_pages;

		s->kpte = calloc(nk, sizeof(*s->kpte));
		s->kfree = calloc(nk, sizeof(*s->kfree));
		s->kfill = calloc(nk, sizeof(*s->kfill));
		s->knfree = calloc(c->vms, sizeof(*s->knfree));
		if (!s->kpte || !s->kfree || !s->kfill || !s->knfree)
			return -ENOMEM;
		for (uint32_t vm = 0; vm < c->vms; vm++) {
			for (uint32_t k = c->wl_kernel_pages; k-- > 0;)
				s->kfree[(size_t)vm * c->wl_kernel_pages +
					 s->knfree[vm]++] = k;
		}
	}
	return 0;
}

/* Durations in cycles, and the host scheduling policy. */
static void setup_times(struct sim *s)
{
	const struct hvtlb_sim_config *c = s->c;

	s->host_slice = us_to_cyc(s, s->cost[SIM_COST_host_slice_us]);
	s->guest_slice = us_to_cyc(s, s->cost[SIM_COST_guest_slice_us]);
	s->tick = us_to_cyc(s, s->cost[SIM_COST_tick_us]);
	sim_lock_setup(s);
	if (!s->host_slice)
		s->host_slice = 1;
	if (!s->tick)
		s->tick = 1;
	s->limit =
		(simtime)(c->max_virtual_s * s->cost[SIM_COST_cpu_mhz] * 1e6);
	/* hvtlb_sim_config_check() vouched for the policy and that
	 * hypervisor.cfs and cfs_tick agree with it. */
	s->sched = sim_host_policy_get(c->host_policy);
	if (s->sched->init)
		s->sched->init(s);
}

static int setup_pcpus(struct sim *s)
{
	for (uint32_t i = 0; i < s->npcpus; i++) {
		struct pcpu *p = &s->p[i];

		p->cur = p->last = p->cfs.skip = NONE_ID;
		p->cfs.next_buddy = p->cfs.last_buddy = NONE_ID;
		p->rq_cap = s->nvcpus / s->npcpus + 2;
		p->rq = calloc(p->rq_cap, sizeof(*p->rq));
		if (!p->rq)
			return -ENOMEM;
	}
	return 0;
}

/* vCPU i runs on pCPU i mod pCPUs, halted until it has work. */
static int setup_vcpus(struct sim *s)
{
	const struct hvtlb_sim_config *c = s->c;

	for (uint32_t i = 0; i < s->nvcpus; i++) {
		struct vcpu *v = &s->v[i];

		v->s = s;
		v->gid = i;
		v->vm = i / c->vcpus;
		v->idx = i % c->vcpus;
		v->pcpu = i % s->npcpus;
		v->hs = H_HALTED;
		v->act = ACT_IDLE;
		sim_ple_vcpu_init(s, v);
		if (sim_guest_vcpu_init(s, v) || sim_hv_vcpu_init(v))
			return -ENOMEM;
		v->fl = hvtlb_flusher_create(&c->strategy, &sim_backend_ops, v);
		if (!v->fl)
			return -EINVAL;
	}
	return 0;
}

/* One address space per process (sim_workload_process() places the
 * threads). */
static int setup_mms(struct sim *s)
{
	const struct hvtlb_sim_config *c = s->c;
	uint32_t per_mm = sim_workload_threads_per_process(c);
	uint32_t shared = sim_workload_shared_slots(c);

	for (uint32_t i = 0; i < s->nmms; i++) {
		struct mm *m = &s->mm[i];
		/* Two slots per thread (the madvise slot and a trasher one),
		 * twice that for lazy quarantine, then the workload's
		 * reserved ones (mapped for the whole run). */
		uint32_t nslots = per_mm * 2 + 2;
		uint32_t reserved = sim_workload_reserved_slots(c);

		if (c->strategy.kind == HVTLB_STRATEGY_LAZY)
			nslots *= 2;
		nslots += reserved;
		m->id = i + 1;
		m->vm = i / c->wl_processes;
		m->shift = c->wl_page_shift;
		m->pages = sim_workload_slot_pages(c);
		m->nslots = nslots;
		m->rbase = nslots - reserved;
		m->writer = NONE_ID;
		m->pte = calloc((size_t)nslots * m->pages, sizeof(*m->pte));
		m->plist = calloc((size_t)nslots * m->pages, sizeof(*m->plist));
		m->pn = calloc(nslots, sizeof(*m->pn));
		m->free_stack = calloc(nslots, sizeof(*m->free_stack));
		m->quar = calloc(nslots, sizeof(*m->quar));
		m->live = calloc(nslots, sizeof(*m->live));
		m->fillers = calloc(nslots, sizeof(*m->fillers));
		m->spinners = calloc(per_mm + 1, sizeof(*m->spinners));
		m->wq_cap = per_mm + 1;
		m->waiters = calloc(m->wq_cap, sizeof(*m->waiters));
		if (!m->pte || !m->plist || !m->pn || !m->free_stack ||
		    !m->quar || !m->waiters || !m->live || !m->spinners ||
		    !m->fillers)
			return -ENOMEM;
		m->nfree = 0;
		for (uint32_t k = m->rbase; k-- > shared;)
			m->free_stack[m->nfree++] = k; /* lowest on top */
		for (uint32_t k = m->rbase; k < nslots; k++) {
			/* written before the run: present, never zapped */
			for (uint32_t p = 0; p < m->pages; p++)
				m->pte[(size_t)k * m->pages + p].gen = 1;
			m->live[k] = 1;
		}
	}
	return 0;
}

/* Thread k of a VM: its process (sim_workload_process()), vCPU k mod vCPUs, its own
 * random stream and a coroutine on a guarded stack. */
static int setup_tasks(struct sim *s)
{
	const struct hvtlb_sim_config *c = s->c;

	for (uint32_t i = 0; i < s->ntasks; i++) {
		struct task *t = &s->t[i];
		uint32_t vm = i / c->wl_threads, k = i % c->wl_threads;
		uint32_t base, n;

		t->s = s;
		t->id = i;
		t->vm = vm;
		t->mm = vm * c->wl_processes + sim_workload_process(c, k);
		sim_guest_group(s, sim_workload_process(c, k), &base, &n);
		t->vcpu = vm * c->vcpus + base + k % n;
		t->st = T_BLOCKED;
		t->kpage = NONE_ID;
		sim_rng_init(&t->rng, c->seed, 1 + s->stream_base + i);
		t->covered =
			calloc(sim_workload_slot_pages(c), sizeof(*t->covered));
		t->zidx = calloc(sim_workload_slot_pages(c), sizeof(*t->zidx));
		if (!t->covered || !t->zidx)
			return -ENOMEM;
		t->stack = mmap(
			NULL, STACK_GUARD + STACK_BYTES, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (t->stack == MAP_FAILED) {
			t->stack = NULL;
			return -ENOMEM;
		}
		if (mprotect(t->stack, STACK_GUARD, PROT_NONE))
			return -ENOMEM;
#ifdef HAVE_VALGRIND
		t->vg_stack = VALGRIND_STACK_REGISTER(
			(char *)t->stack + STACK_GUARD,
			(char *)t->stack + STACK_GUARD + STACK_BYTES);
#endif
		sim_coro_make(&t->ctx, (char *)t->stack + STACK_GUARD,
			      STACK_BYTES, sim_task_entry, t);
	}
	s->tasks_left = s->ntasks;
	return 0;
}

int sim_setup(struct sim *s)
{
	int rc = setup_arrays(s);

	if (rc)
		return rc;
	setup_times(s);
	rc = setup_pcpus(s);
	if (!rc)
		rc = setup_vcpus(s);
	if (!rc)
		rc = setup_mms(s);
	if (!rc)
		rc = setup_tasks(s);
	if (!rc)
		rc = sim_oracle_init(s);
	if (!rc)
		sim_host_idle_setup(s);
	if (!rc)
		sim_balance_setup(s);
	if (!rc)
		rc = sim_contention_setup(s);
	return rc;
}

void sim_teardown(struct sim *s)
{
	if (s->v) {
		for (uint32_t i = 0; i < s->nvcpus; i++) {
			struct vcpu *v = &s->v[i];

			hvtlb_flusher_destroy(v->fl);
			sim_hv_vcpu_finish(v);
			sim_tlb_finish(&v->tlb);
			free(v->send.ev);
			sim_guest_vcpu_finish(v);
		}
	}
	if (s->p)
		for (uint32_t i = 0; i < s->npcpus; i++)
			free(s->p[i].rq);
	if (s->t)
		for (uint32_t i = 0; i < s->ntasks; i++) {
			if (s->t[i].stack) {
				sim_coro_finish(&s->t[i].ctx);
#ifdef HAVE_VALGRIND
				VALGRIND_STACK_DEREGISTER(s->t[i].vg_stack);
#endif
				munmap(s->t[i].stack,
				       STACK_GUARD + STACK_BYTES);
			}
			free(s->t[i].covered);
			free(s->t[i].zidx);
		}
	if (s->mm)
		for (uint32_t i = 0; i < s->nmms; i++) {
			free(s->mm[i].pte);
			free(s->mm[i].plist);
			free(s->mm[i].pn);
			free(s->mm[i].free_stack);
			free(s->mm[i].quar);
			free(s->mm[i].live);
			free(s->mm[i].fillers);
			free(s->mm[i].spinners);
			free(s->mm[i].waiters);
		}
	free(s->v);
	free(s->p);
	free(s->t);
	free(s->mm);
	free(s->vmh);
	free(s->thist);
	free(s->kpte);
	free(s->kfree);
	free(s->kfill);
	free(s->knfree);
	sim_oracle_finish(s);
	sim_contention_teardown(s);
	sim_evq_finish(&s->q);
}
