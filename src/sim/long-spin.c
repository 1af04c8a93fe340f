// SPDX-License-Identifier: MIT
/*
 * The long-spin notification of a Hyper-V-enlightened guest, and the
 * host's answer. CPUID leaf 0x40000004 EBX is the "recommended number of
 * attempts to retry a spinlock failure before notifying the hypervisor"
 * (TLFS; 0xFFFFFFFF: never notify; QEMU's hv-spinlocks, default
 * 0xFFFFFFFF). Windows enables the notification only when EBX read as a
 * signed 32-bit number is positive, and rounds it up to 2^k - 1; its
 * flush wait (KiIpiWaitForRequestBarrier) then calls
 * HvCallNotifyLongSpinWait every 2^k iterations of its PAUSE loop. KVM
 * handles that hypercall as it handles a pause-loop exit:
 * sim_kvm_vcpu_on_spin(vcpu, true) (arch/x86/kvm/hyperv.c).
 *
 * In the engine a vCPU whose guest spins in a flush wait for IPI
 * acknowledgements (guest.long_spin_notify, hypervisor.hv_spinlocks)
 * makes the hypercall every 2^k x cost.pause cycles of spinning on its
 * pCPU (the count starts again when it gets its pCPU back).
 */
#include "sim/host.h"
#include "sim/machine.h"
#include "sim/stats.h"

/* Cycles of spinning between two notifications, 0 for never. */
static simtime long_spin_period(const struct sim *s)
{
	uint32_t ebx = s->c->hv_spinlocks;
	uint64_t iters = 1;

	if (!s->c->long_spin_notify || (int32_t)ebx <= 0)
		return 0;
	while (iters - 1 < ebx) /* 2^k - 1 >= EBX */
		iters <<= 1;
	return (simtime)((double)iters * s->cost[SIM_COST_pause]);
}

void sim_arm_long_spin(struct sim *s, struct vcpu *v)
{
	simtime period = long_spin_period(s);

	if (!period || v->host.long_spin_armed || v->hs != H_RUNNING ||
	    v->act != ACT_SPIN || !v->sd.ipi_wait)
		return;
	v->host.long_spin_armed = true;
	ev_push(s, s->now + period, EV_LONG_SPIN, v->gid,
		++v->host.long_spin_token);
}

/* EV_LONG_SPIN: the guest's PAUSE count reached the notification. */
void sim_host_on_long_spin(struct sim *s, const struct event *e)
{
	struct vcpu *v = &s->v[e->obj];

	if (e->arg != v->host.long_spin_token)
		return;
	v->host.long_spin_armed = false;
	if (v->hs != H_RUNNING || v->act != ACT_SPIN || !v->sd.ipi_wait)
		return;
	sim_count_exit(s, v, HVTLB_SIM_EXIT_HYPERCALL, 1);
	if (!sim_kvm_vcpu_on_spin(s, v))
		sim_arm_long_spin(s, v);
}
