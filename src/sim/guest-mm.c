// SPDX-License-Identifier: MIT
/*
 * A process's memory: page tables (a generation per PTE), translation
 * through the vCPU's TLB with page faults under the mmap lock, and the
 * system calls that map, unmap and zap (mmap, munmap, madvise) with the
 * shootdown each zap needs, issued through the vCPU's strategy.
 */
#include <errno.h>
#include <string.h>

#include "sim/backend.h"
#include "sim/contention.h"
#include "sim/guest.h"
#include "sim/lock.h"
#include "sim/machine.h"
#include "sim/mm.h"
#include "sim/oracle.h"
#include "sim/stats.h"
#include "sim/vcpu-tlb.h"

static bool mm_pte_index(const struct mm *m, uint64_t va, uint64_t *idx)
{
	if (va < GVA_BASE)
		return false;
	uint64_t i = (va - GVA_BASE) >> m->shift;

	if (i >= (uint64_t)m->nslots * m->pages)
		return false;
	*idx = i;
	return true;
}

/* PTE @p idx just became present: its slot's next zap must visit it. */
static void mm_list_present(struct mm *m, uint64_t idx)
{
	uint64_t slot = idx / m->pages;

	m->plist[slot * m->pages + m->pn[slot]++] =
		(uint32_t)(idx - slot * m->pages);
}

/* PTE @p idx is no longer present: its slot's next whole zap must not
 * visit it (a zap of part of a slot, guest-mm's zap_range). */
static void mm_list_drop(struct mm *m, uint64_t idx)
{
	uint64_t slot = idx / m->pages;
	uint32_t *l = &m->plist[slot * m->pages];
	uint32_t page = (uint32_t)(idx - slot * m->pages);

	for (uint32_t k = m->pn[slot]; k-- > 0;) {
		if (l[k] == page) {
			l[k] = l[--m->pn[slot]];
			return;
		}
	}
}

/* What a fault maps. */
enum fault_kind {
	/* A write: an anonymous page, allocated and zeroed (unless
	 * workload.file_backed: a page of the file's page cache). */
	FK_WRITE,
	/* A read of anonymous memory: the shared zero page
	 * (do_anonymous_page), nothing allocated. */
	FK_READ_ZERO,
	/* A write to a private file mapping: a new anonymous page with a
	 * copy of the page-cache page (do_cow_fault, wp_page_copy). */
	FK_COW,
	/* A read of a file mapping: the page-cache page, nothing
	 * allocated. */
	FK_FILE_READ,
};

/* Translates @p va for task @p t; adds the cost to *user / *sys. Returns
 * false, having done nothing, when the access faults and @p locked is
 * false: a fault runs under the mmap lock (read side), and maps what
 * @p fk says. */
static bool t_access(struct task *t, uint64_t va, simtime *user, simtime *sys,
		     bool locked, enum fault_kind fk)
{
	struct sim *s = t->s;
	struct vcpu *v = &s->v[t->vcpu];
	struct mm *m = &s->mm[t->mm];
	uint64_t idx, key, vpn;
	uint32_t gen;
	int lv;

	if (!mm_pte_index(m, va, &idx))
		return true;
	sim_vcpu_tlb_ready(s, v);
	if (!v->tlb_ready)
		return true;
	va &= ~((1ULL << m->shift) - 1);
	key = sim_tlb_key(va, m->shift, m->id);
	vpn = va >> m->shift;
	*user += cyc(s, SIM_COST_touch);
	lv = sim_tlb_lookup(&v->tlb, key, vpn, &gen);
	if (lv) {
		if (lv == 1)
			s->r->tlb_l1_hits++;
		else
			s->r->tlb_l2_hits++;
		*user += cyc(s, lv == 1 ? SIM_COST_l1_hit : SIM_COST_stlb_hit);
		/* The oracle: a translation through an entry older than the
		 * generation a completed flush covered. */
		oracle_use(s, v, va, gen, m->pte[idx].flushed);
		return true;
	}
	if (!(m->pte[idx].gen & 1) && !locked)
		return false;
	s->r->tlb_misses++;
	*user += (simtime)(s->cost[SIM_COST_walk_ref] *
			   s->cost[SIM_COST_walk_refs]);
	if (!(m->pte[idx].gen & 1)) {
		/* Not present: a page fault maps it. */
		s->r->page_faults++;
		*sys += cyc(s, SIM_COST_page_fault);
		if (fk == FK_WRITE && !s->c->wl_file_backed) {
			*sys += (simtime)(s->cost[SIM_COST_zero_page] *
					  (double)(1ULL << (m->shift - 12)));
			*sys += sim_ct_page_alloc(s, v, t->mm, idx);
		} else if (fk == FK_COW) {
			*sys += (simtime)(s->cost[SIM_COST_copy_page] *
					  (double)(1ULL << (m->shift - 12)));
			*sys += sim_ct_page_alloc(s, v, t->mm, idx);
		}
		m->pte[idx].gen++;
		mm_list_present(m, idx);
	}
	sim_tlb_fill(&v->tlb, key, vpn, m->pte[idx].gen, false);
	m->fillers[idx / m->pages] |= filler_bit(v->idx);
	return true;
}

/* The mapping (slot) of @p va, or NONE_ID. */
static uint32_t va_slot(const struct mm *m, uint64_t va)
{
	uint64_t idx;

	return mm_pte_index(m, va, &idx) ? (uint32_t)(idx / m->pages) : NONE_ID;
}

/* A fault: under the mmap lock's read side (write with
 * guest.fault_exclusive), or, with guest.fault_vma_lock, under the lock
 * of the mapping alone while it is mapped (lock_vma_under_rcu; it falls
 * back to the mmap lock when the mapping is going away). */
/* The lock a fault of @p slot takes: the mmap lock's read side (write
 * with guest.fault_exclusive), or, with guest.fault_vma_lock, the lock of
 * the mapping alone while it is mapped (lock_vma_under_rcu; it falls back
 * to the mmap lock when the mapping is going away or the address is in
 * none). Returns which, for fault_unlock(). */
enum fault_lock_kind { FL_READ, FL_WRITE, FL_VMA };

static enum fault_lock_kind fault_lock(struct task *t, uint32_t slot)
{
	struct sim *s = t->s;

	if (s->c->fault_vma_lock && slot != NONE_ID &&
	    (s->mm[t->mm].live[slot] || (s->c->wl_shared && slot == 0))) {
		sim_ct_vma_lock(t, slot);
		return FL_VMA;
	}
	if (s->c->fault_exclusive) {
		sim_lock_write(t);
		return FL_WRITE;
	}
	sim_lock_read(t);
	return FL_READ;
}

static void fault_unlock(struct task *t, uint32_t slot, enum fault_lock_kind k)
{
	if (k == FL_VMA)
		sim_ct_vma_lock(t, slot);
	else if (k == FL_WRITE)
		sim_unlock_write(t);
	else
		sim_unlock_read(t);
}

static void t_fault(struct task *t, uint64_t va, simtime *user,
		    enum fault_kind fk)
{
	uint32_t slot = va_slot(&t->s->mm[t->mm], va);
	simtime fu = 0, fs = 0;
	enum fault_lock_kind k = fault_lock(t, slot);

	t_access(t, va, &fu, &fs, true, fk);
	sim_t_work(t, fs, ACCT_SYS);
	sim_ct_sections(t);
	fault_unlock(t, slot, k);
	*user += fu;
}

static void touch_va(struct task *t, uint64_t va, simtime *user, simtime *sys,
		     enum fault_kind fk)
{
	if (t_access(t, va, user, sys, false, fk))
		return;
	sim_t_work(t, *sys, ACCT_SYS);
	sim_t_work(t, *user, ACCT_USER);
	*sys = *user = 0;
	t_fault(t, va, user, fk);
}

/* An access from user space. A fault runs under the mmap lock, read
 * side, for its own duration (the work before it is charged first). */
void sim_t_touch(struct task *t, uint64_t va, simtime *user, simtime *sys)
{
	touch_va(t, va, user, sys, FK_WRITE);
}

void sim_t_read_anon(struct task *t, uint64_t va, simtime *user, simtime *sys)
{
	touch_va(t, va, user, sys, FK_READ_ZERO);
}

/* The slot is reusable when every vCPU applied the lazy epoch. */
static bool lazy_epoch_done(struct sim *s, uint32_t vm, uint64_t epoch)
{
	for (uint32_t i = 0; i < s->c->vcpus; i++) {
		const struct vcpu *v = &s->v[vm * s->c->vcpus + i];

		if (v->guest.lz_min_epoch <= epoch)
			return false;
	}
	return true;
}

/* The lazy flush of quarantined slot @p q is complete: what its zap
 * unmapped (the pages whose generation moved past the last completed
 * flush) is checked and marked flushed. @p t's zap list is free here. */
static void quarantine_done(struct task *t, struct mm *m, const struct qslot *q)
{
	uint64_t base = (uint64_t)q->slot * m->pages;
	struct oracle_flush of = {
		.vm = m->vm,
		.mm = (uint32_t)(m - t->s->mm),
		.base = slot_va(m, q->slot),
		.shift = m->shift,
		.idx = t->zidx,
		.covered = t->covered,
		.zap = q->zap,
		.initiator = q->initiator,
		.shootdown = q->shootdown,
		.fillers = q->fillers,
	};

	t->nz = 0;
	for (uint32_t i = 0; i < m->pages; i++) {
		const struct pte *p = &m->pte[base + i];

		if (p->gen > p->flushed) {
			t->zidx[t->nz++] = i;
			t->covered[i] = p->gen;
		}
	}
	of.n = t->nz;
	/* at reuse: every CPU that was not lazy at the munmap applied it */
	oracle_request(t->s, &of);
	sim_oracle_flush_done(t->s, &of);
	sim_mark_zapped_flushed(t, m, q->slot);
}

/* Growing the pool failed with @p rc: the run fails, with why. */
static void slot_pool_failed(struct sim *s, const struct task *t, int rc)
{
	const struct mm *m = &s->mm[t->mm];

	if (rc == -ENOSPC)
		sim_slog(s, HVTLB_SIM_LOG_ERROR,
			 "process %u: mmap needs a mapping beyond the %u a "
			 "process "
			 "may hold (vm.max_map_count, or the user address "
			 "space), "
			 "all mapped or waiting for their lazy flush",
			 m->id, m->nslots);
	else
		sim_slog(s, HVTLB_SIM_LOG_ERROR,
			 "process %u: no memory to grow its %u slots", m->id,
			 m->nslots);
	s->fail_rc = rc;
	s->failed = true;
}

/* A free slot of @p t's process for its mmap, or NONE_ID when the run
 * failed. Under the lazy strategy a munmap's slot waits in quarantine
 * until its lazy flush is complete; with nothing free, the pool grows (a
 * real process gets another address: LATR keeps the freed range, not the
 * mmap, waiting). The other strategies free a slot at munmap; with none
 * free they wait a tick for another thread's munmap. */
static uint32_t alloc_slot(struct task *t)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];

	for (;;) {
		if (m->qn) {
			struct qslot *q = &m->quar[m->qhead];

			if (lazy_epoch_done(s, t->vm, q->epoch)) {
				/* The lazy flush is complete only now. */
				quarantine_done(t, m, q);
				m->free_stack[m->nfree++] = q->slot;
				m->qhead = (m->qhead + 1) % m->nslots;
				m->qn--;
				continue;
			}
		}
		if (m->nfree)
			return m->free_stack[--m->nfree];
		if (s->c->strategy.kind == HVTLB_STRATEGY_LAZY) {
			int rc = sim_mm_grow_slots(s, t->mm);

			if (!rc)
				continue;
			slot_pool_failed(s, t, rc);
			return NONE_ID;
		}
		s->slot_waits++;
		sim_unlock_write(t);
		sim_sleep_timer(s, t, s->tick);
		sim_lock_write(t);
	}
}

void sim_do_mmap(struct task *t, uint32_t *slot)
{
	struct sim *s = t->s;

	t->debt += cyc(s, SIM_COST_syscall);
	sim_lock_write(t);
	*slot = alloc_slot(t);
	/* The run failed: this task must not go on with no slot (the engine
	 * stops before it would be woken). */
	while (*slot == NONE_ID)
		sim_t_block(t);
	s->mm[t->mm].live[*slot] = 1;
	sim_t_work(t, cyc(s, SIM_COST_mmap), ACCT_SYS);
	sim_unlock_write(t);
}

/* The flush is complete when hvtlb_flush() returns, except a lazy one:
 * then when every CPU passed its epoch. */
static bool flush_deferred(const struct sim *s,
			   const struct hvtlb_flush_outcome *out)
{
	return s->c->strategy.kind == HVTLB_STRATEGY_LAZY && out->reuse_epoch;
}

bool sim_shootdown(struct task *t, const struct hvtlb_flush_request *req,
		   struct hvtlb_flush_outcome *out, struct oracle_flush *of)
{
	struct sim *s = t->s;
	struct vcpu *v = &s->v[t->vcpu];
	simtime t0 = s->now;
	int rc;

	of->initiator = v->idx;
	of->shootdown = ++s->r->shootdowns;
	t->of = of;
	if (s->c->flush_fn) {
		memset(out, 0, sizeof(*out));
		rc = s->c->flush_fn(s->c->flush_data, &sim_backend_ops, v, req,
				    out);
	} else {
		rc = hvtlb_flush(v->fl, req, out);
	}
	if (rc) {
		s->failed = true;
		t->of = NULL;
		return false;
	}
	t->of = NULL;
	if (t->local_skipped) {
		t->local_skipped = false;
		if (sim_oracle_needs(s, v, of))
			fault_hit(s);
	}
	/* Reported complete to the initiator: the oracle's moment (page
	 * tables are freed right after, even when the rest is lazy). */
	if (!flush_deferred(s, out) || of->freed)
		sim_oracle_flush_done(s, of);
	if (t->debt)
		sim_t_work(t, 0, ACCT_SYS);
	sim_hist_add(s, s->now - t0);
	if (TRACING(s))
		sim_trace_shootdown(s, t, t0, req, out);
	return true;
}

/* Whether hiding that @p req freed page tables (the skip-lazy-freed
 * fault) takes out of the flush a target that holds what it flushes: a
 * lazy CPU with strategy.lazy_skip, or any remote one with the lazy
 * strategy (posted for later instead of interrupted). */
static bool lazy_freed_skips(struct sim *s, const struct vcpu *v,
			     const struct hvtlb_flush_request *req,
			     const struct oracle_flush *of)
{
	bool latr = s->c->strategy.kind == HVTLB_STRATEGY_LAZY;

	for (uint32_t c = hvtlb_cpumask_next(&req->targets, 0); c < req->ncpus;
	     c = hvtlb_cpumask_next(&req->targets, c + 1)) {
		enum hvtlb_cpu_state st = sim_cpu_state(v, c);

		if (c == v->idx || st == HVTLB_CPU_OFFLINE)
			continue;
		if ((latr ||
		     (s->c->strategy.lazy_skip && st == HVTLB_CPU_LAZY)) &&
		    sim_oracle_needs(s, vm_vcpu(s, v, c), of))
			return true;
	}
	return false;
}

/* What unmaps a slot's pages, and how it flushes. */
enum zap_how {
	ZAP_MADVISE, /* madvise(DONTNEED): a range flush */
	ZAP_MUNMAP,  /* munmap: a range flush; the slot is freed */
	/* page reclaim (try_to_unmap with batched flushing): one flush of
	 * everything that carries no tlb generation (arch_tlbbatch_flush) */
	ZAP_RECLAIM,
	/* a copy-on-write fault replaces a read-only page (ptep_clear_flush:
	 * one page, flushed, not freed) */
	ZAP_COW,
};

/* Clears the present PTEs among pages [first, first + n) of @p slot
 * (whole: all of them), listing them in t->zidx[0, t->nz) with the
 * generation each zap covers in t->covered[]. */
static void zap_ptes(struct task *t, struct mm *m, uint32_t slot,
		     uint32_t first, uint32_t n, bool whole)
{
	uint64_t base = (uint64_t)slot * m->pages;

	if (whole) {
		/* The pages made present since the slot's last zap (copied:
		 * with a read lock, others may fault the slot in again while
		 * this zap waits for its flush). covered[] is read only at
		 * these pages. */
		t->nz = m->pn[slot];
		m->pn[slot] = 0;
		for (uint32_t k = 0; k < t->nz; k++) {
			uint32_t i = m->plist[base + k];

			t->zidx[k] = i;
			t->covered[i] = ++m->pte[base + i].gen;
		}
	} else {
		t->nz = 0;
		for (uint32_t i = first; i < first + n && i < m->pages; i++) {
			if (!(m->pte[base + i].gen & 1))
				continue;
			mm_list_drop(m, base + i);
			t->zidx[t->nz++] = i;
			t->covered[i] = ++m->pte[base + i].gen;
		}
	}
}

/* After a zap's flush returned: the pages are freed, then a flush the
 * strategy deferred either quarantines a freed slot or, for madvise, is
 * waited for. Returns whether a freed slot may go back on the free stack
 * now (false: it is quarantined until the epoch passes). */
static bool zap_flushed(struct task *t, struct mm *m, uint32_t slot,
			struct oracle_flush *of,
			const struct hvtlb_flush_outcome *out, uint32_t anon,
			bool free_slot)
{
	struct sim *s = t->s;

	/* tlb_finish_mmu(): the pages go after the flush */
	sim_ct_pages_free(t, anon);
	if (flush_deferred(s, out) && free_slot) {
		/* Complete when every CPU passed the epoch: the slot is
		 * quarantined until then (alloc_slot). */
		m->quar[(m->qhead + m->qn) % m->nslots] = (struct qslot){
			.slot = slot,
			.initiator = of->initiator,
			.epoch = out->reuse_epoch,
			.zap = of->zap,
			.shootdown = of->shootdown,
			.fillers = of->fillers,
		};
		m->qn++;
		return false;
	}
	if (flush_deferred(s, out)) {
		/* madvise: the range is refaulted at once, so the call
		 * returns only when every CPU applied it. */
		while (!lazy_epoch_done(s, t->vm, out->reuse_epoch)) {
			s->epoch_waits++;
			sim_sleep_timer(s, t, s->tick);
		}
		sim_oracle_flush_done(s, of);
	}
	sim_mark_zapped_flushed(t, m, slot);
	return true;
}

/* Flushes the pages zap_ptes() listed, from vCPU @p v, as @p how says.
 * Returns whether a freed slot may go back on the free stack now: false
 * when the shootdown did not complete or the slot is quarantined. */
static bool zap_flush(struct task *t, struct vcpu *v, struct mm *m,
		      uint32_t slot, uint32_t first, uint32_t n,
		      enum zap_how how, struct oracle_flush *of, uint32_t anon)
{
	struct sim *s = t->s;
	bool free_slot = how == ZAP_MUNMAP;
	uint64_t va = slot_va(m, slot) + ((uint64_t)first << m->shift);
	uint64_t bytes = (uint64_t)n << m->shift;
	struct hvtlb_flush_request req = {
		.ncpus = s->c->vcpus,
		.initiator = v->idx,
		.address_space = (uint64_t)m->id << 12,
		.range = { .start = va,
			   .end = va + bytes,
			   .stride_shift = m->shift,
			   .all = how == ZAP_RECLAIM },
		/* A whole page-table page goes away with >= 2 MiB. */
		.freed_tables =
			free_slot && bytes >= (2u << 20) && m->shift == 12,
	};
	struct hvtlb_flush_outcome out;

	/* Freed page tables: a lazy CPU may walk them speculatively at any
	 * time, so the flush covers lazy CPUs too. */
	of->freed = req.freed_tables;
	/* flush_tlb_mm_range(): tlb_gen, then mm_cpumask */
	sim_ct_flush_begin(t);
	m->tlb_gen++;
	req.targets = m->cpumask;
	hvtlb_cpumask_set(&req.targets, v->idx);
	oracle_request(s, of);
	if (s->c->fault == HVTLB_SIM_FAULT_SKIP_LAZY_FREED &&
	    req.freed_tables) {
		if (lazy_freed_skips(s, v, &req, of))
			fault_hit(s);
		req.freed_tables = false;
	}
	t->no_gen = how == ZAP_RECLAIM;
	bool ok = sim_shootdown(t, &req, &out, of);

	t->no_gen = false;
	if (!ok)
		return false;
	return zap_flushed(t, m, slot, of, &out, anon, free_slot);
}

/* Zaps pages [first, first + n) of the slot's PTEs and flushes them as
 * @p how says. */
static void zap_and_flush(struct task *t, uint32_t slot, uint32_t first,
			  uint32_t n, enum zap_how how)
{
	bool free_slot = how == ZAP_MUNMAP;
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	bool whole = first == 0 && n == m->pages;
	struct vcpu *v;
	uint64_t base = (uint64_t)slot * m->pages;
	uint32_t anon;

	/* zap_page_range() and unmap_region() start with lru_add_drain() */
	if (how != ZAP_COW)
		sim_ct_lru_drain(t);
	v = &s->v[t->vcpu];
	zap_ptes(t, m, slot, first, n, whole);
	struct oracle_flush of = {
		.vm = v->vm,
		.mm = t->mm,
		.base = slot_va(m, slot),
		.shift = m->shift,
		.n = t->nz,
		.idx = t->zidx,
		.covered = t->covered,
		.zap = oracle_zap(s),
		.fillers = m->fillers[slot],
	};

	/* Who may hold the slot's other pages still may after a part of it
	 * is zapped: the set is cleared only with the whole slot. */
	if (whole)
		m->fillers[slot] = 0;
	anon = sim_ct_zap_anon(s, t->mm, base, t->zidx, t->nz);
	/* A copy-on-write fault's own cost is the fault's (t_access). */
	if (how != ZAP_COW)
		sim_t_work(
			t,
			cyc(s, free_slot ? SIM_COST_munmap : SIM_COST_madvise) +
				(simtime)(s->cost[SIM_COST_unmap_per_page] *
					  (double)t->nz),
			ACCT_SYS);
	if (t->nz && !zap_flush(t, v, m, slot, first, n, how, &of, anon))
		return;
	if (free_slot)
		m->free_stack[m->nfree++] = slot;
}

void sim_do_munmap(struct task *t, uint32_t slot)
{
	struct sim *s = t->s;

	t->debt += cyc(s, SIM_COST_syscall);
	sim_lock_write(t);
	s->mm[t->mm].live[slot] = 0;
	zap_and_flush(t, slot, 0, s->mm[t->mm].pages, ZAP_MUNMAP);
	sim_unlock_write(t);
}

void sim_do_madvise(struct task *t, uint32_t slot)
{
	struct sim *s = t->s;

	t->debt += cyc(s, SIM_COST_syscall);
	sim_lock_read(t);
	zap_and_flush(t, slot, 0, s->mm[t->mm].pages, ZAP_MADVISE);
	sim_unlock_read(t);
}

/* Page reclaim unmaps the slot's pages (under the page-table lock, not
 * the mmap lock's write side: taken here as a reader, like madvise) with
 * one batched flush. Charged as a madvise: the same zap. */
void sim_do_reclaim(struct task *t, uint32_t slot)
{
	sim_lock_read(t);
	zap_and_flush(t, slot, 0, t->s->mm[t->mm].pages, ZAP_RECLAIM);
	sim_unlock_read(t);
}

void sim_do_madvise_range(struct task *t, uint32_t slot, uint32_t first,
			  uint32_t n)
{
	struct sim *s = t->s;

	t->debt += cyc(s, SIM_COST_syscall);
	sim_lock_read(t);
	zap_and_flush(t, slot, first, n, ZAP_MADVISE);
	sim_unlock_read(t);
}

void sim_t_cow_write(struct task *t, uint32_t slot, uint32_t page)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	uint64_t va = slot_va(m, slot) + ((uint64_t)page << m->shift);
	uint64_t idx = (uint64_t)slot * m->pages + page;
	simtime user = 0, sys = 0;

	if (!(m->pte[idx].gen & 1)) {
		/* not mapped: do_cow_fault() */
		touch_va(t, va, &user, &sys, FK_COW);
	} else {
		/* mapped read-only: wp_page_copy() clears the PTE and
		 * flushes it everywhere (ptep_clear_flush) before the copy
		 * goes in */
		enum fault_lock_kind k = fault_lock(t, slot);

		zap_and_flush(t, slot, page, 1, ZAP_COW);
		t_access(t, va, &user, &sys, true, FK_COW);
		sim_t_work(t, sys, ACCT_SYS);
		sim_ct_sections(t);
		sys = 0;
		fault_unlock(t, slot, k);
	}
	sim_t_work(t, sys, ACCT_SYS);
	sim_t_work(t, user, ACCT_USER);
}

void sim_t_read_around(struct task *t, uint32_t slot, uint32_t page,
		       uint32_t window)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	uint64_t base = (uint64_t)slot * m->pages;
	uint64_t va = slot_va(m, slot) + ((uint64_t)page << m->shift);
	uint32_t first = window ? page - page % window : page;
	simtime user = 0, sys = 0, around = 0;
	enum fault_lock_kind k;

	if (t_access(t, va, &user, &sys, false, FK_FILE_READ)) {
		sim_t_work(t, sys, ACCT_SYS);
		sim_t_work(t, user, ACCT_USER);
		return;
	}
	sim_t_work(t, sys, ACCT_SYS);
	sim_t_work(t, user, ACCT_USER);
	user = sys = 0;
	k = fault_lock(t, slot);
	t_access(t, va, &user, &sys, true, FK_FILE_READ);
	/* do_fault_around(): the window's other pages that are in the page
	 * cache and not mapped get read-only PTEs (no TLB entry) */
	for (uint32_t i = first; i < first + window && i < m->pages; i++) {
		if (m->pte[base + i].gen & 1)
			continue;
		m->pte[base + i].gen++;
		mm_list_present(m, base + i);
		around++;
	}
	sys += (simtime)(s->cost[SIM_COST_unmap_per_page] * (double)around);
	sim_t_work(t, sys, ACCT_SYS);
	fault_unlock(t, slot, k);
	sim_t_work(t, user, ACCT_USER);
}
