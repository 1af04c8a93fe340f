// SPDX-License-Identifier: MIT
/*
 * The stale-read test. Each round:
 *
 *   1. vCPU 0 writes the round number into the frame it is about to map,
 *      and starts the round; every vCPU reads KVMVMM_TEST_GVA, so the old
 *      translation is cached in its TLB.
 *   2. vCPU 0 points the PTE at the new frame and flushes the address on
 *      every other vCPU with the chosen strategy (timed: samples[]).
 *   3. Every other vCPU reads the address again: the round number means
 *      its TLB was flushed; the previous round's number is a stale read.
 *   4. Everyone drops the translation locally, so rounds are independent,
 *      and vCPU 0 checks its own read last.
 *
 * All of it runs in user mode, the PTE write included: the reads go
 * through the hardware TLB, and the page-table write is an ordinary store
 * (an emulated one would make KVM zap the shadow entry at once).
 *
 * vCPU 0 flushes itself only after the others have read: on a host that
 * shadows the guest page tables (no EPT/NPT), a local INVLPG makes the
 * host resynchronise the shadow entry every vCPU shares, which would hide
 * a remote flush that never happened.
 */
#include "guest.h"

static uint64_t frame[2][512] __attribute__((aligned(4096)));
static volatile uint32_t round_no, verify_no;
static volatile uint32_t primed[KVMVMM_MAX_VCPUS];
static volatile uint32_t done[KVMVMM_MAX_VCPUS];
static volatile uint64_t stale[KVMVMM_MAX_VCPUS];
static volatile uint64_t fresh[KVMVMM_MAX_VCPUS];

#define PTE_P 0x1ull
#define PTE_RW 0x2ull
#define PTE_US 0x4ull

static uint64_t read_test_page(void)
{
	return *(volatile uint64_t *)(uintptr_t)KVMVMM_TEST_GVA;
}

static void wait_all(const volatile uint32_t *flags, uint32_t r)
{
	uint32_t i;

	for (i = 1; i < shared.nvcpus; i++)
		wait_eq(&flags[i], r);
}

static void lead(void)
{
	uint64_t mask = ((1ull << shared.nvcpus) - 1) & ~1ull;
	uint32_t r, i;

	/* Round r maps frame[r & 1], which holds r: round 0 is frame 0. */
	frame[0][0] = 0;
	test_pt[0] = (uint64_t)(uintptr_t)frame[0] | PTE_P | PTE_RW | PTE_US;
	sys(SYS_INVLPG, KVMVMM_TEST_GVA, 0);
	for (r = 1; r <= shared.rounds; r++) {
		uint64_t *next = frame[r & 1];
		uint64_t t0, t1;

		next[0] = r;
		store_release(&round_no, r);
		if (read_test_page() != r - 1)
			guest_fail(KVMVMM_FAIL_ASSERT);
		wait_all(primed, r);

		__atomic_store_n(&test_pt[0],
				 (uint64_t)(uintptr_t)next | PTE_P | PTE_RW |
					 PTE_US,
				 __ATOMIC_SEQ_CST);
		t0 = rdtsc_ordered();
		flush_remote(shared.strategy, mask, KVMVMM_TEST_GVA);
		t1 = rdtsc_ordered();
		if (r - 1 < KVMVMM_MAX_SAMPLES)
			shared.samples[r - 1] = t1 - t0;

		store_release(&verify_no, r);
		wait_all(done, r);
		sys(SYS_INVLPG, KVMVMM_TEST_GVA, 0);
		if (read_test_page() != r)
			guest_fail(KVMVMM_FAIL_ASSERT);
	}
	shared.nsamples = shared.rounds < KVMVMM_MAX_SAMPLES
				  ? shared.rounds
				  : KVMVMM_MAX_SAMPLES;
	for (i = 1; i < shared.nvcpus; i++) {
		shared.stale_by_vcpu[i] = stale[i];
		shared.stale_reads += stale[i];
		shared.fresh_reads += fresh[i];
	}
}

static void follow(uint32_t me)
{
	uint32_t r;

	for (r = 1; r <= shared.rounds; r++) {
		uint64_t v;

		wait_eq(&round_no, r);
		if (read_test_page() != r - 1)
			guest_fail(KVMVMM_FAIL_ASSERT);
		store_release(&primed[me], r);
		/* Out of the guest while the flush is requested: the VMM
		 * must defer it to this vCPU's next entry. */
		if (shared.deschedule_every && r % shared.deschedule_every == 0)
			vmm_out(KVMVMM_PORT_DESCHEDULE, 0);

		wait_eq(&verify_no, r);
		v = read_test_page();
		if (v == r)
			fresh[me]++;
		else
			stale[me]++;
		sys(SYS_INVLPG, KVMVMM_TEST_GVA, 0);
		store_release(&done[me], r);
	}
}

void stale_run(void)
{
	uint32_t me = self();

	if (me == 0)
		lead();
	else if (me < shared.nvcpus)
		follow(me);
}
