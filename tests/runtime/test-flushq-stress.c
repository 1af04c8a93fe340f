// SPDX-License-Identifier: MIT
/*
 * Stress test: one real pthread per vCPU running the request/ack protocol
 * and the KVM preempted byte against a shared "page table" of generations,
 * with an oracle.
 *
 * Each vCPU thread loops: (host entry: KVM byte) -> enter guest -> run
 * (translate random pages through a private fake TLB that caches the page's
 * generation) -> exit guest -> sometimes act as an initiator (bump a page's
 * generation, post a flush to every vCPU, wait) -> sometimes sleep (being
 * "preempted"). After an initiator's wait returns 0 it raises done[page] to
 * the generation it flushed. The oracle: whenever a vCPU in guest mode uses
 * a cached translation, its generation must not be below done[page].
 *
 * cmocka asserts only run on the main thread, after the join. A global
 * deadline stops every thread (and fails the test) instead of hanging.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <hvtlb/flushq.h>

#ifndef STRESS_THREADS
#define STRESS_THREADS 64
#endif
#define MAX_VCPUS 64
/* A shootdown needs a second vCPU: -Dstress_threads=1 still runs two. */
#define STRESS_VCPUS (STRESS_THREADS < 2 ? 2 : STRESS_THREADS)
#define NPAGES 16
#define DEADLINE_NS (20ull * 1000000000ull)
#define WAIT_TIMEOUT_NS (10ull * 1000000000ull)

enum scenario {
	SC_CORRECT,	  /* request path only */
	SC_CORRECT_PV,	  /* plus the KVM preempted byte */
	SC_NO_WAIT,	  /* initiator returns before the acks */
	SC_DROP,	  /* a queue overflow drops the push */
	SC_KVM_OVERWRITE, /* second set_preempted clears FLUSH_TLB */
	SC_HAMMER,	  /* 1 vCPU in a tight loop, the rest initiators */
	SC_HAMMER_PV	  /* the same, preempted between runs */
};

struct world;

struct vcpu {
	struct world *w;
	unsigned id;
	struct hvtlb_vcpu_sync *vs;
	struct hvtlb_kvm_steal_byte steal;
	uint64_t rng;
	/* Fake TLB: only this vCPU's thread touches it. */
	bool valid[NPAGES];
	uint64_t gen[NPAGES];
	/* Results, read by the main thread after the join. delivered: posts
	 * that reached at least one target (the others were all deferred). */
	uint64_t uses, misses, flushes, posts, delivered, deferred, timeouts;
	uint64_t errors;
	uint64_t violations;
	unsigned bad_page, bad_iter, iter;
	uint64_t bad_cached, bad_done;
};

struct world {
	enum scenario sc;
	unsigned nvcpus;
	unsigned iters;
	uint64_t deadline;
	_Atomic uint64_t pt[NPAGES];   /* page table: generation per page */
	_Atomic uint64_t done[NPAGES]; /* oracle: generation a completed
				          flush covered */
	_Atomic bool stop;	       /* deadline passed */
	_Atomic uint64_t kicks;
	_Atomic unsigned initiators_left; /* SC_HAMMER */
	_Atomic uint64_t hposts;	  /* SC_HAMMER: posts started */
	pthread_barrier_t start;
	struct vcpu v[MAX_VCPUS];
	struct hvtlb_vcpu_sync *vs[MAX_VCPUS];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t rnd(struct vcpu *v)
{
	/* splitmix64: per-thread, seeded, no rand(). */
	uint64_t z = (v->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void tlb_flush_all(struct vcpu *v)
{
	memset(v->valid, 0, sizeof(v->valid));
}

/* ops->flush: runs on the vCPU's own thread, from service. */
static void vcpu_flush(void *user, const struct hvtlb_flushq_batch *b)
{
	struct vcpu *v = user;
	size_t i;
	uint64_t p;

	v->flushes++;
	if (b->all) {
		tlb_flush_all(v);
		return;
	}
	for (i = 0; i < b->n; i++) {
		/* Test ranges are 4 KiB pages; bound the index anyway. */
		for (p = 0; p < b->ranges[i].pages; p++) {
			uint64_t page = (b->ranges[i].gva >> 12) + p;

			if (page < NPAGES)
				v->valid[page] = false;
		}
	}
}

/* ops->kick: the vCPU polls hvtlb_vcpu_sync_kicked(); just count. */
static void vcpu_kick(void *user, struct hvtlb_vcpu_sync *vs)
{
	struct vcpu *v = user;

	(void)vs;
	atomic_fetch_add_explicit(&v->w->kicks, 1, memory_order_relaxed);
}

static const struct hvtlb_vcpu_ops stress_ops = {
	.version = HVTLB_VCPU_OPS_VERSION,
	.kick = vcpu_kick,
	.flush = vcpu_flush,
};

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ns };

	nanosleep(&ts, NULL);
}

/* One guest run: translate random pages; the oracle checks each use. */
static void guest_run(struct vcpu *v)
{
	struct world *w = v->w;
	bool hammer = w->sc == SC_HAMMER || w->sc == SC_HAMMER_PV;
	unsigned k, n = hammer ? 4 : 64 + (unsigned)(rnd(v) % 192);

	for (k = 0; k < n; k++) {
		unsigned p = hammer ? 0 : (unsigned)(rnd(v) % NPAGES);
		uint64_t g, d;

		if (!v->valid[p]) {
			v->gen[p] = atomic_load_explicit(&w->pt[p],
							 memory_order_acquire);
			v->valid[p] = true;
			v->misses++;
		}
		g = v->gen[p];
		v->uses++;
		d = atomic_load_explicit(&w->done[p], memory_order_acquire);
		if (g < d) {
			if (!v->violations++) {
				v->bad_page = p;
				v->bad_iter = v->iter;
				v->bad_cached = g;
				v->bad_done = d;
			}
		}
		/* A long guest run: initiators find us in guest mode. */
		if (!hammer && k == n / 2 && rnd(v) % 4 == 0)
			sleep_ns(5000 + rnd(v) % 20000);
		/* A real guest takes the kick as an interrupt at once; here it
		 * is noticed every 8 accesses. */
		if ((k & 7) == 7 && hvtlb_vcpu_sync_kicked(v->vs))
			break;
	}
}

static void raise_done(struct world *w, unsigned p, uint64_t gen)
{
	uint64_t cur = atomic_load(&w->done[p]);

	while (cur < gen &&
	       !atomic_compare_exchange_weak(&w->done[p], &cur, gen))
		;
}

static unsigned fault_flags(enum scenario sc)
{
	if (sc == SC_NO_WAIT)
		return HVTLB_FLUSH_FAULT_NO_WAIT;
	if (sc == SC_DROP)
		return HVTLB_FLUSH_FAULT_DROP_OVERFLOW;
	return 0;
}

static bool use_pv(enum scenario sc)
{
	return sc == SC_CORRECT_PV || sc == SC_KVM_OVERWRITE ||
	       sc == SC_HAMMER_PV;
}

/* The vCPU is outside guest mode: it handles a flush hypercall. */
static void initiate(struct vcpu *v)
{
	struct world *w = v->w;
	struct hvtlb_vcpu_sync *targets[MAX_VCPUS];
	struct hvtlb_gva_range r[4];
	bool hammer = w->sc == SC_HAMMER || w->sc == SC_HAMMER_PV;
	unsigned p = hammer ? 0 : (unsigned)(rnd(v) % NPAGES);
	unsigned i, nr = hammer ? 1 : 1 + (unsigned)(rnd(v) % 4), nt = 0;
	uint64_t gen, left;
	int ret;

	gen = atomic_fetch_add(&w->pt[p], 1) + 1;
	r[0].gva = (uint64_t)p << 12;
	r[0].pages = 1;
	r[0].size = HVTLB_PAGE_4K;
	for (i = 1; i < nr; i++) { /* more pages, to fill queues */
		r[i] = r[0];
		r[i].gva = (rnd(v) % NPAGES) << 12;
	}
	for (i = 0; i < (hammer ? 1 : w->nvcpus); i++) {
		if (use_pv(w->sc) &&
		    hvtlb_kvm_steal_guest_defer_flush(&w->v[i].steal)) {
			v->deferred++;
			continue;
		}
		targets[nt++] = w->vs[i];
	}
	left = w->deadline - now_ns();
	if ((int64_t)left <= 0)
		return;
	ret = hvtlb_vcpu_flush_post(targets, nt, r, nr, false,
				    left < WAIT_TIMEOUT_NS ? left
							   : WAIT_TIMEOUT_NS,
				    fault_flags(w->sc));
	v->posts++;
	if (ret == 0 && nt)
		v->delivered++;
	if (ret == 0)
		raise_done(w, p, gen);
	else if (ret == -ETIMEDOUT)
		v->timeouts++;
	else
		v->errors++;
}

/* Host side of a preemption: PREEMPTED set, sleep, entry exchange. */
static void preempted_sleep(struct vcpu *v)
{
	struct world *w = v->w;
	unsigned flags =
		w->sc == SC_KVM_OVERWRITE ? HVTLB_KVM_STEAL_FAULT_OVERWRITE : 0;

	if (use_pv(w->sc))
		hvtlb_kvm_steal_host_preempt(&v->steal, flags);
	sleep_ns(20000 + rnd(v) % 80000);
	if (use_pv(w->sc)) {
		/* Scheduled out again before running (the CVE-2019-3016
		 * path): the byte is written a second time. */
		hvtlb_kvm_steal_host_preempt(&v->steal, flags);
		sleep_ns(20000 + rnd(v) % 80000);
	}
}

/*
 * SC_HAMMER: vCPU 0 enters and exits in a tight loop while the others
 * post flushes of page 0 to it as fast as they can, so the window between
 * a post and an entry (the classic race) is hit millions of times.
 */
/*
 * Puts hammer thread @p id on the id-th CPU it may use, so that the two
 * threads can really run at the same time (left together on one CPU they
 * only interleave at time-slice boundaries and the race window is never
 * hit). Best effort: nothing happens with fewer than two CPUs.
 */
static void hammer_pin(unsigned id)
{
#if defined(__linux__)
	cpu_set_t allowed, one;
	unsigned cpu, seen = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) ||
	    CPU_COUNT(&allowed) < 2)
		return;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed) || seen++ != id % 2)
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
		return;
	}
#else
	(void)id;
#endif
}

static void hammer_thread(struct vcpu *v)
{
	struct world *w = v->w;
	unsigned it;

	hammer_pin(v->id);

	if (v->id == 0) {
		uint64_t seen = 0;
		unsigned idle = 0;

		while (atomic_load(&w->initiators_left) &&
		       !atomic_load_explicit(&w->stop, memory_order_relaxed)) {
			if (use_pv(w->sc) &&
			    (hvtlb_kvm_steal_host_enter(&v->steal) &
			     HVTLB_KVM_VCPU_FLUSH_TLB))
				tlb_flush_all(v);
			hvtlb_vcpu_sync_enter_guest(v->vs);
			guest_run(v);
			hvtlb_vcpu_sync_exit_guest(v->vs);
			v->iter++;
			if (use_pv(w->sc))
				hvtlb_kvm_steal_host_preempt(&v->steal, 0);
			/* Nothing new posted for a while: the initiator may be
			 * waiting for this CPU. */
			if (atomic_load(&w->hposts) != seen) {
				seen = atomic_load(&w->hposts);
				idle = 0;
			} else if (++idle == 64) {
				sched_yield();
				idle = 0;
			}
			if (now_ns() > w->deadline)
				atomic_store(&w->stop, true);
		}
		/* Serve what was posted after the last entry: on a loaded
		 * host the initiator may finish before this thread first
		 * runs, and its posts must still be flushed. */
		hvtlb_vcpu_sync_service(v->vs);
		return;
	}
	for (it = 0; it < w->iters; it++) {
		if (atomic_load_explicit(&w->stop, memory_order_relaxed))
			break;
		atomic_fetch_add(&w->hposts, 1);
		initiate(v);
	}
	atomic_fetch_sub(&w->initiators_left, 1);
}

static void *vcpu_thread(void *arg)
{
	struct vcpu *v = arg;
	struct world *w = v->w;
	unsigned it;

	pthread_barrier_wait(&w->start);
	if (w->sc == SC_HAMMER || w->sc == SC_HAMMER_PV) {
		hammer_thread(v);
		return NULL;
	}
	for (it = 0; it < w->iters; it++) {
		v->iter = it;
		if (atomic_load_explicit(&w->stop, memory_order_relaxed))
			break;
		if (now_ns() > w->deadline) {
			atomic_store(&w->stop, true);
			break;
		}
		if (use_pv(w->sc) && (hvtlb_kvm_steal_host_enter(&v->steal) &
				      HVTLB_KVM_VCPU_FLUSH_TLB))
			tlb_flush_all(v);
		hvtlb_vcpu_sync_enter_guest(v->vs);
		guest_run(v);
		hvtlb_vcpu_sync_exit_guest(v->vs);
		if (rnd(v) % 8 == 0)
			initiate(v);
		if (rnd(v) % 4 == 0)
			preempted_sleep(v);
	}
	/* Drain what is left so no initiator waits on us. */
	hvtlb_vcpu_sync_service(v->vs);
	return NULL;
}

struct totals {
	uint64_t uses, misses, flushes, posts, delivered, deferred, timeouts;
	uint64_t errors;
	uint64_t violations, kicks, collapses;
	bool stopped;
};

static void run_world(enum scenario sc, unsigned nv, unsigned iters,
		      struct totals *t)
{
	struct world *w = calloc(1, sizeof(*w));
	pthread_t th[MAX_VCPUS];
	unsigned i;
	bool first = true;

	assert_non_null(w);
	assert_in_range(nv, 1, MAX_VCPUS);
	w->sc = sc;
	w->nvcpus = nv;
	w->iters = iters;
	w->deadline = now_ns() + DEADLINE_NS;
	for (i = 0; i < NPAGES; i++) {
		atomic_init(&w->pt[i], 1);
		atomic_init(&w->done[i], 0);
	}
	atomic_init(&w->stop, false);
	atomic_init(&w->kicks, 0);
	atomic_init(&w->initiators_left, nv - 1);
	atomic_init(&w->hposts, 0);
	assert_int_equal(pthread_barrier_init(&w->start, NULL, nv), 0);
	for (i = 0; i < nv; i++) {
		struct vcpu *v = &w->v[i];

		v->w = w;
		v->id = i;
		v->rng = 0x5eed0000ull + i * 7919u + (uint64_t)sc * 104729u;
		hvtlb_kvm_steal_init(&v->steal);
		v->vs = hvtlb_vcpu_sync_create(&stress_ops, v);
		assert_non_null(v->vs);
		w->vs[i] = v->vs;
	}
	for (i = 0; i < nv; i++)
		assert_int_equal(
			pthread_create(&th[i], NULL, vcpu_thread, &w->v[i]), 0);
	for (i = 0; i < nv; i++)
		pthread_join(th[i], NULL);

	memset(t, 0, sizeof(*t));
	for (i = 0; i < nv; i++) {
		struct vcpu *v = &w->v[i];

		t->uses += v->uses;
		t->misses += v->misses;
		t->flushes += v->flushes;
		t->posts += v->posts;
		t->delivered += v->delivered;
		t->deferred += v->deferred;
		t->timeouts += v->timeouts;
		t->errors += v->errors;
		t->violations += v->violations;
		t->collapses +=
			hvtlb_flushq_collapses(hvtlb_vcpu_sync_queue(v->vs));
		if (v->violations && first) {
			print_message("  first violation: vCPU %u iteration %u "
				      "page %u cached gen %llu < flushed gen "
				      "%llu\n",
				      v->id, v->bad_iter, v->bad_page,
				      (unsigned long long)v->bad_cached,
				      (unsigned long long)v->bad_done);
			first = false;
		}
		hvtlb_vcpu_sync_destroy(v->vs);
	}
	t->kicks = atomic_load(&w->kicks);
	t->stopped = atomic_load(&w->stop);
	pthread_barrier_destroy(&w->start);
	free(w);
	print_message(
		"  %u vCPU threads x %u iters: uses %llu misses %llu "
		"posts %llu deferred(pv) %llu kicks %llu flushes %llu "
		"collapses %llu timeouts %llu violations %llu%s\n",
		nv, iters, (unsigned long long)t->uses,
		(unsigned long long)t->misses, (unsigned long long)t->posts,
		(unsigned long long)t->deferred, (unsigned long long)t->kicks,
		(unsigned long long)t->flushes,
		(unsigned long long)t->collapses,
		(unsigned long long)t->timeouts,
		(unsigned long long)t->violations,
		t->stopped ? " (DEADLINE HIT)" : "");
}

static unsigned iters_from_env(unsigned dflt)
{
	const char *s = getenv("HVTLB_STRESS_ITERS");
	unsigned long n;
	char *end;

	if (!s || !*s)
		return dflt;
	n = strtoul(s, &end, 10);
	return (*end || n == 0 || n > 1000000) ? dflt : (unsigned)n;
}

static void expect_clean(enum scenario sc)
{
	struct totals t;

	run_world(sc, STRESS_VCPUS, iters_from_env(1000), &t);
	assert_false(t.stopped);
	assert_int_equal(t.timeouts, 0);
	assert_int_equal(t.errors, 0);
	assert_true(t.posts > 0);
	if (sc == SC_CORRECT_PV)
		assert_true(t.deferred > 0); /* the PV path was exercised */
	assert_int_equal(t.violations, 0);
}

/* A fault must make the oracle fire. A few bounded rounds, because a
 * lost flush only shows when a vCPU later touches that page. */
static void expect_violations(enum scenario sc)
{
	struct totals t;
	int round;

	for (round = 0; round < 5; round++) {
		run_world(sc, STRESS_VCPUS, iters_from_env(1000), &t);
		assert_false(t.stopped);
		assert_int_equal(t.errors, 0);
		if (t.violations > 0)
			break;
	}
	if (t.violations > 0)
		print_message("  fault caught in round %d of 5\n", round + 1);
	assert_true(t.violations > 0);
}

static void hammer(enum scenario sc)
{
	unsigned iters = iters_from_env(1000) * 1000;
	struct totals t;

	run_world(sc, 2, iters, &t);
	assert_false(t.stopped);
	assert_int_equal(t.timeouts, 0);
	assert_int_equal(t.errors, 0);
	/* The one initiator posted every round, and each post either reached
	 * vCPU 0 or was deferred through its PV byte (no other way out). */
	assert_int_equal(t.posts, iters);
	assert_int_equal(t.delivered + t.deferred, t.posts);
	if (sc == SC_HAMMER)
		assert_int_equal(t.deferred, 0);
	/* vCPU 0 flushed: at least once, at most once per delivered post
	 * (posts queued together are serviced together). */
	assert_true(t.delivered > 0);
	assert_in_range(t.flushes, 1, t.delivered);
	assert_int_equal(t.violations, 0);
}

static void test_hammer(void **state)
{
	(void)state;
	hammer(SC_HAMMER);
}

static void test_hammer_pv(void **state)
{
	(void)state;
	hammer(SC_HAMMER_PV);
}

static void test_correct(void **state)
{
	(void)state;
	expect_clean(SC_CORRECT);
}

static void test_correct_pv(void **state)
{
	(void)state;
	expect_clean(SC_CORRECT_PV);
}

static void test_fault_no_wait(void **state)
{
	(void)state;
	expect_violations(SC_NO_WAIT);
}

static void test_fault_drop_overflow(void **state)
{
	(void)state;
	expect_violations(SC_DROP);
}

static void test_fault_kvm_overwrite(void **state)
{
	(void)state;
	expect_violations(SC_KVM_OVERWRITE);
}

/* Usage: test-flushq-stress [cmocka test name pattern] */
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_correct),
		cmocka_unit_test(test_hammer),
		cmocka_unit_test(test_hammer_pv),
		cmocka_unit_test(test_correct_pv),
		cmocka_unit_test(test_fault_no_wait),
		cmocka_unit_test(test_fault_drop_overflow),
		cmocka_unit_test(test_fault_kvm_overwrite),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
