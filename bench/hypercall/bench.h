/* SPDX-License-Identifier: MIT */
/* Timing helpers for the benchmarks: a monotonic clock, a CPU-time clock,
 * medians and a barrier that keeps the compiler from dropping the work. */
#ifndef HVTLB_BENCH_H
#define HVTLB_BENCH_H

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define BENCH_REPS 21 /* timed repetitions; the median is reported */

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* CPU time of the calling thread: what the measured code costs, without
 * the time another process holds this core. */
static inline uint64_t bench_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Tells the compiler that memory at @p p is read and written. */
static inline void bench_clobber(const void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of @p n values (sorts them). */
static inline double bench_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
