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

/**
 * --trace-in FILE: sets workload.kind = trace and workload.trace = FILE
 * (as options, before the --set overrides). With @p no_scenario (no
 * scenario file given) the run's VM is the recorded one: vm.vcpus and
 * machine.pcpus default to the trace's CPUs. 0 or -ENOMEM / -EINVAL
 * with b->sc.err.
 */
int sim_trace_in(struct sim_batch *b, const char *path, bool no_scenario);

/**
 * Reads the scenario's workload.trace, if any, into b->script. 0, or
 * -errno with "FILE: line N (byte B): why" (or the file's error) in
 * b->sc.err.
 */
int sim_trace_load(struct sim_batch *b);

#endif
