// SPDX-License-Identifier: MIT
/*
 * hvtlb replay --check FILE: what a recorded kernel trace says about TLB
 * flushes and shootdowns (src/replay; docs/replay.md), and beside it the
 * trace replayed through the simulator on the recorded machine
 * (running/replay-sim.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "replay-check.h"
#include "replay-sim.h"
#include "trace-in.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hvtlb replay --check [--json] FILE\n\n"
		"Reads a kernel trace in the ftrace text format (the tracefs\n"
		"trace file, or what trace-cmd report prints; FILE.gz too\n"
		"where the tool has zlib), or trace-cmd's trace.dat where it\n"
		"has libtracecmd, and prints what it recorded: TLB\n"
		"flushes by reason with their pages, shootdowns and their\n"
		"latency (p50, p90, p99, max), threads, skipped events.\n"
		"hvtlb record records one; docs/replay.md says how\n"
		"shootdowns are paired. Then the trace replayed through the\n"
		"simulator on the machine it was recorded on (as many vCPUs\n"
		"and pCPUs as it has CPUs, remote flushes by hypercall), its\n"
		"flush counts beside the recorded ones (docs/replay.md).\n"
		"  --check  print both sides (the only mode so far)\n"
		"  --json   one JSON document instead of the text\n"
		"           (docs/json.md)\n");
}

static const char *source_text(enum replay_source s)
{
	switch (s) {
	case REPLAY_SRC_IPI:
		return "ipi_send_cpumask/ipi_send_cpu with callback "
		       "flush_tlb_func";
	case REPLAY_SRC_CSD:
		return "csd_queue_cpu with func flush_tlb_func";
	default:
		return "none in this trace";
	}
}

static void print_reasons(const struct replay_check *c)
{
	uint64_t f = 0, pg = 0, full = 0;
	char name[64];

	printf("\nflushes by reason (tlb:tlb_flush):\n  %-30s %10s %12s %10s\n",
	       "REASON", "FLUSHES", "PAGES", "ALL-PAGES");
	for (size_t i = 0; i < c->nreasons; i++) {
		const struct replay_reason *r = &c->reasons[i];
		const char *n = trace_tlb_reason_name(r->reason);

		snprintf(name, sizeof(name), "%s (%" PRId32 ")",
			 n ? n : "unknown", r->reason);
		printf("  %-30s %10" PRIu64 " %12" PRIu64 " %10" PRIu64 "\n",
		       name, r->flushes, r->pages, r->full);
		f += r->flushes;
		pg += r->pages;
		full += r->full;
	}
	if (c->other_reasons)
		printf("  %-30s %10" PRIu64 "\n", "(more reason numbers)",
		       c->other_reasons);
	printf("  %-30s %10" PRIu64 " %12" PRIu64 " %10" PRIu64 "\n", "total",
	       f + c->other_reasons, pg, full);
	printf("  (PAGES: the pages of ranged flushes; ALL-PAGES: flushes of "
	       "the whole address space, pages:-1)\n");
}

/* A latency in microseconds, or in clock counts for a raw clock. */
static void print_latency(const struct replay_check *c)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 1.0 };
	static const char *const names[] = { "p50", "p90", "p99", "max" };

	if (!c->nlatency) {
		printf("  latency: no paired shootdown\n");
		return;
	}
	printf("  latency (%s, %zu paired):", c->ts_raw ? "clock counts" : "us",
	       c->nlatency);
	for (size_t i = 0; i < 4; i++) {
		uint64_t v = replay_check_quantile(c, qs[i]);

		if (c->ts_raw)
			printf(" %s %" PRIu64, names[i], v);
		else
			printf(" %s %.3f", names[i], (double)v / 1e3);
	}
	printf("\n");
}

static void print_check(const char *path, const struct replay_check *c)
{
	double span = (double)(c->last_ts - c->first_ts);

	printf("trace: %s\n", path);
	printf("  %" PRIu64 " lines, %" PRIu64 " events read, %" PRIu64
	       " events of other kinds skipped\n",
	       c->lines, c->events, c->unknown);
	if (c->ts_raw)
		printf("  clock: raw counts (x86-tsc or counter; unit "
		       "unknown), "
		       "span %.0f counts\n",
		       span);
	else if (c->clock_khz)
		printf("  clock: raw counts at %.3f MHz (hvtlb-clock-mhz), "
		       "span "
		       "%.6f s\n",
		       (double)c->clock_khz / 1e3, span / 1e9);
	else
		printf("  clock: seconds, span %.6f s\n", span / 1e9);
	printf("  threads seen: %" PRIu64 "; syscalls: %" PRIu64
	       "; mmap_lock events: %" PRIu64 "; sched_switch: %" PRIu64 "\n",
	       c->threads, c->syscalls, c->mmap_lock_events, c->sched_switches);
	printf("  lost: %" PRIu64 " events in %" PRIu64 " LOST lines\n",
	       c->lost_events, c->lost_lines);
	print_reasons(c);
	printf("\nshootdowns (from %s):\n", source_text(c->source));
	printf("  %" PRIu64 " started, %" PRIu64 " paired, %" PRIu64
	       " unpaired; %" PRIu64 " target exits matched none\n",
	       c->shootdowns, c->paired, c->unpaired, c->stray_exits);
	print_latency(c);
}

/* The recorded flushes of reason @p reason (whole trace). */
static uint64_t recorded(const struct replay_check *c, int32_t reason)
{
	for (size_t i = 0; i < c->nreasons; i++)
		if (c->reasons[i].reason == reason)
			return c->reasons[i].flushes;
	return 0;
}

static void side_row(const char *what, uint64_t rec, uint64_t rep,
		     const char *how)
{
	printf("  %-36s %9" PRIu64 " %9" PRIu64 "%s%s\n", what, rec, rep,
	       *how ? "  " : "", how);
}

/* The replay beside the recording (docs/replay.md, "Fidelity"). */
static void print_side(const struct replay_check *c, int rc,
		       const struct replay_side *s)
{
	if (rc) {
		printf("\nreplayed: not possible: %s\n", s->err);
		return;
	}
	printf("\nreplayed (hvtlb sim: %u threads of %u process%s on %u vCPUs, "
	       "%u pCPUs, as recorded; strategy %s, seed %" PRIu64
	       "; docs/replay.md):\n",
	       s->threads, s->processes, s->processes == 1 ? "" : "es", s->cpus,
	       s->cpus, REPLAY_SIM_STRATEGY, s->seed);
	printf("  %-36s %9s %9s\n", "FLUSHES", "RECORDED", "REPLAYED");
	side_row("requests (of the replayed threads)", s->requests,
		 s->shootdowns, "shootdowns");
	side_row("  with a remote target (reason 4)", s->remote, s->hypercalls,
		 "hypercalls");
	printf("    %-34s %9" PRIu64 "\n", "no other CPU ran the process",
	       s->remote_elsewhere);
	side_row("  local only", s->requests - s->remote,
		 s->shootdowns - s->hypercalls, "");
	printf("  by reason (recorded: the whole trace):\n");
	side_row("  flush on task switch (0)", recorded(c, 0), s->switch_mm,
		 "switch_mm");
	side_row("  local MM shootdown (3)", recorded(c, 3), s->local,
		 "the initiator's own flush");
	side_row("  remote shootdown (1)", recorded(c, 1), s->guest_target,
		 "flush_tlb_func on a target");
	printf("  %-36s %9" PRIu64 " %9s  not modelled\n",
	       "  remote wrong CPU (5)", recorded(c, 5), "-");
}

static const char *const source_names[] = { "none", "ipi", "csd" };

static void json_latency(const struct replay_check *c)
{
	if (!c->nlatency) {
		printf("null");
		return;
	}
	printf("{\"unit\":\"%s\",\"p50\":%" PRIu64 ",\"p90\":%" PRIu64
	       ",\"p99\":%" PRIu64 ",\"max\":%" PRIu64 "}",
	       c->ts_raw ? "counts" : "ns", replay_check_quantile(c, 0.5),
	       replay_check_quantile(c, 0.9), replay_check_quantile(c, 0.99),
	       replay_check_quantile(c, 1.0));
}

static void print_json(const char *path, const struct replay_check *c)
{
	putchar('{');
	json_meta(stdout, REPLAY_JSON_SCHEMA);
	printf(",\"trace\":");
	json_string(stdout, path);
	printf(",\"lines\":%" PRIu64 ",\"events\":%" PRIu64
	       ",\"skipped\":%" PRIu64 ",\"clock\":\"%s\",\"span\":%" PRIu64
	       ",\"threads\":%" PRIu64 ",\"syscalls\":%" PRIu64
	       ",\"mmap_lock_events\":%" PRIu64 ",\"sched_switches\":%" PRIu64
	       ",\"lost\":{\"lines\":%" PRIu64 ",\"events\":%" PRIu64 "}",
	       c->lines, c->events, c->unknown,
	       c->ts_raw      ? "raw"
	       : c->clock_khz ? "raw-at-rate"
			      : "seconds",
	       c->last_ts - c->first_ts, c->threads, c->syscalls,
	       c->mmap_lock_events, c->sched_switches, c->lost_lines,
	       c->lost_events);
	if (c->clock_khz)
		printf(",\"clock_mhz\":%.3f", (double)c->clock_khz / 1e3);
	else
		printf(",\"clock_mhz\":null");
	printf(",\"flushes\":[");
	for (size_t i = 0; i < c->nreasons; i++) {
		const struct replay_reason *r = &c->reasons[i];

		printf("%s{\"reason\":%" PRId32 ",\"name\":", i ? "," : "",
		       r->reason);
		json_string(stdout, trace_tlb_reason_name(r->reason));
		printf(",\"flushes\":%" PRIu64 ",\"pages\":%" PRIu64
		       ",\"all_pages\":%" PRIu64 "}",
		       r->flushes, r->pages, r->full);
	}
	printf("],\"other_reasons\":%" PRIu64 ",\"shootdowns\":{\"source\":"
	       "\"%s\",\"started\":%" PRIu64 ",\"paired\":%" PRIu64
	       ",\"unpaired\":%" PRIu64 ",\"stray_exits\":%" PRIu64
	       ",\"latency\":",
	       c->other_reasons, source_names[c->source], c->shootdowns,
	       c->paired, c->unpaired, c->stray_exits);
	json_latency(c);
	printf("}");
}

static void json_pair(const char *key, uint64_t rec, uint64_t rep)
{
	printf(",\"%s\":{\"recorded\":%" PRIu64 ",\"replayed\":%" PRIu64 "}",
	       key, rec, rep);
}

/* "replayed": the side by side of print_side(), or null. */
static void json_side(const struct replay_check *c, int rc,
		      const struct replay_side *s)
{
	if (rc) {
		printf(",\"replayed\":null,\"replay_error\":");
		json_string(stdout, s->err);
		printf("}\n");
		return;
	}
	printf(",\"replayed\":{\"strategy\":\"%s\",\"vcpus\":%u,"
	       "\"pcpus\":%u,\"threads\":%u,\"processes\":%u,\"seed\":%" PRIu64,
	       REPLAY_SIM_STRATEGY, s->cpus, s->cpus, s->threads, s->processes,
	       s->seed);
	json_pair("requests", s->requests, s->shootdowns);
	json_pair("remote", s->remote, s->hypercalls);
	json_pair("local_only", s->requests - s->remote,
		  s->shootdowns - s->hypercalls);
	printf(",\"remote_elsewhere\":%" PRIu64 ",\"by_reason\":[",
	       s->remote_elsewhere);
	printf("{\"reason\":0,\"recorded\":%" PRIu64 ",\"replayed\":%" PRIu64
	       "},{\"reason\":3,\"recorded\":%" PRIu64 ",\"replayed\":%" PRIu64
	       "},{\"reason\":1,\"recorded\":%" PRIu64 ",\"replayed\":%" PRIu64
	       "},{\"reason\":5,\"recorded\":%" PRIu64
	       ",\"replayed\":null}]}}\n",
	       recorded(c, 0), s->switch_mm, recorded(c, 3), s->local,
	       recorded(c, 1), s->guest_target, recorded(c, 5));
}

/* The recorded side, then the replayed one beside it. */
static void print_all(const char *path, bool json, const struct replay_check *c,
		      const char *buf, size_t len)
{
	struct replay_side side;
	int rc = replay_side_run(buf, len, &side);

	if (json) {
		print_json(path, c);
		json_side(c, rc, &side);
	} else {
		print_check(path, c);
		print_side(c, rc, &side);
	}
}

enum { OPT_CHECK = 256, OPT_JSON };

static const struct option options[] = {
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static int run_replay(int argc, char **argv)
{
	struct replay_check c;
	bool check = false, json = false;
	size_t len = 0;
	char why[256], *buf = NULL;
	int opt, rc;

	while ((opt = cli_getopt(&cmd_replay, argc, argv)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return CLI_EXIT_OK;
		case OPT_CHECK:
			check = true;
			break;
		case OPT_JSON:
			json = true;
			break;
		default:
			return CLI_EXIT_USAGE;
		}
	}
	if (!check)
		return cli_usage_error("replay", "only --check exists so far "
						 "(hvtlb replay --check FILE)");
	if (optind + 1 != argc)
		return cli_usage_error("replay", "want one FILE");
	rc = trace_file_load(argv[optind], &buf, &len, why, sizeof(why));
	if (rc) {
		fprintf(stderr, "hvtlb replay: %s: %s\n", argv[optind], why);
		return rc == -ENOMEM ? CLI_EXIT_FAIL : CLI_EXIT_USAGE;
	}
	rc = replay_check_run(&c, buf, len);
	if (rc == -EINVAL)
		fprintf(stderr, "hvtlb replay: %s: %s\n", argv[optind], c.err);
	else if (rc)
		fprintf(stderr, "hvtlb replay: %s\n", strerror(-rc));
	else
		print_all(argv[optind], json, &c, buf, len);
	replay_check_finish(&c);
	free(buf);
	if (rc)
		return rc == -EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
	return fflush(stdout) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const struct cli_command cmd_replay = {
	.name = "replay",
	.summary = "what a recorded kernel trace says about flushes",
	.run = run_replay,
	.options = options,
	.operands = "file",
};
