// SPDX-License-Identifier: MIT
/*
 * The guest kernel: per-vCPU set-up, then down to user mode for good.
 *
 * Why the tests run in user mode: a VMM measures what the guest does
 * natively plus what the hypervisor adds. On a host whose KVM runs guest
 * kernels natively (VMX, SVM) either mode would do. On a host with PVM
 * (KVM without VMX/SVM, shadow paging), guest user mode runs natively
 * while a plain x86 guest kernel is executed by KVM's instruction
 * emulator, which reads page tables instead of a TLB: a stale TLB entry
 * can only be seen, and a TSC interval only means something, in user
 * mode. So the kernel does only what user mode cannot (INVLPG, WRMSR, HLT,
 * taking interrupts), in as few instructions as it can.
 */
#include "guest.h"

#define USER_STACK_BYTES (KVMVMM_STACK_BYTES / 2)

/*
 * 64-bit TSS: RSP0 for interrupts from user mode, and an I/O permission
 * bitmap that allows every port. User mode runs with IOPL 3, which should
 * be enough for IN/OUT, but PVM clears IOPL in what the guest runs with
 * and then checks the bitmap.
 */
struct tss {
	uint32_t reserved0;
	uint64_t rsp0, rsp1, rsp2;
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
	uint8_t iomap[65536 / 8 + 1]; /**< all zero: every port allowed */
} __attribute__((packed));

static struct tss tss[KVMVMM_MAX_VCPUS] __attribute__((aligned(64)));

static void tss_init(uint32_t i)
{
	uint64_t base = (uint64_t)(uintptr_t)&tss[i];
	uint64_t limit = sizeof(struct tss) - 1;
	uint16_t sel = KVMVMM_SEL_TSS(i);

	tss[i].rsp0 = (uint64_t)(uintptr_t)stacks +
		      (uint64_t)(i + 1) * KVMVMM_STACK_BYTES;
	tss[i].iomap_base = offsetof(struct tss, iomap);
	tss[i].iomap[sizeof(tss[i].iomap) - 1] = 0xff; /* the end marker */
	/* Present, DPL 0, type 9 (available 64-bit TSS). */
	gdt[5 + 2 * i] = (limit & 0xffff) | (base & 0xffffff) << 16 |
			 0x89ull << 40 | (base >> 24 & 0xff) << 56;
	gdt[6 + 2 * i] = base >> 32;
	__asm__ volatile("ltr %0" ::"r"(sel));
}

void kernel_main(uint32_t index)
{
	uint64_t user_sp;

	if (index != self() || index >= KVMVMM_MAX_VCPUS)
		guest_fail(KVMVMM_FAIL_ASSERT);
	idt_init();
	tss_init(index);
	apic_init(shared.x2apic);
	user_sp = (uint64_t)(uintptr_t)stacks +
		  (uint64_t)index * KVMVMM_STACK_BYTES + USER_STACK_BYTES;
	enter_user((uint64_t)(uintptr_t)user_main, user_sp, index);
}
