/* SPDX-License-Identifier: MIT */
/**
 * @file
 * Thread-safe flush-delivery components a hypervisor prototype can link
 * into its own vCPU threads:
 *
 * - struct hvtlb_flushq: a per-vCPU FIFO of up to 15 GVA ranges plus a
 *   "flush everything" flag (KVM keeps 16 slots, one of them for "flush
 *   all"). Any thread may push; only the owning vCPU thread drains. A push
 *   that does not fit collapses the queue to flush-all: a flush is never
 *   lost and the queue never overflows.
 * - struct hvtlb_vcpu_sync: the request/kick/acknowledge protocol between
 *   an initiator and the vCPU threads (outside guest / in guest / exiting,
 *   pending request bits, an acknowledgement sequence).
 * - struct hvtlb_kvm_steal_byte: the KVM paravirtual "preempted" byte with
 *   its FLUSH_TLB bit, guest side and host side.
 *
 * Functions return 0 or a negative errno (Linux values); constructors
 * return NULL on failure. Nothing here prints or uses global state.
 */
#ifndef HVTLB_FLUSHQ_H
#define HVTLB_FLUSHQ_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hvtlb/core.h>
#include <hvtlb/hypercall.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ------------------------------------------------------------------ */
/* Per-vCPU flush queue                                                */
/* ------------------------------------------------------------------ */
/** Slots of KVM's per-vCPU FIFO; one is kept for "flush all". */
#define HVTLB_FLUSHQ_SLOTS 16u
/** GVA ranges a queue holds before it collapses to flush-all. */
#define HVTLB_FLUSHQ_MAX_RANGES (HVTLB_FLUSHQ_SLOTS - 1u)

/**
 * A per-vCPU flush queue in caller memory (hvtlb_flushq_init /
 * hvtlb_flushq_finish). Thread rules: any number of threads may push at
 * the same time; only the owning vCPU thread drains. Members are private:
 * touch them only through the functions below. A pthread mutex (not a
 * spinlock) guards the members, because producers and the drainer are
 * ordinary user threads that can be preempted while holding the lock, and
 * a spinning waiter would then burn a whole time slice.
 */
struct hvtlb_flushq {
	pthread_mutex_t lock;
	uint32_t n;	    /**< ranges queued, 0..HVTLB_FLUSHQ_MAX_RANGES */
	bool all;	    /**< flush everything; ranges[] is then empty */
	uint64_t collapses; /**< pushes that turned into flush-all */
	struct hvtlb_gva_range ranges[HVTLB_FLUSHQ_MAX_RANGES];
};

/** What one drain returns: either all, or n ranges (possibly 0). */
struct hvtlb_flushq_batch {
	bool all;
	size_t n;
	struct hvtlb_gva_range ranges[HVTLB_FLUSHQ_MAX_RANGES];
};

/**
 * Initializes an empty queue in caller memory. Returns 0, -EINVAL for a
 * NULL @p q, or the error of pthread_mutex_init (negated). Not
 * thread-safe: no other thread may use @p q until this returns.
 */
int hvtlb_flushq_init(struct hvtlb_flushq *q);

/**
 * Releases what hvtlb_flushq_init set up. Accepts NULL. No thread may use
 * @p q during or after the call (until it is initialized again).
 */
void hvtlb_flushq_finish(struct hvtlb_flushq *q);

/**
 * True when one queue entry can hold @p r: a valid page size, 1 to
 * HVTLB_GVA_SIMPLE_MAX_PAGES pages, @p r->gva aligned to the page size and
 * the range not wrapping past 2^64. Pure function.
 */
bool hvtlb_flushq_range_ok(const struct hvtlb_gva_range *r);

/**
 * Queues the @p n ranges at @p r, all or none, atomically with respect to
 * other pushes and to drains. If they do not all fit in the free entries,
 * or one of them fails hvtlb_flushq_range_ok(), the queue collapses to
 * flush-all instead (a flush is never dropped). The ranges are copied.
 * Thread-safe: any thread. Returns 0 when the ranges were queued (or
 * @p n is 0), 1 when the queue is now in the flush-all state, -EINVAL for a
 * NULL @p q, or a NULL @p r with @p n > 0.
 */
int hvtlb_flushq_push(struct hvtlb_flushq *q, const struct hvtlb_gva_range *r,
		      size_t n);

/**
 * Sets the flush-all state (queued ranges become redundant and are
 * dropped). Always succeeds for a valid @p q. Thread-safe: any thread.
 */
void hvtlb_flushq_push_all(struct hvtlb_flushq *q);

/**
 * Moves the queue's content into @p out and empties the queue, atomically
 * with respect to pushes. @p out->all and @p out->n are both 0 when
 * nothing was queued. Thread rules: only the owning vCPU thread.
 */
void hvtlb_flushq_drain(struct hvtlb_flushq *q, struct hvtlb_flushq_batch *out);

/** True when something is queued. Thread-safe; the answer may be stale. */
bool hvtlb_flushq_pending(struct hvtlb_flushq *q);

/**
 * Number of pushes that collapsed to flush-all since init. Thread-safe;
 * the answer may be stale.
 */
uint64_t hvtlb_flushq_collapses(struct hvtlb_flushq *q);

/* ------------------------------------------------------------------ */
/* Request / kick / acknowledge                                        */
/* ------------------------------------------------------------------ */
/** Where a vCPU thread is, as KVM's vcpu->mode. */
enum hvtlb_vcpu_mode {
	HVTLB_VCPU_OUTSIDE_GUEST = 0,
	HVTLB_VCPU_IN_GUEST = 1,
	HVTLB_VCPU_EXITING = 2, /**< in guest, kicked: will leave soon */
};

/** Request bit: the flush queue holds work (the only one so far). */
#define HVTLB_VCPU_REQ_TLB_FLUSH (1u << 0)

struct hvtlb_vcpu_sync;

/** Version of struct hvtlb_vcpu_ops this header describes. */
#define HVTLB_VCPU_OPS_VERSION 1u

/**
 * What the user supplies for one vCPU: a const table plus the user pointer
 * given to hvtlb_vcpu_sync_create().
 */
struct hvtlb_vcpu_ops {
	unsigned version; /**< HVTLB_VCPU_OPS_VERSION */
	/**
	 * Called on an initiator thread for a target that is in guest mode:
	 * make it leave guest mode soon (signal, eventfd, flag it polls).
	 * Must not block; may be called again before the vCPU reacted. May
	 * be NULL when the vCPU thread polls hvtlb_vcpu_sync_kicked().
	 */
	void (*kick)(void *user, struct hvtlb_vcpu_sync *vs);
	/**
	 * Called on the vCPU thread, outside guest mode: invalidate what
	 * @p b names (everything when b->all). Required. Must not call back
	 * into the same hvtlb_vcpu_sync.
	 */
	void (*flush)(void *user, const struct hvtlb_flushq_batch *b);
};

/**
 * Creates the state of one vCPU (mode OUTSIDE_GUEST, nothing pending) with
 * its own flush queue. @p ops must outlive the object. Returns NULL when
 * @p ops is NULL, has another version or no flush callback, or on
 * allocation failure.
 */
struct hvtlb_vcpu_sync *hvtlb_vcpu_sync_create(const struct hvtlb_vcpu_ops *ops,
					       void *user);

/**
 * Destroys @p vs. Accepts NULL. No thread may use @p vs during or after
 * the call; pending requests are discarded.
 */
void hvtlb_vcpu_sync_destroy(struct hvtlb_vcpu_sync *vs);

/** The vCPU's flush queue (owned by @p vs; push from any thread). */
struct hvtlb_flushq *hvtlb_vcpu_sync_queue(struct hvtlb_vcpu_sync *vs);

/**
 * vCPU thread: enters guest mode. If a request is pending it is serviced
 * first (hvtlb_vcpu_sync_service), then the check repeats, so the vCPU
 * never runs guest code with a request that was posted before it entered.
 * Returns the number of services performed (0 or more). Only the vCPU
 * thread, while outside guest mode.
 */
int hvtlb_vcpu_sync_enter_guest(struct hvtlb_vcpu_sync *vs);

/**
 * vCPU thread: leaves guest mode (after its last use of guest
 * translations). Only the vCPU thread, while in guest mode.
 */
void hvtlb_vcpu_sync_exit_guest(struct hvtlb_vcpu_sync *vs);

/**
 * vCPU thread, outside guest mode: takes the pending request bits, drains
 * the flush queue, calls ops->flush (when something was queued) and then
 * acknowledges. Returns 1 when a request was serviced, 0 when none was
 * pending.
 */
int hvtlb_vcpu_sync_service(struct hvtlb_vcpu_sync *vs);

/**
 * vCPU thread, in guest mode: true when it should exit (it was kicked, or
 * a request is pending). Cheap: two atomic loads.
 */
bool hvtlb_vcpu_sync_kicked(const struct hvtlb_vcpu_sync *vs);

/** Current mode. Any thread; the answer may be stale. */
enum hvtlb_vcpu_mode hvtlb_vcpu_sync_mode(const struct hvtlb_vcpu_sync *vs);

/** Pending request bits. Any thread; the answer may be stale. */
unsigned hvtlb_vcpu_sync_requests(const struct hvtlb_vcpu_sync *vs);

/**
 * Requests posted to @p vs so far and the highest one acknowledged.
 * Any thread; the answers may be stale. Either pointer may be NULL.
 */
void hvtlb_vcpu_sync_seqs(const struct hvtlb_vcpu_sync *vs, uint64_t *posted,
			  uint64_t *acked);

/** Fault switch for tests: return before the targets acknowledge. */
#define HVTLB_FLUSH_FAULT_NO_WAIT (1u << 0)
/**
 * Fault switch for tests: a push that does not fit in a target's queue is
 * dropped instead of collapsing to flush-all.
 */
#define HVTLB_FLUSH_FAULT_DROP_OVERFLOW (1u << 1)

/**
 * Initiator (any thread, not a target's own vCPU thread while that vCPU is
 * in guest mode): posts a flush of @p ranges (or of everything when
 * @p all) to the @p n vCPUs at @p targets, kicks those in guest mode, and
 * waits until each kicked vCPU acknowledged or left guest mode. Targets
 * outside guest mode are not waited for: they service the request before
 * their next entry. When this returns 0 no target can run guest code with
 * a translation the flush covered. NULL entries in @p targets are skipped.
 *
 * The wait polls the targets and calls sched_yield() between polls (it
 * does not sleep on a futex: acknowledgements normally arrive within a
 * guest exit). @p timeout_ns bounds it (CLOCK_MONOTONIC); @p flags is 0 or
 * HVTLB_FLUSH_FAULT_* (tests only). Returns 0; -EINVAL for NULL arrays
 * with a non-zero count; -ENOMEM (before posting anything) when
 * @p n > 64 and the ticket array cannot be allocated; -ETIMEDOUT when a
 * target did not acknowledge in time (the request stays queued).
 */
int hvtlb_vcpu_flush_post(struct hvtlb_vcpu_sync *const *targets, size_t n,
			  const struct hvtlb_gva_range *ranges, size_t nranges,
			  bool all, uint64_t timeout_ns, unsigned flags);

/* ------------------------------------------------------------------ */
/* KVM paravirtual preempted byte (kvm_steal_time.preempted)           */
/* ------------------------------------------------------------------ */
/* HVTLB_KVM_VCPU_PREEMPTED and HVTLB_KVM_VCPU_FLUSH_TLB come from core.h,
 * where the guest side of the protocol uses them. */

/**
 * The byte guest and host share. Caller memory (hvtlb_kvm_steal_init);
 * accessed atomically through the functions below only. Thread-safe.
 */
struct hvtlb_kvm_steal_byte {
	uint8_t opaque_;
};

/** Fault switch for tests: host_preempt overwrites the byte (pre-fix). */
#define HVTLB_KVM_STEAL_FAULT_OVERWRITE (1u << 0)

/** Sets the byte to 0 (running, nothing requested). Not thread-safe. */
void hvtlb_kvm_steal_init(struct hvtlb_kvm_steal_byte *s);

/**
 * Host, when the vCPU is scheduled out: sets PREEMPTED and keeps a
 * FLUSH_TLB the guest already set (the CVE-2019-3016 fix). With
 * HVTLB_KVM_STEAL_FAULT_OVERWRITE it stores PREEMPTED alone, which loses
 * that flag when called twice during one preemption. Thread-safe.
 */
void hvtlb_kvm_steal_host_preempt(struct hvtlb_kvm_steal_byte *s,
				  unsigned flags);

/**
 * Guest initiator: if the vCPU is preempted, sets FLUSH_TLB by
 * compare-and-swap and returns true (no IPI needed: the host flushes
 * before the vCPU runs again). Returns false when it is running (the
 * caller must use the normal path). Thread-safe.
 */
bool hvtlb_kvm_steal_guest_defer_flush(struct hvtlb_kvm_steal_byte *s);

/**
 * Host, at vCPU entry: exchanges the byte with 0 and returns the old value;
 * the caller must flush the vCPU's whole TLB before entry when
 * HVTLB_KVM_VCPU_FLUSH_TLB is set in it. Thread-safe.
 */
unsigned hvtlb_kvm_steal_host_enter(struct hvtlb_kvm_steal_byte *s);

/** Current value. Thread-safe; the answer may be stale. */
unsigned hvtlb_kvm_steal_read(const struct hvtlb_kvm_steal_byte *s);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* HVTLB_FLUSHQ_H */
