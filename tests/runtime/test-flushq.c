// SPDX-License-Identifier: MIT
/*
 * Unit tests (single thread) for the flush queue, the request/kick/ack
 * protocol and the KVM preempted byte.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <hvtlb/flushq.h>

static struct hvtlb_gva_range range4k(uint64_t page)
{
	struct hvtlb_gva_range r = { .gva = page << 12,
				     .pages = 1,
				     .size = HVTLB_PAGE_4K };
	return r;
}

/* ---------------------------------------------------------------- */
/* Queue                                                            */
/* ---------------------------------------------------------------- */
static int q_setup(void **state)
{
	static struct hvtlb_flushq q;

	if (hvtlb_flushq_init(&q) != 0)
		return -1;
	*state = &q;
	return 0;
}

static int q_teardown(void **state)
{
	hvtlb_flushq_finish(*state);
	return 0;
}

static void test_range_ok(void **state)
{
	struct hvtlb_gva_range r = range4k(5);

	(void)state;
	assert_true(hvtlb_flushq_range_ok(&r));
	r.pages = HVTLB_GVA_SIMPLE_MAX_PAGES;
	assert_true(hvtlb_flushq_range_ok(&r));
	r.pages = HVTLB_GVA_SIMPLE_MAX_PAGES + 1;
	assert_false(hvtlb_flushq_range_ok(&r));
	r.pages = 0;
	assert_false(hvtlb_flushq_range_ok(&r));
	r.pages = 1;
	r.gva = 0x1234;
	assert_false(hvtlb_flushq_range_ok(&r)); /* not 4K aligned */
	r.gva = 0x200000;
	r.size = HVTLB_PAGE_2M;
	assert_true(hvtlb_flushq_range_ok(&r));
	r.gva = 0x201000;
	assert_false(hvtlb_flushq_range_ok(&r)); /* not 2M aligned */
	r.gva = 0;
	r.size = (enum hvtlb_page_size)3;
	assert_false(hvtlb_flushq_range_ok(&r));
	/* The last page of the address space fits; one more wraps. */
	r.size = HVTLB_PAGE_4K;
	r.gva = UINT64_MAX - 4095;
	assert_true(hvtlb_flushq_range_ok(&r));
	r.pages = 2;
	assert_false(hvtlb_flushq_range_ok(&r));
	assert_false(hvtlb_flushq_range_ok(NULL));
}

static void test_fifteen_fit(void **state)
{
	struct hvtlb_flushq *q = *state;
	struct hvtlb_flushq_batch b;
	struct hvtlb_gva_range r;
	uint64_t i;

	for (i = 0; i < HVTLB_FLUSHQ_MAX_RANGES; i++) {
		r = range4k(i + 100);
		assert_int_equal(hvtlb_flushq_push(q, &r, 1), 0);
	}
	assert_true(hvtlb_flushq_pending(q));
	hvtlb_flushq_drain(q, &b);
	assert_false(b.all);
	assert_int_equal(b.n, 15);
	for (i = 0; i < 15; i++) /* FIFO order */
		assert_int_equal(b.ranges[i].gva, (i + 100) << 12);
	assert_int_equal(hvtlb_flushq_collapses(q), 0);
}

static void test_sixteenth_collapses(void **state)
{
	struct hvtlb_flushq *q = *state;
	struct hvtlb_flushq_batch b;
	struct hvtlb_gva_range r;
	uint64_t i;

	for (i = 0; i < HVTLB_FLUSHQ_MAX_RANGES; i++) {
		r = range4k(i);
		assert_int_equal(hvtlb_flushq_push(q, &r, 1), 0);
	}
	r = range4k(99);
	assert_int_equal(hvtlb_flushq_push(q, &r, 1), 1);
	assert_int_equal(hvtlb_flushq_collapses(q), 1);
	/* Once all, further ranges are covered and leave it all. */
	assert_int_equal(hvtlb_flushq_push(q, &r, 1), 1);
	hvtlb_flushq_drain(q, &b);
	assert_true(b.all);
	assert_int_equal(b.n, 0);
}

static void test_n_at_once(void **state)
{
	struct hvtlb_flushq *q = *state;
	struct hvtlb_gva_range r[16];
	struct hvtlb_flushq_batch b;
	size_t i;

	for (i = 0; i < 16; i++)
		r[i] = range4k(i);
	/* 10 + 5 = 15 fit. */
	assert_int_equal(hvtlb_flushq_push(q, r, 10), 0);
	assert_int_equal(hvtlb_flushq_push(q, r + 10, 5), 0);
	hvtlb_flushq_drain(q, &b);
	assert_false(b.all);
	assert_int_equal(b.n, 15);
	assert_int_equal(b.ranges[14].gva, 14u << 12);

	/* 10 + 6: the second push does not fit, nothing is half-queued. */
	assert_int_equal(hvtlb_flushq_push(q, r, 10), 0);
	assert_int_equal(hvtlb_flushq_push(q, r, 6), 1);
	hvtlb_flushq_drain(q, &b);
	assert_true(b.all);
	assert_int_equal(b.n, 0);

	/* 16 at once on an empty queue. */
	assert_int_equal(hvtlb_flushq_push(q, r, 16), 1);
	hvtlb_flushq_drain(q, &b);
	assert_true(b.all);

	/* One unrepresentable range among good ones: all. */
	r[3].pages = 0;
	assert_int_equal(hvtlb_flushq_push(q, r, 5), 1);
	hvtlb_flushq_drain(q, &b);
	assert_true(b.all);
	assert_int_equal(hvtlb_flushq_collapses(q), 3);

	/* Zero ranges: nothing happens. */
	assert_int_equal(hvtlb_flushq_push(q, r, 0), 0);
	assert_false(hvtlb_flushq_pending(q));
}

static void test_drain_empties(void **state)
{
	struct hvtlb_flushq *q = *state;
	struct hvtlb_gva_range r = range4k(7);
	struct hvtlb_flushq_batch b;

	hvtlb_flushq_drain(q, &b);
	assert_false(b.all);
	assert_int_equal(b.n, 0);
	assert_int_equal(hvtlb_flushq_push(q, &r, 1), 0);
	hvtlb_flushq_drain(q, &b);
	assert_int_equal(b.n, 1);
	assert_int_equal(b.ranges[0].gva, 7u << 12);
	assert_false(hvtlb_flushq_pending(q));
	hvtlb_flushq_drain(q, &b);
	assert_false(b.all);
	assert_int_equal(b.n, 0);
	/* After an all drain the queue takes ranges again. */
	hvtlb_flushq_push_all(q);
	hvtlb_flushq_drain(q, &b);
	assert_true(b.all);
	assert_int_equal(hvtlb_flushq_push(q, &r, 1), 0);
	hvtlb_flushq_drain(q, &b);
	assert_false(b.all);
	assert_int_equal(b.n, 1);
}

static void test_push_all(void **state)
{
	struct hvtlb_flushq *q = *state;
	struct hvtlb_gva_range r[3] = { range4k(1), range4k(2), range4k(3) };
	struct hvtlb_flushq_batch b;

	assert_int_equal(hvtlb_flushq_push(q, r, 3), 0);
	hvtlb_flushq_push_all(q);
	hvtlb_flushq_push_all(q); /* idempotent */
	assert_true(hvtlb_flushq_pending(q));
	hvtlb_flushq_drain(q, &b);
	assert_true(b.all);
	assert_int_equal(b.n, 0);
	/* push_all is not a collapse. */
	assert_int_equal(hvtlb_flushq_collapses(q), 0);
}

static void test_bad_args(void **state)
{
	struct hvtlb_flushq *q = *state;

	assert_int_equal(hvtlb_flushq_init(NULL), -EINVAL);
	assert_int_equal(hvtlb_flushq_push(NULL, NULL, 0), -EINVAL);
	assert_int_equal(hvtlb_flushq_push(q, NULL, 1), -EINVAL);
	assert_false(hvtlb_flushq_pending(NULL));
	hvtlb_flushq_finish(NULL);
	hvtlb_flushq_push_all(NULL);
}

/* ---------------------------------------------------------------- */
/* Protocol                                                         */
/* ---------------------------------------------------------------- */
struct fake_vcpu {
	struct hvtlb_vcpu_sync *vs;
	unsigned kicks;
	unsigned flushes;
	struct hvtlb_flushq_batch last;
	/* What the kick does: nothing, exit guest, or exit + service. */
	enum { KICK_NOTHING, KICK_EXIT, KICK_EXIT_SERVICE } on_kick;
};

static void fake_kick(void *user, struct hvtlb_vcpu_sync *vs)
{
	struct fake_vcpu *v = user;

	v->kicks++;
	assert_ptr_equal(vs, v->vs);
	if (v->on_kick == KICK_NOTHING)
		return;
	hvtlb_vcpu_sync_exit_guest(vs);
	if (v->on_kick == KICK_EXIT_SERVICE)
		hvtlb_vcpu_sync_service(vs);
}

static void fake_flush(void *user, const struct hvtlb_flushq_batch *b)
{
	struct fake_vcpu *v = user;

	v->flushes++;
	v->last = *b;
}

static const struct hvtlb_vcpu_ops fake_ops = {
	.version = HVTLB_VCPU_OPS_VERSION,
	.kick = fake_kick,
	.flush = fake_flush,
};

static int v_setup(void **state)
{
	static struct fake_vcpu v;

	memset(&v, 0, sizeof(v));
	v.vs = hvtlb_vcpu_sync_create(&fake_ops, &v);
	if (!v.vs)
		return -1;
	*state = &v;
	return 0;
}

static int v_teardown(void **state)
{
	struct fake_vcpu *v = *state;

	hvtlb_vcpu_sync_destroy(v->vs);
	return 0;
}

#define MS 1000000ull

static void test_create_checks_ops(void **state)
{
	struct hvtlb_vcpu_ops bad = fake_ops;

	(void)state;
	assert_null(hvtlb_vcpu_sync_create(NULL, NULL));
	bad.version = 2;
	assert_null(hvtlb_vcpu_sync_create(&bad, NULL));
	bad = fake_ops;
	bad.flush = NULL;
	assert_null(hvtlb_vcpu_sync_create(&bad, NULL));
	hvtlb_vcpu_sync_destroy(NULL);
}

static void test_enter_exit_nothing_pending(void **state)
{
	struct fake_vcpu *v = *state;

	assert_int_equal(hvtlb_vcpu_sync_mode(v->vs), HVTLB_VCPU_OUTSIDE_GUEST);
	assert_int_equal(hvtlb_vcpu_sync_enter_guest(v->vs), 0);
	assert_int_equal(hvtlb_vcpu_sync_mode(v->vs), HVTLB_VCPU_IN_GUEST);
	assert_false(hvtlb_vcpu_sync_kicked(v->vs));
	hvtlb_vcpu_sync_exit_guest(v->vs);
	assert_int_equal(hvtlb_vcpu_sync_mode(v->vs), HVTLB_VCPU_OUTSIDE_GUEST);
	assert_int_equal(hvtlb_vcpu_sync_service(v->vs), 0);
	assert_int_equal(v->flushes, 0);
}

/* Outside guest: no kick, no wait; the next entry services first. */
static void test_post_outside_serviced_on_entry(void **state)
{
	struct fake_vcpu *v = *state;
	struct hvtlb_gva_range r = range4k(42);
	uint64_t posted, acked;

	assert_int_equal(hvtlb_vcpu_flush_post(&v->vs, 1, &r, 1, false, 0, 0),
			 0);
	assert_int_equal(v->kicks, 0);
	assert_int_equal(hvtlb_vcpu_sync_requests(v->vs),
			 HVTLB_VCPU_REQ_TLB_FLUSH);
	hvtlb_vcpu_sync_seqs(v->vs, &posted, &acked);
	assert_int_equal(posted, 1);
	assert_int_equal(acked, 0);
	assert_int_equal(v->flushes, 0);

	assert_int_equal(hvtlb_vcpu_sync_enter_guest(v->vs), 1);
	assert_int_equal(hvtlb_vcpu_sync_mode(v->vs), HVTLB_VCPU_IN_GUEST);
	assert_int_equal(v->flushes, 1);
	assert_false(v->last.all);
	assert_int_equal(v->last.n, 1);
	assert_int_equal(v->last.ranges[0].gva, 42u << 12);
	hvtlb_vcpu_sync_seqs(v->vs, NULL, &acked);
	assert_int_equal(acked, 1);
	assert_int_equal(hvtlb_vcpu_sync_requests(v->vs), 0);
}

/* In guest and nobody acknowledges: the wait times out, does not hang. */
static void test_post_in_guest_times_out(void **state)
{
	struct fake_vcpu *v = *state;
	struct hvtlb_gva_range r = range4k(1);

	hvtlb_vcpu_sync_enter_guest(v->vs);
	v->on_kick = KICK_NOTHING;
	assert_int_equal(
		hvtlb_vcpu_flush_post(&v->vs, 1, &r, 1, false, 20 * MS, 0),
		-ETIMEDOUT);
	assert_int_equal(v->kicks, 1);
	assert_int_equal(hvtlb_vcpu_sync_mode(v->vs), HVTLB_VCPU_EXITING);
	assert_true(hvtlb_vcpu_sync_kicked(v->vs));
	assert_int_equal(v->flushes, 0);
	/* The request stays queued and is serviced on the next entry. */
	hvtlb_vcpu_sync_exit_guest(v->vs);
	assert_int_equal(hvtlb_vcpu_sync_enter_guest(v->vs), 1);
	assert_int_equal(v->flushes, 1);
	assert_false(hvtlb_vcpu_sync_kicked(v->vs));
}

/* In guest, the kick makes it exit: the wait ends without an ack. */
static void test_post_in_guest_kick_exits(void **state)
{
	struct fake_vcpu *v = *state;
	struct hvtlb_gva_range r = range4k(1);
	uint64_t acked;

	hvtlb_vcpu_sync_enter_guest(v->vs);
	v->on_kick = KICK_EXIT;
	assert_int_equal(
		hvtlb_vcpu_flush_post(&v->vs, 1, &r, 1, false, 1000 * MS, 0),
		0);
	assert_int_equal(v->kicks, 1);
	hvtlb_vcpu_sync_seqs(v->vs, NULL, &acked);
	assert_int_equal(acked, 0);
	assert_int_equal(hvtlb_vcpu_sync_enter_guest(v->vs), 1);
	assert_int_equal(v->flushes, 1);
}

/* In guest, the kick services: the wait ends on the acknowledgement. */
static void test_post_in_guest_kick_acks(void **state)
{
	struct fake_vcpu *v = *state;
	uint64_t posted, acked;

	hvtlb_vcpu_sync_enter_guest(v->vs);
	v->on_kick = KICK_EXIT_SERVICE;
	assert_int_equal(
		hvtlb_vcpu_flush_post(&v->vs, 1, NULL, 0, true, 1000 * MS, 0),
		0);
	assert_int_equal(v->flushes, 1);
	assert_true(v->last.all);
	hvtlb_vcpu_sync_seqs(v->vs, &posted, &acked);
	assert_int_equal(posted, 1);
	assert_int_equal(acked, 1);
	assert_int_equal(hvtlb_vcpu_sync_enter_guest(v->vs), 0);
}

/* The no-wait fault returns while the target still runs unflushed. */
static void test_fault_no_wait(void **state)
{
	struct fake_vcpu *v = *state;
	struct hvtlb_gva_range r = range4k(1);

	hvtlb_vcpu_sync_enter_guest(v->vs);
	v->on_kick = KICK_NOTHING;
	assert_int_equal(hvtlb_vcpu_flush_post(&v->vs, 1, &r, 1, false,
					       1000 * MS,
					       HVTLB_FLUSH_FAULT_NO_WAIT),
			 0);
	assert_int_equal(hvtlb_vcpu_sync_mode(v->vs), HVTLB_VCPU_EXITING);
	assert_int_equal(v->flushes, 0);
}

/* A full queue collapses to all; the drop fault loses the flush. */
static void test_overflow_collapse_and_drop_fault(void **state)
{
	struct fake_vcpu *v = *state;
	struct hvtlb_gva_range r[16];
	size_t i;

	for (i = 0; i < 16; i++)
		r[i] = range4k(i);
	assert_int_equal(hvtlb_vcpu_flush_post(&v->vs, 1, r, 15, false, 0, 0),
			 0);
	assert_int_equal(
		hvtlb_vcpu_flush_post(&v->vs, 1, r + 15, 1, false, 0, 0), 0);
	hvtlb_vcpu_sync_enter_guest(v->vs);
	assert_true(v->last.all);
	hvtlb_vcpu_sync_exit_guest(v->vs);

	assert_int_equal(hvtlb_vcpu_flush_post(&v->vs, 1, r, 15, false, 0, 0),
			 0);
	assert_int_equal(hvtlb_vcpu_flush_post(&v->vs, 1, r + 15, 1, false, 0,
					       HVTLB_FLUSH_FAULT_DROP_OVERFLOW),
			 0);
	hvtlb_vcpu_sync_enter_guest(v->vs);
	assert_false(v->last.all); /* page 15 was never flushed */
	assert_int_equal(v->last.n, 15);
}

static void test_post_args_and_many_targets(void **state)
{
	struct hvtlb_gva_range r = range4k(3);
	struct hvtlb_vcpu_sync *vs[70];
	struct fake_vcpu v[70];
	uint64_t posted;
	size_t i;

	(void)state;
	assert_int_equal(hvtlb_vcpu_flush_post(NULL, 1, &r, 1, false, 0, 0),
			 -EINVAL);
	memset(v, 0, sizeof(v));
	for (i = 0; i < 70; i++) {
		vs[i] = hvtlb_vcpu_sync_create(&fake_ops, &v[i]);
		assert_non_null(vs[i]);
		v[i].vs = vs[i];
	}
	assert_int_equal(hvtlb_vcpu_flush_post(vs, 1, NULL, 1, false, 0, 0),
			 -EINVAL);
	/* Nothing to flush: no request. */
	assert_int_equal(hvtlb_vcpu_flush_post(vs, 70, &r, 0, false, 0, 0), 0);
	assert_int_equal(hvtlb_vcpu_sync_requests(vs[0]), 0);
	/* More targets than the stack ticket array; a NULL is skipped. */
	hvtlb_vcpu_sync_enter_guest(vs[69]);
	v[69].on_kick = KICK_EXIT_SERVICE;
	vs[5] = NULL;
	assert_int_equal(
		hvtlb_vcpu_flush_post(vs, 70, &r, 1, false, 1000 * MS, 0), 0);
	vs[5] = v[5].vs;
	for (i = 0; i < 70; i++) {
		hvtlb_vcpu_sync_seqs(vs[i], &posted, NULL);
		assert_int_equal(posted, i == 5 ? 0 : 1);
	}
	assert_int_equal(v[69].kicks, 1);
	assert_int_equal(v[69].flushes, 1);
	for (i = 0; i < 70; i++)
		hvtlb_vcpu_sync_destroy(vs[i]);
}

/* ---------------------------------------------------------------- */
/* KVM preempted byte                                               */
/* ---------------------------------------------------------------- */
static void test_steal_running_not_deferred(void **state)
{
	struct hvtlb_kvm_steal_byte s;

	(void)state;
	hvtlb_kvm_steal_init(&s);
	assert_int_equal(hvtlb_kvm_steal_read(&s), 0);
	assert_false(hvtlb_kvm_steal_guest_defer_flush(&s));
	assert_int_equal(hvtlb_kvm_steal_read(&s), 0);
	assert_int_equal(hvtlb_kvm_steal_host_enter(&s), 0);
}

static void test_steal_deferred_flush(void **state)
{
	struct hvtlb_kvm_steal_byte s;

	(void)state;
	hvtlb_kvm_steal_init(&s);
	hvtlb_kvm_steal_host_preempt(&s, 0);
	assert_int_equal(hvtlb_kvm_steal_read(&s), HVTLB_KVM_VCPU_PREEMPTED);
	assert_true(hvtlb_kvm_steal_guest_defer_flush(&s));
	assert_true(hvtlb_kvm_steal_guest_defer_flush(&s)); /* twice: ok */
	assert_int_equal(hvtlb_kvm_steal_host_enter(&s),
			 HVTLB_KVM_VCPU_PREEMPTED | HVTLB_KVM_VCPU_FLUSH_TLB);
	assert_int_equal(hvtlb_kvm_steal_read(&s), 0);
	/* After entry the vCPU runs: the guest must IPI again. */
	assert_false(hvtlb_kvm_steal_guest_defer_flush(&s));
}

/* CVE-2019-3016: a second set_preempted must not clear FLUSH_TLB. */
static void test_steal_second_preempt_keeps_flag(void **state)
{
	struct hvtlb_kvm_steal_byte s;

	(void)state;
	hvtlb_kvm_steal_init(&s);
	hvtlb_kvm_steal_host_preempt(&s, 0);
	assert_true(hvtlb_kvm_steal_guest_defer_flush(&s));
	hvtlb_kvm_steal_host_preempt(&s, 0);
	assert_true(hvtlb_kvm_steal_host_enter(&s) & HVTLB_KVM_VCPU_FLUSH_TLB);

	/* The fault switch reproduces the bug: the flag is lost. */
	hvtlb_kvm_steal_init(&s);
	hvtlb_kvm_steal_host_preempt(&s, 0);
	assert_true(hvtlb_kvm_steal_guest_defer_flush(&s));
	hvtlb_kvm_steal_host_preempt(&s, HVTLB_KVM_STEAL_FAULT_OVERWRITE);
	assert_false(hvtlb_kvm_steal_host_enter(&s) & HVTLB_KVM_VCPU_FLUSH_TLB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_range_ok),
		cmocka_unit_test_setup_teardown(test_fifteen_fit, q_setup,
						q_teardown),
		cmocka_unit_test_setup_teardown(test_sixteenth_collapses,
						q_setup, q_teardown),
		cmocka_unit_test_setup_teardown(test_n_at_once, q_setup,
						q_teardown),
		cmocka_unit_test_setup_teardown(test_drain_empties, q_setup,
						q_teardown),
		cmocka_unit_test_setup_teardown(test_push_all, q_setup,
						q_teardown),
		cmocka_unit_test_setup_teardown(test_bad_args, q_setup,
						q_teardown),
		cmocka_unit_test(test_create_checks_ops),
		cmocka_unit_test_setup_teardown(test_enter_exit_nothing_pending,
						v_setup, v_teardown),
		cmocka_unit_test_setup_teardown(
			test_post_outside_serviced_on_entry, v_setup,
			v_teardown),
		cmocka_unit_test_setup_teardown(test_post_in_guest_times_out,
						v_setup, v_teardown),
		cmocka_unit_test_setup_teardown(test_post_in_guest_kick_exits,
						v_setup, v_teardown),
		cmocka_unit_test_setup_teardown(test_post_in_guest_kick_acks,
						v_setup, v_teardown),
		cmocka_unit_test_setup_teardown(test_fault_no_wait, v_setup,
						v_teardown),
		cmocka_unit_test_setup_teardown(
			test_overflow_collapse_and_drop_fault, v_setup,
			v_teardown),
		cmocka_unit_test(test_post_args_and_many_targets),
		cmocka_unit_test(test_steal_running_not_deferred),
		cmocka_unit_test(test_steal_deferred_flush),
		cmocka_unit_test(test_steal_second_preempt_keeps_flag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
