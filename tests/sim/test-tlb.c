// SPDX-License-Identifier: MIT
/*
 * The simulated TLB (src/sim/tlb.c) against a reference written for
 * clarity: one array of entries per level, each a key, a generation and
 * an epoch, scanned in full for every operation. On seeded random
 * sequences of fills, lookups, probes, INVLPGs (one ASID or all, 4 KiB
 * to 1 GiB, pages of every size inside large ones) and full flushes with
 * and without globals, every result agrees: the level that hit and the
 * generation, and every live entry sim_tlb_find() shows, in order. Addresses
 * come from a small range so that sets fill up, evict and empty again
 * (the bitmap tlb.c keeps of the sets that may hold a live entry is
 * exercised both ways), on a small TLB and on the default one. Each of
 * these breaks it: the bitmap cleared by a flush that keeps global
 * entries, a fill that does not set its set's bit, an INVLPG that clears
 * it while a key is left, a fill into a set with no live entry that takes
 * the round-robin victim instead of way 0. Then the global bit
 * and large pages by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim/tlb.h"

/* The key as tlb.c lays it out (tlb.h says what it holds). */
#define KEY_ASID_MASK (0x1fffULL << 50)
#define KEY_SIZE_SHIFT 48

struct ref_entry {
	uint64_t key; /* 0: invalid */
	uint32_t gen;
	bool global;
	uint32_t epoch; /* of its class when filled */
};

struct ref_level {
	uint32_t sets, ways;
	struct ref_entry *e;
	uint32_t *victim;
};

struct ref_tlb {
	uint32_t epoch, gepoch;
	uint32_t nlevels;
	struct ref_level lv[2];
};

/* The set an address falls in: the same multiplicative hash as tlb.c. */
static uint32_t ref_set(const struct ref_level *l, uint64_t vpn)
{
	return (uint32_t)((vpn * 0x9e3779b97f4a7c15ULL) >> 40) & (l->sets - 1);
}

static bool ref_live(const struct ref_tlb *t, const struct ref_entry *e)
{
	return e->key && e->epoch == (e->global ? t->gepoch : t->epoch);
}

static bool ref_matches(const struct ref_entry *e, uint64_t key)
{
	return e->key == (e->global ? key & ~KEY_ASID_MASK : key);
}

static void ref_init(struct ref_tlb *t, const struct hvtlb_sim_config *c)
{
	uint32_t sets[2] = { c->l1_sets, c->l2_sets };
	uint32_t ways[2] = { c->l1_ways, c->l2_ways };

	t->epoch = t->gepoch = 1;
	t->nlevels = c->tlb_levels;
	for (uint32_t i = 0; i < t->nlevels; i++) {
		t->lv[i].sets = sets[i];
		t->lv[i].ways = ways[i];
		t->lv[i].e =
			calloc((size_t)sets[i] * ways[i], sizeof(*t->lv[i].e));
		t->lv[i].victim = calloc(sets[i], sizeof(uint32_t));
		assert_non_null(t->lv[i].e);
		assert_non_null(t->lv[i].victim);
	}
}

static void ref_finish(struct ref_tlb *t)
{
	for (uint32_t i = 0; i < t->nlevels; i++) {
		free(t->lv[i].e);
		free(t->lv[i].victim);
	}
}

static struct ref_entry *ref_find(struct ref_tlb *t, struct ref_level *l,
				  uint64_t key, uint64_t vpn)
{
	struct ref_entry *s = &l->e[(size_t)ref_set(l, vpn) * l->ways];

	for (uint32_t w = 0; w < l->ways; w++)
		if (ref_matches(&s[w], key) && ref_live(t, &s[w]))
			return &s[w];
	return NULL;
}

/* The first way that holds the same entry or a dead one, else the next
 * victim in turn. */
static void ref_level_fill(struct ref_tlb *t, struct ref_level *l, uint64_t key,
			   uint64_t vpn, uint32_t gen, bool global)
{
	uint32_t set = ref_set(l, vpn);
	struct ref_entry *s = &l->e[(size_t)set * l->ways];
	uint32_t epoch = global ? t->gepoch : t->epoch, w;

	for (w = 0; w < l->ways; w++)
		if ((s[w].key == key && s[w].epoch == epoch &&
		     s[w].global == global) ||
		    !ref_live(t, &s[w]))
			break;
	if (w == l->ways) {
		w = l->victim[set];
		l->victim[set] = (w + 1) % l->ways;
	}
	s[w] = (struct ref_entry){ key, gen, global, epoch };
}

static void ref_fill(struct ref_tlb *t, uint64_t key, uint64_t vpn,
		     uint32_t gen, bool global)
{
	if (global)
		key &= ~KEY_ASID_MASK;
	ref_level_fill(t, &t->lv[0], key, vpn, gen, global);
	if (t->nlevels > 1 && !ref_find(t, &t->lv[1], key, vpn))
		ref_level_fill(t, &t->lv[1], key, vpn, gen, global);
}

static int ref_lookup(struct ref_tlb *t, uint64_t key, uint64_t vpn,
		      uint32_t *gen, bool refill)
{
	for (uint32_t i = 0; i < t->nlevels; i++) {
		struct ref_entry *e = ref_find(t, &t->lv[i], key, vpn);

		if (e) {
			*gen = e->gen;
			if (i > 0 && refill)
				ref_fill(t, key, vpn, e->gen, e->global);
			return (int)i + 1;
		}
	}
	return 0;
}

/* INVLPG of one page size: the entries of the key (of any ASID when
 * @p any), and a global one of the address. */
static void ref_inval_one(struct ref_tlb *t, uint64_t va, unsigned shift,
			  uint32_t asid, bool any)
{
	uint64_t key = sim_tlb_key(va, shift, asid), vpn = va >> shift;
	uint64_t mask = any ? ~KEY_ASID_MASK : ~0ULL;

	for (uint32_t i = 0; i < t->nlevels; i++) {
		struct ref_level *l = &t->lv[i];
		struct ref_entry *s = &l->e[(size_t)ref_set(l, vpn) * l->ways];

		for (uint32_t w = 0; w < l->ways; w++)
			if ((s[w].key & mask) == (key & mask) ||
			    (s[w].global && s[w].key == (key & ~KEY_ASID_MASK)))
				s[w].key = 0;
	}
}

/* Every page size that may map each address goes. */
static void ref_invalidate(struct ref_tlb *t, uint64_t va, uint64_t n,
			   unsigned shift, uint32_t asid)
{
	bool any = asid == ~0u;
	uint32_t a = any ? 0 : asid;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t p = va + (i << shift);

		ref_inval_one(t, p, 12, a, any);
		ref_inval_one(t, p & ~((1ULL << 21) - 1), 21, a, any);
		ref_inval_one(t, p & ~((1ULL << 30) - 1), 30, a, any);
	}
}

static void ref_flush_all(struct ref_tlb *t, bool global)
{
	t->epoch++;
	if (global)
		t->gepoch++;
}

/* What sim_tlb_find() shows, in its order: recorded by the callback. */
#define MAXSEEN 8192

struct seen_list {
	struct tlb_seen e[MAXSEEN];
	size_t n;
};

static bool record(void *data, const struct tlb_seen *e)
{
	struct seen_list *l = data;

	assert_true(l->n < MAXSEEN);
	l->e[l->n++] = *e;
	return false;
}

static void ref_seen(const struct ref_tlb *t, struct seen_list *out)
{
	out->n = 0;
	for (uint32_t i = 0; i < t->nlevels; i++) {
		const struct ref_level *l = &t->lv[i];

		for (size_t j = 0; j < (size_t)l->sets * l->ways; j++) {
			const struct ref_entry *e = &l->e[j];
			unsigned size = (e->key >> KEY_SIZE_SHIFT) & 3;
			uint64_t va = (e->key & 0xffffffffffffULL) << 12;

			if (!ref_live(t, e))
				continue;
			assert_true(out->n < MAXSEEN);
			out->e[out->n++] = (struct tlb_seen){
				.va = va & (1ULL << 59) ? va | 0xfff0ULL << 48
							: va,
				.shift = size == 2   ? 30
					 : size == 1 ? 21
						     : 12,
				.asid = (uint32_t)((e->key & KEY_ASID_MASK) >>
						   50),
				.global = e->global,
				.gen = e->gen,
			};
		}
	}
}

static void same_seen(const struct seen_list *a, const struct seen_list *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		assert_int_equal(a->e[i].va, b->e[i].va);
		assert_int_equal(a->e[i].shift, b->e[i].shift);
		assert_int_equal(a->e[i].asid, b->e[i].asid);
		assert_int_equal(a->e[i].global, b->e[i].global);
		assert_int_equal(a->e[i].gen, b->e[i].gen);
	}
}

static uint64_t xs_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A random address of the small range the sequences use: user pages
 * (some in two large pages) and a few kernel ones (canonical high). */
static uint64_t rand_va(uint64_t *x, unsigned shift)
{
	uint64_t r = xs_next(x);
	uint64_t base = r & 1 ? 0x00007f0000000000ULL : 0xffffc90000000000ULL;
	uint64_t span = r & 2 ? 1ULL << 31 : 1ULL << 20;
	uint64_t va = base + ((xs_next(x) % span) & ~((1ULL << 12) - 1));

	return va & ~((1ULL << shift) - 1);
}

static unsigned rand_shift(uint64_t *x)
{
	uint64_t r = xs_next(x) % 16;

	return r == 0 ? 30 : r < 3 ? 21 : 12;
}

static void run_sequence(const struct hvtlb_sim_config *c, uint64_t seed,
			 unsigned ops)
{
	static struct seen_list got, want;
	struct tlb t;
	struct ref_tlb r;
	uint64_t x = seed * 2654435761ULL + 1;

	assert_int_equal(sim_tlb_init(&t, c), 0);
	ref_init(&r, c);
	for (unsigned i = 0; i < ops; i++) {
		uint64_t op = xs_next(&x) % 100;
		unsigned shift = rand_shift(&x);
		uint64_t va = rand_va(&x, shift);
		uint32_t asid = (uint32_t)(xs_next(&x) % 4) + 1;
		uint64_t key = sim_tlb_key(va, shift, asid);
		uint32_t g1 = 0, g2 = 0;

		if (op < 45) {
			bool global = va >> 63 && xs_next(&x) % 2;
			uint32_t gen = (uint32_t)xs_next(&x);

			sim_tlb_fill(&t, key, va >> shift, gen, global);
			ref_fill(&r, key, va >> shift, gen, global);
		} else if (op < 70) {
			assert_int_equal(
				sim_tlb_lookup(&t, key, va >> shift, &g1),
				ref_lookup(&r, key, va >> shift, &g2, true));
			assert_int_equal(g1, g2);
		} else if (op < 80) {
			assert_int_equal(
				sim_tlb_probe(&t, key, va >> shift, &g1),
				ref_lookup(&r, key, va >> shift, &g2, false));
			assert_int_equal(g1, g2);
		} else if (op < 97) {
			uint64_t n = xs_next(&x) % 4 + 1;
			uint32_t a = xs_next(&x) % 3 ? asid : ~0u;

			/* pages of 4 KiB, also inside the large ones */
			sim_tlb_invalidate(&t, va, n, 12, a);
			ref_invalidate(&r, va, n, 12, a);
		} else {
			bool global = xs_next(&x) % 2;

			sim_tlb_flush_all(&t, global);
			ref_flush_all(&r, global);
		}
		if (i % 64 == 63 || i == ops - 1) {
			got.n = 0;
			assert_false(sim_tlb_find(&t, record, &got));
			ref_seen(&r, &want);
			same_seen(&got, &want);
		}
	}
	sim_tlb_finish(&t);
	ref_finish(&r);
}

static void test_small(void **state)
{
	struct hvtlb_sim_config c;

	(void)state;
	hvtlb_sim_config_init(&c);
	c.tlb_levels = 2;
	c.l1_sets = 2;
	c.l1_ways = 2;
	c.l2_sets = 8;
	c.l2_ways = 3;
	for (uint64_t seed = 1; seed <= 200; seed++)
		run_sequence(&c, seed, 2000);
	c.tlb_levels = 1;
	for (uint64_t seed = 201; seed <= 300; seed++)
		run_sequence(&c, seed, 2000);
}

static void test_default(void **state)
{
	struct hvtlb_sim_config c;

	(void)state;
	hvtlb_sim_config_init(&c);
	for (uint64_t seed = 1000; seed < 1030; seed++)
		run_sequence(&c, seed, 20000);
}

/* The TLB's global bit directly. */
static void test_tlb_global(void **state)
{
	struct hvtlb_sim_config c;
	struct tlb t;
	uint64_t va = 0xffffc90000003000ULL, uva = 0x00007f0000005000ULL;
	uint32_t gen;

	(void)state;
	hvtlb_sim_config_init(&c);
	assert_int_equal(sim_tlb_init(&t, &c), 0);
	/* A global entry matches from every ASID. */
	sim_tlb_fill(&t, sim_tlb_key(va, 12, 1), va >> 12, 7, true);
	sim_tlb_fill(&t, sim_tlb_key(uva, 12, 1), uva >> 12, 9, false);
	assert_int_equal(
		sim_tlb_lookup(&t, sim_tlb_key(va, 12, 2), va >> 12, &gen), 1);
	assert_int_equal(gen, 7);
	assert_int_equal(
		sim_tlb_probe(&t, sim_tlb_key(uva, 12, 2), uva >> 12, &gen), 0);
	/* A non-global full flush (CR3 write) keeps it, drops the rest. */
	sim_tlb_flush_all(&t, false);
	assert_int_equal(
		sim_tlb_probe(&t, sim_tlb_key(va, 12, 3), va >> 12, &gen), 1);
	assert_int_equal(
		sim_tlb_probe(&t, sim_tlb_key(uva, 12, 1), uva >> 12, &gen), 0);
	/* A flush with globals drops it. */
	sim_tlb_flush_all(&t, true);
	assert_int_equal(
		sim_tlb_probe(&t, sim_tlb_key(va, 12, 3), va >> 12, &gen), 0);
	/* Invalidating the address drops it, from another ASID or any. */
	sim_tlb_fill(&t, sim_tlb_key(va, 12, 1), va >> 12, 7, true);
	sim_tlb_invalidate(&t, va, 1, 12, 5);
	assert_int_equal(
		sim_tlb_probe(&t, sim_tlb_key(va, 12, 1), va >> 12, &gen), 0);
	sim_tlb_fill(&t, sim_tlb_key(va, 12, 1), va >> 12, 7, true);
	sim_tlb_invalidate(&t, va, 1, 12, ~0u);
	assert_int_equal(
		sim_tlb_probe(&t, sim_tlb_key(va, 12, 1), va >> 12, &gen), 0);
	/* ... but not another address's. */
	sim_tlb_fill(&t, sim_tlb_key(va, 12, 1), va >> 12, 7, true);
	sim_tlb_invalidate(&t, va + 4096, 1, 12, 1);
	assert_int_equal(
		sim_tlb_probe(&t, sim_tlb_key(va, 12, 1), va >> 12, &gen), 1);
	/* Refilled into L1 from the STLB, it stays global. */
	for (uint64_t i = 1;
	     i <= 4096 &&
	     sim_tlb_probe(&t, sim_tlb_key(va, 12, 1), va >> 12, &gen) == 1;
	     i++)
		sim_tlb_fill(&t, sim_tlb_key(uva + (i << 12), 12, 1),
			     (uva >> 12) + i, 1, false);
	assert_int_equal(
		sim_tlb_probe(&t, sim_tlb_key(va, 12, 4), va >> 12, &gen), 2);
	assert_int_equal(
		sim_tlb_lookup(&t, sim_tlb_key(va, 12, 4), va >> 12, &gen), 2);
	sim_tlb_flush_all(&t, false);
	assert_int_equal(
		sim_tlb_lookup(&t, sim_tlb_key(va, 12, 6), va >> 12, &gen), 1);
	sim_tlb_finish(&t);
}

/*
 * INVLPG of a 4 KiB page drops the 2 MiB or 1 GiB entry that covers it,
 * including a global one that survived a CR3 write (the TLB skips the
 * large-page probes only while it holds no large entry).
 */
static void test_tlb_large(void **state)
{
	struct hvtlb_sim_config c;
	struct tlb t;
	uint64_t va2m = 0x00007f0000200000ULL, va1g = 0x00007f0040000000ULL;
	uint64_t k2m = sim_tlb_key(va2m, 21, 1), k1g = sim_tlb_key(va1g, 30, 1);
	uint32_t gen;

	(void)state;
	hvtlb_sim_config_init(&c);
	assert_int_equal(sim_tlb_init(&t, &c), 0);
	/* 4 KiB entries only: a 4 KiB invalidation still works. */
	sim_tlb_fill(&t, sim_tlb_key(va2m, 12, 1), va2m >> 12, 1, false);
	sim_tlb_invalidate(&t, va2m, 1, 12, 1);
	assert_int_equal(
		sim_tlb_probe(&t, sim_tlb_key(va2m, 12, 1), va2m >> 12, &gen),
		0);
	/* A page inside each large page drops it. */
	sim_tlb_fill(&t, k2m, va2m >> 21, 2, false);
	sim_tlb_fill(&t, k1g, va1g >> 30, 3, false);
	sim_tlb_invalidate(&t, va2m + 0x5000, 1, 12, 1);
	assert_int_equal(sim_tlb_probe(&t, k2m, va2m >> 21, &gen), 0);
	assert_int_equal(sim_tlb_probe(&t, k1g, va1g >> 30, &gen), 1);
	sim_tlb_invalidate(&t, va1g + 0x12345000, 1, 12, ~0u);
	assert_int_equal(sim_tlb_probe(&t, k1g, va1g >> 30, &gen), 0);
	/* A global 2 MiB entry outlives a non-global full flush, and the next
	 * 4 KiB invalidation inside it must still find it. */
	sim_tlb_fill(&t, k2m, va2m >> 21, 4, true);
	sim_tlb_flush_all(&t, false);
	assert_int_equal(
		sim_tlb_probe(&t, sim_tlb_key(va2m, 21, 2), va2m >> 21, &gen),
		1);
	sim_tlb_invalidate(&t, va2m + 0x1000, 1, 12, 2);
	assert_int_equal(
		sim_tlb_probe(&t, sim_tlb_key(va2m, 21, 2), va2m >> 21, &gen),
		0);
	/* After a flush with globals, a new large entry is found again. */
	sim_tlb_flush_all(&t, true);
	sim_tlb_fill(&t, k2m, va2m >> 21, 5, false);
	sim_tlb_invalidate(&t, va2m + 0x1ff000, 1, 12, 1);
	assert_int_equal(sim_tlb_probe(&t, k2m, va2m >> 21, &gen), 0);
	sim_tlb_finish(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_tlb_global),
		cmocka_unit_test(test_tlb_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
