// SPDX-License-Identifier: MIT
/*
 * A set-associative TLB of one or two levels (L1 dTLB + STLB, inclusive).
 * Entries are tagged with (virtual page number, page size, ASID/PCID) and
 * carry the page-table generation they were filled from, for the oracle.
 * A full flush bumps an epoch instead of touching every entry.
 *
 * Global entries (the G bit of a kernel PTE) are stored without an ASID
 * and match a lookup from any ASID. They live in their own epoch, so a
 * non-global full flush (a CR3 write, a flush without the global bit)
 * keeps them; an invalidation of their address, or a flush that includes
 * globals, drops them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/tlb.h"

/* key: bit 63 valid, bits 62:50 asid (13 bits), 49:48 size, 47:0 vpn of the
 * 4 KiB page the entry starts at (va >> 12). */
#define KEY_VALID (1ULL << 63)
#define KEY_ASID_SHIFT 50
#define KEY_ASID_MASK (0x1fffULL << KEY_ASID_SHIFT)
#define KEY_SIZE_SHIFT 48
/* entry epoch: bit 31 marks a global entry, bits 30:0 the epoch it was
 * filled in (the global epoch for a global entry). */
#define EPOCH_GLOBAL (1u << 31)
#define EPOCH_MASK (EPOCH_GLOBAL - 1)

/* victim[set]: the way of a full set to evict next (round robin).
 *
 * fresh[]: a bit per set, clear when the set holds no live entry: none
 * was filled in it since the last sim_tlb_flush_all() that left every
 * entry dead, or an INVLPG left all its keys 0. Most sets of a guest that
 * maps and unmaps a page at a time are empty, and an overcommitted run
 * flushes whole TLBs on most flush IPIs: most lookups, fills and INVLPGs
 * meet such sets, and the bitmap (a few words a level) answers them
 * without reading the set's keys, where a miss in the host's caches is
 * what they cost. A set bit means only that the keys must be read. */
static inline bool set_fresh(const struct tlb_level *l, uint32_t set)
{
	return l->fresh[set >> 6] >> (set & 63) & 1;
}

static inline void set_fresh_to(struct tlb_level *l, uint32_t set, bool on)
{
	uint64_t bit = 1ULL << (set & 63);

	l->fresh[set >> 6] =
		on ? l->fresh[set >> 6] | bit : l->fresh[set >> 6] & ~bit;
}

static inline size_t fresh_words(uint32_t sets)
{
	return ((size_t)sets + 63) / 64;
}

/* Levels in use: the STLB has no sets when there is none. */
static inline uint32_t tlb_nlevels(const struct tlb *t)
{
	return t->lv[1].sets ? 2 : 1;
}

static void fresh_clear(struct tlb *t)
{
	for (uint32_t i = 0; i < tlb_nlevels(t); i++)
		memset(t->lv[i].fresh, 0,
		       fresh_words(t->lv[i].sets) * sizeof(uint64_t));
}

/* A set's ways: their keys, then their generations and epochs, side by
 * side in one block (tlb.h). */
struct tlb_set {
	uint64_t *k;
	struct tlb_meta *m;
};

static inline struct tlb_set set_at(const struct tlb_level *l, uint32_t set)
{
	uint64_t *k = l->key + (size_t)set * l->ways * 2;

	return (struct tlb_set){ k, (struct tlb_meta *)(k + l->ways) };
}

/* Way @p w of @p s is valid and of its class's current epoch. */
static inline bool entry_live(const struct tlb *t, struct tlb_set s, uint32_t w)
{
	uint32_t epoch;

	if (!s.k[w])
		return false;
	epoch = s.m[w].epoch;
	if (epoch & EPOCH_GLOBAL)
		return (epoch & EPOCH_MASK) == t->gepoch;
	return epoch == t->epoch;
}

uint64_t sim_tlb_key(uint64_t va, unsigned shift, uint32_t asid)
{
	uint64_t size = shift == 30 ? 2 : shift == 21 ? 1 : 0;

	return KEY_VALID | ((uint64_t)(asid & 0x1fff) << KEY_ASID_SHIFT) |
	       (size << KEY_SIZE_SHIFT) |
	       (((va >> shift) << (shift - 12)) & 0xffffffffffffULL);
}

static int level_init(struct tlb_level *l, uint32_t sets, uint32_t ways)
{
	/* sets and ways are at most 65536 and 64 (config.c): no overflow */
	size_t bytes = (size_t)sets * ways *
		       (sizeof(*l->key) + sizeof(struct tlb_meta));

	_Static_assert(sizeof(struct tlb_meta) == sizeof(*l->key),
		       "set_at() lays a set out in 2 * ways keys' room");
	l->sets = sets;
	l->ways = ways;
	/* On a cache line: a 4-way set is one line, a 12-way set three, and
	 * an INVLPG reads the first one and a half. */
	bytes = (bytes + 63) & ~(size_t)63;
	l->key = aligned_alloc(64, bytes);
	if (l->key)
		memset(l->key, 0, bytes);
	l->victim = calloc(sets, sizeof(*l->victim));
	l->fresh = calloc(fresh_words(sets), sizeof(*l->fresh));
	return l->key && l->victim && l->fresh ? 0 : -ENOMEM;
}

int sim_tlb_init(struct tlb *t, const struct hvtlb_sim_config *c)
{
	t->epoch = 1;
	t->gepoch = 1;
	t->large = false;
	t->global = false;
	t->lv[0].key = t->lv[1].key = NULL;
	t->lv[0].victim = t->lv[1].victim = NULL;
	t->lv[0].fresh = t->lv[1].fresh = NULL;
	t->lv[0].sets = t->lv[1].sets = 0;
	if (level_init(&t->lv[0], c->l1_sets, c->l1_ways))
		return -ENOMEM;
	if (c->tlb_levels > 1 && level_init(&t->lv[1], c->l2_sets, c->l2_ways))
		return -ENOMEM;
	return 0;
}

size_t sim_tlb_bytes(const struct hvtlb_sim_config *c)
{
	size_t entry = sizeof(uint64_t) + sizeof(struct tlb_meta);
	size_t b = (size_t)c->l1_sets * c->l1_ways * entry +
		   c->l1_sets * sizeof(uint32_t) +
		   fresh_words(c->l1_sets) * sizeof(uint64_t);

	if (c->tlb_levels > 1)
		b += (size_t)c->l2_sets * c->l2_ways * entry +
		     c->l2_sets * sizeof(uint32_t) +
		     fresh_words(c->l2_sets) * sizeof(uint64_t);
	return b;
}

void sim_tlb_finish(struct tlb *t)
{
	for (int i = 0; i < 2; i++) {
		free(t->lv[i].key);
		free(t->lv[i].victim);
		free(t->lv[i].fresh);
		t->lv[i].key = NULL;
		t->lv[i].victim = NULL;
		t->lv[i].fresh = NULL;
	}
}

static inline uint32_t set_of(const struct tlb_level *l, uint64_t vpn)
{
	uint64_t h = vpn * 0x9e3779b97f4a7c15ULL;

	return (uint32_t)(h >> 40) & (l->sets - 1);
}

/* The live entry of level @p l that translates @p key (from any ASID
 * when it is global), or NULL. */
static const struct tlb_meta *
find(const struct tlb *t, const struct tlb_level *l, uint64_t key, uint64_t vpn)
{
	uint32_t set = set_of(l, vpn);
	struct tlb_set s = set_at(l, set);
	uint64_t gkey = key & ~KEY_ASID_MASK;

	if (!set_fresh(l, set))
		return NULL;
	for (uint32_t w = 0; w < l->ways; w++) {
		if (s.k[w] != key && s.k[w] != gkey)
			continue;
		/* a global entry matches by gkey, another by key */
		if (s.m[w].epoch & EPOCH_GLOBAL ? s.k[w] != gkey
						: s.k[w] != key)
			continue;
		if (entry_live(t, s, w))
			return &s.m[w];
	}
	return NULL;
}

int sim_tlb_lookup(struct tlb *t, uint64_t key, uint64_t vpn, uint32_t *gen)
{
	for (uint32_t i = 0; i < tlb_nlevels(t); i++) {
		const struct tlb_meta *m = find(t, &t->lv[i], key, vpn);

		if (m) {
			*gen = m->gen;
			if (i > 0) /* into L1 */
				sim_tlb_fill(t, key, vpn, m->gen,
					     m->epoch & EPOCH_GLOBAL);
			return (int)i + 1;
		}
	}
	return 0;
}

int sim_tlb_probe(struct tlb *t, uint64_t key, uint64_t vpn, uint32_t *gen)
{
	for (uint32_t i = 0; i < tlb_nlevels(t); i++) {
		const struct tlb_meta *m = find(t, &t->lv[i], key, vpn);

		if (m) {
			*gen = m->gen;
			return (int)i + 1;
		}
	}
	return 0;
}

static void level_fill(const struct tlb *t, struct tlb_level *l, uint32_t epoch,
		       uint64_t key, uint64_t vpn, uint32_t gen)
{
	uint32_t set = set_of(l, vpn);
	struct tlb_set s = set_at(l, set);
	uint32_t w = 0, n = set_fresh(l, set) ? l->ways : 0;

	/* every way of a set that is not fresh is dead: the scan would stop
	 * at way 0 */
	for (; w < n; w++) {
		if ((s.k[w] == key && s.m[w].epoch == epoch) ||
		    !entry_live(t, s, w))
			break;
	}
	set_fresh_to(l, set, true);
	if (w == n && n) {
		w = l->victim[set];
		l->victim[set] = (w + 1) % l->ways;
	}
	s.k[w] = key;
	s.m[w] = (struct tlb_meta){ gen, epoch };
}

void sim_tlb_fill(struct tlb *t, uint64_t key, uint64_t vpn, uint32_t gen,
		  bool global)
{
	uint32_t epoch = global ? t->gepoch | EPOCH_GLOBAL : t->epoch;

	if (global) {
		key &= ~KEY_ASID_MASK;
		t->global = true;
	}
	if (key & (3ULL << KEY_SIZE_SHIFT))
		t->large = true;
	level_fill(t, &t->lv[0], epoch, key, vpn, gen);
	if (tlb_nlevels(t) > 1 && !find(t, &t->lv[1], key, vpn))
		level_fill(t, &t->lv[1], epoch, key, vpn, gen);
}

/* INVLPG: drops the entries of @p key (masked) and the global entry of
 * the same address, whatever the ASID. */
static void level_inval(struct tlb_level *l, uint64_t key, uint64_t vpn,
			uint64_t mask)
{
	uint32_t set = set_of(l, vpn);
	struct tlb_set s = set_at(l, set);
	uint64_t gkey = key & ~KEY_ASID_MASK, left = 0;

	/* a set that is not fresh holds dead keys only: they can stay */
	if (!set_fresh(l, set))
		return;
	for (uint32_t w = 0; w < l->ways; w++) {
		if ((s.k[w] & mask) == (key & mask) ||
		    (s.k[w] == gkey && (s.m[w].epoch & EPOCH_GLOBAL)))
			s.k[w] = 0;
		left |= s.k[w];
	}
	if (!left)
		set_fresh_to(l, set, false);
}

static void inval_one(struct tlb *t, uint64_t va, unsigned shift, uint32_t asid,
		      uint64_t mask)
{
	uint64_t key = sim_tlb_key(va, shift, asid);
	uint64_t vpn = va >> shift;

	for (uint32_t l = 0; l < tlb_nlevels(t); l++)
		level_inval(&t->lv[l], key, vpn, mask);
}

/*
 * Like INVLPG on every address: whatever page size maps an address, its
 * entry goes, so a 4 KiB-granular flush also drops the 2 MiB or 1 GiB
 * entry that covers it (docs/wire-format.md, "GVA entries": a GVA inside
 * a large page flushes that whole large page).
 */
void sim_tlb_invalidate(struct tlb *t, uint64_t va, uint64_t n, unsigned shift,
			uint32_t asid)
{
	uint64_t mask = asid == ~0u ? ~KEY_ASID_MASK : ~0ULL;
	uint32_t a = asid == ~0u ? 0 : asid;
	uint64_t last2m = ~0ULL, last1g = ~0ULL;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t p = va + (i << shift);
		uint64_t p2m = p & ~((1ULL << 21) - 1);
		uint64_t p1g = p & ~((1ULL << 30) - 1);

		inval_one(t, p, 12, a, mask);
		if (!t->large)
			continue;
		if (p2m != last2m) {
			inval_one(t, p2m, 21, a, mask);
			last2m = p2m;
		}
		if (p1g != last1g) {
			inval_one(t, p1g, 30, a, mask);
			last1g = p1g;
		}
	}
}

/* Clears the entries of one class (global or not) for real. */
static void clear_class(struct tlb *t, bool global)
{
	for (uint32_t l = 0; l < tlb_nlevels(t); l++) {
		const struct tlb_level *lv = &t->lv[l];

		for (uint32_t set = 0; set < lv->sets; set++) {
			struct tlb_set s = set_at(lv, set);

			for (uint32_t w = 0; w < lv->ways; w++)
				if (!(s.m[w].epoch & EPOCH_GLOBAL) == !global)
					s.k[w] = 0;
		}
	}
}

void sim_tlb_flush_all(struct tlb *t, bool global)
{
	t->epoch = (t->epoch + 1) & EPOCH_MASK;
	if (t->epoch == 0) { /* wrapped: clear for real */
		clear_class(t, false);
		t->epoch = 1;
	}
	/* a global entry may still be live in any set */
	if (!t->global || global)
		fresh_clear(t);
	if (!global)
		return;
	t->large = false; /* nothing is live any more */
	t->global = false;
	t->gepoch = (t->gepoch + 1) & EPOCH_MASK;
	if (t->gepoch == 0) {
		clear_class(t, true);
		t->gepoch = 1;
	}
}

/* A live entry as sim_tlb_find() shows it. */
static struct tlb_seen seen_of(uint64_t key, const struct tlb_meta *m)
{
	unsigned size = (key >> KEY_SIZE_SHIFT) & 3;
	uint64_t va = (key & 0xffffffffffffULL) << 12;

	return (struct tlb_seen){
		.shift = size == 2   ? 30
			 : size == 1 ? 21
				     : 12,
		/* the key keeps 48 bits of va >> 12: make the address
		 * canonical again */
		.va = va & (1ULL << 59) ? va | 0xfff0ULL << 48 : va,
		.asid = (uint32_t)((key & KEY_ASID_MASK) >> KEY_ASID_SHIFT),
		.global = m->epoch & EPOCH_GLOBAL,
		.gen = m->gen,
	};
}

bool sim_tlb_find(const struct tlb *t,
		  bool (*match)(void *data, const struct tlb_seen *e),
		  void *data)
{
	for (uint32_t l = 0; l < tlb_nlevels(t); l++) {
		const struct tlb_level *lv = &t->lv[l];

		for (uint32_t set = 0; set < lv->sets; set++) {
			struct tlb_set s = set_at(lv, set);

			for (uint32_t w = 0; w < lv->ways; w++) {
				struct tlb_seen seen;

				if (!entry_live(t, s, w))
					continue;
				seen = seen_of(s.k[w], &s.m[w]);
				if (match(data, &seen))
					return true;
			}
		}
	}
	return false;
}
