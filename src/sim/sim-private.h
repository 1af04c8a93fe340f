/* SPDX-License-Identifier: MIT */
/*
 * Private structures of the simulator. One run = one struct sim; every
 * object lives in arrays owned by it. Time is in guest cycles (simtime).
 */
#ifndef HVTLB_SIM_PRIVATE_H
#define HVTLB_SIM_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif

#include <hvtlb/core.h>
#include <hvtlb/sim.h>

#include "sim/cost.h"
#include "sim/rng.h"

typedef uint64_t simtime;
#define SIM_NEVER UINT64_MAX

/* ---------------------------------------------------------- coroutines */
/* A guest thread runs as a coroutine on its own stack. x86-64 switches
 * with six callee-saved registers (coro.c); elsewhere ucontext. */
struct coro {
#if defined(__x86_64__)
	void *sp;
#else
	ucontext_t uc;
#endif
	/* Under ThreadSanitizer, the coroutine's fiber (tsan_interface.h):
	 * without it TSan loses track of the thread after the first stack
	 * switch and misses races. NULL for a context that coro_make() did
	 * not prepare (the engine's own): set at its first switch away. */
	void *tsan_fiber;
};

/* Prepares @p c to run fn(arg) on [stack, stack + size) at its first
 * coro_switch(). fn must never return. */
void coro_make(struct coro *c, void *stack, size_t size, void (*fn)(void *),
	       void *arg);
/* Saves the current context in @p from and resumes @p to. */
void coro_switch(struct coro *from, struct coro *to);
/* Frees what coro_make() set up beyond the stack (the caller's). */
void coro_finish(struct coro *c);

/* ---------------------------------------------------------------- TLB */
struct tlb_entry {
	uint64_t key;	/* 0 = invalid; a global entry's has no ASID */
	uint32_t gen;	/* page-table generation it was filled from */
	uint32_t epoch; /* bit 31: global; bits 30:0: epoch of its class */
};

struct tlb_level {
	uint32_t sets, ways;
	struct tlb_entry *e; /* sets * ways */
	uint32_t *victim;    /* per set, round robin */
};

struct tlb {
	uint32_t epoch;	 /* non-global entries; full flush = epoch++ */
	uint32_t gepoch; /* global entries; flush with globals bumps both */
	/* a 2 MiB or 1 GiB entry may be live; without one, an INVLPG of a
	 * 4 KiB page need not probe the large-page sets */
	bool large;
	struct tlb_level lv[2]; /* lv[1].sets == 0: no STLB */
};

int tlb_init(struct tlb *t, const struct hvtlb_sim_config *c);
void tlb_finish(struct tlb *t);
size_t tlb_bytes(const struct hvtlb_sim_config *c);
uint64_t tlb_key(uint64_t va, unsigned shift, uint32_t asid);
/* Returns the level that hit (1 or 2) and the entry's gen, or 0. */
int tlb_lookup(struct tlb *t, uint64_t key, uint64_t vpn, uint32_t *gen);
/* Both match a global entry of the key's address from any ASID. */
/* As tlb_lookup, without filling L1 (for the oracle's scans). */
int tlb_probe(struct tlb *t, uint64_t key, uint64_t vpn, uint32_t *gen);
/* Inserts @p key; @p global: a global entry (matches every ASID). */
void tlb_fill(struct tlb *t, uint64_t key, uint64_t vpn, uint32_t gen,
	      bool global);
/* Invalidates [va, va + n pages of 1 << shift); asid ~0u: any space.
 * Like INVLPG, global entries of those addresses go too. */
void tlb_invalidate(struct tlb *t, uint64_t va, uint64_t n, unsigned shift,
		    uint32_t asid);
/* Every non-global entry; with @p global the global ones too. */
void tlb_flush_all(struct tlb *t, bool global);
/* Calls fn for every valid non-global entry of @p asid (oracle scans). */
typedef void (*tlb_scan_fn)(void *data, uint64_t va, unsigned shift,
			    uint32_t gen);
void tlb_scan(struct tlb *t, uint32_t asid, tlb_scan_fn fn, void *data);

#endif
