// SPDX-License-Identifier: MIT
/*
 * The guest's user-mode entry: every vCPU arrives here from the kernel
 * with its index, meets the others, and runs what the VMM asked for.
 * vCPU 0 leads (initiates flushes, takes measurements); the others follow.
 */
#include "guest.h"

__attribute__((aligned(4096))) struct kvmvmm_shared shared;
static volatile uint32_t arrived;

/* The compiler may emit calls to these two even in freestanding code,
 * and src/hypercall uses them. */
void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

_Noreturn void guest_fail(uint32_t code)
{
	for (;;)
		vmm_out(KVMVMM_PORT_DONE, code);
}

void wait_eq(const volatile uint32_t *p, uint32_t v)
{
	uint64_t start = rdtsc_ordered(), now;

	while (load_acquire(p) != v) {
		cpu_relax();
		now = rdtsc_ordered();
		if (now - start > shared.spin_limit)
			guest_fail(KVMVMM_FAIL_TIMEOUT);
		if (now - start > shared.yield_cycles)
			vmm_out(KVMVMM_PORT_YIELD, 0);
	}
}

void user_main(uint32_t index)
{
	if (index != self())
		guest_fail(KVMVMM_FAIL_ASSERT);
	/* Every vCPU has its interrupts and APIC set up before any sends. */
	__atomic_fetch_add(&arrived, 1, __ATOMIC_SEQ_CST);
	wait_eq(&arrived, shared.nvcpus);
	if (shared.mode == KVMVMM_MODE_STALE)
		stale_run();
	else if (shared.mode == KVMVMM_MODE_BENCH)
		bench_run();
	for (;;)
		vmm_out(KVMVMM_PORT_DONE, 0);
}
