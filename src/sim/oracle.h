/* SPDX-License-Identifier: MIT */
/*
 * The oracle (oracle.c): stale translations, used and latent.
 *
 * Used: every PTE records the generation the last completed flush
 * covered; a translation through an entry filled from an older one is a
 * used violation (oracle_use(), at every TLB hit).
 *
 * Latent: when a flush is reported complete to its initiator, every vCPU
 * of the VM must not hold an entry of a page it covered older than the
 * generation it covered (sim_oracle_flush_done()), unless the vCPU is excused:
 * out of guest mode with a flush pending that covers the entry (KVM's
 * deferred flag, the hypervisor's flush queue, a delivered IPI), idle with
 * a lazy invalidation recorded for it, or in lazy TLB mode on a flush that
 * freed no page table with a generation check due when it switches back.
 * An excused vCPU owes the flush: when it next runs a guest thread
 * (oracle_resume()) the entry must be gone.
 */
#ifndef HVTLB_SIM_ORACLE_H
#define HVTLB_SIM_ORACLE_H

#include "sim/machine.h"

/* What one completed flush covered. */
struct oracle_flush {
	uint32_t vm;	/* the initiator's VM (in this part) */
	uint32_t mm;	/* mm index; NONE_ID: kernel (global) pages */
	uint64_t base;	/* address of page number 0 */
	unsigned shift; /* page size */
	uint32_t n;	/* pages */
	/* page numbers (from base) of the pages, or NULL for 0 .. n - 1 */
	const uint32_t *idx;
	/* per page number: the generation the flush covered */
	const uint32_t *covered;
	bool freed; /* page tables were freed */
	/* when the flush was requested (oracle_request()): a vCPU in lazy
	 * TLB mode since before may be skipped without freed tables */
	uint64_t request;
	uint64_t zap; /* oracle_zap() when the PTEs changed */
	/* vCPUs that filled an entry of these pages (of their slot) since
	 * the last zap (filler_bit()): nobody else holds one older than
	 * this flush */
	uint64_t fillers;
	uint32_t initiator; /* vCPU index */
	uint64_t shootdown; /* its number in the run (s->r->shootdowns) */
};

struct owed;

/* The oracle's state of a vCPU (s->ov[gid]). */
struct oracle_vcpu {
	uint64_t full; /* s->ozap at its last full non-global flush */
	/* it left an address space since its last full flush (it may hold
	 * non-global entries of one it has not loaded) */
	bool left;
	uint64_t lazy_since; /* s->oseq when it last entered lazy mode */
	/* it owes a full flush for the flushes up to zap owed_all (0: none);
	 * the first of them, for the report */
	uint64_t owed_all;
	uint64_t owed_shootdown;
	uint32_t owed_initiator;
	struct owed *owed; /* single entries it owes (range flushes) */
	uint32_t nowed, cap;
};

/* Allocates the per-vCPU state (sim_setup); 0 or -ENOMEM. */
int sim_oracle_init(struct sim *s);
void sim_oracle_finish(struct sim *s);

/* A zap changes PTEs now: returns its stamp (struct oracle_flush.zap). */
static inline uint64_t oracle_zap(struct sim *s)
{
	return ++s->ozap;
}

/* @p v flushed every non-global entry just now (vcpu-tlb.c). */
static inline void oracle_full_flush(struct sim *s, const struct vcpu *v)
{
	s->ov[v->gid].full = s->ozap;
	s->ov[v->gid].left = false;
}
/* @p v no longer has its address space loaded (switch_mm, a lazy CPU
 * leaving). Until its next full flush it may hold entries of an address
 * space it has not loaded; after it, it holds entries of the loaded one
 * only, which spares the probes of every other. */
static inline void oracle_left_mm(struct sim *s, const struct vcpu *v)
{
	s->ov[v->gid].left = true;
}

/* vCPU @p v translated @p va through a stale entry filled from @p gen,
 * where the last completed flush covered @p covered. */
void sim_oracle_used(struct sim *s, struct vcpu *v, uint64_t va, uint32_t gen,
		     uint32_t covered);

/* A translation of @p va through an entry filled from generation @p gen,
 * where the last completed flush covered @p flushed. */
static inline void oracle_use(struct sim *s, struct vcpu *v, uint64_t va,
			      uint32_t gen, uint32_t flushed)
{
	if (gen < flushed)
		sim_oracle_used(s, v, va, gen, flushed);
}

/* @p f is requested now: the vCPUs in lazy TLB mode now are the ones it
 * may leave alone. */
static inline void oracle_request(struct sim *s, struct oracle_flush *f)
{
	f->request = ++s->oseq;
}

/* @p v enters lazy TLB mode now. */
static inline void oracle_lazy(struct sim *s, const struct vcpu *v)
{
	s->ov[v->gid].lazy_since = ++s->oseq;
}

/* The flush @p f is complete (reported to its initiator): checks every
 * vCPU of the initiator's VM (engine.latent_check). */
void sim_oracle_flush_done(struct sim *s, const struct oracle_flush *f);

/* oracle_resume() when @p v owes something. */
void sim_oracle_settle(struct sim *s, struct vcpu *v);

/* @p v is about to run a guest thread (entry with a current thread, or a
 * thread switched in): what it owes must be flushed by now. */
static inline void oracle_resume(struct sim *s, struct vcpu *v)
{
	const struct oracle_vcpu *ov = &s->ov[v->gid];

	if (ov->owed_all || ov->nowed)
		sim_oracle_settle(s, v);
}

/*
 * For fault_hits: whether a flush a fault withholds from @p v was needed.
 * sim_oracle_needs(): @p v holds an entry of a page @p f covers, older than
 * what it covers, and nothing excuses it now as the latent check would
 * (NULL @p f: false). sim_oracle_holds_stale(): an entry older than the last
 * completed flush of its page; sim_oracle_holds_global(): a global entry
 * older than its PTE; in both, one that no flush pending out of guest
 * mode drops. The last two scan the TLB: only where a fault is on.
 */
bool sim_oracle_needs(struct sim *s, struct vcpu *v,
		      const struct oracle_flush *f);
bool sim_oracle_holds_stale(struct sim *s, struct vcpu *v);
bool sim_oracle_holds_global(struct sim *s, struct vcpu *v);

/* The flush of @p t's last zap of @p slot is complete: entries older than
 * the generation it covered are stale now. */
void sim_mark_zapped_flushed(struct task *t, struct mm *m, uint32_t slot);

#endif
