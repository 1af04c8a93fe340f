// SPDX-License-Identifier: MIT
/*
 * hvtlb sim SCENARIO [--set KEY=VALUE]... [--seed N] [--threads N]
 *                    [--fault NAME] [--compare LIST] [--json | --csv]
 *                    [--uncertainty N]
 *                    [--trace FILE [--trace-limit N]
 *                     [--trace-window START_MS:END_MS]]
 *
 * Reads a scenario file (scenario.h), applies the overrides, runs the
 * simulator once per strategy of the scenario's `compare` list (or once)
 * and prints a table, one JSON document or CSV rows (sim-report.h);
 * --uncertainty N also runs every strategy on N draws of the uncertain
 * parameters (uncertain.h) and gives each figure its p5 / p50 / p95 band;
 * --trace also writes a Chrome/Perfetto trace of each run (trace-json.h).
 * Exit: 0 done; 1 a run failed (or reported oracle violations without a
 * --fault asking for them); 2 bad command line or scenario.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hvtlb/sim.h>

#include "cli.h"
#include "ensemble.h"
#include "parse.h"
#include "runpool.h"
#include "progress.h"
#include "sim-report.h"
#include "suggest.h"
#include "sim-run.h"
#include "trace-json.h"
#include "trace-in.h"
#include "uncertain.h"

/* Most draws of --uncertainty. */
#define SIM_DRAWS_MAX 100000u

static const char usage_text[] =
	"usage: hvtlb sim SCENARIO [--set KEY=VALUE]... [--seed N]\n"
	"                 [--trace-in TRACE]\n"
	"                 [--threads N] [--fault NAME] [--compare LIST]\n"
	"                 [--json | --csv] [--uncertainty N] [-o FILE] [-q]\n"
	"                 [--trace FILE [--trace-limit N]\n"
	"                 [--trace-window START_MS:END_MS]]\n"
	"\n"
	"Simulates the scenario file (INI: [section] key = value; 'hvtlb\n"
	"scenarios' lists the shipped ones; '-' reads it from standard input)\n"
	"once per strategy of its `compare` list. A strategy given on the\n"
	"command line (--set strategy=X) runs alone, even when the file has a\n"
	"compare list; --compare replaces the file's strategy.\n"
	"  -o, --output FILE  write the results to FILE (a new file, renamed\n"
	"                   into place when complete) instead of stdout\n"
	"  -q, --quiet      no progress line on stderr (it is only drawn when\n"
	"                   stderr is a terminal and the work takes over 1 s)\n"
	"  --set KEY=VALUE  override any key after the file is read, e.g.\n"
	"                   vm.vcpus=32, cost.vmexit=2000, profile=kvm-2018\n"
	"  --trace-in TRACE replay a recorded kernel trace (ftrace text,\n"
	"                   .gz too) as the workload: workload.kind=trace,\n"
	"                   workload.trace=TRACE; without SCENARIO the VM is\n"
	"                   the recorded one (docs/replay.md)\n"
	"  --seed N         random seed (results are deterministic per seed)\n"
	"  --threads N      host threads of the engine (default: CPUs online;\n"
	"                   results do not depend on it)\n"
	"  --fault NAME     no-wait, lose-deferred, skip-lazy-freed,\n"
	"                   drop-target, global-survives, host-no-wait,\n"
	"                   vp-as-cpu, gen-zero-skip: break the protocol, the\n"
	"                   oracle must report violations (`hvtlb keys`\n"
	"                   says what each does) where the fault acts; one\n"
	"                   that never acted (fault_hits 0) is warned of on\n"
	"                   stderr, with a shipped scenario where it does\n"
	"  --compare LIST   strategies to run, e.g. ipi,hyperv (same as\n"
	"                   --set compare=LIST)\n"
	"  --json           one JSON document, always of one shape:\n"
	"                   {\"schema\":1,\"hvtlb\":{...},\n"
	"                   \"execution\":{...},\"scenario\":...,\n"
	"                   \"runs\":[...],\"ratios\":[...]} (docs/json.md);\n"
	"                   --csv: one CSV row per run (RFC 4180 quoting)\n"
	"  --uncertainty N  also run every strategy on N parameter sets drawn\n"
	"                   from the ranges of the profile and scenario lines\n"
	"                   (Latin hypercube seeded by --seed; the same draw\n"
	"                   for every strategy) and print each figure and\n"
	"                   ratio with its p5 / p50 / p95 band; --csv prints\n"
	"                   one row per draw and strategy with the drawn\n"
	"                   values; --threads runs that many at once\n"
	"  --trace FILE     also write a Chrome trace event file of the run\n"
	"                   (open it in ui.perfetto.dev or chrome://tracing):\n"
	"                   vCPUs on pCPUs, guest user/kernel time, VM exits,\n"
	"                   shootdowns, flushes, IPIs, kicks, halts, "
	"wake-ups,\n"
	"                   oracle violations; virtual time. With several\n"
	"                   strategies (compare) one file per strategy, named\n"
	"                   FILE with .STRATEGY before its extension\n"
	"                   (out.json: out.ipi.json, out.hyperv.json)\n"
	"  --trace-limit N  keep at most N events per file (default 2000000,\n"
	"                   split evenly between VMs); the rest are dropped\n"
	"                   with a warning\n"
	"  --trace-window START_MS:END_MS  keep only events that overlap\n"
	"                   this span of virtual time (milliseconds)\n"
	"                   FILE ending in .gz is written compressed (gzip).\n"
	"                   Each shootdown has an arrow (a Perfetto flow) to\n"
	"                   the target flushes its IPIs or kicks caused\n"
	"  --trace-warn-mb N  warn, before writing, when a trace comes to\n"
	"                   more than N MB (default 100; a .gz file: 10 N)\n"
	"Exit: 0 done, 1 a run failed or the oracle fired without --fault,\n"
	"2 bad command line or scenario (file:line: message).\n";

enum out_format { OUT_TABLE, OUT_JSON, OUT_CSV };

static int known_fault(const char *name)
{
	for (int f = 0; f < HVTLB_SIM_FAULT_COUNT_; f++) {
		const char *n = hvtlb_sim_fault_name((enum hvtlb_sim_fault)f);

		if (n && !strcmp(n, name))
			return 1;
	}
	return 0;
}

/* The fault names, from the library's list, comma separated. */
static void fault_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int f = 0; f < HVTLB_SIM_FAULT_COUNT_; f++) {
		const char *n = hvtlb_sim_fault_name((enum hvtlb_sim_fault)f);

		if (!n || !strcmp(n, "none") || used >= len)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 used ? ", " : "", n);
	}
}

/* --trace, --trace-limit, --trace-window. */
struct trace_opts {
	const char *path, *limit_arg, *window_arg, *warn_arg;
	uint64_t warn_mb;
	uint64_t limit;
	double win_start, win_end;
	char (*paths)[4096]; /* per run */
	FILE **files;	     /* per run */
};

/* Checks the values once every option is known. Returns 0 or 2. */
static int trace_check(struct trace_opts *o)
{
	o->limit = TRACE_JSON_DEFAULT_LIMIT;
	o->win_start = 0;
	o->win_end = -1;
	if (!o->path && (o->limit_arg || o->window_arg))
		return cli_usage_error("sim", "%s needs --trace FILE",
				       o->limit_arg ? "--trace-limit"
						    : "--trace-window");
	if (o->path && !o->path[0])
		return cli_usage_error("sim", "--trace: empty file name");
	if (o->limit_arg && (parse_u64(o->limit_arg, &o->limit) || !o->limit))
		return cli_usage_error("sim",
				       "--trace-limit '%s': not a number >= 1",
				       o->limit_arg);
	o->warn_mb = TRACE_JSON_DEFAULT_WARN_MB;
	if (!o->path && o->warn_arg)
		return cli_usage_error("sim", "--trace-warn-mb needs --trace "
					      "FILE");
	if (o->warn_arg && cli_u64("sim", "--trace-warn-mb", o->warn_arg, 0,
				   UINT64_MAX / 1000000, &o->warn_mb))
		return CLI_EXIT_USAGE;
	if (o->path && trace_json_path_is_gzip(o->path) &&
	    !TRACE_JSON_HAVE_GZIP)
		return cli_usage_error("sim",
				       "--trace '%s': this build has no zlib "
				       "to write .gz",
				       o->path);
	if (o->window_arg &&
	    trace_json_parse_window(o->window_arg, &o->win_start, &o->win_end))
		return cli_usage_error("sim",
				       "--trace-window '%s': want "
				       "START_MS:END_MS with START < END",
				       o->window_arg);
	return 0;
}

static void trace_close_all(struct trace_opts *o, size_t n, bool remove)
{
	for (size_t i = 0; o->files && i < n; i++) {
		if (!o->files[i])
			continue;
		fclose(o->files[i]);
		if (remove)
			unlink(o->paths[i]);
	}
	free(o->files);
	free(o->paths);
	o->files = NULL;
	o->paths = NULL;
}

/* Names and opens the file of every run before anything runs, so a bad
 * path fails at once. Returns 0 or 2 (message printed, nothing left). */
static int trace_open_all(struct trace_opts *o, const struct sim_batch *b)
{
	o->paths = calloc(b->nruns, sizeof(*o->paths));
	o->files = calloc(b->nruns, sizeof(*o->files));
	if (!o->paths || !o->files) {
		trace_close_all(o, 0, false);
		return cli_usage_error("sim", "--trace: out of memory");
	}
	for (size_t i = 0; i < b->nruns; i++) {
		const char *st = hvtlb_strategy_name(b->cfg[i].strategy.kind);

		if (b->nruns == 1)
			snprintf(o->paths[i], sizeof(o->paths[i]), "%s",
				 o->path);
		else if (trace_json_run_path(o->paths[i], sizeof(o->paths[i]),
					     o->path, st ? st : "run")) {
			trace_close_all(o, i, true);
			return cli_usage_error(
				"sim", "--trace '%s': name too long", o->path);
		}
		for (size_t j = 0; j < i; j++) {
			if (strcmp(o->paths[i], o->paths[j]))
				continue;
			cli_usage_error(
				"sim",
				"--trace: strategy '%s' listed twice in "
				"compare (its traces would share %s)",
				st ? st : "?", o->paths[j]);
			trace_close_all(o, i, true);
			return CLI_EXIT_USAGE;
		}
		o->files[i] = fopen(o->paths[i], "w");
		if (!o->files[i]) {
			int e = errno;

			cli_usage_error("sim", "--trace '%s': cannot write: %s",
					o->paths[i], strerror(e));
			trace_close_all(o, i, true);
			return CLI_EXIT_USAGE;
		}
	}
	return 0;
}

/* The size of the trace about to be written, against --trace-warn-mb (a
 * .gz file is judged by a tenth of it: traces compress well over ten
 * times). */
static void warn_size(const struct trace_opts *o, const char *path,
		      const struct trace_json *tj)
{
	uint64_t est = trace_json_estimate(tj);
	bool gz = trace_json_path_is_gzip(path);
	double mb = (double)est / 1e6;

	if ((gz ? est / 10 : est) <= o->warn_mb * 1000000u)
		return;
	fprintf(stderr,
		"hvtlb sim: warning: %s: about %.3g MB of trace%s (%llu "
		"events); narrow --trace-window, lower --trace-limit%s\n",
		path, mb, gz ? " before compression" : "",
		(unsigned long long)trace_json_events(tj),
		gz ? "" : " or name the file .json.gz");
}

/*
 * Runs every run of @p b with a trace recorder and writes run i's trace
 * to o->files[i] (also for a failed run: the events up to where it
 * stopped). Returns what sim_batch_run() would; *@p io_failed is set when
 * a file could not be written (message printed).
 */
static int run_traced(struct sim_batch *b, struct trace_opts *o,
		      bool *io_failed)
{
	int first = 0;

	for (size_t i = 0; i < b->nruns; i++) {
		struct trace_json tj;
		int rc;

		if (trace_json_init(&tj, &b->cfg[i], o->limit, o->win_start,
				    o->win_end)) {
			fprintf(stderr,
				"hvtlb sim: --trace '%s': out of "
				"memory\n",
				o->paths[i]);
			*io_failed = true;
			rc = sim_batch_run_one(b, i, !first);
			progress_add(1);
			if (rc && !first)
				first = rc;
			continue;
		}
		trace_json_attach(&tj, &b->cfg[i]);
		rc = sim_batch_run_one(b, i, !first);
		progress_add(1);
		b->cfg[i].trace_fn = NULL;
		b->cfg[i].trace_data = NULL;
		if (rc && !first)
			first = rc;
		warn_size(o, o->paths[i], &tj);
		rc = trace_json_write(
			&tj, o->files[i], b->sc.path,
			hvtlb_strategy_name(b->cfg[i].strategy.kind),
			trace_json_path_is_gzip(o->paths[i]));
		if (fclose(o->files[i]))
			rc = -EIO;
		o->files[i] = NULL;
		if (rc) {
			fprintf(stderr, "hvtlb sim: --trace '%s': %s\n",
				o->paths[i], strerror(-rc));
			*io_failed = true;
		}
		if (trace_json_dropped(&tj))
			fprintf(stderr,
				"hvtlb sim: warning: %s: trace limit of %llu "
				"events reached, %llu events dropped (raise "
				"--trace-limit or narrow --trace-window)\n",
				o->paths[i], (unsigned long long)o->limit,
				(unsigned long long)trace_json_dropped(&tj));
		trace_json_finish(&tj);
	}
	return first;
}

enum {
	OPT_SET = 256,
	OPT_SEED,
	OPT_THREADS,
	OPT_FAULT,
	OPT_COMPARE,
	OPT_JSON,
	OPT_CSV,
	OPT_UNCERTAINTY,
	OPT_TRACE,
	OPT_TRACE_LIMIT,
	OPT_TRACE_WINDOW,
	OPT_TRACE_WARN_MB,
	OPT_TRACE_IN,
};

static const struct option options[] = {
	{ "set", required_argument, NULL, OPT_SET },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "fault", required_argument, NULL, OPT_FAULT },
	{ "compare", required_argument, NULL, OPT_COMPARE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "csv", no_argument, NULL, OPT_CSV },
	{ "uncertainty", required_argument, NULL, OPT_UNCERTAINTY },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "trace-limit", required_argument, NULL, OPT_TRACE_LIMIT },
	{ "trace-window", required_argument, NULL, OPT_TRACE_WINDOW },
	{ "trace-warn-mb", required_argument, NULL, OPT_TRACE_WARN_MB },
	{ "trace-in", required_argument, NULL, OPT_TRACE_IN },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* An override option, applied after the file in command-line order. */
struct override {
	int opt;
	const char *value;
};

#define MAX_OVERRIDES 256

/* What the command line asks for. */
struct sim_opts {
	enum out_format fmt;
	const char *path, *output;
	const char *trace_in; /* --trace-in: a recorded trace as workload */
	struct trace_opts trace;
	uint64_t draws; /* --uncertainty N; 0: none */
	bool want_fault;
	struct override ov[MAX_OVERRIDES];
	size_t nov;
};

/* A value option that may be given once. */
static int take_option(struct sim_opts *o, int c, const char *v)
{
	uint64_t n;

	switch (c) {
	case OPT_SET:
	case OPT_SEED:
	case OPT_THREADS:
	case OPT_FAULT:
	case OPT_COMPARE:
		if (c == OPT_SEED &&
		    cli_u64("sim", "--seed", v, 0, UINT64_MAX, &n))
			return CLI_EXIT_USAGE;
		if (c == OPT_THREADS && cli_u64("sim", "--threads", v, 1,
						HVTLB_SIM_MAX_THREADS, &n))
			return CLI_EXIT_USAGE;
		if (o->nov == MAX_OVERRIDES)
			return cli_usage_error("sim", "more than %d overrides",
					       MAX_OVERRIDES);
		o->ov[o->nov++] = (struct override){ c, v };
		return 0;
	case OPT_JSON:
	case OPT_CSV:
		if (o->fmt != OUT_TABLE &&
		    o->fmt != (c == OPT_JSON ? OUT_JSON : OUT_CSV))
			return cli_usage_error("sim",
					       "--json and --csv exclude "
					       "each other");
		o->fmt = c == OPT_JSON ? OUT_JSON : OUT_CSV;
		return 0;
	case OPT_UNCERTAINTY:
		if (o->draws)
			return cli_usage_error("sim",
					       "--uncertainty given twice");
		return cli_u64("sim", "--uncertainty", v, 1, SIM_DRAWS_MAX,
			       &o->draws);
	case OPT_TRACE:
		return cli_once_str("sim", &o->trace.path, "--trace", v);
	case OPT_TRACE_IN:
		return cli_once_str("sim", &o->trace_in, "--trace-in", v);
	case OPT_TRACE_LIMIT:
		return cli_once_str("sim", &o->trace.limit_arg, "--trace-limit",
				    v);
	case OPT_TRACE_WINDOW:
		return cli_once_str("sim", &o->trace.window_arg,
				    "--trace-window", v);
	case OPT_TRACE_WARN_MB:
		return cli_once_str("sim", &o->trace.warn_arg,
				    "--trace-warn-mb", v);
	case 'o':
		return cli_once_str("sim", &o->output, "-o", v);
	}
	return CLI_EXIT_USAGE;
}

static int take(void *o, int c, const char *v)
{
	return take_option(o, c, v);
}

/* The command line. Returns -1 to go on, or the exit code (--help, a
 * usage error). */
static int parse_flags(struct sim_opts *o, int argc, char **argv)
{
	int rc = cli_parse_options(&cmd_sim, usage_text, argc, argv, take, o);

	/* --trace-in alone is a run of the recorded machine: no scenario */
	if (rc < 0 && !(o->trace_in && optind == argc))
		rc = cli_scenario_operand("sim", argc, argv, &o->path);
	if (rc >= 0)
		return rc;
	if (trace_check(&o->trace))
		return CLI_EXIT_USAGE;
	if (o->draws && o->trace.path)
		return cli_usage_error("sim",
				       "--trace and --uncertainty do not "
				       "mix: trace one run");
	return -1;
}

/*
 * The overrides in command-line order. Returns -1 to go on, or the exit
 * code (message printed).
 */
static int add_overrides(struct sim_opts *o, struct sim_batch *b)
{
	for (size_t i = 0; i < o->nov; i++) {
		const char *v = o->ov[i].value;
		int rc = 0;

		switch (o->ov[i].opt) {
		case OPT_SET:
			rc = scenario_add_override(&b->sc, v);
			break;
		case OPT_COMPARE: {
			char label[SCENARIO_LINE_MAX];

			snprintf(label, sizeof(label), "--compare '%s'", v);
			rc = scenario_add_compare(&b->sc, label, v);
			break;
		}
		case OPT_SEED:
			rc = scenario_add_option(&b->sc, "--seed", "seed", v);
			break;
		case OPT_THREADS:
			rc = scenario_add_option(&b->sc, "--threads", "threads",
						 v);
			break;
		default:
			if (!known_fault(v)) {
				char names[256], hint[96];
				struct suggest sg;

				fault_names(names, sizeof(names));
				suggest_init(&sg, v);
				for (int f = 0; f < HVTLB_SIM_FAULT_COUNT_; f++)
					suggest_add(
						&sg,
						hvtlb_sim_fault_name(
							(enum hvtlb_sim_fault)
								f));
				return cli_usage_error(
					"sim", "--fault '%s': unknown%s (%s)",
					v,
					suggest_hint(&sg, hint, sizeof(hint)),
					names);
			}
			o->want_fault = strcmp(v, "none") != 0;
			rc = scenario_add_option(&b->sc, "--fault", "fault", v);
			break;
		}
		if (rc) {
			fprintf(stderr, "%s\n", b->sc.err);
			return CLI_EXIT_USAGE;
		}
	}
	if (!o->want_fault) {
		const struct scenario_setting *f =
			scenario_find(&b->sc, "fault");

		o->want_fault = f && strcmp(f->value, "none");
	}
	return -1;
}

/* Under a failed run of an ensemble: the command that runs it alone (the
 * file, the command line's options but --compare, --seed and --threads,
 * the run's strategy, the draw's values and seed). Nothing for a
 * scenario read from standard input. */
static void print_rerun(const struct sim_opts *o, const struct sim_batch *b,
			const struct unc_plan *u, const struct ensemble *e)
{
	static const struct {
		int opt;
		const char *name;
	} keep[] = { { OPT_SET, "--set" }, { OPT_FAULT, "--fault" } };
	size_t row, k;

	if (!ensemble_failed_job(e, &row, &k) || !strcmp(b->sc.path, "-"))
		return;
	fputs("  the same run alone: hvtlb sim ", stderr);
	cli_shell_word(stderr, b->sc.path, strlen(b->sc.path));
	if (o->trace_in) {
		fputs(" --trace-in ", stderr);
		cli_shell_word(stderr, o->trace_in, strlen(o->trace_in));
	}
	for (size_t i = 0; i < o->nov; i++)
		for (size_t j = 0; j < sizeof(keep) / sizeof(keep[0]); j++)
			if (o->ov[i].opt == keep[j].opt) {
				fprintf(stderr, " %s ", keep[j].name);
				cli_shell_word(stderr, o->ov[i].value,
					       strlen(o->ov[i].value));
			}
	fprintf(stderr, " --set strategy=%s", e->names[k]);
	if (row)
		unc_plan_print_sets(u, row - 1, &b->sc, stderr);
	fprintf(stderr, " --seed %llu\n",
		(unsigned long long)ensemble_job(e, row, k)->cfg.seed);
}

/*
 * Runs the batch's nominal runs and @p o->draws draws of its uncertain
 * parameters (ensemble.h). Returns 0, or an exit code (message printed,
 * with the command that reruns the run that failed).
 */
static int run_uncertain(const struct sim_opts *o, struct sim_batch *b,
			 struct unc_plan *u, struct ensemble *e)
{
	char err[2 * SCENARIO_ERR_MAX];
	int rc = ensemble_run_batch(e, u, b, (size_t)o->draws,
				    b->cfg[0].threads, err, sizeof(err));

	if (!rc)
		return 0;
	if (rc == -ERANGE || rc == -EINVAL || rc == -ENOENT) {
		fprintf(stderr, "%s\n", err);
		return CLI_EXIT_USAGE;
	}
	fprintf(stderr, "hvtlb sim: %s: %s\n", b->sc.path, err);
	print_rerun(o, b, u, e);
	return CLI_EXIT_FAIL;
}

/* Oracle violations in runs that asked for no fault: 0 or 1 (printed). */
static int check_violations(const struct sim_batch *b, const struct ensemble *e)
{
	int bad = 0;

	for (size_t row = 0; row <= (e ? e->ndraws : 0); row++) {
		for (size_t i = 0; i < b->nruns; i++) {
			const struct hvtlb_sim_results *r =
				row ? ensemble_job(e, row, i)->res : b->res[i];

			char where[32] = "";

			if (!r->violations)
				continue;
			if (row)
				snprintf(where, sizeof(where), " (draw %zu)",
					 row);
			fprintf(stderr,
				"hvtlb sim: %s%s: oracle violations without "
				"a fault: %llu latent, %llu used\n",
				sim_strategy_name(r), where,
				(unsigned long long)r->latent_violations,
				(unsigned long long)r->used_violations);
			bad = 1;
		}
	}
	return bad;
}

/* Where each fault acts (fault_hits > 0 and the oracle fires), checked
 * with `sim ... --json` on the shipped scenarios at seed 1 (engine
 * 34ea0de; docs/oracle.md, section 6, has the full table). */
#define MADVISE_16ON3                                                          \
	"madvise --set workload.shared=1 --set workload.pages=4 --set "        \
	"workload.threads=16 --set vm.vcpus=16 --set machine.pcpus=3"
static const struct {
	const char *fault, *where;
} fault_demo[] = {
	{ "no-wait", MADVISE_16ON3 " --compare hyperv" },
	{ "drop-target", "oracle-stress --compare hyperv" },
	{ "lose-deferred", "oracle-stress --compare kvm-pv" },
	{ "skip-lazy-freed",
	  "mmap-search --compare ipi --set vm.vcpus=16 --set machine.pcpus=8 "
	  "--set strategy.lazy_skip=1 --set workload.pages=512 --set "
	  "workload.sleep_ns_max=20000" },
	{ "global-survives",
	  "oracle-stress --compare ipi --set workload.kernel_pages=16" },
	{ "host-no-wait", MADVISE_16ON3 " --compare hyperv" },
	{ "vp-as-cpu", MADVISE_16ON3
	  " --compare hyperv --set hypervisor.vp_index_offset=1" },
	{ "gen-zero-skip", "oracle-stress --compare ipi" },
};

/* A fault that never withheld a needed flush in any nominal run did no
 * harm, so the oracle had nothing to catch and exit 0 proves nothing:
 * say so on stderr, with a shipped scenario where that fault acts. */
static void warn_fault_idle(const struct sim_batch *b)
{
	const char *name = hvtlb_sim_fault_name(b->cfg[0].fault);
	uint64_t caught = 0;

	for (size_t i = 0; i < b->nruns; i++) {
		if (b->res[i]->fault_hits)
			return;
		caught += b->res[i]->violations;
	}
	if (!name)
		return;
	/* The oracle judges the run, the hit count only the switch: a
	 * fault whose harm shows up where no hit was counted is still
	 * caught (docs/oracle.md, section 6, "no hit (n/0)"). */
	if (caught) {
		fprintf(stderr,
			"hvtlb sim: warning: --fault %s counted no hit "
			"(fault_hits 0), yet the oracle reported %llu "
			"violation%s (docs/oracle.md, section 6)\n",
			name, (unsigned long long)caught,
			caught == 1 ? "" : "s");
		return;
	}
	fprintf(stderr,
		"hvtlb sim: warning: --fault %s never acted (fault_hits 0): "
		"what it breaks did not arise in this run, so the oracle had "
		"nothing to catch",
		name);
	for (size_t k = 0; k < sizeof(fault_demo) / sizeof(fault_demo[0]); k++)
		if (!strcmp(fault_demo[k].fault, name))
			fprintf(stderr,
				"; it acts in 'hvtlb sim %s --fault %s'",
				fault_demo[k].where, name);
	fprintf(stderr, " (docs/oracle.md, section 4)\n");
}

static int print_results(const struct sim_opts *o, const struct sim_batch *b,
			 const struct ensemble *e)
{
	int exit_code = CLI_EXIT_OK;

	switch (o->fmt) {
	case OUT_JSON:
		if (sim_report_json(b, e))
			exit_code = CLI_EXIT_FAIL;
		break;
	case OUT_CSV:
		sim_report_csv(b, e);
		break;
	default:
		sim_report_table(b, e);
		break;
	}
	if (!o->want_fault && check_violations(b, e))
		exit_code = CLI_EXIT_FAIL;
	if (o->want_fault)
		warn_fault_idle(b);
	if (fflush(stdout) || ferror(stdout))
		exit_code = CLI_EXIT_FAIL;
	return exit_code;
}

static int run_sim(int argc, char **argv)
{
	struct sim_opts *o = calloc(1, sizeof(*o));
	struct sim_batch b;
	struct unc_plan u;
	struct ensemble e = { 0 };
	bool trace_io_failed = false;
	int rc, exit_code;

	if (!o) {
		fprintf(stderr, "hvtlb sim: out of memory\n");
		return CLI_EXIT_FAIL;
	}
	o->fmt = OUT_TABLE;
	exit_code = parse_flags(o, argc, argv);
	if (exit_code >= 0) {
		free(o);
		return exit_code;
	}
	sim_batch_init(&b);
	unc_plan_init(&u);
	rc = sim_load_with_trace(&b, o->path, o->trace_in);
	if (rc) {
		fprintf(stderr, "%s\n", b.sc.err);
		exit_code = CLI_EXIT_USAGE;
		goto out;
	}
	exit_code = add_overrides(o, &b);
	if (exit_code >= 0)
		goto out;
	exit_code = CLI_EXIT_OK;
	rc = sim_configure_with_trace(&b, sim_host_threads());
	if (rc) {
		fprintf(stderr, "%s\n", b.sc.err);
		exit_code = CLI_EXIT_USAGE;
		goto out;
	}
	for (size_t w = 0; w < SIM_BATCH_WARNINGS; w++) {
		if (b.warning[w][0])
			fprintf(stderr, "hvtlb sim: warning: %s\n",
				b.warning[w]);
	}
	if (o->output && cli_output_open("sim", o->output)) {
		exit_code = CLI_EXIT_USAGE;
		goto out;
	}
	progress_begin("sim", "runs", b.nruns * (1 + o->draws));
	if (o->draws) {
		exit_code = run_uncertain(o, &b, &u, &e);
	} else if (o->trace.path) {
		if (trace_open_all(&o->trace, &b)) {
			exit_code = CLI_EXIT_USAGE;
		} else {
			rc = run_traced(&b, &o->trace, &trace_io_failed);
			trace_close_all(&o->trace, b.nruns, false);
		}
	} else {
		rc = sim_batch_run(&b);
	}
	progress_end();
	if (exit_code)
		goto out;
	if (rc) {
		fprintf(stderr, "hvtlb sim: %s\n", b.sc.err);
		exit_code = CLI_EXIT_FAIL;
		goto out;
	}
	exit_code = print_results(o, &b, o->draws ? &e : NULL);
	if (trace_io_failed)
		exit_code = CLI_EXIT_FAIL;
out:
	if (o->output && cli_output_finish("sim", exit_code != CLI_EXIT_USAGE))
		exit_code = CLI_EXIT_FAIL;
	ensemble_finish(&e);
	unc_plan_finish(&u);
	sim_batch_finish(&b);
	free(o);
	return exit_code;
}

const struct cli_command cmd_sim = {
	.name = "sim",
	.summary = "simulate a scenario",
	.run = run_sim,
	.options = options,
	.operands = "scenario",
};
