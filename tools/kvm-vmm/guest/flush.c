// SPDX-License-Identifier: MIT
/*
 * The two remote flush strategies, initiated from user mode:
 *
 * - IPI shootdown, as a guest kernel does without help: write what to
 *   flush, send one IPI per target through the local APIC, wait until
 *   every target's handler (irq.c) has flushed and acknowledged.
 * - HvCallFlushVirtualAddressList, encoded with src/hypercall and issued
 *   through the VMM's doorbell with the library's rep loop. The VMM
 *   returns once every target has flushed or will flush before it runs
 *   guest code again.
 *
 * One initiator at a time (vCPU 0 in this guest) for the IPI path.
 */
#include <hvtlb/hypercall.h>

#include "guest.h"

volatile uint64_t ipi_gva;
volatile uint32_t ipi_seq;
volatile uint32_t ipi_ack[KVMVMM_MAX_VCPUS];

static struct hvtlb_encoded encoded[KVMVMM_MAX_VCPUS];
static uint8_t input_page[KVMVMM_MAX_VCPUS][HVTLB_PAGE_BYTES]
	__attribute__((aligned(HVTLB_PAGE_BYTES)));

static void flush_ipi(uint64_t mask, uint64_t gva)
{
	uint32_t seq = ipi_seq + 1;
	uint32_t t;

	ipi_gva = gva;
	store_release(&ipi_seq, seq);
	for (t = 0; t < KVMVMM_MAX_VCPUS; t++) {
		if (mask >> t & 1)
			ipi_send(t, KVMVMM_VEC_FLUSH_IPI);
	}
	for (t = 0; t < KVMVMM_MAX_VCPUS; t++) {
		if (mask >> t & 1)
			wait_eq(&ipi_ack[t], seq);
	}
}

static uint64_t doorbell(void *data, uint64_t control, const void *input,
			 size_t len)
{
	(void)data;
	(void)len;
	/* GVA = GPA for guest RAM. */
	return vmm_hypercall(control, (uint64_t)(uintptr_t)input);
}

static void flush_hypercall(uint64_t mask, uint64_t gva)
{
	struct hvtlb_vpmask vps = { { mask } };
	struct hvtlb_gva_range range = { gva, 1, HVTLB_PAGE_4K };
	struct hvtlb_call_desc d = {
		.call = HVTLB_CALL_FLUSH_LIST,
		/* One address space: the VMM flushes the ranges in all. */
		.flags = HVTLB_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES,
		.vps = &vps,
		.ranges = &range,
		.nranges = 1,
	};
	struct hvtlb_encoded *e = &encoded[self()];
	uint8_t *input = input_page[self()];
	uint64_t result = 0;

	if (hvtlb_encode(&d, e) < 0)
		guest_fail(KVMVMM_FAIL_ASSERT);
	memcpy(input, e->input, e->len);
	if (hvtlb_rep_call(e->control, input, e->len, doorbell, NULL, &result) <
		    0 ||
	    hvtlb_result_status(result) != HVTLB_STATUS_SUCCESS) {
		shared.failed_status = result;
		guest_fail(KVMVMM_FAIL_STATUS);
	}
}

void flush_remote(uint32_t strategy, uint64_t mask, uint64_t gva)
{
	if (!mask)
		return;
	if (strategy == KVMVMM_STRATEGY_IPI)
		flush_ipi(mask, gva);
	else if (strategy == KVMVMM_STRATEGY_HYPERCALL)
		flush_hypercall(mask, gva);
}
