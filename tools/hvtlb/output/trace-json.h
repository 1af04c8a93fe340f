/* SPDX-License-Identifier: MIT */
/*
 * `hvtlb sim --trace FILE`: records the simulator's trace events
 * (hvtlb_sim_config.trace_fn) and writes them in the Chrome trace event
 * format (JSON; loads in ui.perfetto.dev and chrome://tracing).
 *
 * Layout of the file: one process "host" (pid 1) with a thread per pCPU
 * that shows which vCPU ran there; one process per VM ("vm K", pid 2 + K)
 * with a thread per vCPU (its runs, exits, flushes, IPIs, kicks, halts,
 * wake-ups, violations) and one per guest thread (user / kernel slices and
 * the shootdowns it initiated). Only tracks with events are named.
 *
 * Determinism: events are buffered per VM (the callback for one VM always
 * runs on one thread) and written in VM order, so the file does not depend
 * on the engine's host thread count. The cap is split between the VMs
 * (VM k keeps at most limit / vms events, the first limit % vms VMs one
 * more); a VM past its share drops the rest and counts them.
 *
 * Flows: a shootdown (on its initiator's thread) has an arrow to each
 * target's flush the trace can tie to it (Perfetto flow events,
 * "bind_id" with "flow_out" / "flow_in"; such a flush is a slice of no
 * duration instead of an instant): a flush taken in the handler of the
 * initiator's flush IPI, or on the hypervisor's kick. Flushes applied
 * at a vCPU's next entry (KVM's deferred flush, the hypervisor's queue
 * of a vCPU that was not running), broadcast and lazy flushes name no
 * sender in the events and get none; otherData counts both ("flows",
 * "target_flushes_without_sender").
 *
 * Thread rules: one recorder per run; the callback may be called for
 * different VMs at once, never for one VM from two threads.
 */
#ifndef HVTLB_TOOL_TRACE_JSON_H
#define HVTLB_TOOL_TRACE_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <hvtlb/sim.h>

/** Default --trace-limit. */
#define TRACE_JSON_DEFAULT_LIMIT 2000000u
/** Default --trace-warn-mb: a trace past this many MB (10^6 bytes) gets a
 *  warning before it is written. */
#define TRACE_JSON_DEFAULT_WARN_MB 100u

struct trace_vm;

/** A recorder for one run. */
struct trace_json {
	uint32_t vms, vcpus, threads, pcpus;
	double ns_per_cycle;
	uint64_t win_start, win_end; /**< cycles; events overlapping it */
	struct trace_vm *vm;	     /**< vms entries */
};

/**
 * Prepares @p t for a run of @p c keeping at most @p limit events (>= 1)
 * that overlap the virtual-time window [@p win_start_ms, @p win_end_ms)
 * (pass 0 and a negative end for the whole run). Returns 0 or -ENOMEM.
 */
int trace_json_init(struct trace_json *t, const struct hvtlb_sim_config *c,
		    uint64_t limit, double win_start_ms, double win_end_ms);

/** Points @p c's trace callback at @p t. */
void trace_json_attach(struct trace_json *t, struct hvtlb_sim_config *c);

/** Events recorded (kept). */
uint64_t trace_json_events(const struct trace_json *t);

/** Events dropped past the cap (0 if none; -ENOMEM losses count too). */
uint64_t trace_json_dropped(const struct trace_json *t);

/**
 * Writes the recorded events to @p f as one JSON object:
 * {"traceEvents":[...],"displayTimeUnit":"ns","otherData":{...}} with
 * @p scenario and @p strategy in otherData; with @p gzip, compressed
 * (gzip format, zlib). Returns 0, -EIO, -ENOMEM, or -ENOTSUP for @p gzip
 * in a build without zlib.
 */
int trace_json_write(const struct trace_json *t, FILE *f, const char *scenario,
		     const char *strategy, bool gzip);

/**
 * The size trace_json_write() would write without gzip, in bytes,
 * estimated from the first 20,000 events of each VM (formatted into
 * nothing); within a few percent for a run of one shape. 0 when out of
 * memory.
 */
uint64_t trace_json_estimate(const struct trace_json *t);

/** Whether @p path asks for gzip (ends in ".gz"). */
bool trace_json_path_is_gzip(const char *path);

/** Whether this build writes gzip (zlib was found). */
#ifdef HVTLB_HAVE_ZLIB
#define TRACE_JSON_HAVE_GZIP 1
#else
#define TRACE_JSON_HAVE_GZIP 0
#endif

/** Frees the buffers. Accepts a zeroed @p t. */
void trace_json_finish(struct trace_json *t);

/**
 * Parses "START_MS:END_MS" (decimal milliseconds of virtual time, 0 <=
 * START < END). Returns 0, or -EINVAL.
 */
int trace_json_parse_window(const char *s, double *start_ms, double *end_ms);

/**
 * Builds the file name of run @p strategy when one invocation writes
 * several traces: @p path with ".STRATEGY" inserted before its extension
 * ("out.json" -> "out.ipi.json", "out.json.gz" -> "out.ipi.json.gz"; no
 * extension: appended). Returns 0, or -ENAMETOOLONG.
 */
int trace_json_run_path(char *buf, size_t len, const char *path,
			const char *strategy);

#endif
