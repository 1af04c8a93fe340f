// SPDX-License-Identifier: MIT
/*
 * Calibration measurements, all taken in user mode with the TSC: vCPU 0
 * times one operation shared.rounds times and stores each sample; vCPU 1
 * is the IPI partner; every other vCPU spins with interrupts on (a running
 * flush target).
 */
#include "guest.h"

/* The in-kernel PIC's edge/level control register: an IN that KVM
 * completes in the kernel, without a userspace exit. */
#define PIC_ELCR1 0x4d0u

volatile uint32_t ping_seq, pong;
static uint8_t flush_pages[KVMVMM_FLUSH_MAX_PAGES][4096]
	__attribute__((aligned(4096)));
static volatile uint32_t halting, bench_done;

static uint8_t inb(uint16_t port)
{
	uint8_t v;

	__asm__ volatile("inb %w1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static uint64_t ping(uint32_t s, uint64_t *send_cycles)
{
	uint64_t t0, t1;

	store_release(&ping_seq, s);
	t0 = rdtsc_ordered();
	ipi_send(1, KVMVMM_VEC_PING);
	t1 = rdtsc_ordered();
	wait_eq(&pong, s);
	*send_cycles = t1 - t0;
	return rdtsc_ordered() - t0;
}

static uint64_t sample(uint32_t kind, uint32_t s)
{
	uint32_t a, b, c, d;
	uint64_t t0, send, rtt;

	if (kind == KVMVMM_BENCH_FLUSH) {
		/* Cache the translations the flush then drops. */
		for (a = 0; a < KVMVMM_FLUSH_MAX_PAGES; a++)
			(void)*(volatile uint8_t *)flush_pages[a];
	}
	t0 = rdtsc_ordered();
	switch (kind) {
	case KVMVMM_BENCH_TSC:
		break;
	case KVMVMM_BENCH_CPUID:
		cpuid(0, &a, &b, &c, &d);
		break;
	case KVMVMM_BENCH_KERNEL_EXIT:
		inb(PIC_ELCR1);
		break;
	case KVMVMM_BENCH_USER_EXIT:
		vmm_out(KVMVMM_PORT_NOP, 0);
		break;
	case KVMVMM_BENCH_SYSCALL:
		sys(SYS_NOP, 0, 0);
		break;
	case KVMVMM_BENCH_IPI:
		return ping(s, &send);
	case KVMVMM_BENCH_IPI_SEND:
		ping(s, &send);
		return send;
	case KVMVMM_BENCH_IPI_HALTED:
		/* Let the partner go idle, then wake it. */
		wait_eq(&halting, s);
		while (rdtsc_ordered() - t0 < shared.idle_cycles)
			cpu_relax();
		return ping(s, &send);
	case KVMVMM_BENCH_FLUSH:
		if (shared.pages)
			sys(SYS_INVLPG_RANGE, (uint64_t)(uintptr_t)flush_pages,
			    shared.pages);
		else
			sys(SYS_FLUSH_ALL, 0, 0);
		break;
	case KVMVMM_BENCH_DOORBELL:
		flush_remote(KVMVMM_STRATEGY_HYPERCALL,
			     shared.targets ? ((2ull << shared.targets) - 2)
					    : 1ull,
			     KVMVMM_TEST_GVA);
		break;
	default:
		guest_fail(KVMVMM_FAIL_ASSERT);
	}
	rtt = rdtsc_ordered() - t0;
	return rtt;
}

static void lead(void)
{
	uint32_t n = shared.rounds < KVMVMM_MAX_SAMPLES ? shared.rounds
							: KVMVMM_MAX_SAMPLES;
	uint32_t s;

	for (s = 1; s <= n; s++)
		shared.samples[s - 1] = sample(shared.bench, s);
	shared.nsamples = n;
	store_release(&bench_done, 1);
	if (shared.bench == KVMVMM_BENCH_IPI_HALTED) {
		/* Wake the partner from its last halt. */
		store_release(&ping_seq, n + 1);
		ipi_send(1, KVMVMM_VEC_PING);
	}
}

static void partner_halted(void)
{
	uint32_t s;

	for (s = 1; !load_acquire(&bench_done); s++) {
		store_release(&halting, s);
		while (load_acquire(&pong) < s && !load_acquire(&bench_done))
			sys(SYS_HALT, 0, 0);
	}
}

void bench_run(void)
{
	uint32_t me = self();

	if (me == 0) {
		lead();
	} else if (me == 1 && shared.bench == KVMVMM_BENCH_IPI_HALTED) {
		partner_halted();
	} else {
		while (!load_acquire(&bench_done))
			cpu_relax();
	}
}
