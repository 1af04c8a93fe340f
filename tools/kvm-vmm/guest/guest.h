/* SPDX-License-Identifier: MIT */
/*
 * The guest's own declarations. The guest has a small kernel (kernel.c,
 * irq.c, apic.c: CPL 0) and runs its tests in user mode (everything else:
 * CPL 3, IOPL 3), entering the kernel only through sys() for what user
 * mode cannot do and through interrupts.
 */
#ifndef KVMVMM_GUEST_H
#define KVMVMM_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../abi.h"

/* The helpers interrupt handlers use: always inlined, so a handler never
 * calls out to code that may clobber the registers it did not save. */
#define GUEST_INLINE static inline __attribute__((always_inline))

/* start.S and the linker */
extern uint64_t test_pt[512];
extern char stacks[KVMVMM_MAX_VCPUS * KVMVMM_STACK_BYTES];
extern uint64_t gdt[5 + 2 * KVMVMM_MAX_VCPUS];
extern struct kvmvmm_shared shared;
void kernel_main(uint32_t index);
_Noreturn void enter_user(uint64_t rip, uint64_t rsp, uint64_t arg);

/** This vCPU's index, in either mode: which stack block it runs on. */
GUEST_INLINE uint32_t self(void)
{
	uintptr_t sp;

	__asm__("mov %%rsp, %0" : "=r"(sp));
	return (uint32_t)((sp - (uintptr_t)stacks) / KVMVMM_STACK_BYTES);
}

GUEST_INLINE uint64_t rdtsc_ordered(void)
{
	uint32_t lo, hi;

	__asm__ volatile("lfence; rdtsc; lfence"
			 : "=a"(lo), "=d"(hi)::"memory");
	return (uint64_t)hi << 32 | lo;
}

GUEST_INLINE void cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

GUEST_INLINE uint32_t load_acquire(const volatile uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

GUEST_INLINE void store_release(volatile uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

GUEST_INLINE void cpuid(uint32_t leaf, uint32_t *a, uint32_t *b, uint32_t *c,
			uint32_t *d)
{
	__asm__ volatile("cpuid"
			 : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d)
			 : "a"(leaf), "c"(0));
}

/* ---------------------------------------------------------------- */
/* Kernel side (CPL 0)                                               */
/* ---------------------------------------------------------------- */
/* apic.c */
#define APIC_EOI 0x0b0u
#define APIC_MSR(reg) (0x800u + ((reg) >> 4))
extern bool apic_x2apic;
void apic_init(bool x2apic);
/** x2APIC: one WRMSR (CPL 0 only). xAPIC mode uses ipi_send(). */
__attribute__((no_caller_saved_registers)) void apic_send_msr(uint32_t dest,
							      uint32_t vector);

GUEST_INLINE volatile uint32_t *apic_reg(uint32_t reg)
{
	return (volatile uint32_t *)(uintptr_t)(KVMVMM_APIC_GPA + reg);
}

GUEST_INLINE void apic_wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" ::"c"(msr), "a"((uint32_t)v),
			 "d"((uint32_t)(v >> 32))
			 : "memory");
}

/* Inline: an interrupt handler that calls out has to save every
 * caller-saved register, and on an emulated kernel each one costs. */
GUEST_INLINE void apic_eoi(void)
{
	if (apic_x2apic)
		apic_wrmsr(APIC_MSR(APIC_EOI), 0);
	else
		*apic_reg(APIC_EOI) = 0;
}

/* irq.c */
void idt_init(void);
/** Performs and clears what the VMM left in this vCPU's mailbox. */
__attribute__((no_caller_saved_registers)) void mailbox_apply(void);

/* ---------------------------------------------------------------- */
/* User side (CPL 3)                                                 */
/* ---------------------------------------------------------------- */
/** Kernel services for user mode (sys()). */
enum guest_sys {
	SYS_NOP = 0,
	SYS_INVLPG = 1,	      /**< a0: the address */
	SYS_MAILBOX = 2,      /**< apply this vCPU's mailbox */
	SYS_SEND_IPI = 3,     /**< a0: destination, a1: vector (x2APIC) */
	SYS_HALT = 4,	      /**< STI; HLT: until an interrupt was handled */
	SYS_INVLPG_RANGE = 5, /**< a0: the first page, a1: pages (<= 64) */
	SYS_FLUSH_ALL = 6,    /**< reload CR3 */
};

/** Arguments of one sys() call, one slot per vCPU. */
struct guest_syscall {
	uint64_t nr, a0, a1;
};
extern volatile struct guest_syscall guest_syscalls[KVMVMM_MAX_VCPUS];

/** Enters the kernel (INT3 through a DPL 3 gate) for @p nr. */
GUEST_INLINE void sys(enum guest_sys nr, uint64_t a0, uint64_t a1)
{
	volatile struct guest_syscall *s = &guest_syscalls[self()];

	s->nr = nr;
	s->a0 = a0;
	s->a1 = a1;
	__asm__ volatile("int3" ::: "memory");
}

/* main.c */
void user_main(uint32_t index);
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
/** Spins until *p == v, yielding the host CPU after shared.yield_cycles;
 *  after shared.spin_limit cycles reports a timeout and stops the vCPU. */
void wait_eq(const volatile uint32_t *p, uint32_t v);
/** Reports @p code to the VMM and stops this vCPU for good. Either mode. */
__attribute__((no_caller_saved_registers)) _Noreturn void
guest_fail(uint32_t code);

/* vmm.c: the exits to the VMM (either mode) */
/** A userspace exit. In user mode it then applies the mailbox. */
__attribute__((no_caller_saved_registers)) void vmm_out(uint16_t port,
							uint32_t value);
/** Rings the flush doorbell; returns the TLFS result word. */
uint64_t vmm_hypercall(uint64_t control, uint64_t input_gpa);
__attribute__((no_caller_saved_registers)) void console_puts(const char *s);
__attribute__((no_caller_saved_registers)) void console_hex(uint64_t v);

/* apic.c, user side */
/** Sends @p vector to @p dest: an ICR store in xAPIC mode, sys() in
 *  x2APIC mode (WRMSR needs CPL 0). */
void ipi_send(uint32_t dest, uint32_t vector);

/* flush.c: the two remote flush strategies */
extern volatile uint64_t ipi_gva;
extern volatile uint32_t ipi_seq;
extern volatile uint32_t ipi_ack[KVMVMM_MAX_VCPUS];
/** Flushes @p gva on every vCPU in @p mask (bit i = vCPU i). */
void flush_remote(uint32_t strategy, uint64_t mask, uint64_t gva);

/* stale.c, bench.c */
extern volatile uint32_t ping_seq, pong;
void stale_run(void);
void bench_run(void);

#endif
