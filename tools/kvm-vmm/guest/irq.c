// SPDX-License-Identifier: MIT
/*
 * Kernel entries: interrupts, exceptions and sys(). The handlers the
 * tests time are kept to a few instructions (see kernel.c for why they
 * count); exceptions stop the vCPU with a report on the console.
 */
#include "guest.h"

struct interrupt_frame;

struct idt_gate {
	uint64_t lo, hi;
};

static struct idt_gate idt[256] __attribute__((aligned(16)));
volatile struct guest_syscall guest_syscalls[KVMVMM_MAX_VCPUS];

/* Above this many pages one CR3 reload is cheaper than INVLPGs (the
 * x86 Linux default ceiling, tlb_single_page_flush_ceiling). */
#define FLUSH_CEILING_PAGES 33u

GUEST_INLINE void invlpg(uint64_t gva)
{
	__asm__ volatile("invlpg (%0)" ::"r"(gva) : "memory");
}

GUEST_INLINE void flush_all(void)
{
	uint64_t cr3;

	__asm__ volatile("mov %%cr3, %0; mov %0, %%cr3" : "=r"(cr3)::"memory");
}

void mailbox_apply(void)
{
	volatile struct kvmvmm_mailbox *mb = &shared.mailbox[self()];
	uint32_t i, n = mb->n;
	uint64_t pages = 0;

	if (!mb->pending)
		return;
	if (n > KVMVMM_MAILBOX_RANGES) {
		n = 0;
		mb->all = 1;
	}
	for (i = 0; i < n && !mb->all; i++)
		pages += mb->ranges[i].pages;
	if (mb->all || pages > FLUSH_CEILING_PAGES) {
		flush_all();
	} else {
		for (i = 0; i < n; i++) {
			uint64_t gva = mb->ranges[i].gva;
			uint64_t step = 1ull << (mb->ranges[i].shift & 63);
			uint64_t p;

			for (p = 0; p < mb->ranges[i].pages; p++)
				invlpg(gva + p * step);
		}
	}
	mb->n = 0;
	mb->all = 0;
	mb->pending = 0;
}

/* The IPI shootdown's receiving side. */
__attribute__((interrupt)) static void isr_flush_ipi(struct interrupt_frame *f)
{
	uint32_t seq = load_acquire(&ipi_seq);

	invlpg(ipi_gva);
	store_release(&ipi_ack[self()], seq);
	apic_eoi();
}

/* The VMM queued a flush for this vCPU: exit so it hands the flush over,
 * then perform it. */
__attribute__((interrupt)) static void isr_kick(struct interrupt_frame *f)
{
	vmm_out(KVMVMM_PORT_KICK_ACK, 0);
	mailbox_apply();
	apic_eoi();
}

__attribute__((interrupt)) static void isr_ping(struct interrupt_frame *f)
{
	store_release(&pong, load_acquire(&ping_seq));
	apic_eoi();
}

__attribute__((interrupt)) static void isr_spurious(struct interrupt_frame *f)
{
}

/* sys(): INT3 through a DPL 3 gate; arguments in guest_syscalls[self]. */
__attribute__((interrupt)) static void isr_sys(struct interrupt_frame *f)
{
	volatile struct guest_syscall *s = &guest_syscalls[self()];

	switch (s->nr) {
	case SYS_INVLPG:
		invlpg(s->a0);
		break;
	case SYS_INVLPG_RANGE: {
		uint64_t i, n = s->a1 < KVMVMM_FLUSH_MAX_PAGES
					? s->a1
					: KVMVMM_FLUSH_MAX_PAGES;

		for (i = 0; i < n; i++)
			invlpg(s->a0 + i * 4096);
		break;
	}
	case SYS_FLUSH_ALL:
		flush_all();
		break;
	case SYS_MAILBOX:
		mailbox_apply();
		break;
	case SYS_SEND_IPI:
		apic_send_msr((uint32_t)s->a0, (uint32_t)s->a1);
		break;
	case SYS_HALT:
		/* The interrupt is taken at the HLT (STI's shadow), on this
		 * stack; IRET then restores the user's flags. */
		__asm__ volatile("sti; hlt; cli" ::: "memory");
		break;
	default:
		break;
	}
}

__attribute__((no_caller_saved_registers)) static void
report(const char *what, uint64_t error, uint64_t rip)
{
	uint64_t cr2;

	__asm__ volatile("mov %%cr2, %0" : "=r"(cr2));
	console_puts("guest: ");
	console_puts(what);
	console_puts(" error ");
	console_hex(error);
	console_puts(" rip ");
	console_hex(rip);
	console_puts(" cr2 ");
	console_hex(cr2);
	console_puts("\n");
	guest_fail(KVMVMM_FAIL_ASSERT);
}

__attribute__((interrupt)) static void isr_fault(struct interrupt_frame *f,
						 uint64_t error)
{
	report("fault with error code", error, *(uint64_t *)f);
}

__attribute__((interrupt)) static void isr_trap(struct interrupt_frame *f)
{
	report("exception", 0, *(uint64_t *)f);
}

static void set_gate(uint32_t vector, void *handler, unsigned dpl)
{
	uint64_t a = (uint64_t)(uintptr_t)handler;

	/* Present, 64-bit interrupt gate (IF cleared on entry). */
	idt[vector].lo = (a & 0xffff) | (uint64_t)KVMVMM_SEL_KERNEL_CS << 16 |
			 (0x8eull | dpl << 5) << 40 | (a >> 16 & 0xffff) << 48;
	idt[vector].hi = a >> 32;
}

void idt_init(void)
{
	static const uint8_t with_error[] = { 8, 10, 11, 12, 13, 14, 17, 21 };
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed))
	desc = { sizeof(idt) - 1, (uint64_t)(uintptr_t)idt };
	uint32_t v;
	size_t i;

	/* Every vCPU writes the same gates; only the LIDT is per vCPU. */
	for (v = 0; v < 32; v++)
		set_gate(v, (void *)isr_trap, 0);
	for (i = 0; i < sizeof(with_error); i++)
		set_gate(with_error[i], (void *)isr_fault, 0);
	set_gate(3, (void *)isr_sys, 3);
	set_gate(KVMVMM_VEC_KICK, (void *)isr_kick, 0);
	set_gate(KVMVMM_VEC_FLUSH_IPI, (void *)isr_flush_ipi, 0);
	set_gate(KVMVMM_VEC_PING, (void *)isr_ping, 0);
	set_gate(KVMVMM_VEC_SPURIOUS, (void *)isr_spurious, 0);
	__asm__ volatile("lidt %0" ::"m"(desc));
}
