/* SPDX-License-Identifier: MIT */
/*
 * Every operation of src/runtime that another thread can observe: the
 * atomics, the queue's mutex and the waiter's yield. flushq.c and
 * vcpu-sync.c use these names and nothing else from <stdatomic.h>,
 * pthread_mutex_lock/unlock or sched_yield().
 *
 * In the library each name is the C11 or POSIX call itself (macros: the
 * object code is the same as with the calls written out). The exhaustive
 * interleaving test (tests/runtime/test-interleave.c, docs/verification.md)
 * compiles the two files again with HVTLB_RT_CHECK defined: then each name
 * is a scheduling point of its explorer followed by the same operation
 * (tests/runtime/rt-check.h). An operation written without these names is
 * invisible to the explorer, which then misses the interleavings around it.
 */
#ifndef HVTLB_RUNTIME_RT_SYNC_H
#define HVTLB_RUNTIME_RT_SYNC_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

/* The deliberately broken variants of vcpu-sync.c (HVTLB_RT_BROKEN_*:
 * NO_RECHECK, DONE_IF_EXITING, WAIT_FOR_ACK, ACK_FIRST) exist for that
 * test only. */
#if !defined(HVTLB_RT_CHECK) && (defined(HVTLB_RT_BROKEN_NO_RECHECK) ||        \
				 defined(HVTLB_RT_BROKEN_DONE_IF_EXITING) ||   \
				 defined(HVTLB_RT_BROKEN_WAIT_FOR_ACK) ||      \
				 defined(HVTLB_RT_BROKEN_ACK_FIRST))
#error "HVTLB_RT_BROKEN_* is for the interleaving test only"
#endif

#ifdef HVTLB_RT_CHECK
#include "rt-check.h"
#else
#define rt_load(p) atomic_load(p)
#define rt_load_explicit(p, mo) atomic_load_explicit(p, mo)
#define rt_store(p, v) atomic_store(p, v)
#define rt_store_explicit(p, v, mo) atomic_store_explicit(p, v, mo)
#define rt_exchange(p, v) atomic_exchange(p, v)
#define rt_fetch_add(p, v) atomic_fetch_add(p, v)
#define rt_fetch_or(p, v) atomic_fetch_or(p, v)
#define rt_cas_strong(p, e, v) atomic_compare_exchange_strong(p, e, v)
#define rt_cas_weak(p, e, v) atomic_compare_exchange_weak(p, e, v)
#define rt_lock(m) pthread_mutex_lock(m)
#define rt_unlock(m) pthread_mutex_unlock(m)
#define rt_yield() sched_yield()
#endif

#endif /* HVTLB_RUNTIME_RT_SYNC_H */
