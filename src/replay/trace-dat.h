/* SPDX-License-Identifier: MIT */
/*
 * trace-cmd's binary trace.dat, read through libtracecmd and
 * libtraceevent (Debian's libtracecmd-dev, libtraceevent-dev), and turned
 * into the text `trace-cmd report` prints, which the text reader
 * (trace-text.h) then reads like any other trace. Built only with the
 * Meson feature `trace` (-Dtrace=auto finds the libraries); without it
 * trace_dat_text() says so.
 *
 * libtracecmd is not written for hostile input, so the conversion runs in
 * a child process and hands the text back through a pipe: a malformed
 * file that makes the library crash is an error naming the file, not a
 * crash of the caller.
 */
#ifndef HVTLB_REPLAY_TRACE_DAT_H
#define HVTLB_REPLAY_TRACE_DAT_H

#include <stdbool.h>
#include <stddef.h>

/* What a trace.dat starts with: 0x17 0x08 0x44 "tracing". */
#define TRACE_DAT_MAGIC "\027\010\104tracing"
#define TRACE_DAT_MAGIC_LEN 10

/** Whether @p len bytes at @p buf start like a trace.dat. */
bool trace_dat_is(const void *buf, size_t len);

/** Whether this build reads trace.dat files (the `trace` feature). */
bool trace_dat_supported(void);

/**
 * Reads the trace.dat at @p path and returns in *@p text (malloc'd, the
 * caller frees it) and *@p len the text `trace-cmd report` would print
 * for it: one line per event of every buffer (the top one and each
 * instance), in time order, "COMM-PID [CPU] TIME: EVENT: FIELDS", TIME in
 * seconds with nine decimals, or the raw count of a clock that does not
 * count nanoseconds (x86-tsc, counter); a line "CPU:N [LOST M EVENTS]"
 * where the recorder counted lost events. At most @p max bytes of text.
 * Returns 0, -ENOTSUP when the build has no libtracecmd, -EINVAL with
 * @p err (@p errlen bytes) saying why when the file is not a trace.dat
 * the library can read, -EFBIG past @p max, or another negative errno.
 */
int trace_dat_text(const char *path, size_t max, char **text, size_t *len,
		   char *err, size_t errlen);

#endif
