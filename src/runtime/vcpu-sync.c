// SPDX-License-Identifier: MIT
/*
 * The request/kick/acknowledge protocol between flush initiators and vCPU
 * threads (the shape of KVM's kvm_make_vcpus_request_mask + kick + wait).
 *
 * Memory ordering. Accesses to mode, requests and posted are seq_cst,
 * except exit_guest's store of OUTSIDE (release: it only has to publish
 * the vCPU's last guest accesses) and the two loads in
 * hvtlb_vcpu_sync_kicked() (relaxed: a hint to exit early; correctness
 * comes from the entry check). acked is written with release and read with
 * acquire.
 *
 *   initiator (post)                  vCPU (enter_guest)
 *   I1 push into the flush queue      V1 mode = IN_GUEST         (seq_cst)
 *   I2 posted += 1 -> ticket t        V2 r = requests            (seq_cst)
 *   I3 requests |= TLB_FLUSH          V3 if r: mode = OUTSIDE, service,
 *   I4 m = mode          (seq_cst)       go back to V1
 *
 * The classic race is I3/I4 against V1/V2 (store then load on each side,
 * Dekker style). All four are seq_cst, so they sit in one total order: if
 * I4 reads OUTSIDE, the vCPU's next V1 comes after I4, hence after I3, and
 * its V2 sees the bit; if V2 misses the bit, V1 came before I4, so I4
 * reads IN_GUEST (or EXITING) and the initiator kicks and waits. Weaker
 * orders (release store + acquire load) would allow both sides to miss
 * each other. Only the vCPU clears the bit, so nobody else can eat it.
 *
 *   vCPU (service)
 *   S1 r = exchange(requests, 0)      (seq_cst)
 *   S2 s = posted                     (seq_cst)
 *   S3 drain the queue (mutex), flush
 *   S4 acked = s                      (release)
 *
 * If S2 reads a value >= t, it read (a successor in the RMW chain of) I2,
 * so I1 happens-before S3 and the drain returns the initiator's entries,
 * unless an earlier drain took them (that drain's flush finished before,
 * on the same thread). The initiator waits for each kicked target until
 * acked >= t (acquire, pairs with S4: the flush happened-before the return)
 * or mode == OUTSIDE (seq_cst load of exit_guest's release store: the
 * vCPU's last guest access happened-before the return, and the Dekker
 * argument above makes its next entry service the request).
 *
 * Every access above goes through the names of rt-sync.h, so that the
 * interleaving test (docs/verification.md, "The real C") runs these functions
 * in every order up to its bound; the HVTLB_RT_BROKEN_* blocks are its
 * deliberately broken variants, never compiled into the library.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include <hvtlb/flushq.h>

#include "flushq-private.h"
#include "rt-sync.h"

struct hvtlb_vcpu_sync {
	const struct hvtlb_vcpu_ops *ops;
	void *user;
	_Atomic unsigned mode;
	_Atomic unsigned requests;
	_Atomic uint64_t posted;
	_Atomic uint64_t acked;
	struct hvtlb_flushq queue;
};

struct hvtlb_vcpu_sync *hvtlb_vcpu_sync_create(const struct hvtlb_vcpu_ops *ops,
					       void *user)
{
	struct hvtlb_vcpu_sync *vs;

	if (!ops || ops->version != HVTLB_VCPU_OPS_VERSION || !ops->flush)
		return NULL;
	vs = calloc(1, sizeof(*vs));
	if (!vs)
		return NULL;
	if (hvtlb_flushq_init(&vs->queue) < 0)
		goto err_free;
	vs->ops = ops;
	vs->user = user;
	atomic_init(&vs->mode, HVTLB_VCPU_OUTSIDE_GUEST);
	atomic_init(&vs->requests, 0);
	atomic_init(&vs->posted, 0);
	atomic_init(&vs->acked, 0);
	return vs;

err_free:
	free(vs);
	return NULL;
}

void hvtlb_vcpu_sync_destroy(struct hvtlb_vcpu_sync *vs)
{
	if (!vs)
		return;
	hvtlb_flushq_finish(&vs->queue);
	free(vs);
}

struct hvtlb_flushq *hvtlb_vcpu_sync_queue(struct hvtlb_vcpu_sync *vs)
{
	return vs ? &vs->queue : NULL;
}

int hvtlb_vcpu_sync_service(struct hvtlb_vcpu_sync *vs)
{
	struct hvtlb_flushq_batch batch;
	uint64_t seq;

	if (!vs || !rt_exchange(&vs->requests, 0))
		return 0;
	seq = rt_load(&vs->posted);
#ifdef HVTLB_RT_BROKEN_ACK_FIRST
	rt_store_explicit(&vs->acked, seq, memory_order_release);
#endif
	hvtlb_flushq_drain(&vs->queue, &batch);
	if (batch.all || batch.n)
		vs->ops->flush(vs->user, &batch);
#ifndef HVTLB_RT_BROKEN_ACK_FIRST
	/* Only this thread stores acked, and seq never goes down. */
	rt_store_explicit(&vs->acked, seq, memory_order_release);
#endif
	return 1;
}

int hvtlb_vcpu_sync_enter_guest(struct hvtlb_vcpu_sync *vs)
{
	int serviced = 0;

	if (!vs)
		return 0;
	for (;;) {
#ifdef HVTLB_RT_BROKEN_NO_RECHECK
		if (!rt_load(&vs->requests)) {
			rt_store(&vs->mode, HVTLB_VCPU_IN_GUEST);
			return serviced;
		}
#else
		rt_store(&vs->mode, HVTLB_VCPU_IN_GUEST);
		if (!rt_load(&vs->requests))
			return serviced;
		rt_store(&vs->mode, HVTLB_VCPU_OUTSIDE_GUEST);
#endif
		serviced += hvtlb_vcpu_sync_service(vs);
	}
}

void hvtlb_vcpu_sync_exit_guest(struct hvtlb_vcpu_sync *vs)
{
	if (vs)
		rt_store_explicit(&vs->mode, HVTLB_VCPU_OUTSIDE_GUEST,
				  memory_order_release);
}

bool hvtlb_vcpu_sync_kicked(const struct hvtlb_vcpu_sync *vs)
{
	if (!vs)
		return false;
	return rt_load_explicit(&vs->mode, memory_order_relaxed) ==
		       HVTLB_VCPU_EXITING ||
	       rt_load_explicit(&vs->requests, memory_order_relaxed) != 0;
}

enum hvtlb_vcpu_mode hvtlb_vcpu_sync_mode(const struct hvtlb_vcpu_sync *vs)
{
	if (!vs)
		return HVTLB_VCPU_OUTSIDE_GUEST;
	return (enum hvtlb_vcpu_mode)rt_load(&vs->mode);
}

unsigned hvtlb_vcpu_sync_requests(const struct hvtlb_vcpu_sync *vs)
{
	return vs ? rt_load(&vs->requests) : 0;
}

void hvtlb_vcpu_sync_seqs(const struct hvtlb_vcpu_sync *vs, uint64_t *posted,
			  uint64_t *acked)
{
	if (posted)
		*posted = vs ? rt_load(&vs->posted) : 0;
	if (acked)
		*acked = vs ? rt_load_explicit(&vs->acked, memory_order_acquire)
			    : 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Posts to one target; returns the ticket to wait for, or 0 for none. */
static uint64_t post_one(struct hvtlb_vcpu_sync *vs,
			 const struct hvtlb_gva_range *ranges, size_t nranges,
			 bool all, unsigned flags)
{
	uint64_t ticket;
	unsigned mode;

	if (all)
		hvtlb_flushq_push_all(&vs->queue);
	else
		runtime_flushq_push_flags(&vs->queue, ranges, nranges, flags);
	ticket = rt_fetch_add(&vs->posted, 1) + 1;
	rt_fetch_or(&vs->requests, HVTLB_VCPU_REQ_TLB_FLUSH);
	mode = rt_load(&vs->mode);
#ifndef HVTLB_RT_BROKEN_WAIT_FOR_ACK
	if (mode == HVTLB_VCPU_OUTSIDE_GUEST)
		return 0;
#endif
	if (mode == HVTLB_VCPU_IN_GUEST) {
		/* Failure means it exited or someone else kicked: fine. */
		rt_cas_strong(&vs->mode, &mode, HVTLB_VCPU_EXITING);
	}
	if (vs->ops->kick)
		vs->ops->kick(vs->user, vs);
	return ticket;
}

static bool target_done(const struct hvtlb_vcpu_sync *vs, uint64_t ticket)
{
	if (rt_load_explicit(&vs->acked, memory_order_acquire) >= ticket)
		return true;
#if defined(HVTLB_RT_BROKEN_DONE_IF_EXITING)
	return rt_load(&vs->mode) != HVTLB_VCPU_IN_GUEST;
#elif defined(HVTLB_RT_BROKEN_WAIT_FOR_ACK)
	return false;
#else
	return rt_load(&vs->mode) == HVTLB_VCPU_OUTSIDE_GUEST;
#endif
}

int hvtlb_vcpu_flush_post(struct hvtlb_vcpu_sync *const *targets, size_t n,
			  const struct hvtlb_gva_range *ranges, size_t nranges,
			  bool all, uint64_t timeout_ns, unsigned flags)
{
	uint64_t stack_tickets[64];
	uint64_t *tickets = stack_tickets;
	uint64_t deadline;
	size_t i;
	int ret = 0;

	if ((!targets && n) || (!ranges && nranges))
		return -EINVAL;
	if (n == 0 || (!all && nranges == 0))
		return 0;
	if (n > sizeof(stack_tickets) / sizeof(stack_tickets[0])) {
		tickets = calloc(n, sizeof(*tickets));
		if (!tickets)
			return -ENOMEM;
	}

	for (i = 0; i < n; i++) {
		tickets[i] = 0;
		if (targets[i])
			tickets[i] = post_one(targets[i], ranges, nranges, all,
					      flags);
	}
	if (flags & HVTLB_FLUSH_FAULT_NO_WAIT)
		goto out;

	deadline = now_ns();
	deadline = timeout_ns > UINT64_MAX - deadline ? UINT64_MAX
						      : deadline + timeout_ns;
	for (i = 0; i < n; i++) {
		if (!tickets[i])
			continue;
		while (!target_done(targets[i], tickets[i])) {
			if (now_ns() >= deadline) {
				ret = -ETIMEDOUT;
				goto out;
			}
			rt_yield();
		}
	}
out:
	if (tickets != stack_tickets)
		free(tickets);
	return ret;
}
