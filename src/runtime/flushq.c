// SPDX-License-Identifier: MIT
/*
 * The per-vCPU flush queue (KVM's 16-slot FIFO, one slot kept for "flush
 * all") and the KVM paravirtual preempted byte.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include <hvtlb/flushq.h>

#include "flushq-private.h"
#include "rt-sync.h"

int hvtlb_flushq_init(struct hvtlb_flushq *q)
{
	int err;

	if (!q)
		return -EINVAL;
	memset(q, 0, sizeof(*q));
	err = pthread_mutex_init(&q->lock, NULL);
	return err ? -err : 0;
}

void hvtlb_flushq_finish(struct hvtlb_flushq *q)
{
	if (!q)
		return;
	pthread_mutex_destroy(&q->lock);
	q->n = 0;
	q->all = false;
}

bool hvtlb_flushq_range_ok(const struct hvtlb_gva_range *r)
{
	unsigned shift;
	uint64_t bytes;

	if (!r || (unsigned)r->size > HVTLB_PAGE_1G)
		return false;
	if (r->pages == 0 || r->pages > HVTLB_GVA_SIMPLE_MAX_PAGES)
		return false;
	shift = hvtlb_page_shift(r->size);
	if (r->gva & ((1ULL << shift) - 1))
		return false;
	/* pages <= 4096 and shift <= 30: no overflow in the product. */
	bytes = r->pages << shift;
	return r->gva <= UINT64_MAX - (bytes - 1);
}

static void set_all_locked(struct hvtlb_flushq *q)
{
	q->all = true;
	q->n = 0;
}

int runtime_flushq_push_flags(struct hvtlb_flushq *q,
			      const struct hvtlb_gva_range *r, size_t n,
			      unsigned flags)
{
	bool fits = true;
	size_t i;
	int ret = 0;

	if (!q || (!r && n))
		return -EINVAL;
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (!hvtlb_flushq_range_ok(&r[i]))
			fits = false;
	}

	rt_lock(&q->lock);
	if (q->all) {
		ret = 1;
	} else if (fits && n <= HVTLB_FLUSHQ_MAX_RANGES - q->n) {
		memcpy(&q->ranges[q->n], r, n * sizeof(*r));
		q->n += (uint32_t)n;
	} else if (flags & HVTLB_FLUSH_FAULT_DROP_OVERFLOW) {
		/* Fault: the flush is lost. */
		ret = 0;
	} else {
		set_all_locked(q);
		q->collapses++;
		ret = 1;
	}
	rt_unlock(&q->lock);
	return ret;
}

int hvtlb_flushq_push(struct hvtlb_flushq *q, const struct hvtlb_gva_range *r,
		      size_t n)
{
	return runtime_flushq_push_flags(q, r, n, 0);
}

void hvtlb_flushq_push_all(struct hvtlb_flushq *q)
{
	if (!q)
		return;
	rt_lock(&q->lock);
	set_all_locked(q);
	rt_unlock(&q->lock);
}

void hvtlb_flushq_drain(struct hvtlb_flushq *q, struct hvtlb_flushq_batch *out)
{
	if (!q || !out)
		return;
	rt_lock(&q->lock);
	out->all = q->all;
	out->n = q->n;
	memcpy(out->ranges, q->ranges, q->n * sizeof(q->ranges[0]));
	q->all = false;
	q->n = 0;
	rt_unlock(&q->lock);
}

void runtime_flushq_peek(struct hvtlb_flushq *q, struct hvtlb_flushq_batch *out)
{
	rt_lock(&q->lock);
	out->all = q->all;
	out->n = q->n;
	memcpy(out->ranges, q->ranges, q->n * sizeof(q->ranges[0]));
	rt_unlock(&q->lock);
}

bool hvtlb_flushq_pending(struct hvtlb_flushq *q)
{
	bool pending;

	if (!q)
		return false;
	rt_lock(&q->lock);
	pending = q->all || q->n;
	rt_unlock(&q->lock);
	return pending;
}

uint64_t hvtlb_flushq_collapses(struct hvtlb_flushq *q)
{
	uint64_t c;

	if (!q)
		return 0;
	rt_lock(&q->lock);
	c = q->collapses;
	rt_unlock(&q->lock);
	return c;
}

/*
 * KVM preempted byte. The public struct holds a plain uint8_t so that the
 * header stays C99/C++; this file is the only one that touches it, always
 * as an _Atomic uint8_t of the same size and alignment.
 */
_Static_assert(sizeof(_Atomic uint8_t) == sizeof(uint8_t),
	       "atomic byte has the size of a byte");
_Static_assert(_Alignof(_Atomic uint8_t) == _Alignof(uint8_t),
	       "atomic byte has the alignment of a byte");

static _Atomic uint8_t *steal_atomic(const struct hvtlb_kvm_steal_byte *s)
{
	return (_Atomic uint8_t *)(uintptr_t)&s->opaque_;
}

void hvtlb_kvm_steal_init(struct hvtlb_kvm_steal_byte *s)
{
	if (s)
		atomic_init(steal_atomic(s), 0);
}

void hvtlb_kvm_steal_host_preempt(struct hvtlb_kvm_steal_byte *s,
				  unsigned flags)
{
	if (!s)
		return;
	if (flags & HVTLB_KVM_STEAL_FAULT_OVERWRITE)
		rt_store(steal_atomic(s), HVTLB_KVM_VCPU_PREEMPTED);
	else
		rt_fetch_or(steal_atomic(s), HVTLB_KVM_VCPU_PREEMPTED);
}

bool hvtlb_kvm_steal_guest_defer_flush(struct hvtlb_kvm_steal_byte *s)
{
	uint8_t old;

	if (!s)
		return false;
	old = rt_load(steal_atomic(s));
	/*
	 * seq_cst CAS: either it lands before the host's exchange in
	 * host_enter (which then sees FLUSH_TLB), or after it (PREEMPTED is
	 * gone and the CAS fails). On failure old is reloaded.
	 */
	while (old & HVTLB_KVM_VCPU_PREEMPTED) {
		if (rt_cas_weak(steal_atomic(s), &old,
				(uint8_t)(old | HVTLB_KVM_VCPU_FLUSH_TLB)))
			return true;
	}
	return false;
}

unsigned hvtlb_kvm_steal_host_enter(struct hvtlb_kvm_steal_byte *s)
{
	if (!s)
		return 0;
	return rt_exchange(steal_atomic(s), 0);
}

unsigned hvtlb_kvm_steal_read(const struct hvtlb_kvm_steal_byte *s)
{
	if (!s)
		return 0;
	return rt_load(steal_atomic(s));
}
