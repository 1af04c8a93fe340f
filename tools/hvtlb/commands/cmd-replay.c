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
		"usage: hvtlb replay --check [--json] [--uncertainty N] "
		"FILE\n\n"
		"Reads a kernel trace in the ftrace text format (the tracefs\n"
		"trace file, or what trace-cmd report prints; FILE.gz too\n"
		"where the tool has zlib), or trace-cmd's trace.dat where it\n"
		"has libtracecmd, and prints what it recorded: TLB\n"
		"flushes by reason with their pages, shootdowns and their\n"
		"latency (p50, p90, p99, max), threads, skipped events.\n"
		"hvtlb record records one; docs/replay.md says how\n"
		"shootdowns are paired. Then the trace replayed through the\n"
		"simulator on the machine it was recorded on (as many vCPUs\n"
		"and pCPUs as it has CPUs; remote flushes by IPI where the\n"
		"trace has IPI shootdowns, else by hypercall), its flush\n"
		"counts and flush IPI latency beside the recorded ones\n"
		"(docs/replay.md).\n"
		"  --check          print both sides (the only mode so far)\n"
		"  --json           one JSON document instead of the text\n"
		"                   (docs/json.md)\n"
		"  --uncertainty N  also replay at N draws of the uncertain\n"
		"                   costs: the band of the replayed latency\n"
		"  --set KEY=VALUE  change the replayed machine, as on hvtlb\n"
		"                   sim (the recorded machine's costs)\n");
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

/* A latency in microseconds, or in clock counts for a raw clock: of the
 * shootdowns (@p target false) or of each of their targets. */
static void print_latency(const struct replay_check *c, bool target)
{
	static const double qs[] = { 0.5, 0.9, 0.99, 1.0 };
	static const char *const names[] = { "p50", "p90", "p99", "max" };
	size_t n = target ? c->ntlatency : c->nlatency;

	if (!n) {
		if (!target)
			printf("  latency: no paired shootdown\n");
		return;
	}
	printf("  %s (%s, %zu %s):", target ? "per target" : "latency",
	       c->ts_raw ? "clock counts" : "us", n,
	       target ? "exits" : "paired");
	for (size_t i = 0; i < 4; i++) {
		uint64_t v = target ? replay_check_target_quantile(c, qs[i])
				    : replay_check_quantile(c, qs[i]);

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
	print_latency(c, false);
	print_latency(c, true);
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

/* One quantile of the targets' latency, recorded beside replayed, with the
 * replay's band over the draws and whether the recording is inside. */
static void latency_row(const char *what, double rec, double rep,
			const struct replay_side *s, const struct band *b)
{
	printf("  %-36s %9.2f %9.2f", what, rec, rep);
	if (s->ndraws)
		printf("  band %.2f / %.2f / %.2f (%zu draws): %s", b->p5,
		       b->p50, b->p95, s->ndraws,
		       band_contains(b, rec) ? "inside" : "outside");
	printf("\n");
}

/* The flush IPIs' latency per target, from the send to the end of the
 * target's handler, when the trace has them in microseconds. */
static void print_side_latency(const struct replay_check *c,
			       const struct replay_side *s)
{
	if (!c->ntlatency || c->ts_raw)
		return;
	printf("  %-36s %9s %9s\n", "FLUSH IPI TO HANDLED (us)", "RECORDED",
	       "REPLAYED");
	side_row("  targets", c->ntlatency, s->ipi_targets, "");
	latency_row("  p50", (double)replay_check_target_quantile(c, 0.5) / 1e3,
		    s->ack_us_p50, s, &s->ack_p50);
	latency_row("  p99",
		    (double)replay_check_target_quantile(c, 0.99) / 1e3,
		    s->ack_us_p99, s, &s->ack_p99);
	if (!s->ndraws)
		printf("  (--uncertainty N: the replay's band over N draws of "
		       "the costs)\n");
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
	       s->cpus, s->strategy, s->seed);
	printf("  %-36s %9s %9s\n", "FLUSHES", "RECORDED", "REPLAYED");
	side_row("requests (of the replayed threads)", s->requests,
		 s->shootdowns, "shootdowns");
	side_row("  with a remote target (reason 4)", s->remote, s->hypercalls,
		 strcmp(s->strategy, REPLAY_SIM_IPI) ? "hypercalls"
						     : "flush IPIs");
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
	print_side_latency(c, s);
}

static const char *const source_names[] = { "none", "ipi", "csd" };

/* The shootdowns' latency (@p target false) or their targets'. */
static void json_latency(const struct replay_check *c, bool target)
{
	uint64_t (*q)(const struct replay_check *, double) =
		target ? replay_check_target_quantile : replay_check_quantile;

	if (!(target ? c->ntlatency : c->nlatency)) {
		printf("null");
		return;
	}
	printf("{\"unit\":\"%s\",\"n\":%zu,\"p50\":%" PRIu64 ",\"p90\":%" PRIu64
	       ",\"p99\":%" PRIu64 ",\"max\":%" PRIu64 "}",
	       c->ts_raw ? "counts" : "ns", target ? c->ntlatency : c->nlatency,
	       q(c, 0.5), q(c, 0.9), q(c, 0.99), q(c, 1.0));
}

static void json_band(const char *key, const struct band *b)
{
	printf("\"%s\":{\"p5\":%.9g,\"p50\":%.9g,\"p95\":%.9g}", key, b->p5,
	       b->p50, b->p95);
}

/* The replay's flush IPIs: how many, their latency and its bands. */
static void json_side_latency(const struct replay_side *s)
{
	printf(",\"ipi_ack_us\":{\"targets\":%" PRIu64
	       ",\"p50\":%.9g,\"p99\":%.9g,\"draws\":%zu,\"bands\":",
	       s->ipi_targets, s->ack_us_p50, s->ack_us_p99, s->ndraws);
	if (!s->ndraws) {
		printf("null}");
		return;
	}
	putchar('{');
	json_band("p50", &s->ack_p50);
	putchar(',');
	json_band("p99", &s->ack_p99);
	printf("}}");
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
	json_latency(c, false);
	printf(",\"target_latency\":");
	json_latency(c, true);
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
	       s->strategy, s->cpus, s->cpus, s->threads, s->processes,
	       s->seed);
	json_pair("requests", s->requests, s->shootdowns);
	json_pair("remote", s->remote, s->hypercalls);
	json_pair("local_only", s->requests - s->remote,
		  s->shootdowns - s->hypercalls);
	json_side_latency(s);
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

enum { OPT_CHECK = 256, OPT_JSON, OPT_UNCERTAINTY, OPT_SET };

/* Most draws of --uncertainty (each replays the whole trace). */
#define REPLAY_DRAWS_MAX 10000u
/* Most --set options. */
#define REPLAY_SETS_MAX 64

/* What the command line asked for. */
struct replay_opts {
	bool check, json;
	uint64_t ndraws;
	const char *set[REPLAY_SETS_MAX];
	size_t nset;
};

/* The recorded side, then the replayed one beside it; -1, or the exit
 * code of a --set the replay refused (nothing printed on stdout). */
static int print_all(const char *path, const struct replay_opts *o,
		     const struct replay_check *c, const char *buf, size_t len)
{
	struct replay_side side;
	bool ipi = c->source != REPLAY_SRC_NONE && c->paired;
	int rc = replay_side_run(path, buf, len, ipi, (size_t)o->ndraws, o->set,
				 o->nset, &side);

	if (rc && side.bad_set) {
		fprintf(stderr, "hvtlb replay: %s\n", side.err);
		return CLI_EXIT_USAGE;
	}
	if (o->json) {
		print_json(path, c);
		json_side(c, rc, &side);
	} else {
		print_check(path, c);
		print_side(c, rc, &side);
	}
	return -1;
}

static const struct option options[] = {
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "uncertainty", required_argument, NULL, OPT_UNCERTAINTY },
	{ "set", required_argument, NULL, OPT_SET },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* The options into @p o: -1 to go on, or the exit code. */
static int parse_opts(int argc, char **argv, struct replay_opts *o)
{
	int opt;

	while ((opt = cli_getopt(&cmd_replay, argc, argv)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return CLI_EXIT_OK;
		case OPT_CHECK:
			o->check = true;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_UNCERTAINTY:
			if (cli_u64("replay", "--uncertainty", optarg, 1,
				    REPLAY_DRAWS_MAX, &o->ndraws))
				return CLI_EXIT_USAGE;
			break;
		case OPT_SET:
			if (o->nset == REPLAY_SETS_MAX)
				return cli_usage_error("replay",
						       "more than %d --set",
						       REPLAY_SETS_MAX);
			o->set[o->nset++] = optarg;
			break;
		default:
			return CLI_EXIT_USAGE;
		}
	}
	if (!o->check)
		return cli_usage_error("replay", "only --check exists so far "
						 "(hvtlb replay --check FILE)");
	if (optind + 1 != argc)
		return cli_usage_error("replay", "want one FILE");
	return -1;
}

static int run_replay(int argc, char **argv)
{
	struct replay_opts o = { 0 };
	struct replay_check c;
	size_t len = 0;
	char why[256], *buf = NULL;
	int code = -1, rc = parse_opts(argc, argv, &o);

	if (rc != -1)
		return rc;
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
		code = print_all(argv[optind], &o, &c, buf, len);
	replay_check_finish(&c);
	free(buf);
	if (rc)
		return rc == -EINVAL ? CLI_EXIT_USAGE : CLI_EXIT_FAIL;
	if (code != -1)
		return code;
	return fflush(stdout) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const struct cli_command cmd_replay = {
	.name = "replay",
	.summary = "what a recorded kernel trace says about flushes",
	.run = run_replay,
	.options = options,
	.operands = "file",
};
