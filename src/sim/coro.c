// SPDX-License-Identifier: MIT
/*
 * Coroutines for the simulator's guest threads. On x86-64 a switch saves
 * the System V callee-saved registers on the old stack and pops them from
 * the new one: no system call (ucontext's swapcontext makes two to save
 * the signal mask, which dominated the engine's profile). Other
 * architectures use ucontext.
 */
#include <stdint.h>
#include <string.h>

#include "sim/coro.h"

#if defined(__SANITIZE_THREAD__)
#define CORO_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CORO_TSAN 1
#endif
#endif

#ifdef CORO_TSAN
#include <sanitizer/tsan_interface.h>

static void tsan_make(struct coro *c)
{
	c->tsan_fiber = __tsan_create_fiber(0);
}

/* Tells TSan that this thread now runs @p to's stack. */
static void tsan_switch(struct coro *from, struct coro *to)
{
	if (!from->tsan_fiber)
		from->tsan_fiber = __tsan_get_current_fiber();
	__tsan_switch_to_fiber(to->tsan_fiber, 0);
}

void sim_coro_finish(struct coro *c)
{
	if (c->tsan_fiber)
		__tsan_destroy_fiber(c->tsan_fiber);
	c->tsan_fiber = NULL;
}
#else
static void tsan_make(struct coro *c)
{
	c->tsan_fiber = NULL;
}

static void tsan_switch(struct coro *from, struct coro *to)
{
	(void)from;
	(void)to;
}

void sim_coro_finish(struct coro *c)
{
	(void)c;
}
#endif

#if defined(__SANITIZE_ADDRESS__)
#define CORO_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CORO_ASAN 1
#endif
#endif

#ifdef CORO_ASAN
#include <sanitizer/asan_interface.h>
#endif

/*
 * A new coroutine's stack starts with no ASan poison. ASan poisons a
 * frame's variables when they go out of scope and does not clear the
 * shadow when the stack's mapping goes: a run that maps its stacks where
 * an earlier run's coroutines ran would find that run's poison and report
 * its own first write there as a stack-use-after-scope.
 */
static void asan_fresh_stack(void *stack, size_t size)
{
#ifdef CORO_ASAN
	ASAN_UNPOISON_MEMORY_REGION(stack, size);
#else
	(void)stack;
	(void)size;
#endif
}

#if defined(__x86_64__)

void hvtlb_sim_coro_switch_(void **from_sp, void *to_sp);
void hvtlb_sim_coro_start_(void);

__asm__(".text\n"
	".globl hvtlb_sim_coro_switch_\n"
	".hidden hvtlb_sim_coro_switch_\n"
	".type hvtlb_sim_coro_switch_,@function\n"
	"hvtlb_sim_coro_switch_:\n"
	"\tpushq %rbp\n"
	"\tpushq %rbx\n"
	"\tpushq %r12\n"
	"\tpushq %r13\n"
	"\tpushq %r14\n"
	"\tpushq %r15\n"
	"\tmovq %rsp, (%rdi)\n"
	"\tmovq %rsi, %rsp\n"
	"\tpopq %r15\n"
	"\tpopq %r14\n"
	"\tpopq %r13\n"
	"\tpopq %r12\n"
	"\tpopq %rbx\n"
	"\tpopq %rbp\n"
	"\tret\n"
	".size hvtlb_sim_coro_switch_, .-hvtlb_sim_coro_switch_\n"
	".globl hvtlb_sim_coro_start_\n"
	".hidden hvtlb_sim_coro_start_\n"
	".type hvtlb_sim_coro_start_,@function\n"
	"hvtlb_sim_coro_start_:\n"
	"\tmovq %rbx, %rdi\n"
	"\tcallq *%r12\n"
	"\tud2\n"
	".size hvtlb_sim_coro_start_, .-hvtlb_sim_coro_start_\n");

void sim_coro_make(struct coro *c, void *stack, size_t size, void (*fn)(void *),
		   void *arg)
{
	uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
	uint64_t *sp = (uint64_t *)(top - 72);

	asan_fresh_stack(stack, size);
	/* r15 r14 r13 r12 rbx rbp, then the return address: the start
	 * stub, entered with rsp 16-byte aligned so its call is ABI
	 * conformant. */
	memset(sp, 0, 72);
	sp[3] = (uint64_t)(uintptr_t)fn;
	sp[4] = (uint64_t)(uintptr_t)arg;
	sp[6] = (uint64_t)(uintptr_t)hvtlb_sim_coro_start_;
	c->sp = sp;
	tsan_make(c);
}

void sim_coro_switch(struct coro *from, struct coro *to)
{
	tsan_switch(from, to);
	hvtlb_sim_coro_switch_(&from->sp, to->sp);
}

#else

static void coro_tramp(unsigned lo, unsigned hi, unsigned flo, unsigned fhi)
{
	void *arg = (void *)(((uintptr_t)hi << 16 << 16) | lo);
	void (*fn)(void *) =
		(void (*)(void *))(((uintptr_t)fhi << 16 << 16) | flo);

	fn(arg);
}

void sim_coro_make(struct coro *c, void *stack, size_t size, void (*fn)(void *),
		   void *arg)
{
	asan_fresh_stack(stack, size);
	getcontext(&c->uc);
	c->uc.uc_stack.ss_sp = stack;
	c->uc.uc_stack.ss_size = size;
	c->uc.uc_link = NULL;
	makecontext(
		&c->uc, (void (*)(void))coro_tramp, 4, (unsigned)(uintptr_t)arg,
		(unsigned)((uintptr_t)arg >> 16 >> 16), (unsigned)(uintptr_t)fn,
		(unsigned)((uintptr_t)fn >> 16 >> 16));
	tsan_make(c);
}

void sim_coro_switch(struct coro *from, struct coro *to)
{
	tsan_switch(from, to);
	swapcontext(&from->uc, &to->uc);
}

#endif
