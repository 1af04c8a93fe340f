/* SPDX-License-Identifier: MIT */
/*
 * A recorded kernel trace as the workload of `hvtlb sim`
 * (workload.kind = trace, workload.trace = FILE, --trace-in FILE): reads
 * the file (gunzipped where the tool has zlib), turns it into the step
 * lists of src/replay/trace-workload.h and hands them to the batch.
 */
#ifndef HVTLB_TOOL_TRACE_IN_H
#define HVTLB_TOOL_TRACE_IN_H

#include <stdbool.h>
#include <stddef.h>

#include "sim-run.h"

/** The most bytes of a trace the tool reads (after gunzip). */
#define TRACE_FILE_MAX_BYTES (1ull << 30)

/** Reads all of @p path (gunzipped where zlib is there) into *@p out
 *  (malloc, *@p len bytes). 0, -errno of the open, -EIO, -EFBIG or
 *  -ENOMEM. */
int trace_file_read(const char *path, char **out, size_t *len);

/** As trace_file_read(), and a trace-cmd trace.dat turned into the text
 *  of `trace-cmd report` (src/replay/trace-dat.h). On error, @p err
 *  (@p errlen bytes) says why in words: 0 or -errno. */
int trace_file_load(const char *path, char **out, size_t *len, char *err,
		    size_t errlen);

/**
 * Loads the scenario @p path (sim_scenario_load(); NULL: none, only with
 * @p trace_in), then, for --trace-in @p trace_in (or NULL), sets
 * workload.kind = trace and workload.trace = @p trace_in as options
 * (before the --set overrides). Without a scenario the run's VM is the
 * recorded one: vm.vcpus and machine.pcpus default to the trace's CPUs.
 * 0 or -errno with b->sc.err.
 */
int sim_load_with_trace(struct sim_batch *b, const char *path,
			const char *trace_in);

/**
 * Reads the scenario's workload.trace, if any, into b->script, then
 * sim_batch_configure(). 0, or -errno with "FILE: line N (byte B): why"
 * (or the file's error, or the configuration's) in b->sc.err.
 */
int sim_configure_with_trace(struct sim_batch *b, unsigned default_threads);

struct trace_workload;

/**
 * Gives @p b the trace @p w read from @p path (calloc'd; the batch frees
 * it), so that sim_configure_with_trace() does not read the file again.
 * 0, or -ENOMEM for the title (the trace is the batch's either way).
 */
int sim_batch_take_trace(struct sim_batch *b, const char *path,
			 struct trace_workload *w);

#endif
