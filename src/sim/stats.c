// SPDX-License-Identifier: MIT
/* Counters the engine keeps besides the tasks' times: VM exits by
 * reason, and the histogram of shootdown latencies. */
#include <math.h>

#include "sim/machine.h"
#include "sim/stats.h"

void count_exit(struct sim *s, const struct vcpu *v, enum hvtlb_sim_exit why,
		uint64_t n)
{
	TRACE(s, HVTLB_SIM_TRACE_EXIT, v, TR_NONE, s->now, why, n);
	s->r->vm_exits[why] += n;
	s->r->vm_exits_total += n;
}

void hist_add(struct sim *s, simtime c)
{
	unsigned msb = 63 - (unsigned)__builtin_clzll(c | 1);
	unsigned sub = msb >= 5 ? (unsigned)(c >> (msb - 5)) & (HIST_SUB - 1)
				: (unsigned)c & (HIST_SUB - 1);

	s->hist[msb * HIST_SUB + sub]++;
	if (c > s->lat_max)
		s->lat_max = c;
}

static simtime hist_value(unsigned b)
{
	unsigned msb = b / HIST_SUB, sub = b % HIST_SUB;

	if (msb < 5)
		return sub;
	return (simtime)(HIST_SUB + sub) << (msb - 5);
}

double hist_pct(const uint64_t *hist, simtime lat_max, double mhz, double pct)
{
	uint64_t total = 0, want, acc = 0;

	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		total += hist[b];
	if (!total)
		return 0;
	want = (uint64_t)ceil(pct * (double)total);
	if (want < 1)
		want = 1;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		acc += hist[b];
		if (acc >= want) {
			simtime v = hist_value(b);

			if (v > lat_max)
				v = lat_max;
			return (double)v / mhz;
		}
	}
	return (double)lat_max / mhz;
}
