/* SPDX-License-Identifier: MIT */
/*
 * A stateless explorer of thread interleavings in the manner of CHESS
 * (Musuvathi and Qadeer, "Iterative context bounding for systematic
 * testing of multithreaded programs", PLDI 2007): the test's threads run
 * as coroutines on one OS thread; each operation another thread can
 * observe (rt-check.h) is a scheduling point, where the explorer chooses
 * which thread runs next. It enumerates, depth first and by replay from
 * the start, every schedule with at most a given number of preemptions (a
 * switch away from a thread that could have gone on); switches at a
 * blocked or finished thread are free and all taken. Sequentially
 * consistent: each operation happens at its point, in the chosen order.
 */
#ifndef HVTLB_TESTS_INTERLEAVE_H
#define HVTLB_TESTS_INTERLEAVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rt-check.h"

struct ilv_scenario {
	const char *name;
	/* Sets the world up and spawns its threads (ilv_spawn). */
	void (*setup)(void);
	/* After every thread finished: checks the end state (ilv_fail). */
	void (*check_end)(void);
	/* Frees what setup made (after a violation too). */
	void (*teardown)(void);
};

struct ilv_result {
	uint64_t
		schedules; /* schedules explored (to their end or a violation) */
	uint64_t violations;
	bool complete;		   /* the bound left no schedule out */
	unsigned max_steps;	   /* longest schedule, in scheduled steps */
	unsigned shortest;	   /* steps of the shortest violation, or 0 */
	unsigned shortest_preempt; /* its preemptions */
	unsigned min_preempt;	   /* fewest preemptions of any violation */
	char message[256];	   /* the shortest violation's */
};

/* Spawns a thread of the scenario (from setup only; at most 4). */
void ilv_spawn(const char *name, void (*fn)(void *), void *arg);

/* Gives an object a name for the schedule: an address up to 1 KiB past
 * @p base is shown as name.field. */
void ilv_name(const void *base, const char *name);

/* From a thread: a step of the test's own code (a scheduling point). */
void ilv_step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* From a thread: a line in the schedule, not a scheduling point. */
void ilv_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* From a thread: not runnable until cond(arg) holds. */
void ilv_wait_until(bool (*cond)(void *), void *arg, const char *what);
/* From a thread: a free choice among @p n (0 first), explored like the
 * schedule but costing no preemption. @p what names the options. */
unsigned ilv_choose(unsigned n, const char *what);
/* From a thread or check_end: the schedule violates a property. From a
 * thread, does not return. */
void ilv_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Explores every schedule of @p sc with at most @p bound preemptions.
 * Keeps the shortest violating schedule (fewest scheduled steps, then
 * fewest preemptions) and, when @p print is set, prints it with the
 * notes of the test's threads. Returns the counts.
 */
void ilv_explore(const struct ilv_scenario *sc, unsigned bound,
		 struct ilv_result *res, bool print);

#endif /* HVTLB_TESTS_INTERLEAVE_H */
