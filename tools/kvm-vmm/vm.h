/* SPDX-License-Identifier: MIT */
/* The VMM's private state, shared by vm.c (KVM plumbing, vCPU threads)
 * and hv.c (the Hyper-V flush hypercall). */
#ifndef KVMVMM_VM_H
#define KVMVMM_VM_H

#include <linux/kvm.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <hvtlb/flushq.h>

#include "vmm.h"

struct vm;

struct vcpu {
	struct vm *vm;
	uint32_t index;
	int fd;
	struct kvm_run *run;
	pthread_t thread;
	bool started;
	struct hvtlb_vcpu_sync *sync;
	bool after_kick;	   /**< the last exit was the kick handler's */
	bool in_wrapper;	   /**< the guest resumes right after an OUT */
	bool done;		   /**< the guest wrote KVMVMM_PORT_DONE */
	uint32_t fail;		   /**< what it wrote there */
	_Atomic uint64_t kicks;	   /**< counted by initiators */
	struct kvmvmm_stats stats; /**< this thread's own counters */
	char line[160];		   /**< console output not yet printed */
	size_t line_len;
};

struct vm {
	struct kvmvmm_config cfg;
	int kvm_fd;
	int vm_fd;
	size_t run_size;
	uint8_t *mem;
	struct kvmvmm_shared *shared; /**< inside mem */
	uint32_t nvcpus;
	struct vcpu vcpu[KVMVMM_MAX_VCPUS];
	atomic_bool stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint32_t finished; /**< vCPU threads that left their loop */
	int error;	   /**< first negative errno of a vCPU thread */
};

/* hv.c */
extern const struct hvtlb_vcpu_ops kvmvmm_vcpu_ops;
/** The doorbell exit of @p v: decode, post, wait, answer in RAX. */
void hv_doorbell(struct vcpu *v);
/** Injects the kick vector into @p v through the in-kernel LAPIC. */
int hv_inject(struct vcpu *v, uint32_t vector);

#endif
