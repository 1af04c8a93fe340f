// SPDX-License-Identifier: MIT
/*
 * The menu cpuidle governor of Linux 4.15 (drivers/cpuidle/governors/
 * menu.c, before the 4.17 rework that let it keep the tick running),
 * with the x86 driver's polling state 0:
 *
 * - The prediction starts from the time to the next timer event and is
 *   scaled by a correction factor kept per order of magnitude of that
 *   time (12 buckets, 6 without I/O waiters): a running average, decay
 *   1/8, of measured / next timer.
 * - The repeating-interval detector: when the last 8 idle periods have a
 *   small spread (standard deviation <= 20 us, or the average above 6
 *   standard deviations with at least 6 of them), their average bounds
 *   the prediction; the largest ones are dropped as outliers one by one
 *   down to 6.
 * - The deepest state whose target residency is within the prediction
 *   and whose exit latency is within the prediction (the performance
 *   multiplier is 1: a vCPU thread blocked in halt is no I/O waiter) and
 *   within the PM QoS limit.
 * - Polling only when the next timer is within max(20 us, C1's target
 *   residency), or C1 is too slow for the QoS limit.
 * - After a wake-up the measured residency, less the exit latency (half
 *   of it when shorter than twice the exit latency), feeds both.
 */
#include "sim/idle-menu.h"

#define RESOLUTION 1024u
#define DECAY 8u
#define MAX_INTERESTING 50000u

void sim_menu_init(struct menu_gov *g)
{
	*g = (struct menu_gov){ 0 };
	for (unsigned i = 0; i < MENU_BUCKETS; i++)
		g->correction[i] = RESOLUTION * DECAY;
}

/* which_bucket() with no I/O waiter. */
static unsigned which_bucket(unsigned us)
{
	if (us < 10)
		return 0;
	if (us < 100)
		return 1;
	if (us < 1000)
		return 2;
	if (us < 10000)
		return 3;
	if (us < 100000)
		return 4;
	return 5;
}

/* @p a / @p b, in a 32-bit division when @p a fits (the same quotient;
 * a 64-bit division takes several times longer on x86). */
static inline uint64_t div_small(uint64_t a, unsigned b)
{
	if (a <= UINT32_MAX)
		return (uint32_t)a / b;
	return a / b;
}

/*
 * get_typical_interval(). Each pass of the kernel's loop keeps the
 * intervals up to a threshold and the next one lowers it below the
 * largest kept, so the intervals of a pass are a prefix of the sorted
 * ones: their sum and sum of squares shrink as the largest drop out.
 * The variance is the kernel's sum of (x - avg)^2 expanded as
 * sum(x^2) - 2 avg sum(x) + n avg^2, which is the same number in 64-bit
 * unsigned arithmetic (equal modulo 2^64, as the kernel's sum is).
 */
unsigned sim_menu_typical_us(const struct menu_gov *g)
{
	const unsigned *x = g->sorted;
	uint64_t sum = 0, squares = 0;
	unsigned n = MENU_INTERVALS;

	for (unsigned i = 0; i < n; i++) {
		sum += x[i];
		squares += (uint64_t)x[i] * x[i];
	}
	for (;;) {
		uint64_t avg = div_small(sum, n), variance;
		unsigned max = x[n - 1];

		variance = squares - 2 * avg * sum + n * avg * avg;
		variance = div_small(variance, n);
		if (variance <= UINT64_MAX / 36 &&
		    ((avg * avg > variance * 36 &&
		      n * 4 >= MENU_INTERVALS * 3) ||
		     variance <= 400))
			return (unsigned)avg;
		if (n * 4 <= MENU_INTERVALS * 3)
			return UINT32_MAX;
		/* drop every interval equal to the largest (n > 6 here;
		 * not all of them are equal, or the variance is 0) */
		while (x[n - 1] == max) {
			n--;
			sum -= max;
			squares -= (uint64_t)max * max;
		}
	}
}

unsigned sim_menu_select(struct menu_gov *g, const struct idle_state *st,
			 unsigned n, unsigned next_timer_us,
			 unsigned latency_req_us)
{
	unsigned predicted, expected, first = 0, idx = 0;
	uint64_t scaled;

	if (!n || !latency_req_us)
		return 0;
	g->next_timer_us = next_timer_us;
	g->bucket = which_bucket(next_timer_us);
	/* DIV_ROUND_CLOSEST_ULL(next_timer * factor, RESOLUTION * DECAY) */
	scaled = (uint64_t)next_timer_us * g->correction[g->bucket];
	predicted = (unsigned)((scaled + RESOLUTION * DECAY / 2) /
			       (RESOLUTION * DECAY));
	expected = sim_menu_typical_us(g);
	if (expected > next_timer_us)
		expected = next_timer_us;
	if (n > 1 && st[0].polling) {
		unsigned thresh =
			st[1].residency_us > 20 ? st[1].residency_us : 20;

		if (next_timer_us > thresh && latency_req_us > st[1].exit_us)
			first = 1;
	}
	if (predicted > expected)
		predicted = expected;
	/* performance_multiplier() is 1 without I/O waiters */
	if (latency_req_us > predicted)
		latency_req_us = predicted;
	idx = first;
	for (unsigned i = first; i < n; i++) {
		if (st[i].residency_us > predicted ||
		    st[i].exit_us > latency_req_us)
			break;
		idx = i;
	}
	return idx;
}

/* Replaces one interval @p old of the ascending @p x by @p new. */
static void sorted_replace(unsigned *x, unsigned old, unsigned new)
{
	unsigned i = 0;

	while (x[i] != old)
		i++;
	while (i > 0 && x[i - 1] > new) {
		x[i] = x[i - 1];
		i--;
	}
	while (i + 1 < MENU_INTERVALS && x[i + 1] < new) {
		x[i] = x[i + 1];
		i++;
	}
	x[i] = new;
}

void sim_menu_update(struct menu_gov *g, const struct idle_state *st,
		     unsigned idx, unsigned residency_us)
{
	unsigned measured = residency_us, factor;

	if (measured > 2 * st[idx].exit_us)
		measured -= st[idx].exit_us;
	else
		measured /= 2;
	if (measured > g->next_timer_us)
		measured = g->next_timer_us;
	factor = g->correction[g->bucket];
	factor -= factor / DECAY;
	if (g->next_timer_us > 0 && measured < MAX_INTERESTING)
		factor += RESOLUTION * measured / g->next_timer_us; /* < 2^26 */
	else
		factor += RESOLUTION;
	g->correction[g->bucket] = factor;
	sorted_replace(g->sorted, g->intervals[g->ptr], measured);
	g->intervals[g->ptr] = measured;
	g->ptr = (g->ptr + 1) % MENU_INTERVALS;
}
