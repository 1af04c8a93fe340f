/* SPDX-License-Identifier: MIT */
/*
 * Progress of long work on stderr, as one line rewritten in place:
 * "hvtlb sweep: 12/48 runs, 0:34 elapsed, about 1:42 left". Shown only
 * when stderr is a terminal, the work has taken a second already, and
 * progress_quiet() was not called; cleared when the work ends, so that
 * the terminal keeps only the results. Nothing is printed into a pipe or
 * file.
 *
 * Thread rules: progress_begin(), progress_end() and progress_quiet() on
 * the main thread; progress_add() from any thread. One piece of work at a
 * time (the tool does one thing per process).
 */
#ifndef HVTLB_TOOL_PROGRESS_H
#define HVTLB_TOOL_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

/** --quiet: never show progress. */
void progress_quiet(void);

/**
 * Starts counting @p total items (0: unknown, only the time is shown) of
 * subcommand @p cmd, called @p unit ("runs"). Starts the thread that
 * draws the line if stderr is a terminal; otherwise only counts.
 */
void progress_begin(const char *cmd, const char *unit, uint64_t total);

/** Adds @p n to the total of the work (more runs found on the way). */
void progress_grow(uint64_t n);

/** Counts @p n more items done. Thread-safe, lock-free. */
void progress_add(uint64_t n);

/** Items done since progress_begin(). */
uint64_t progress_done(void);

/** Ends the work: stops the drawing thread and clears the line. */
void progress_end(void);

/**
 * Formats the line for @p done of @p total (0: unknown) after @p elapsed
 * seconds into @p buf: "3/10 runs, 0:07 elapsed, about 0:16 left". The
 * estimate assumes the rest goes at the pace so far. Exposed for tests.
 */
void progress_format(char *buf, size_t len, const char *unit, uint64_t done,
		     uint64_t total, double elapsed);

#endif
