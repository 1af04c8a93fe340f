/* SPDX-License-Identifier: MIT */
/* Coroutines: each guest thread of the simulation runs on its own stack. */
#ifndef HVTLB_SIM_CORO_H
#define HVTLB_SIM_CORO_H

#include <stddef.h>
#if !defined(__x86_64__)
#include <ucontext.h>
#endif

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
	 * switch and misses races. NULL for a context that sim_coro_make() did
	 * not prepare (the engine's own): set at its first switch away. */
	void *tsan_fiber;
};

/* Prepares @p c to run fn(arg) on [stack, stack + size) at its first
 * sim_coro_switch(). fn must never return. */
void sim_coro_make(struct coro *c, void *stack, size_t size, void (*fn)(void *),
		   void *arg);
/* Saves the current context in @p from and resumes @p to. */
void sim_coro_switch(struct coro *from, struct coro *to);
/* Frees what sim_coro_make() set up beyond the stack (the caller's). */
void sim_coro_finish(struct coro *c);

#endif
