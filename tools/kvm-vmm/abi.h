/* SPDX-License-Identifier: MIT */
/*
 * The contract between the prototype VMM and its guest: memory layout, I/O
 * ports, interrupt vectors and the structures both sides read. Included by
 * the freestanding guest and by the VMM, so it uses <stdint.h> only.
 *
 * Nothing here is TLFS: the flush hypercall itself is the TLFS wire format
 * of <hvtlb/hypercall.h>; this header only says how the guest rings the
 * doorbell and how the VMM hands a deferred flush back to the guest.
 */
#ifndef KVMVMM_ABI_H
#define KVMVMM_ABI_H

#ifndef __ASSEMBLER__
#include <stdint.h>
#endif

/* ------------------------------------------------------------------ */
/* Memory                                                              */
/* ------------------------------------------------------------------ */
/** Guest RAM: GPA 0 .. KVMVMM_RAM_BYTES, identity mapped by the guest. */
#define KVMVMM_RAM_BYTES (8u << 20)
/** Where the VMM copies the guest image (its first bytes: the header). */
#define KVMVMM_IMAGE_GPA 0x100000u
/** The test mapping: one 4 KiB page the guest remaps every round. */
#define KVMVMM_TEST_GVA 0x40000000ull
/** Local APIC registers (xAPIC mode), mapped uncached by the guest. */
#define KVMVMM_APIC_GPA 0xfee00000
#define KVMVMM_MAX_VCPUS 8
/** Per vCPU: a user stack (lower half) and a kernel stack (upper half),
 *  aligned to their size so that RSP >> 15 names the vCPU in both modes. */
#define KVMVMM_STACK_BYTES 32768
/* The guest GDT: the VMM starts every vCPU with the kernel selectors. */
#define KVMVMM_SEL_KERNEL_CS 0x08
#define KVMVMM_SEL_KERNEL_DS 0x10
#define KVMVMM_SEL_USER_CS 0x18
#define KVMVMM_SEL_USER_DS 0x20
#define KVMVMM_SEL_TSS(vcpu) (0x28 + 16 * (vcpu))
#define KVMVMM_IMAGE_MAGIC 0x4d4d5654 /* "TVMM" */
#define KVMVMM_ABI_VERSION 1

#ifndef __ASSEMBLER__
/** At KVMVMM_IMAGE_GPA: what the VMM needs to start every vCPU. */
struct kvmvmm_image_header {
	uint32_t magic;	  /**< KVMVMM_IMAGE_MAGIC */
	uint32_t version; /**< KVMVMM_ABI_VERSION */
	uint64_t entry;	  /**< RIP of every vCPU (RDI = vCPU index, RSP =
			       the top of its KVMVMM_STACK_BYTES block) */
	uint64_t cr3;	  /**< GPA of the guest's PML4 */
	uint64_t stacks;  /**< GPA of KVMVMM_MAX_VCPUS stacks, lowest first */
	uint64_t shared;  /**< GPA of struct kvmvmm_shared */
	uint64_t end;	  /**< first GPA past the image (bss included) */
};
#endif

/* ------------------------------------------------------------------ */
/* I/O ports: every userspace exit of the guest is one of these.       */
/* ------------------------------------------------------------------ */
/**
 * The flush doorbell: a 32-bit OUT whose value is the low half of the
 * input page GPA, with the TLFS registers of a memory hypercall: RCX the
 * control word, RDX the input GPA, R8 the output GPA. The VMM answers
 * with the TLFS result word in RAX.
 */
#define KVMVMM_PORT_HYPERCALL 0x0e0u
/** Written by the guest's kick handler: "I am out, service me". */
#define KVMVMM_PORT_KICK_ACK 0x0e4u
/** A userspace exit the VMM answers with nothing (exit round trip). */
#define KVMVMM_PORT_NOP 0x0e8u
/** The vCPU stays out of the guest for a while (a descheduled vCPU). */
#define KVMVMM_PORT_DESCHEDULE 0x0ecu
/** A waiting vCPU gives its host CPU away (sched_yield()), as KVM does
 *  for a vCPU caught spinning: it matters when vCPUs outnumber CPUs. */
#define KVMVMM_PORT_YIELD 0x0f8u
/** One byte of console output (debugging). */
#define KVMVMM_PORT_CONSOLE 0x0f0u
/** The vCPU is done; the value is 0 or a KVMVMM_FAIL_* code. */
#define KVMVMM_PORT_DONE 0x0f4u

/* ------------------------------------------------------------------ */
/* Interrupt vectors                                                   */
/* ------------------------------------------------------------------ */
/** Injected by the VMM through the in-kernel LAPIC: a flush is queued. */
#define KVMVMM_VEC_KICK 0xf0u
/** Guest-to-guest: the IPI shootdown. */
#define KVMVMM_VEC_FLUSH_IPI 0xf1u
/** Guest-to-guest: a measured IPI, or a wake-up. */
#define KVMVMM_VEC_PING 0xf2u
#define KVMVMM_VEC_SPURIOUS 0xffu

#ifndef __ASSEMBLER__
/* ------------------------------------------------------------------ */
/* Deferred flushes: the per-vCPU mailbox                              */
/* ------------------------------------------------------------------ */
#define KVMVMM_MAILBOX_RANGES 15u

/**
 * A flush the VMM asks one vCPU to perform. Written only by that vCPU's
 * own VMM thread while the vCPU is stopped (outside KVM_RUN), read and
 * cleared only by the vCPU itself after its exit returns: the guest checks
 * it after every OUT, before it executes anything else, so a vCPU never
 * resumes with a translation the VMM has been asked to flush.
 */
struct kvmvmm_mailbox {
	uint32_t pending; /**< 1: something to flush */
	uint32_t all;	  /**< flush every non-global translation */
	uint32_t n;	  /**< ranges below (when !all) */
	uint32_t pad;
	struct {
		uint64_t gva;
		uint64_t pages;
		uint64_t shift; /**< 12, 21 or 30 */
	} ranges[KVMVMM_MAILBOX_RANGES];
};

/* ------------------------------------------------------------------ */
/* What to run and what came out                                       */
/* ------------------------------------------------------------------ */
enum kvmvmm_mode {
	KVMVMM_MODE_STALE = 1, /**< remap + flush rounds, stale-read check */
	KVMVMM_MODE_BENCH = 2, /**< one calibration measurement */
};

enum kvmvmm_strategy {
	KVMVMM_STRATEGY_IPI = 0,       /**< guest IPIs, no VMM involved */
	KVMVMM_STRATEGY_HYPERCALL = 1, /**< HvCallFlushVirtualAddressList */
	KVMVMM_STRATEGY_NONE = 2,      /**< no remote flush at all (test) */
};

/** What bench mode measures; every sample is taken in guest user mode. */
enum kvmvmm_bench {
	KVMVMM_BENCH_TSC = 1,	      /**< two reads of the clock itself */
	KVMVMM_BENCH_CPUID = 2,	      /**< CPUID (traps on VMX/SVM) */
	KVMVMM_BENCH_KERNEL_EXIT = 3, /**< IN from the in-kernel PIC */
	KVMVMM_BENCH_USER_EXIT = 4,   /**< OUT to the VMM: userspace exit */
	KVMVMM_BENCH_SYSCALL = 5,     /**< guest user -> guest kernel -> user */
	KVMVMM_BENCH_IPI = 6,	      /**< IPI to a spinning vCPU and back */
	KVMVMM_BENCH_IPI_SEND = 7,    /**< the sender's ICR write alone */
	KVMVMM_BENCH_IPI_HALTED = 8,  /**< IPI to a halted vCPU and back */
	KVMVMM_BENCH_DOORBELL = 9,    /**< flush hypercall, n targets */
	KVMVMM_BENCH_FLUSH = 10,      /**< local flush through a syscall */
};
#define KVMVMM_BENCH_COUNT 11

#define KVMVMM_FAIL_ASSERT 1u	 /**< a guest check failed */
#define KVMVMM_FAIL_STATUS 2u	 /**< a hypercall returned a failure */
#define KVMVMM_FAIL_TIMEOUT 3u	 /**< a guest wait gave up */
#define KVMVMM_FAIL_NO_X2APIC 4u /**< x2APIC asked for, not offered */

#define KVMVMM_MAX_SAMPLES 65536u
#define KVMVMM_FLUSH_MAX_PAGES 64u

/**
 * Parameters (written by the VMM before the first entry) and results
 * (written by the guest, read by the VMM after every vCPU is done).
 */
struct kvmvmm_shared {
	/* parameters */
	uint32_t nvcpus;
	uint32_t mode;	   /**< enum kvmvmm_mode */
	uint32_t strategy; /**< enum kvmvmm_strategy (stale mode) */
	uint32_t bench;	   /**< enum kvmvmm_bench (bench mode) */
	uint32_t x2apic;   /**< 1: x2APIC mode, 0: xAPIC (MMIO) */
	uint32_t rounds;   /**< stale rounds or bench samples */
	uint32_t targets;  /**< doorbell bench: target vCPUs (1..n-1) */
	/** FLUSH bench: INVLPG of this many pages the guest just touched,
	 *  1..KVMVMM_FLUSH_MAX_PAGES; 0: reload CR3 (everything). */
	uint32_t pages;
	/** Stale mode: every n-th round a target deschedules itself
	 *  (0 = never), to exercise the deferred path. */
	uint32_t deschedule_every;
	uint64_t spin_limit;   /**< TSC cycles a guest wait spins, then fails */
	uint64_t yield_cycles; /**< ... spins before it yields each time */
	/** IPI_HALTED: TSC cycles the target stays halted before the IPI. */
	uint64_t idle_cycles;
	/* results */
	uint64_t stale_reads; /**< rounds x targets that saw the old page */
	uint64_t fresh_reads; /**< ... that saw the new one */
	uint64_t stale_by_vcpu[KVMVMM_MAX_VCPUS]; /**< stale reads per target */
	uint64_t failed_status; /**< last TLFS result word that failed */
	uint32_t nsamples;
	uint32_t pad;
	uint64_t samples[KVMVMM_MAX_SAMPLES]; /**< TSC cycles each */
	struct kvmvmm_mailbox mailbox[KVMVMM_MAX_VCPUS];
};
#endif /* __ASSEMBLER__ */

#endif
