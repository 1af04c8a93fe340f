// SPDX-License-Identifier: MIT
/*
 * The Hyper-V side of the VMM: HvCallFlushVirtualAddressList/Space (and
 * the Ex forms) arriving through the doorbell, handled the way KVM
 * handles them in the kernel, but in user space with the public hvtlb
 * API:
 *
 *   1. copy the input page out of guest memory (the guest cannot change
 *      it under the decoder) and decode it with hvtlb_decode();
 *   2. post the ranges (or "everything") to each target's hvtlb_vcpu_sync
 *      with hvtlb_vcpu_flush_post(): targets inside KVM_RUN are kicked
 *      with an interrupt through the in-kernel LAPIC (kick below) and
 *      waited for; targets outside KVM_RUN (this vCPU itself, or one that
 *      is descheduled) are not: they service the request before their
 *      next entry;
 *   3. answer with the TLFS result word in RAX.
 *
 * A target services a request on its own thread (hvtlb_vcpu_sync_service
 * calls flush below), which writes it to the target's mailbox; the guest
 * applies the mailbox before it executes anything else.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include <hvtlb/flushq.h>
#include <hvtlb/hypercall.h>

#include "mailbox.h"
#include "vm.h"

/* A target that has not acknowledged after this long is given up on. */
#define DOORBELL_TIMEOUT_NS 2000000000ull

int hv_inject(struct vcpu *v, uint32_t vector)
{
	/* Fixed delivery, physical destination = APIC ID = vCPU index. */
	struct kvm_msi msi = {
		.address_lo = (uint32_t)KVMVMM_APIC_GPA | v->index << 12,
		.data = vector,
	};

	if (ioctl(v->vm->vm_fd, KVM_SIGNAL_MSI, &msi) < 0) {
		fprintf(stderr, "kvm-vmm: KVM_SIGNAL_MSI to vCPU %u: %s\n",
			v->index, strerror(errno));
		return -errno;
	}
	return 0;
}

/* Initiator thread: the target is inside KVM_RUN; make it come out. */
static void kick(void *user, struct hvtlb_vcpu_sync *vs)
{
	struct vcpu *v = user;

	(void)vs;
	atomic_fetch_add(&v->kicks, 1);
	hv_inject(v, KVMVMM_VEC_KICK);
}

/* Target's own thread, outside KVM_RUN: hand the batch to the guest. */
static void flush(void *user, const struct hvtlb_flushq_batch *b)
{
	struct vcpu *v = user;

	kvmvmm_mailbox_add(&v->vm->shared->mailbox[v->index], b);
}

const struct hvtlb_vcpu_ops kvmvmm_vcpu_ops = {
	.version = HVTLB_VCPU_OPS_VERSION,
	.kick = kick,
	.flush = flush,
};

/* The ranges of a decoded flush call; true when it means "everything"
 * (a Space call, the profile's own rule, or more than the queue holds). */
static bool decoded_ranges(const struct hvtlb_decoded *d,
			   struct hvtlb_gva_range *r, size_t *n)
{
	struct hvtlb_gva_iter it;

	*n = 0;
	if (d->flush_all_gvas)
		return true;
	hvtlb_gva_iter_init(&it, d);
	*n = hvtlb_gva_iter_fill(&it, r, HVTLB_FLUSHQ_MAX_RANGES + 1);
	return *n > HVTLB_FLUSHQ_MAX_RANGES;
}

static uint64_t flush_call(struct vcpu *caller, const struct hvtlb_decoded *d,
			   uint64_t result)
{
	struct vm *vm = caller->vm;
	struct hvtlb_vcpu_sync *targets[KVMVMM_MAX_VCPUS];
	struct hvtlb_gva_range ranges[HVTLB_FLUSHQ_MAX_RANGES + 1];
	struct hvtlb_vp_iter it;
	unsigned flags = 0;
	size_t n = 0, nranges;
	bool all;
	uint32_t vp;
	int ret;

	all = decoded_ranges(d, ranges, &nranges);
	hvtlb_vp_iter_init(&it, d);
	while (hvtlb_vp_iter_next(&it, &vp)) {
		/* vp < d->vp_count = vm->nvcpus: the iterator bounds it. */
		targets[n++] = vm->vcpu[vp].sync;
	}
	if (vm->cfg.faults & KVMVMM_FAULT_DROP_TARGET) {
		size_t i;

		for (i = n; i-- > 0;) {
			if (targets[i] != caller->sync) {
				targets[i] = NULL;
				caller->stats.dropped_targets++;
				break;
			}
		}
	}
	if (vm->cfg.faults & KVMVMM_FAULT_NO_WAIT)
		flags |= HVTLB_FLUSH_FAULT_NO_WAIT;
	ret = hvtlb_vcpu_flush_post(targets, n, ranges, all ? 0 : nranges, all,
				    DOORBELL_TIMEOUT_NS, flags);
	if (ret == -ETIMEDOUT) {
		caller->stats.timeouts++;
		return hvtlb_result_pack(HVTLB_STATUS_TIME_OUT, 0);
	}
	if (ret < 0)
		return hvtlb_result_pack(HVTLB_STATUS_INSUFFICIENT_MEMORY, 0);
	return result;
}

/* A fast call's input: RDX, R8 and XMM0..5, as the TLFS lays them out. */
static size_t fast_input(struct vcpu *v, uint8_t out[HVTLB_FAST_BYTES])
{
	const struct kvm_regs *regs = &v->run->s.regs.regs;
	struct hvtlb_fast_regs fr = { .rdx = regs->rdx, .r8 = regs->r8 };
	struct kvm_fpu fpu;
	int i;

	if (ioctl(v->fd, KVM_GET_FPU, &fpu) < 0)
		return 0;
	for (i = 0; i < 6; i++) {
		memcpy(&fr.xmm[i][0], &fpu.xmm[i][0], 8);
		memcpy(&fr.xmm[i][1], &fpu.xmm[i][8], 8);
	}
	hvtlb_fast_regs_to_input(&fr, out);
	return HVTLB_FAST_BYTES;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void hv_doorbell(struct vcpu *v)
{
	struct kvm_regs *regs = &v->run->s.regs.regs;
	struct vm *vm = v->vm;
	struct hvtlb_host host = {
		.profile = vm->cfg.decode_profile,
		.vp_count = vm->nvcpus,
	};
	uint8_t page[HVTLB_PAGE_BYTES];
	struct hvtlb_input in = { page, 0, regs->rdx };
	struct hvtlb_decoded d;
	uint64_t result, t0 = now_ns(), t1;

	/* The input runs from its GPA to the end of that page; a GPA
	 * outside guest RAM leaves an empty span, which the decoder
	 * answers with HV_STATUS_INVALID_HYPERCALL_INPUT. */
	if (regs->rcx & HVTLB_CTL_FAST) {
		in.len = fast_input(v, page);
	} else if (in.gpa < KVMVMM_RAM_BYTES) {
		in.len = HVTLB_PAGE_BYTES - (in.gpa % HVTLB_PAGE_BYTES);
		memcpy(page, vm->mem + in.gpa, in.len);
	}
	result = hvtlb_decode(&host, regs->rcx, &in, &d);
	t1 = now_ns();
	v->stats.decode_ns += t1 - t0;
	if (hvtlb_result_status(result) == HVTLB_STATUS_SUCCESS) {
		if (hvtlb_call_is_flush(d.call))
			result = flush_call(v, &d, result);
		else /* the IPI calls are not implemented here */
			result = hvtlb_result_pack(
				HVTLB_STATUS_INVALID_HYPERCALL_CODE, 0);
	}
	regs->rax = result;
	v->run->kvm_dirty_regs |= KVM_SYNC_X86_REGS;
	v->stats.post_ns += now_ns() - t1;
}
