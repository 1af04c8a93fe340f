/* SPDX-License-Identifier: MIT */
/*
 * Guest start-up: the image header, the 64-bit entry every vCPU starts
 * at, the GDT, the way down to user mode, and the page tables.
 *
 * The VMM starts each vCPU directly in long mode at CPL 0 with CR3 = pml4
 * below, RSP at the top of that vCPU's stack block and RDI = its index.
 * The kernel sets up interrupts and drops to user mode, where the tests
 * run: see kernel.c for why.
 */
#include "../abi.h"

#define PTE_P 0x001
#define PTE_RW 0x002
#define PTE_US 0x004
#define PTE_PWT 0x008
#define PTE_PCD 0x010
#define PTE_PS 0x080
/* Every entry is user-accessible: the guest's user mode is where the
 * tests run, and it writes the test page table itself. */
#define PTE (PTE_P + PTE_RW + PTE_US)

	.section .header, "a"
	.long KVMVMM_IMAGE_MAGIC, KVMVMM_ABI_VERSION
	.quad entry, pml4, stacks, shared, __image_end

	.text
	.code64
	.globl entry
entry:
	lgdt gdt_desc(%rip)
	mov $KVMVMM_SEL_KERNEL_DS, %eax
	mov %eax, %ds
	mov %eax, %es
	mov %eax, %ss
	xor %eax, %eax
	mov %eax, %fs
	mov %eax, %gs
	pushq $KVMVMM_SEL_KERNEL_CS
	leaq 1f(%rip), %rax
	pushq %rax
	lretq
1:	call kernel_main
2:	cli
	hlt
	jmp 2b

/* void enter_user(uint64_t rip, uint64_t rsp, uint64_t arg):
 * IRETQ to CPL 3 with IOPL 3 (the guest's user mode may use IN/OUT) and
 * interrupts on; RDI = arg. */
	.globl enter_user
enter_user:
	pushq $(KVMVMM_SEL_USER_DS | 3)
	pushq %rsi
	pushq $0x3202
	pushq $(KVMVMM_SEL_USER_CS | 3)
	pushq %rdi
	mov %rdx, %rdi
	iretq

	.data
	.align 16
	.globl gdt
gdt:
	.quad 0
	.quad 0x00af9a000000ffff /* KVMVMM_SEL_KERNEL_CS: 64-bit code, DPL 0 */
	.quad 0x00cf92000000ffff /* KVMVMM_SEL_KERNEL_DS */
	.quad 0x00affa000000ffff /* KVMVMM_SEL_USER_CS: 64-bit code, DPL 3 */
	.quad 0x00cff2000000ffff /* KVMVMM_SEL_USER_DS: DPL 3 */
	.fill 2 * KVMVMM_MAX_VCPUS, 8, 0 /* one TSS per vCPU, kernel.c */
gdt_end:
	.align 8
gdt_desc:
	.word gdt_end - gdt - 1
	.quad gdt

/*
 * Page tables. GVA = GPA for the RAM (0 .. 8 MiB; page 0 left out to catch
 * NULL) and for the local APIC page (uncached); KVMVMM_TEST_GVA through
 * test_pt, whose entry 0 the guest rewrites every round.
 */
	.align 4096
	.globl pml4
pml4:
	.quad pdpt + PTE
	.fill 511, 8, 0
pdpt:
	.quad pd_low + PTE
	.quad pd_test + PTE
	.quad 0
	.quad pd_apic + PTE
	.fill 508, 8, 0
pd_low:
	.quad pt_low + PTE
	.quad 0x200000 + PTE + PTE_PS
	.quad 0x400000 + PTE + PTE_PS
	.quad 0x600000 + PTE + PTE_PS
	.fill 508, 8, 0
pt_low:
	.quad 0
	.set addr, 0x1000
	.rept 511
	.quad addr + PTE
	.set addr, addr + 0x1000
	.endr
pd_test:
	.quad test_pt + PTE
	.fill 511, 8, 0
	.globl test_pt
test_pt:
	.fill 512, 8, 0
pd_apic:
	.fill 503, 8, 0
	.quad KVMVMM_APIC_GPA + PTE + PTE_PWT + PTE_PCD + PTE_PS
	.fill 8, 8, 0

	.bss
	.align KVMVMM_STACK_BYTES
	.globl stacks
stacks:
	.skip KVMVMM_MAX_VCPUS * KVMVMM_STACK_BYTES

	.section .note.GNU-stack, "", @progbits
