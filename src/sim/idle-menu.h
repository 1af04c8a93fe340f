/* SPDX-License-Identifier: MIT */
/*
 * Linux's menu cpuidle governor (drivers/cpuidle/governors/menu.c as of
 * Linux 4.15): the idle state a host CPU enters, chosen from the time to
 * its next timer event, corrected by how the last idle periods compared
 * with that prediction, and by the typical length of the last eight.
 * Times are whole microseconds, as the kernel's.
 */
#ifndef HVTLB_SIM_IDLE_MENU_H
#define HVTLB_SIM_IDLE_MENU_H

#include <stdbool.h>
#include <stdint.h>

#define MENU_BUCKETS 12
#define MENU_INTERVALS 8
#define MENU_MAX_STATES 8

/* One idle state of the driver's table (cpuidle_state). */
struct idle_state {
	unsigned exit_us;      /* exit_latency */
	unsigned residency_us; /* target_residency */
	bool polling;	       /* CPUIDLE_FLAG_POLLING: state 0, POLL */
};

/* The governor's data for one CPU (struct menu_device). */
struct menu_gov {
	unsigned next_timer_us;
	unsigned bucket;
	unsigned correction[MENU_BUCKETS];
	unsigned intervals[MENU_INTERVALS];
	unsigned ptr;
	/* the same intervals in ascending order, for sim_menu_typical_us() */
	unsigned sorted[MENU_INTERVALS];
};

/* menu_enable_device: unity correction factors, no history. */
void sim_menu_init(struct menu_gov *g);

/*
 * sim_menu_select: the state to enter, of the @p n states @p st (shallowest
 * first, state 0 polling), with the next timer event @p next_timer_us
 * away and at most @p latency_req_us of exit latency allowed (PM QoS).
 */
unsigned sim_menu_select(struct menu_gov *g, const struct idle_state *st,
			 unsigned n, unsigned next_timer_us,
			 unsigned latency_req_us);

/*
 * get_typical_interval(): the average of the recent idle intervals when
 * they repeat (the largest dropped as outliers, down to six), else
 * UINT32_MAX.
 */
unsigned sim_menu_typical_us(const struct menu_gov *g);

/*
 * sim_menu_update: the CPU stayed @p residency_us in state @p idx (from entry
 * to the end of its exit, as cpuidle measures it).
 */
void sim_menu_update(struct menu_gov *g, const struct idle_state *st,
		     unsigned idx, unsigned residency_us);

#endif
