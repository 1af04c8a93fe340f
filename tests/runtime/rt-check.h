/* SPDX-License-Identifier: MIT */
/*
 * The names of src/runtime/rt-sync.h for the interleaving test
 * (HVTLB_RT_CHECK): each operation is a scheduling point of the explorer
 * (interleave.c), then the same C11 or POSIX operation, whose value the
 * explorer writes into the schedule. The mutex is the explorer's: a
 * thread that finds it held is not runnable until its holder unlocks.
 * The yield of a waiter makes it not runnable until another thread
 * writes. Outside an exploration (setup, final checks) the points do
 * nothing.
 */
#ifndef HVTLB_TESTS_RT_CHECK_H
#define HVTLB_TESTS_RT_CHECK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum ilv_op {
	ILV_LOAD,
	ILV_STORE,
	ILV_RMW,
	ILV_LOCK,
	ILV_UNLOCK,
	ILV_YIELD,
	ILV_STEP, /* a step of the test's own threads */
};

/* Before the operation @p name (load, fetch_or...) on @p addr, whose C
 * text is @p what, in @p func. */
void ilv_point(enum ilv_op op, const char *name, const volatile void *addr,
	       const char *what, const char *func);
/* These return 0, as pthread_mutex_lock/unlock and sched_yield do. */
int ilv_lock(pthread_mutex_t *m, const char *what, const char *func);
int ilv_unlock(pthread_mutex_t *m, const char *what, const char *func);
int ilv_yield(const char *func);

/* Each returns its argument and writes it into the schedule. */
bool ilv_val_b(bool v);
unsigned char ilv_val_uc(unsigned char v);
int ilv_val_i(int v);
unsigned ilv_val_u(unsigned v);
unsigned long ilv_val_ul(unsigned long v);
unsigned long long ilv_val_ull(unsigned long long v);
#define ILV_VAL(x)                                                             \
	_Generic((x), bool                                                     \
		 : ilv_val_b, unsigned char                                    \
		 : ilv_val_uc, int                                             \
		 : ilv_val_i, unsigned                                         \
		 : ilv_val_u, unsigned long                                    \
		 : ilv_val_ul, unsigned long long                              \
		 : ilv_val_ull)(x)

#define ILV_AT(op, name, p)                                                    \
	ilv_point(op, name, (const volatile void *)(p), #p, __func__)

#define rt_load(p) (ILV_AT(ILV_LOAD, "load", p), ILV_VAL(atomic_load(p)))
#define rt_load_explicit(p, mo)                                                \
	(ILV_AT(ILV_LOAD, "load", p), ILV_VAL(atomic_load_explicit(p, mo)))
#define rt_store(p, v)                                                         \
	(ILV_AT(ILV_STORE, "store", p), atomic_store(p, ILV_VAL(v)))
#define rt_store_explicit(p, v, mo)                                            \
	(ILV_AT(ILV_STORE, "store", p),                                        \
	 atomic_store_explicit(p, ILV_VAL(v), mo))
#define rt_exchange(p, v)                                                      \
	(ILV_AT(ILV_RMW, "exchange", p), ILV_VAL(atomic_exchange(p, v)))
#define rt_fetch_add(p, v)                                                     \
	(ILV_AT(ILV_RMW, "fetch_add", p), ILV_VAL(atomic_fetch_add(p, v)))
#define rt_fetch_or(p, v)                                                      \
	(ILV_AT(ILV_RMW, "fetch_or", p), ILV_VAL(atomic_fetch_or(p, v)))
#define rt_cas_strong(p, e, v)                                                 \
	(ILV_AT(ILV_RMW, "cas", p),                                            \
	 ILV_VAL(atomic_compare_exchange_strong(p, e, v)))
#define rt_cas_weak(p, e, v)                                                   \
	(ILV_AT(ILV_RMW, "cas_weak", p),                                       \
	 ILV_VAL(atomic_compare_exchange_weak(p, e, v)))
#define rt_lock(m) ilv_lock(m, #m, __func__)
#define rt_unlock(m) ilv_unlock(m, #m, __func__)
#define rt_yield() ilv_yield(__func__)

#endif /* HVTLB_TESTS_RT_CHECK_H */
