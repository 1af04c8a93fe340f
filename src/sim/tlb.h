/* SPDX-License-Identifier: MIT */
/*
 * A vCPU's TLB: set-associative levels of entries tagged with an address
 * space (PCID/ASID), a page size and the global bit, each remembering the
 * page-table generation it was filled from (for the oracle).
 */
#ifndef HVTLB_SIM_TLB_H
#define HVTLB_SIM_TLB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hvtlb/sim.h>

/* An entry is its key (0 = invalid; a global entry's has no ASID) and
 * this. A set keeps its ways' keys together, then their struct tlb_meta:
 * an invalidation or a lookup reads the keys and only a match's epoch. */
struct tlb_meta {
	uint32_t gen;	/* page-table generation it was filled from */
	uint32_t epoch; /* bit 31: global; bits 30:0: epoch of its class */
};

struct tlb_level {
	uint32_t sets, ways;
	/* per set, its ways' keys then as many struct tlb_meta (tlb.c) */
	uint64_t *key;
	/* per set: the way of a full set to evict next (round robin) */
	uint32_t *victim;
	/* bit per set, clear when no entry of the set can be live: none was
	 * filled since a flush of everything, or an INVLPG emptied it
	 * (tlb.c) */
	uint64_t *fresh;
};

struct tlb {
	uint32_t epoch;	 /* non-global entries; full flush = epoch++ */
	uint32_t gepoch; /* global entries; flush with globals bumps both */
	/* a 2 MiB or 1 GiB entry may be live; without one, an INVLPG of a
	 * 4 KiB page need not probe the large-page sets */
	bool large;
	/* a global entry may be live (set by a global fill, cleared by a
	 * flush of everything including globals) */
	bool global;
	struct tlb_level lv[2]; /* lv[1].sets == 0: no STLB */
};

int sim_tlb_init(struct tlb *t, const struct hvtlb_sim_config *c);
void sim_tlb_finish(struct tlb *t);
size_t sim_tlb_bytes(const struct hvtlb_sim_config *c);
uint64_t sim_tlb_key(uint64_t va, unsigned shift, uint32_t asid);
/* Returns the level that hit (1 or 2) and the entry's gen, or 0. */
int sim_tlb_lookup(struct tlb *t, uint64_t key, uint64_t vpn, uint32_t *gen);
/* Both match a global entry of the key's address from any ASID. */
/* As sim_tlb_lookup, without filling L1 (for the oracle's scans). */
int sim_tlb_probe(struct tlb *t, uint64_t key, uint64_t vpn, uint32_t *gen);
/* Inserts @p key; @p global: a global entry (matches every ASID). */
void sim_tlb_fill(struct tlb *t, uint64_t key, uint64_t vpn, uint32_t gen,
		  bool global);
/* Invalidates [va, va + n pages of 1 << shift); asid ~0u: any space.
 * Like INVLPG, global entries of those addresses go too. */
void sim_tlb_invalidate(struct tlb *t, uint64_t va, uint64_t n, unsigned shift,
			uint32_t asid);
/* Every non-global entry; with @p global the global ones too. */
void sim_tlb_flush_all(struct tlb *t, bool global);
/* A live entry as sim_tlb_find() shows it. */
struct tlb_seen {
	uint64_t va; /* of the page it maps */
	unsigned shift;
	uint32_t asid; /* 0 for a global entry */
	bool global;
	uint32_t gen;
};
/* Whether @p match is true for a live entry (each level is scanned; an
 * entry in both levels may be shown twice). For the oracle's accounting
 * of faults: O(entries). */
bool sim_tlb_find(const struct tlb *t,
		  bool (*match)(void *data, const struct tlb_seen *e),
		  void *data);

#endif
