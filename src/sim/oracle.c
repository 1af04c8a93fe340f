// SPDX-License-Identifier: MIT
/*
 * The oracle: stale translations, used and latent (oracle.h says what
 * each is). The latent check runs when a flush is reported complete: the
 * TLB of each vCPU of the VM that may hold an entry of a page the flush
 * covered is probed; an entry older than the generation the flush
 * covered is a violation unless the vCPU is excused, and an excused vCPU
 * owes the flush until it next runs a guest thread.
 *
 * Cost. Only the vCPUs that filled an entry of the pages since their
 * last zap can hold one older than this flush (the PTE keeps them, one
 * bit each): an older entry was judged at the flush of that zap. Of
 * those, a vCPU that flushed everything since the zap changed the PTEs
 * holds nothing older (the per-vCPU stamp of its last full flush makes
 * that one comparison). A vCPU owed a full flush (one pending out of
 * guest mode, or the catch-up of lazy TLB mode) is excused without a
 * probe; when it next runs a thread its stamp says whether the flush
 * happened, and only if not is its TLB scanned for what a completed
 * flush left behind. So only vCPUs that got a range flush, or none, are
 * probed page by page.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hvtlb/hypercall.h>

#include "runtime/flushq-private.h"
#include "sim/machine.h"
#include "sim/oracle.h"

/* A stale entry an excused vCPU must have dropped when it next runs a
 * guest thread. */
struct owed {
	uint64_t va;
	uint64_t zap; /* the latest flush it is owed to: its oracle_zap() */
	uint64_t shootdown;
	uint32_t asid; /* 0: a global (kernel) entry */
	uint32_t covered;
	uint32_t initiator;
	unsigned shift;
};

int sim_oracle_init(struct sim *s)
{
	s->ov = calloc(s->nvcpus, sizeof(*s->ov));
	return s->ov ? 0 : -ENOMEM;
}

void sim_oracle_finish(struct sim *s)
{
	if (!s->ov)
		return;
	for (uint32_t i = 0; i < s->nvcpus; i++)
		free(s->ov[i].owed);
	free(s->ov);
	s->ov = NULL;
}

/* Counts and records one violation on @p v. */
static void record(struct sim *s, const struct vcpu *v,
		   enum hvtlb_sim_stale why, uint64_t va, uint32_t gen,
		   uint32_t covered, uint32_t initiator, uint64_t shootdown)
{
	struct hvtlb_sim_results *r = s->r;
	bool used = why == HVTLB_SIM_STALE_USED;

	TRACE(s, HVTLB_SIM_TRACE_VIOLATION, v, TR_NONE, s->now, va, why);
	if (r->nrecorded < s->c->max_violations) {
		struct hvtlb_sim_violation *x = &r->violation[r->nrecorded++];

		x->vm = v->vm;
		x->vcpu = v->idx;
		x->address = va;
		x->time_s = cyc_to_s(s, s->now);
		x->why = why;
		x->generation = gen;
		x->covered = covered;
		x->initiator = initiator;
		x->shootdown = shootdown;
	}
	if (used && !r->used_violations)
		sim_slog(s, HVTLB_SIM_LOG_INFO,
			 "oracle: vm %u vcpu %u used a stale entry for 0x%llx "
			 "(generation %u, flushed up to %u) at %.9f s",
			 v->vm, v->idx, (unsigned long long)va, gen, covered,
			 cyc_to_s(s, s->now));
	if (!used && !r->latent_violations)
		sim_slog(s, HVTLB_SIM_LOG_INFO,
			 "oracle: vm %u vcpu %u holds a stale entry for 0x%llx "
			 "(generation %u < %u) after shootdown %llu from vcpu "
			 "%u "
			 "(%s) at %.9f s",
			 v->vm, v->idx, (unsigned long long)va, gen, covered,
			 (unsigned long long)shootdown, initiator,
			 hvtlb_sim_stale_name(why), cyc_to_s(s, s->now));
	if (used)
		r->used_violations++;
	else
		r->latent_violations++;
	r->violations++;
}

void sim_oracle_used(struct sim *s, struct vcpu *v, uint64_t va, uint32_t gen,
		     uint32_t covered)
{
	record(s, v, HVTLB_SIM_STALE_USED, va, gen, covered, TR_NONE, 0);
}

/* The generation of @p o's entry for the page at @p va (1 << @p shift
 * bytes) of address space @p asid (0: a global entry), in *@p gen. */
static bool held(struct vcpu *o, uint64_t va, unsigned shift, uint32_t asid,
		 uint32_t *gen)
{
	return sim_tlb_probe(&o->tlb, sim_tlb_key(va, shift, asid), va >> shift,
			     gen);
}

/*
 * Does invalidating @p n pages of 1 << @p shift bytes from @p start drop
 * the entry of the page at @p va (1 << @p eshift bytes)? As
 * sim_tlb_invalidate(): each address the range names drops every entry that
 * maps it, so the entry goes when one of those addresses falls in it.
 */
static bool range_hits(uint64_t start, uint64_t n, unsigned shift, uint64_t va,
		       unsigned eshift)
{
	uint64_t first =
		va > start ? (va - start + (1ULL << shift) - 1) >> shift : 0;

	return first < n && start + (first << shift) < va + (1ULL << eshift);
}

static bool flush_range_hits(const struct hvtlb_flush_range *r, uint64_t va,
			     unsigned eshift, bool global)
{
	if (r->all)
		return !global || r->include_global;
	return range_hits(r->start, hvtlb_range_pages(r), r->stride_shift, va,
			  eshift);
}

/* The hypervisor's queue holds a flush that drops the entry. */
static bool queued_hits(struct vcpu *o, uint64_t va, unsigned shift,
			bool global)
{
	struct hvtlb_flushq_batch b;

	if (!hvtlb_flushq_pending(&o->hv.fq))
		return false;
	runtime_flushq_peek(&o->hv.fq, &b);
	if (b.all)
		return !global || o->hv.fq_global;
	for (size_t i = 0; i < b.n; i++) {
		if (range_hits(b.ranges[i].gva, b.ranges[i].pages,
			       hvtlb_page_shift(b.ranges[i].size), va, shift))
			return true;
	}
	return false;
}

/* A delivered flush IPI that @p o takes before it runs again drops the
 * entry (as handle_ipi() treats it). */
static bool ipi_hits(struct sim *s, struct vcpu *o, uint64_t va, unsigned shift,
		     uint32_t asid)
{
	for (uint32_t i = 0; i < o->irq.npend; i++) {
		const struct ipi_rec *q = &o->irq.pend[i];

		if (q->arrive > s->now || q->kind != IPI_FLUSH || q->drop)
			continue;
		if (asid && q->asid != asid)
			continue;
		if (asid && s->c->lazy_leave && o->guest.lazy &&
		    o->guest.loaded_mm == q->asid - 1)
			return true; /* it leaves the mm: a full flush */
		if (flush_range_hits(&q->r, va, shift, !asid))
			return true;
	}
	return false;
}

/* A lazy invalidation (strategy lazy) that @p o applies at its next
 * context switch, before any guest thread runs, drops the entry. */
static bool lazy_rec_hits(const struct vcpu *o, uint64_t va, unsigned shift,
			  uint32_t asid)
{
	if (o->gs.cur != NONE_ID)
		return false;
	if (o->guest.lz_all)
		return true;
	for (uint32_t i = 0; i < o->guest.nlz; i++) {
		const struct lazy_rec *l = &o->guest.lz[i];

		if (asid && l->asid != asid)
			continue;
		if (range_hits(l->start, (l->end - l->start) >> l->shift,
			       l->shift, va, shift))
			return true;
	}
	return false;
}

/* A flush that drops the entry runs before @p o next runs a guest
 * thread: @p o is out of guest mode with one pending, or it has no thread
 * (in guest mode or not) and a lazy invalidation of the entry waits for
 * its next context switch. An idle vCPU in guest mode counts: the lazy
 * strategy does not wait for a vCPU that was halted when the
 * invalidation was posted, and one woken since into its idle loop still
 * holds the entry when the flush completes, but it applies it before a
 * thread runs (guest_schedule(), then oracle_resume() checks). */
static bool pending_hits(struct sim *s, struct vcpu *o, uint64_t va,
			 unsigned shift, uint32_t asid)
{
	if (o->guest.lz && lazy_rec_hits(o, va, shift, asid))
		return true;
	if (o->hs == H_RUNNING)
		return false;
	/* KVM flushes the whole guest context at entry, globals too. */
	if (o->steal & HVTLB_KVM_VCPU_FLUSH_TLB)
		return true;
	return queued_hits(o, va, shift, !asid) ||
	       ipi_hits(s, o, va, shift, asid);
}

/* @p o owes the flush: remembers the entry until it next runs a thread
 * (one record per entry: the latest flush and generation). */
static void owe(struct sim *s, struct vcpu *o, const struct oracle_flush *f,
		uint64_t va, uint32_t asid, uint32_t covered)
{
	struct oracle_vcpu *ov = &s->ov[o->gid];
	struct owed *w;

	for (uint32_t i = 0; i < ov->nowed; i++) {
		w = &ov->owed[i];
		if (w->va == va && w->asid == asid && w->shift == f->shift) {
			if (covered > w->covered)
				w->covered = covered;
			w->zap = f->zap;
			return;
		}
	}
	if (ov->nowed == ov->cap) {
		uint32_t nc = ov->cap ? ov->cap * 2 : 8;

		w = realloc(ov->owed, nc * sizeof(*w));
		if (!w) {
			s->failed = true;
			return;
		}
		ov->owed = w;
		ov->cap = nc;
	}
	ov->owed[ov->nowed++] = (struct owed){
		.va = va,
		.zap = f->zap,
		.shootdown = f->shootdown,
		.asid = asid,
		.covered = covered,
		.initiator = f->initiator,
		.shift = f->shift,
	};
}

/* The initiator's view of @p o's lazy TLB mode: it was lazy in the
 * flushed mm at the request and still is. */
static bool lazy_since_request(const struct sim *s, const struct vcpu *o,
			       const struct oracle_flush *f)
{
	return f->mm != NONE_ID && o->guest.lazy && o->gs.cur == NONE_ID &&
	       o->guest.loaded_mm == f->mm &&
	       s->ov[o->gid].lazy_since < f->request;
}

/* Lazy TLB mode is a legal skip (no table freed) and it flushes
 * everything when it switches back to the mm (tlb_gen: switch_mm). */
static bool lazy_catches_up(const struct sim *s, const struct vcpu *o,
			    const struct oracle_flush *f)
{
	return !f->freed && s->c->tlb_gen &&
	       o->guest.mm_gen < s->mm[f->mm].tlb_gen;
}

/* A flush of all @p o's non-global entries of address space @p asid runs
 * before it next runs a guest thread (as pending_hits()). */
static bool pending_all(struct sim *s, struct vcpu *o, uint32_t asid)
{
	struct hvtlb_flushq_batch b;

	/* as pending_hits(): a lazy flush of everything, idle or not */
	if (o->guest.lz && o->gs.cur == NONE_ID && o->guest.lz_all)
		return true;
	if (o->hs == H_RUNNING)
		return false;
	if (o->steal & HVTLB_KVM_VCPU_FLUSH_TLB)
		return true;
	for (uint32_t i = 0; i < o->irq.npend; i++) {
		const struct ipi_rec *q = &o->irq.pend[i];

		if (q->arrive <= s->now && q->kind == IPI_FLUSH && !q->drop &&
		    q->asid == asid &&
		    (q->r.all || (s->c->lazy_leave && o->guest.lazy &&
				  o->guest.loaded_mm == q->asid - 1)))
			return true;
	}
	if (!hvtlb_flushq_pending(&o->hv.fq))
		return false;
	runtime_flushq_peek(&o->hv.fq, &b);
	return b.all;
}

/* @p o owes a full flush for @p f: it must have had one when it next
 * runs a thread. */
static void owe_all(struct sim *s, const struct vcpu *o,
		    const struct oracle_flush *f)
{
	struct oracle_vcpu *ov = &s->ov[o->gid];

	if (!ov->owed_all) {
		ov->owed_initiator = f->initiator;
		ov->owed_shootdown = f->shootdown;
	}
	if (f->zap > ov->owed_all)
		ov->owed_all = f->zap;
}

/* The verdict on an excused vCPU: it owes the flush. */
#define EXCUSED HVTLB_SIM_STALE_COUNT_

/* @p o holds an entry of @p va older than the flush @p f covered: is it
 * excused (a flush pending for it out of guest mode; lazy TLB mode at the
 * request, with a catch-up due and no page table freed), or why not?
 * With @p lazy_now (the faults' accounting, while the flush is in
 * flight), lazy TLB mode now is what counts: an accounting of its own,
 * so that the check's rule of the request is tested, not copied. */
static enum hvtlb_sim_stale verdict(struct sim *s, struct vcpu *o,
				    const struct oracle_flush *f, uint64_t va,
				    uint32_t asid, bool lazy_now)
{
	if (pending_hits(s, o, va, f->shift, asid))
		return EXCUSED;
	if (lazy_now ? f->mm != NONE_ID && o->guest.lazy &&
			       o->gs.cur == NONE_ID &&
			       o->guest.loaded_mm == f->mm
		     : lazy_since_request(s, o, f)) {
		/* Lazy TLB mode when the flush was requested, and still:
		 * skipped legally unless tables were freed, if it catches up
		 * when it switches back (switch_mm). One that went lazy
		 * later was a target like any other. */
		if (f->freed)
			return HVTLB_SIM_STALE_LAZY_FREED;
		if (lazy_catches_up(s, o, f))
			return EXCUSED;
		return HVTLB_SIM_STALE_NO_CATCH_UP;
	}
	return o->hs == H_RUNNING ? HVTLB_SIM_STALE_RUNNING
				  : HVTLB_SIM_STALE_NOT_PENDING;
}

/* Calls @p fn for each page of @p f that @p o holds through an entry
 * older than the generation @p f covered; stops when it returns true. */
static bool each_stale(struct sim *s, struct vcpu *o,
		       const struct oracle_flush *f,
		       bool (*fn)(struct sim *s, struct vcpu *o,
				  const struct oracle_flush *f, uint64_t va,
				  uint32_t gen, uint32_t covered))
{
	uint32_t asid = f->mm == NONE_ID ? 0 : s->mm[f->mm].id;

	if (!o->tlb_ready)
		return false;
	/* Everything it holds was filled after the zap, or while it had
	 * another address space loaded (none since its last full flush). */
	if (asid && (s->ov[o->gid].full >= f->zap ||
		     (o->guest.loaded_mm != f->mm && !s->ov[o->gid].left)))
		return false;
	for (uint32_t k = 0; k < f->n; k++) {
		uint32_t p = f->idx ? f->idx[k] : k;
		uint64_t va = f->base + ((uint64_t)p << f->shift);
		uint32_t gen;

		if (held(o, va, f->shift, asid, &gen) && gen < f->covered[p] &&
		    fn(s, o, f, va, gen, f->covered[p]))
			return true;
	}
	return false;
}

/* A stale entry at completion: owed, or a violation. */
static bool judge(struct sim *s, struct vcpu *o, const struct oracle_flush *f,
		  uint64_t va, uint32_t gen, uint32_t covered)
{
	uint32_t asid = f->mm == NONE_ID ? 0 : s->mm[f->mm].id;
	enum hvtlb_sim_stale why = verdict(s, o, f, va, asid, false);

	if (why == EXCUSED)
		owe(s, o, f, va, asid, covered);
	else
		record(s, o, why, va, gen, covered, f->initiator, f->shootdown);
	return false;
}

static bool unexcused(struct sim *s, struct vcpu *o,
		      const struct oracle_flush *f, uint64_t va, uint32_t gen,
		      uint32_t covered)
{
	(void)gen;
	(void)covered;
	return verdict(s, o, f, va, f->mm == NONE_ID ? 0 : s->mm[f->mm].id,
		       true) != EXCUSED;
}

bool sim_oracle_needs(struct sim *s, struct vcpu *v,
		      const struct oracle_flush *f)
{
	return f && (f->fillers & filler_bit(v->idx)) &&
	       each_stale(s, v, f, unexcused);
}

/* The next vCPU index from @p i on that @p fillers may name, or
 * @p n. */
static uint32_t next_filler(uint64_t fillers, uint32_t i, uint32_t n)
{
	if (i >= 63)
		return fillers >> 63 && i < n ? i : n;
	fillers >>= i;
	if (!fillers)
		return n;
	i += (uint32_t)__builtin_ctzll(fillers);
	return i < n ? i : n;
}

void sim_oracle_flush_done(struct sim *s, const struct oracle_flush *f)
{
	struct vcpu *first = &s->v[(size_t)f->vm * s->c->vcpus];
	uint32_t n = s->c->vcpus;

	if (!s->c->latent_check)
		return;
	/* Only a vCPU that filled an entry of these pages since their
	 * last zap can hold one older than this flush (an older one was
	 * judged at the flush of that zap). */
	for (uint32_t i = next_filler(f->fillers, 0, n); i < n;
	     i = next_filler(f->fillers, i + 1, n)) {
		struct vcpu *o = &first[i];
		const struct oracle_vcpu *ov = &s->ov[o->gid];

		if (!o->tlb_ready)
			continue;
		/* User pages: nothing older than the zap, or excused as a
		 * whole (a kernel flush is one page: just look). */
		if (f->mm != NONE_ID) {
			if (ov->full >= f->zap ||
			    (o->guest.loaded_mm != f->mm && !ov->left))
				continue;
			if ((lazy_since_request(s, o, f) &&
			     lazy_catches_up(s, o, f)) ||
			    pending_all(s, o, s->mm[f->mm].id)) {
				owe_all(s, o, f);
				continue;
			}
		}
		each_stale(s, o, f, judge);
	}
}

/* ------------------------------------------------- fault accounting */
/* Which entries a scan for sim_oracle_holds_stale() and
 * sim_oracle_holds_global() looks for. */
struct withheld {
	struct sim *s;
	struct vcpu *v;
	bool global_only;
	bool stale; /* older than a completed flush (else than its PTE) */
};

/* The PTE entry @p e of @p v was filled from, or NULL. */
static const struct pte *entry_pte(const struct sim *s, const struct vcpu *v,
				   const struct tlb_seen *e)
{
	if (e->global) {
		uint32_t kp = s->c->wl_kernel_pages;
		uint64_t p = (e->va - KVA_BASE) >> 12;

		if (e->va < KVA_BASE || p >= kp)
			return NULL;
		return &s->kpte[(size_t)v->vm * kp + p];
	}
	if (!e->asid || e->asid > s->nmms)
		return NULL;
	const struct mm *m = &s->mm[e->asid - 1];
	uint64_t i = (e->va - GVA_BASE) >> m->shift;

	if (e->shift != m->shift || e->va < GVA_BASE ||
	    i >= (uint64_t)m->nslots * m->pages)
		return NULL;
	return &m->pte[i];
}

static bool withheld_match(void *data, const struct tlb_seen *e)
{
	const struct withheld *w = data;
	const struct pte *p;

	if (w->global_only && !e->global)
		return false;
	p = entry_pte(w->s, w->v, e);
	if (!p || e->gen >= (w->stale ? p->flushed : p->gen))
		return false;
	/* Excused now as the latent check excuses: another flush that
	 * drops it is pending while out of guest mode. */
	return !pending_hits(w->s, w->v, e->va, e->shift, e->asid);
}

bool sim_oracle_holds_stale(struct sim *s, struct vcpu *v)
{
	struct withheld w = { .s = s, .v = v, .stale = true };

	return v->tlb_ready && sim_tlb_find(&v->tlb, withheld_match, &w);
}

bool sim_oracle_holds_global(struct sim *s, struct vcpu *v)
{
	struct withheld w = { .s = s, .v = v, .global_only = true };

	return v->tlb_ready && sim_tlb_find(&v->tlb, withheld_match, &w);
}

/* A scan of a vCPU that owed a full flush and did not have one. */
struct lost {
	struct sim *s;
	struct vcpu *v;
	/* entries already counted (an entry may be in both levels) */
	uint64_t seen[64];
	uint32_t nseen;
};

static bool lost_match(void *data, const struct tlb_seen *e)
{
	struct lost *l = data;
	const struct oracle_vcpu *ov = &l->s->ov[l->v->gid];
	const struct pte *p;
	uint64_t key = e->va | e->asid;

	if (e->global)
		return false; /* owed_all covers non-global entries only */
	p = entry_pte(l->s, l->v, e);
	if (!p || e->gen >= p->flushed)
		return false;
	for (uint32_t i = 0; i < l->nseen; i++)
		if (l->seen[i] == key)
			return false;
	if (l->nseen < sizeof(l->seen) / sizeof(l->seen[0]))
		l->seen[l->nseen++] = key;
	record(l->s, l->v, HVTLB_SIM_STALE_FLUSH_LOST, e->va, e->gen,
	       p->flushed, ov->owed_initiator, ov->owed_shootdown);
	return false;
}

void sim_oracle_settle(struct sim *s, struct vcpu *v)
{
	struct oracle_vcpu *ov = &s->ov[v->gid];

	if (ov->owed_all) {
		/* The full flush it owed did not happen: what did a
		 * completed flush leave behind? */
		if (ov->full < ov->owed_all && v->tlb_ready) {
			struct lost l = { .s = s, .v = v };

			sim_tlb_find(&v->tlb, lost_match, &l);
		}
		ov->owed_all = 0;
	}
	for (uint32_t i = 0; i < ov->nowed; i++) {
		const struct owed *w = &ov->owed[i];
		uint32_t gen;

		if (w->asid && ov->full >= w->zap)
			continue;
		if (v->tlb_ready && held(v, w->va, w->shift, w->asid, &gen) &&
		    gen < w->covered)
			record(s, v, HVTLB_SIM_STALE_FLUSH_LOST, w->va, gen,
			       w->covered, w->initiator, w->shootdown);
	}
	ov->nowed = 0;
}

/* The flush of @p t's last zap of @p slot is complete: entries older
 * than the generation it covered are stale now. */
void sim_mark_zapped_flushed(struct task *t, struct mm *m, uint32_t slot)
{
	uint64_t base = (uint64_t)slot * m->pages;

	for (uint32_t k = 0; k < t->nz; k++) {
		struct pte *p = &m->pte[base + t->zidx[k]];
		uint32_t g = t->covered[t->zidx[k]];

		if (g > p->flushed)
			p->flushed = g;
	}
}
