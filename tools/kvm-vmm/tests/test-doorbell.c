// SPDX-License-Identifier: MIT
/*
 * The VMM's flush hypercall without /dev/kvm: a VM whose vCPUs are all
 * outside the guest, so every flush is posted to the targets' queues and
 * handed to their mailboxes when they "enter" (hvtlb_vcpu_sync_service).
 * The kick path needs a real VM: see test-kvm.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hvtlb/hypercall.h>

#include "vm.h"

#define INPUT_GPA 0x10000u
#define SHARED_GPA 0x400000u

static struct vm *fake_vm(uint32_t nvcpus)
{
	struct vm *vm = calloc(1, sizeof(*vm));
	uint32_t i;

	assert_non_null(vm);
	vm->mem = calloc(1, KVMVMM_RAM_BYTES);
	assert_non_null(vm->mem);
	vm->shared = (struct kvmvmm_shared *)(vm->mem + SHARED_GPA);
	vm->nvcpus = nvcpus;
	vm->vm_fd = -1;
	vm->cfg.decode_profile = HVTLB_PROFILE_KVM;
	for (i = 0; i < nvcpus; i++) {
		struct vcpu *v = &vm->vcpu[i];

		v->vm = vm;
		v->index = i;
		v->fd = -1;
		v->run = calloc(1, sizeof(*v->run));
		assert_non_null(v->run);
		v->sync = hvtlb_vcpu_sync_create(&kvmvmm_vcpu_ops, v);
		assert_non_null(v->sync);
	}
	return vm;
}

static void free_vm(struct vm *vm)
{
	uint32_t i;

	for (i = 0; i < vm->nvcpus; i++) {
		hvtlb_vcpu_sync_destroy(vm->vcpu[i].sync);
		free(vm->vcpu[i].run);
	}
	free(vm->mem);
	free(vm);
}

/* Encodes @p d into guest memory at @p gpa and rings the doorbell of
 * vCPU @p caller; returns the result word the guest would see in RAX. */
static uint64_t call_at(struct vm *vm, uint32_t caller,
			const struct hvtlb_call_desc *d, uint64_t gpa)
{
	static struct hvtlb_encoded enc;
	struct kvm_regs *regs = &vm->vcpu[caller].run->s.regs.regs;

	assert_int_equal(hvtlb_encode(d, &enc), 0);
	if (gpa < KVMVMM_RAM_BYTES)
		memcpy(vm->mem + gpa, enc.input,
		       enc.len < KVMVMM_RAM_BYTES - gpa
			       ? enc.len
			       : KVMVMM_RAM_BYTES - gpa);
	regs->rcx = enc.control;
	regs->rdx = gpa;
	hv_doorbell(&vm->vcpu[caller]);
	assert_true(vm->vcpu[caller].run->kvm_dirty_regs & KVM_SYNC_X86_REGS);
	return regs->rax;
}

static uint64_t call(struct vm *vm, uint32_t caller,
		     const struct hvtlb_call_desc *d)
{
	return call_at(vm, caller, d, INPUT_GPA);
}

/* What vCPU @p i finds in its mailbox after its next entry. */
static const struct kvmvmm_mailbox *enter(struct vm *vm, uint32_t i)
{
	hvtlb_vcpu_sync_service(vm->vcpu[i].sync);
	return &vm->shared->mailbox[i];
}

static void test_list_reaches_each_target(void **state)
{
	struct vm *vm = fake_vm(4);
	struct hvtlb_vpmask vps = { { 0 } };
	struct hvtlb_gva_range r = { 0x40000000, 2, HVTLB_PAGE_4K };
	struct hvtlb_call_desc d = { .call = HVTLB_CALL_FLUSH_LIST,
				     .vps = &vps,
				     .ranges = &r,
				     .nranges = 1 };
	const struct kvmvmm_mailbox *mb;
	uint64_t result;

	(void)state;
	hvtlb_vpmask_set(&vps, 1);
	hvtlb_vpmask_set(&vps, 3);
	result = call(vm, 0, &d);
	assert_int_equal(hvtlb_result_status(result), HVTLB_STATUS_SUCCESS);
	assert_int_equal(hvtlb_result_reps(result), 1);
	assert_int_not_equal(hvtlb_vcpu_sync_requests(vm->vcpu[1].sync), 0);
	assert_int_equal(hvtlb_vcpu_sync_requests(vm->vcpu[0].sync), 0);
	assert_int_equal(hvtlb_vcpu_sync_requests(vm->vcpu[2].sync), 0);
	mb = enter(vm, 3);
	assert_int_equal(mb->pending, 1);
	assert_int_equal(mb->all, 0);
	assert_int_equal(mb->n, 1);
	assert_int_equal(mb->ranges[0].gva, 0x40000000);
	assert_int_equal(mb->ranges[0].pages, 2);
	assert_int_equal(mb->ranges[0].shift, 12);
	assert_int_equal(enter(vm, 2)->pending, 0);
	free_vm(vm);
}

static void test_space_flushes_all(void **state)
{
	struct vm *vm = fake_vm(2);
	struct hvtlb_call_desc d = { .call = HVTLB_CALL_FLUSH_SPACE,
				     .flags = HVTLB_FLUSH_ALL_PROCESSORS };

	(void)state;
	assert_int_equal(hvtlb_result_status(call(vm, 0, &d)),
			 HVTLB_STATUS_SUCCESS);
	/* ALL_PROCESSORS includes the caller: deferred to its entry. */
	assert_int_equal(enter(vm, 0)->all, 1);
	assert_int_equal(enter(vm, 1)->all, 1);
	free_vm(vm);
}

/* More ranges than a queue holds: the strict profile keeps all 16 entries
 * and the queue collapses them; KVM's own rule already says "all". */
static void test_many_ranges_become_all(void **state)
{
	enum hvtlb_profile profiles[] = { HVTLB_PROFILE_STRICT,
					  HVTLB_PROFILE_KVM };
	struct hvtlb_gva_range r[16];
	size_t i, p;

	(void)state;
	for (i = 0; i < 16; i++)
		r[i] = (struct hvtlb_gva_range){ (i + 1) << 30, 1,
						 HVTLB_PAGE_4K };
	for (p = 0; p < 2; p++) {
		struct vm *vm = fake_vm(2);
		struct hvtlb_vpmask vps = { { 2 } };
		struct hvtlb_call_desc d = { .call = HVTLB_CALL_FLUSH_LIST,
					     .vps = &vps,
					     .ranges = r,
					     .nranges = 16 };

		vm->cfg.decode_profile = profiles[p];
		assert_int_equal(hvtlb_result_status(call(vm, 0, &d)),
				 HVTLB_STATUS_SUCCESS);
		assert_int_equal(enter(vm, 1)->all, 1);
		free_vm(vm);
	}
}

static void test_input_outside_ram(void **state)
{
	struct vm *vm = fake_vm(2);
	struct hvtlb_vpmask vps = { { 2 } };
	struct hvtlb_call_desc d = { .call = HVTLB_CALL_FLUSH_SPACE,
				     .vps = &vps };

	(void)state;
	assert_int_equal(
		hvtlb_result_status(call_at(vm, 0, &d, KVMVMM_RAM_BYTES)),
		HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	assert_int_equal(
		hvtlb_result_status(call_at(vm, 0, &d, UINT64_MAX - 7)),
		HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	assert_int_equal(hvtlb_vcpu_sync_requests(vm->vcpu[1].sync), 0);
	free_vm(vm);
}

/* The input may not run past its page: 8 bytes before the end leave a
 * span shorter than the 24-byte header. */
static void test_input_past_page_end(void **state)
{
	struct vm *vm = fake_vm(2);
	struct hvtlb_vpmask vps = { { 2 } };
	struct hvtlb_call_desc d = { .call = HVTLB_CALL_FLUSH_SPACE,
				     .vps = &vps };

	(void)state;
	assert_int_equal(
		hvtlb_result_status(call_at(vm, 0, &d, INPUT_GPA + 4088)),
		HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	assert_int_equal(
		hvtlb_result_status(call_at(vm, 0, &d, KVMVMM_RAM_BYTES - 8)),
		HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	assert_int_equal(hvtlb_vcpu_sync_requests(vm->vcpu[1].sync), 0);
	free_vm(vm);
}

static void test_ipi_call_not_implemented(void **state)
{
	struct vm *vm = fake_vm(2);
	struct hvtlb_vpmask vps = { { 2 } };
	struct hvtlb_call_desc d = { .call = HVTLB_CALL_SEND_IPI,
				     .vps = &vps,
				     .vector = 0x40 };

	(void)state;
	assert_int_equal(hvtlb_result_status(call(vm, 0, &d)),
			 HVTLB_STATUS_INVALID_HYPERCALL_CODE);
	free_vm(vm);
}

/* VPs the VM does not have are never looked up. */
static void test_vp_beyond_the_vm(void **state)
{
	struct vm *vm = fake_vm(2);
	struct hvtlb_vpmask vps = { { 0 } };
	struct hvtlb_gva_range r = { 0x1000, 1, HVTLB_PAGE_4K };
	struct hvtlb_call_desc d = { .call = HVTLB_CALL_FLUSH_LIST_EX,
				     .vps = &vps,
				     .ranges = &r,
				     .nranges = 1 };

	(void)state;
	hvtlb_vpmask_set(&vps, 1);
	hvtlb_vpmask_set(&vps, 7);
	hvtlb_vpmask_set(&vps, 4000);
	assert_int_equal(hvtlb_result_status(call(vm, 0, &d)),
			 HVTLB_STATUS_SUCCESS);
	assert_int_equal(enter(vm, 1)->n, 1);
	free_vm(vm);
}

static void test_fault_drop_target(void **state)
{
	struct vm *vm = fake_vm(3);
	struct hvtlb_vpmask vps = { { 0x7 } };
	struct hvtlb_gva_range r = { 0x1000, 1, HVTLB_PAGE_4K };
	struct hvtlb_call_desc d = { .call = HVTLB_CALL_FLUSH_LIST,
				     .vps = &vps,
				     .ranges = &r,
				     .nranges = 1 };

	(void)state;
	vm->cfg.faults = KVMVMM_FAULT_DROP_TARGET;
	assert_int_equal(hvtlb_result_status(call(vm, 2, &d)),
			 HVTLB_STATUS_SUCCESS);
	/* The highest target that is not the caller (vCPU 1) is left out;
	 * the caller and vCPU 0 still get theirs. */
	assert_int_equal(enter(vm, 1)->pending, 0);
	assert_int_equal(enter(vm, 0)->pending, 1);
	assert_int_equal(enter(vm, 2)->pending, 1);
	assert_int_equal(vm->vcpu[2].stats.dropped_targets, 1);
	free_vm(vm);
}

/* A fast call's XMM registers come from KVM_GET_FPU; without a vCPU fd
 * there is no input at all, which the decoder refuses cleanly. */
static void test_fast_without_registers(void **state)
{
	struct vm *vm = fake_vm(2);
	struct kvm_regs *regs = &vm->vcpu[0].run->s.regs.regs;

	(void)state;
	regs->rcx = HVTLB_CALL_FLUSH_SPACE | HVTLB_CTL_FAST;
	regs->rdx = 0;
	hv_doorbell(&vm->vcpu[0]);
	assert_int_equal(hvtlb_result_status(regs->rax),
			 HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
	free_vm(vm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_reaches_each_target),
		cmocka_unit_test(test_space_flushes_all),
		cmocka_unit_test(test_many_ranges_become_all),
		cmocka_unit_test(test_input_outside_ram),
		cmocka_unit_test(test_input_past_page_end),
		cmocka_unit_test(test_ipi_call_not_implemented),
		cmocka_unit_test(test_vp_beyond_the_vm),
		cmocka_unit_test(test_fault_drop_target),
		cmocka_unit_test(test_fast_without_registers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
