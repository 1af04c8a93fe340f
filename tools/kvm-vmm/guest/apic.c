// SPDX-License-Identifier: MIT
/*
 * The local APIC in either mode: xAPIC through its MMIO page (mapped for
 * user mode too, so a user-mode ICR store sends an IPI), x2APIC through
 * MSRs (CPL 0 only). KVM gives vCPU i APIC ID i.
 */
#include "guest.h"

#define MSR_APIC_BASE 0x1bu
#define APIC_BASE_ENABLE (1ull << 11)
#define APIC_BASE_X2APIC (1ull << 10)
#define APIC_SVR 0x0f0u
#define APIC_ICR_LOW 0x300u
#define APIC_ICR_HIGH 0x310u
#define APIC_SVR_ENABLE (1u << 8)
#define APIC_ICR_BUSY (1u << 12)
#define CPUID1_ECX_X2APIC (1u << 21)

bool apic_x2apic;

static uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return (uint64_t)hi << 32 | lo;
}

void apic_init(bool x2apic)
{
	uint32_t a, b, c, d;
	uint64_t base = rdmsr(MSR_APIC_BASE) | APIC_BASE_ENABLE;

	if (x2apic) {
		cpuid(1, &a, &b, &c, &d);
		if (!(c & CPUID1_ECX_X2APIC))
			guest_fail(KVMVMM_FAIL_NO_X2APIC);
		apic_wrmsr(MSR_APIC_BASE, base | APIC_BASE_X2APIC);
		apic_wrmsr(APIC_MSR(APIC_SVR),
			   APIC_SVR_ENABLE | KVMVMM_VEC_SPURIOUS);
	} else {
		apic_wrmsr(MSR_APIC_BASE, base & ~APIC_BASE_X2APIC);
		*apic_reg(APIC_SVR) = APIC_SVR_ENABLE | KVMVMM_VEC_SPURIOUS;
	}
	/* Every vCPU runs the same mode and stores the same value. */
	apic_x2apic = x2apic;
}

void apic_send_msr(uint32_t dest, uint32_t vector)
{
	/* Fixed delivery, physical destination, edge. */
	apic_wrmsr(APIC_MSR(APIC_ICR_LOW), (uint64_t)dest << 32 | vector);
}

void ipi_send(uint32_t dest, uint32_t vector)
{
	if (apic_x2apic) {
		sys(SYS_SEND_IPI, dest, vector);
		return;
	}
	while (*apic_reg(APIC_ICR_LOW) & APIC_ICR_BUSY)
		cpu_relax();
	*apic_reg(APIC_ICR_HIGH) = dest << 24;
	*apic_reg(APIC_ICR_LOW) = vector;
}
