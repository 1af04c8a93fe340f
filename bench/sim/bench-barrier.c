// SPDX-License-Identifier: MIT
/*
 * What one window of a two-thread conservative parallel simulation costs
 * on this host: two threads take turns publishing a window number and
 * waiting for the other's, as the barrier at the end of each window would.
 * Prints the median ns per window over BENCH_REPS runs of ROUNDS windows.
 * BENCHMARKS.md compares it with the engine's host time per event and its
 * events per window (why one VM is not simulated in parallel).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 200000ul
#define REPS 9

static _Atomic unsigned long turn_a, turn_b;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *peer(void *arg)
{
	unsigned long base = *(const unsigned long *)arg;

	for (unsigned long i = base + 1; i <= base + ROUNDS; i++) {
		while (atomic_load_explicit(&turn_a, memory_order_acquire) < i)
			;
		atomic_store_explicit(&turn_b, i, memory_order_release);
	}
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	double t[REPS];

	for (int r = 0; r < REPS; r++) {
		unsigned long base = (unsigned long)r * ROUNDS;
		pthread_t tid;
		double t0;

		if (pthread_create(&tid, NULL, peer, &base))
			return 2;
		t0 = now_ns();
		for (unsigned long i = base + 1; i <= base + ROUNDS; i++) {
			atomic_store_explicit(&turn_a, i, memory_order_release);
			while (atomic_load_explicit(&turn_b,
						    memory_order_acquire) < i)
				;
		}
		t[r] = (now_ns() - t0) / ROUNDS;
		pthread_join(tid, NULL);
	}
	qsort(t, REPS, sizeof(t[0]), cmp);
	printf("two-thread window barrier: median %.1f ns per window "
	       "(min %.1f, max %.1f, %d runs of %lu)\n",
	       t[REPS / 2], t[0], t[REPS - 1], REPS, ROUNDS);
	return 0;
}
