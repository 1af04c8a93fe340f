// SPDX-License-Identifier: MIT
/*
 * Contention on shared cache lines and short locks (machine.contention).
 *
 * A cache line that many CPUs write moves from core to core: each atomic
 * read-modify-write by a CPU that does not hold the line costs a transfer
 * (the core-to-core latency of the host, cost.line_transfer and
 * cost.line_transfer_socket), and the writes to one line are served one
 * after the other. So a line behaves as a single server with a queue:
 * an access waits for the writes queued before it, then pays its
 * transfer, and the line's throughput saturates at one write per transfer
 * (David, Guerraoui and Trigonakis, "Everything you always wanted to know
 * about synchronization but were afraid to ask", SOSP 2013, measure
 * exactly this ceiling for atomic operations on one line). Reads share
 * the line: a CPU that read it since the last write reads it for free,
 * the others pay a transfer each, in parallel. A spinlock section is a
 * write that keeps the line for the critical section: the next CPU's
 * access starts when it ends.
 *
 * The lines (Linux's, x86):
 *   mmap lock word   the rwsem count of mm->mmap_sem / mmap_lock: every
 *                    down_read/up_read/down_write/up_write is an atomic
 *   tlb_gen          mm->context.tlb_gen: flush_tlb_mm_range() increments
 *                    it (inc_mm_tlb_gen), flush_tlb_func() and
 *                    switch_mm_irqs_off() read it (Linux >= 4.14)
 *   cpumask          mm_cpumask(mm): read by every flush to pick targets,
 *                    written when a CPU enters or leaves the mm
 *   per-VMA lock     vma->vm_lock (guest.fault_vma_lock, Linux >= 6.4)
 *   zone lock        zone->lock: a per-CPU free list refilled when empty
 *                    (rmqueue_bulk) and drained above its high mark
 *                    (free_pcppages_bulk), pcp_batch pages at a time
 *   LRU lock         pgdat->lru_lock (per-lruvec since 5.11): pages added
 *                    in per-CPU batches of lru_batch (__lru_cache_add ->
 *                    __pagevec_lru_add), drained at each zap
 *                    (lru_add_drain() in zap_page_range()), taken off in
 *                    release_pages(), which drops the lock every
 *                    SWAP_CLUSTER_MAX (32) pages
 * The guest is one NUMA node: one zone lock and one LRU lock per VM.
 *
 * With guest.pv_spinlock the zone and LRU locks are the guest's PV queued
 * spinlock (guest-spinlock.c): the task takes, holds and releases them
 * (t_section()). Without it, not modelled: a lock holder preempted
 * inside its section (the section's end is fixed when it starts;
 * sim_ct_on_vcpu_move() counts how often the host preempted a waiter or
 * a holder inside one, and for how long), pause-loop exits of CPUs
 * spinning on these locks. Never: lines of the flush IPI
 * itself (flush_tlb_info, the call-function data: they are in the
 * measured IPI costs), the memcg charge counters.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim/contention.h"
#include "sim/guest.h"
#include "sim/machine.h"
#include "sim/spinlock.h"

/* release_pages() drops the LRU lock every SWAP_CLUSTER_MAX pages. */
#define RELEASE_BATCH 32u

enum { MML_LOCK, MML_TLB_GEN, MML_CPUMASK, MML_COUNT };
enum { VML_ZONE, VML_LRU, VML_COUNT };

/* Per process, sized from its slots (they grow with sim_mm_grow_slots()). */
struct ct_mm {
	struct cline *vma; /* per slot: its VMA lock */
	uint64_t *anon;	   /* per PTE: an anonymous page of the process */
	uint32_t nslots;
};

struct contention {
	struct cline *mm;    /* nmms x MML_COUNT */
	struct ct_mm *pm;    /* nmms */
	struct cline *vm;    /* vms x VML_COUNT */
	uint64_t *bits;	     /* reader bitmaps of the read lines */
	uint32_t *pcp;	     /* per vCPU: pages on its per-CPU free list */
	uint32_t *lru;	     /* per vCPU: pages in its LRU add batch */
	struct pv_lock *pvl; /* vms x VML_COUNT, with guest.pv_spinlock */
	uint32_t socket_pcpus;
};

static void cline_init(struct cline *l)
{
	l->owner = l->owner_pcpu = NONE_ID;
}

static size_t anon_words(const struct mm *m, uint32_t nslots)
{
	return ((size_t)nslots * m->pages + 63) / 64;
}

int sim_ct_mm_grow(struct sim *s, uint32_t mm, uint32_t nslots)
{
	struct ct_mm *pm;
	const struct mm *m = &s->mm[mm];
	size_t old_w, new_w;
	struct cline *vma;
	uint64_t *anon;

	if (!s->ct)
		return 0;
	pm = &s->ct->pm[mm];
	if (nslots <= pm->nslots)
		return 0;
	old_w = pm->anon ? anon_words(m, pm->nslots) : 0;
	new_w = anon_words(m, nslots);
	/* no pointer into these is held across a task switch: each hook
	 * indexes them afresh */
	vma = realloc(pm->vma, (size_t)nslots * sizeof(*vma));
	if (!vma)
		return -ENOMEM;
	pm->vma = vma;
	anon = realloc(pm->anon, (new_w ? new_w : 1) * sizeof(*anon));
	if (!anon)
		return -ENOMEM;
	pm->anon = anon;
	for (uint32_t i = pm->nslots; i < nslots; i++) {
		vma[i] = (struct cline){ 0 };
		cline_init(&vma[i]);
	}
	for (size_t w = old_w; w < new_w; w++)
		anon[w] = 0;
	pm->nslots = nslots;
	return 0;
}

int sim_contention_setup(struct sim *s)
{
	const struct hvtlb_sim_config *c = s->c;
	uint32_t words = (c->vcpus + 63) / 64, nvm = s->nmms ? c->vms : 0;
	struct contention *ct;
	size_t nl;

	if (!c->contention)
		return 0;
	ct = calloc(1, sizeof(*ct));
	if (!ct)
		return -ENOMEM;
	s->ct = ct;
	ct->mm = calloc((size_t)s->nmms * MML_COUNT, sizeof(*ct->mm));
	ct->pm = calloc((size_t)s->nmms + 1, sizeof(*ct->pm));
	ct->vm = calloc((size_t)nvm * VML_COUNT + 1, sizeof(*ct->vm));
	ct->bits = calloc((size_t)s->nmms * 2 * words + 1, sizeof(*ct->bits));
	ct->pcp = calloc(s->nvcpus + 1, sizeof(*ct->pcp));
	ct->lru = calloc(s->nvcpus + 1, sizeof(*ct->lru));
	if (!ct->mm || !ct->pm || !ct->vm || !ct->bits || !ct->pcp || !ct->lru)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->nmms; i++)
		if (sim_ct_mm_grow(s, i, s->mm[i].nslots))
			return -ENOMEM;
	nl = (size_t)s->nmms * MML_COUNT;
	for (size_t i = 0; i < nl; i++)
		cline_init(&ct->mm[i]);
	for (uint32_t i = 0; i < s->nmms; i++) {
		ct->mm[i * MML_COUNT + MML_TLB_GEN].readers =
			&ct->bits[(size_t)(2 * i) * words];
		ct->mm[i * MML_COUNT + MML_CPUMASK].readers =
			&ct->bits[(size_t)(2 * i + 1) * words];
	}
	for (size_t i = 0; i < (size_t)nvm * VML_COUNT; i++)
		cline_init(&ct->vm[i]);
	if (c->pv_spinlock) {
		ct->pvl = calloc((size_t)nvm * VML_COUNT + 1, sizeof(*ct->pvl));
		if (!ct->pvl)
			return -ENOMEM;
		for (size_t i = 0; i < (size_t)nvm * VML_COUNT; i++)
			if (sim_pvl_init(&ct->pvl[i], c->vcpus))
				return -ENOMEM;
	}
	ct->socket_pcpus = s->pcpus_total / c->sockets;
	if (!ct->socket_pcpus)
		ct->socket_pcpus = 1;
	return 0;
}

void sim_contention_teardown(struct sim *s)
{
	struct contention *ct = s->ct;

	if (!ct)
		return;
	free(ct->mm);
	for (uint32_t i = 0; ct->pm && i < s->nmms; i++) {
		free(ct->pm[i].vma);
		free(ct->pm[i].anon);
	}
	free(ct->pm);
	free(ct->vm);
	free(ct->bits);
	free(ct->pcp);
	free(ct->lru);
	for (size_t i = 0; ct->pvl && i < (size_t)s->c->vms * VML_COUNT; i++)
		sim_pvl_free(&ct->pvl[i]);
	free(ct->pvl);
	free(ct);
	s->ct = NULL;
}

/* ------------------------------------------------------- primitives */
static uint32_t socket_of(const struct sim *s, uint32_t pcpu)
{
	return (s->pcpu_base + pcpu) / s->ct->socket_pcpus;
}

/* Cycles to bring a line last written from @p from to @p to. */
static simtime transfer(struct sim *s, uint32_t from, uint32_t to)
{
	if (from == to)
		return 0; /* vCPUs sharing a pCPU: the line is in its cache */
	if (socket_of(s, from) != socket_of(s, to))
		return cyc(s, SIM_COST_line_transfer_socket);
	return cyc(s, SIM_COST_line_transfer);
}

static bool has_other_readers(const struct sim *s, const struct cline *l,
			      uint32_t idx)
{
	uint32_t words = (s->c->vcpus + 63) / 64;

	if (!l->readers)
		return false;
	for (uint32_t w = 0; w < words; w++) {
		uint64_t b = l->readers[w];

		if (w == idx / 64)
			b &= ~(1ULL << (idx % 64));
		if (b)
			return true;
	}
	return false;
}

/* Takes the line for a write by @p v; returns when the transfer ends. */
static simtime take(struct sim *s, struct cline *l, const struct vcpu *v)
{
	simtime start = s->now, xfer = 0;

	if (l->owner != v->gid) {
		if (l->free_at > start)
			start = l->free_at;
		if (l->owner != NONE_ID)
			xfer = transfer(s, l->owner_pcpu, v->pcpu);
	} else if (has_other_readers(s, l, v->idx)) {
		/* Our copy is shared: the others' copies are invalidated. */
		if (l->free_at > start)
			start = l->free_at;
		xfer = cyc(s, SIM_COST_line_transfer);
	}
	if (l->readers) {
		uint32_t words = (s->c->vcpus + 63) / 64;

		for (uint32_t w = 0; w < words; w++)
			l->readers[w] = 0;
		l->readers[v->idx / 64] |= 1ULL << (v->idx % 64);
	}
	l->owner = v->gid;
	l->owner_pcpu = v->pcpu;
	return start + xfer;
}

simtime sim_cl_write(struct sim *s, struct cline *l, const struct vcpu *v)
{
	l->free_at = take(s, l, v);
	return l->free_at - s->now;
}

simtime sim_cl_section(struct sim *s, struct cline *l, const struct vcpu *v,
		       simtime hold)
{
	simtime got = take(s, l, v);

	l->free_at = got + hold;
	return got - s->now;
}

simtime sim_cl_read(struct sim *s, struct cline *l, const struct vcpu *v)
{
	uint64_t bit = 1ULL << (v->idx % 64);
	simtime start = s->now;

	if (!l->readers)
		return 0;
	if (l->owner == NONE_ID || l->owner == v->gid ||
	    (l->readers[v->idx / 64] & bit)) {
		l->readers[v->idx / 64] |= bit;
		return 0;
	}
	l->readers[v->idx / 64] |= bit;
	if (l->free_at > start)
		start = l->free_at;
	return start + transfer(s, l->owner_pcpu, v->pcpu) - s->now;
}

/* ------------------------------------------------------------ hooks */
static struct cline *mm_line(struct sim *s, uint32_t mm, unsigned which)
{
	return &s->ct->mm[(size_t)mm * MML_COUNT + which];
}

static struct cline *vm_line(struct sim *s, uint32_t vm, unsigned which)
{
	return &s->ct->vm[(size_t)vm * VML_COUNT + which];
}

/* A zone or LRU lock section of @p v: the line, and the window the
 * model runs it in, for sim_ct_on_vcpu_move(). */
static simtime section(struct sim *s, struct cline *l, struct vcpu *v,
		       simtime hold)
{
	simtime w = sim_cl_section(s, l, v, hold);

	v->ct.sect_got = s->now + w;
	if (v->ct.sect_end < v->ct.sect_got + hold)
		v->ct.sect_end = v->ct.sect_got + hold;
	s->r->lock_sections++;
	return w;
}

/* A zone or LRU lock section of task @p t: with guest.pv_spinlock its
 * task takes the lock, runs the section and releases it now (the wait
 * charged to it); else the window model's wait, returned. */
static simtime t_section(struct task *t, unsigned which, simtime hold)
{
	struct sim *s = t->s;
	struct vcpu *v = &s->v[t->vcpu];

	if (!s->ct->pvl)
		return section(s, vm_line(s, v->vm, which), v, hold);
	/* the lock word and its data move to this CPU */
	sim_t_work(t, sim_cl_write(s, vm_line(s, v->vm, which), v), ACCT_SYS);
	sim_pvl_section(t, &s->ct->pvl[(size_t)v->vm * VML_COUNT + which],
			hold);
	return 0;
}

void sim_ct_sections(struct task *t)
{
	for (unsigned w = 0; t->s->ct && w < VML_COUNT; w++) {
		simtime h = t->ct_pend[w];

		if (h) {
			t->ct_pend[w] = 0;
			t_section(t, w, h);
		}
	}
}

void sim_ct_on_vcpu_move(struct sim *s, struct vcpu *v, enum hstate to)
{
	if (!s->ct)
		return;
	if (v->hs == H_RUNNING && to == H_READY && s->now < v->ct.sect_end) {
		if (s->now < v->ct.sect_got)
			s->r->lock_waiters_preempted++;
		else
			s->r->lock_holders_preempted++;
		v->ct.off = true;
		v->ct.off_since = s->now;
	} else if (to == H_RUNNING && v->ct.off) {
		s->r->lock_preempted_off_ns +=
			(uint64_t)(cyc_to_s(s, s->now - v->ct.off_since) * 1e9 +
				   0.5);
		v->ct.off = false;
	}
}

static void charge(struct task *t, simtime c)
{
	if (c)
		sim_t_work(t, c, ACCT_SYS);
}

void sim_ct_mmap_lock(struct task *t)
{
	struct sim *s = t->s;

	if (s->ct)
		charge(t, sim_cl_write(s, mm_line(s, t->mm, MML_LOCK),
				       &s->v[t->vcpu]));
}

void sim_ct_vma_lock(struct task *t, uint32_t slot)
{
	struct sim *s = t->s;

	if (s->ct && slot < s->ct->pm[t->mm].nslots)
		charge(t, sim_cl_write(s, &s->ct->pm[t->mm].vma[slot],
				       &s->v[t->vcpu]));
}

void sim_ct_flush_begin(struct task *t)
{
	struct sim *s = t->s;
	const struct vcpu *v = &s->v[t->vcpu];
	simtime c;

	if (!s->ct)
		return;
	c = sim_cl_write(s, mm_line(s, t->mm, MML_TLB_GEN), v);
	c += sim_cl_read(s, mm_line(s, t->mm, MML_CPUMASK), v);
	charge(t, c);
}

simtime sim_ct_tlb_gen_read(struct sim *s, const struct vcpu *v, uint32_t mm)
{
	if (!s->ct || mm >= s->nmms)
		return 0;
	return sim_cl_read(s, mm_line(s, mm, MML_TLB_GEN), v);
}

simtime sim_ct_cpumask_write(struct sim *s, const struct vcpu *v, uint32_t mm)
{
	if (!s->ct || mm >= s->nmms)
		return 0;
	return sim_cl_write(s, mm_line(s, mm, MML_CPUMASK), v);
}

static simtime pcp_batch(const struct sim *s)
{
	simtime b = (simtime)s->cost[SIM_COST_pcp_batch];

	return b ? b : 1;
}

simtime sim_ct_page_alloc(struct sim *s, struct vcpu *v, uint32_t mm,
			  uint64_t idx)
{
	struct contention *ct = s->ct;
	simtime c = 0, lb;
	uint64_t *a;

	if (!ct)
		return 0;
	a = ct->pm[mm].anon;
	a[idx / 64] |= 1ULL << (idx % 64);
	if (!ct->pcp[v->gid]) {
		/* rmqueue_bulk: refill the per-CPU list under zone->lock */
		simtime b = pcp_batch(s);

		if (ct->pvl)
			s->t[v->gs.cur].ct_pend[VML_ZONE] +=
				b * cyc(s, SIM_COST_zone_lock_page);
		else
			c += section(s, vm_line(s, v->vm, VML_ZONE), v,
				     b * cyc(s, SIM_COST_zone_lock_page));
		ct->pcp[v->gid] += (uint32_t)b;
	}
	ct->pcp[v->gid]--;
	lb = (simtime)s->cost[SIM_COST_lru_batch];
	if (++ct->lru[v->gid] >= (lb ? lb : 1)) {
		/* the per-CPU add batch is full: onto the LRU */
		simtime h = ct->lru[v->gid] * cyc(s, SIM_COST_lru_lock_page);

		if (ct->pvl)
			s->t[v->gs.cur].ct_pend[VML_LRU] += h;
		else
			c += section(s, vm_line(s, v->vm, VML_LRU), v, h);
		ct->lru[v->gid] = 0;
	}
	return c;
}

uint32_t sim_ct_zap_anon(struct sim *s, uint32_t mm, uint64_t base,
			 const uint32_t *zidx, uint32_t n)
{
	struct contention *ct = s->ct;
	uint32_t k = 0;
	uint64_t *a;

	if (!ct)
		return 0;
	a = ct->pm[mm].anon;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t idx = base + zidx[i], bit = 1ULL << (idx % 64);

		if (a[idx / 64] & bit) {
			a[idx / 64] &= ~bit;
			k++;
		}
	}
	return k;
}

void sim_ct_lru_drain(struct task *t)
{
	struct sim *s = t->s;
	struct vcpu *v = &s->v[t->vcpu];
	struct contention *ct = s->ct;
	simtime c;

	if (!ct || !ct->lru[v->gid])
		return;
	c = ct->lru[v->gid] * cyc(s, SIM_COST_lru_lock_page);
	ct->lru[v->gid] = 0;
	charge(t, t_section(t, VML_LRU, c));
}

void sim_ct_pages_free(struct task *t, uint32_t n)
{
	struct sim *s = t->s;
	struct vcpu *v = &s->v[t->vcpu];
	struct contention *ct = s->ct;
	simtime c = 0, b, high;

	if (!ct || !n)
		return;
	/* release_pages: off the LRU, the lock dropped every 32 pages */
	for (uint32_t done = 0; done < n; done += RELEASE_BATCH) {
		uint32_t k =
			n - done < RELEASE_BATCH ? n - done : RELEASE_BATCH;

		c += t_section(t, VML_LRU, k * cyc(s, SIM_COST_lru_lock_page));
	}
	/* free_unref_page_list: onto the per-CPU list, drained in
	 * batches above its high mark (6 x batch) */
	b = pcp_batch(s);
	high = 6 * b;
	ct->pcp[v->gid] += n;
	while (ct->pcp[v->gid] > high) {
		ct->pcp[v->gid] -= (uint32_t)b;
		c += t_section(t, VML_ZONE,
			       b * cyc(s, SIM_COST_zone_lock_page));
	}
	charge(t, c);
}
