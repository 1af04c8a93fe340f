// SPDX-License-Identifier: MIT
/*
 * hvtlb sim SCENARIO [--set KEY=VALUE]... [--seed N] [--threads N]
 *                    [--fault NAME] [--compare LIST] [--json | --csv]
 *                    [--trace FILE [--trace-limit N]
 *                     [--trace-window START_MS:END_MS]]
 *
 * Reads a scenario file (scenario.h), applies the overrides, runs the
 * simulator once per strategy of the scenario's `compare` list (or once)
 * and prints a table, one JSON document or CSV rows; --trace also writes
 * a Chrome/Perfetto trace of each run (trace-json.h).
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
#include "parse.h"
#include "sim-run.h"
#include "trace-json.h"

static const char usage_text[] =
	"usage: hvtlb sim SCENARIO [--set KEY=VALUE]... [--seed N]\n"
	"                 [--threads N] [--fault NAME] [--compare LIST]\n"
	"                 [--json | --csv] [--trace FILE [--trace-limit N]\n"
	"                 [--trace-window START_MS:END_MS]]\n"
	"\n"
	"Simulates the scenario file (INI: [section] key = value; see\n"
	"scenarios/*.ini) once per strategy of its `compare` list.\n"
	"  --set KEY=VALUE  override any key after the file is read, e.g.\n"
	"                   vm.vcpus=32, cost.vmexit=2000, profile=kvm-2018\n"
	"  --seed N         random seed (results are deterministic per seed)\n"
	"  --threads N      host threads of the engine (default: CPUs online;\n"
	"                   results do not depend on it)\n"
	"  --fault NAME     no-wait, lose-deferred, skip-lazy-freed,\n"
	"                   drop-target, global-survives, host-no-wait,\n"
	"                   vp-as-cpu, gen-zero-skip: break the protocol, the\n"
	"                   oracle must report violations (`hvtlb keys`\n"
	"                   says what each does)\n"
	"  --compare LIST   strategies to run, e.g. ipi,hyperv (same as\n"
	"                   --set compare=LIST)\n"
	"  --json           one JSON document; --csv: one CSV row per run\n"
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
	"Exit: 0 done, 1 a run failed or the oracle fired without --fault,\n"
	"2 bad command line or scenario (file:line: message).\n";

enum out_format { OUT_TABLE, OUT_JSON, OUT_CSV };

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

static void print_row_u64(const struct sim_batch *b, const char *label,
			  size_t offset)
{
	printf("%-34s", label);
	for (size_t i = 0; i < b->nruns; i++) {
		const uint64_t *v =
			(const uint64_t *)((const char *)b->res[i] + offset);

		printf(" %14llu", (unsigned long long)*v);
	}
	putchar('\n');
}

static void print_row_double(const struct sim_batch *b, const char *label,
			     size_t offset, const char *fmt)
{
	printf("%-34s", label);
	for (size_t i = 0; i < b->nruns; i++) {
		const double *v =
			(const double *)((const char *)b->res[i] + offset);

		printf(" ");
		printf(fmt, *v);
	}
	putchar('\n');
}

static const char *exit_name(unsigned k)
{
	return hvtlb_sim_exit_name((enum hvtlb_sim_exit)k);
}

static const char *flush_name(unsigned k)
{
	return hvtlb_sim_flush_name((enum hvtlb_sim_flush_kind)k);
}

/* Rows for a per-kind array, skipping kinds that are zero in every run. */
static void print_kind_rows(const struct sim_batch *b, size_t offset,
			    size_t count, const char *(*name)(unsigned))
{
	for (size_t k = 0; k < count; k++) {
		int any = 0;
		char label[64];

		for (size_t i = 0; i < b->nruns; i++) {
			const uint64_t *v =
				(const uint64_t *)((const char *)b->res[i] +
						   offset);
			any |= v[k] != 0;
		}
		if (!any)
			continue;
		snprintf(label, sizeof(label), "  %s", name((unsigned)k));
		print_row_u64(b, label, offset + k * sizeof(uint64_t));
	}
}

#define OFF(field) offsetof(struct hvtlb_sim_results, field)

/* One line per recorded violation: which vCPU, which address, how stale
 * (entry generation < covered one), and for a latent one which flush
 * left it and why it counts. */
static void print_violation(const struct hvtlb_sim_results *r,
			    const struct hvtlb_sim_violation *x)
{
	const char *why = hvtlb_sim_stale_name(x->why);

	printf("violation (%s): vm %u vcpu %u address 0x%llx generation %u < "
	       "%u, ",
	       sim_strategy_name(r), x->vm, x->vcpu,
	       (unsigned long long)x->address, x->generation, x->covered);
	if (x->why == HVTLB_SIM_STALE_USED)
		printf("used");
	else
		printf("latent (%s) after shootdown %llu from vcpu %u",
		       why ? why : "?", (unsigned long long)x->shootdown,
		       x->initiator);
	printf(" at %.9f s\n", x->time_s);
}

static void print_table(const struct sim_batch *b)
{
	const struct scenario *sc = &b->sc;

	if (sc->title)
		printf("%s\n", sc->title);
	printf("scenario %s", sc->path);
	if (sc->profile_name)
		printf(", profile %s", sc->profile_name);
	printf(", seed %llu\n\n", (unsigned long long)b->res[0]->seed);

	printf("%-34s", "strategy");
	for (size_t i = 0; i < b->nruns; i++)
		printf(" %14s", sim_strategy_name(b->res[i]));
	putchar('\n');
	print_row_double(b, "real time (s)", OFF(real_s), "%14.4f");
	print_row_double(b, "guest user time (s)", OFF(user_s), "%14.4f");
	print_row_double(b, "guest sys time (s)", OFF(sys_s), "%14.4f");
	print_row_u64(b, "shootdowns", OFF(shootdowns));
	print_row_double(b, "shootdown latency p50 (us)", OFF(latency_us_p50),
			 "%14.2f");
	print_row_double(b, "shootdown latency p99 (us)", OFF(latency_us_p99),
			 "%14.2f");
	print_row_double(b, "shootdown latency max (us)", OFF(latency_us_max),
			 "%14.2f");
	print_row_u64(b, "VM exits", OFF(vm_exits_total));
	print_kind_rows(b, OFF(vm_exits), HVTLB_SIM_EXIT_COUNT_, exit_name);
	print_row_u64(b, "IPIs sent", OFF(ipis_sent));
	print_row_u64(b, "IPIs delivered", OFF(ipis_delivered));
	print_row_u64(b, "hypercalls", OFF(hypercalls));
	print_row_u64(b, "deferred (kvm-pv marked)", OFF(deferred_marked));
	printf("flushes on vCPUs, by kind\n");
	print_kind_rows(b, OFF(flushes), HVTLB_SIM_FLUSH_COUNT_, flush_name);
	print_row_u64(b, "pages invalidated", OFF(pages_invalidated));
	print_row_u64(b, "page faults", OFF(page_faults));
	print_row_u64(b, "TLB L1 hits", OFF(tlb_l1_hits));
	print_row_u64(b, "TLB L2 hits", OFF(tlb_l2_hits));
	print_row_u64(b, "TLB misses", OFF(tlb_misses));
	print_row_u64(b, "oracle violations, latent", OFF(latent_violations));
	print_row_u64(b, "oracle violations, used", OFF(used_violations));

	if (b->nruns > 1) {
		const struct hvtlb_sim_results *base = b->res[0];

		putchar('\n');
		for (size_t i = 1; i < b->nruns; i++)
			printf("%s / %s: real %.2fx, sys %.2fx\n",
			       sim_strategy_name(base),
			       sim_strategy_name(b->res[i]),
			       ratio(base->real_s, b->res[i]->real_s),
			       ratio(base->sys_s, b->res[i]->sys_s));
	}
	for (size_t i = 0; i < b->nruns; i++) {
		const struct hvtlb_sim_results *r = b->res[i];

		for (uint32_t v = 0; v < r->nrecorded; v++)
			print_violation(r, &r->violation[v]);
	}
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static int print_json(const struct sim_batch *b)
{
	const struct scenario *sc = &b->sc;

	if (b->nruns == 1) {
		if (hvtlb_sim_results_write_json(b->res[0], stdout))
			return -EIO;
		putchar('\n');
		return 0;
	}
	printf("{\"scenario\":");
	json_string(sc->path);
	if (sc->title) {
		printf(",\"title\":");
		json_string(sc->title);
	}
	if (sc->profile_name) {
		printf(",\"profile\":");
		json_string(sc->profile_name);
	}
	printf(",\"runs\":[");
	for (size_t i = 0; i < b->nruns; i++) {
		if (i)
			putchar(',');
		if (hvtlb_sim_results_write_json(b->res[i], stdout))
			return -EIO;
	}
	printf("],\"ratios\":[");
	for (size_t i = 1; i < b->nruns; i++) {
		printf("%s{\"over\":", i > 1 ? "," : "");
		json_string(sim_strategy_name(b->res[0]));
		printf(",\"under\":");
		json_string(sim_strategy_name(b->res[i]));
		printf(",\"real\":%.6g,\"sys\":%.6g}",
		       ratio(b->res[0]->real_s, b->res[i]->real_s),
		       ratio(b->res[0]->sys_s, b->res[i]->sys_s));
	}
	printf("]}\n");
	return 0;
}

static void print_csv(const struct sim_batch *b)
{
	printf("scenario,strategy,seed,real_s,user_s,sys_s,vm_exits,"
	       "ipis_sent,hypercalls,shootdowns,pages_invalidated,"
	       "latency_us_p50,latency_us_p99,latency_us_max,violations,"
	       "latent_violations,used_violations\n");
	for (size_t i = 0; i < b->nruns; i++) {
		const struct hvtlb_sim_results *r = b->res[i];

		printf("%s,%s,%llu,%.9g,%.9g,%.9g,%llu,%llu,%llu,%llu,%llu,"
		       "%.9g,%.9g,%.9g,%llu,%llu,%llu\n",
		       b->sc.path, sim_strategy_name(r),
		       (unsigned long long)r->seed, r->real_s, r->user_s,
		       r->sys_s, (unsigned long long)r->vm_exits_total,
		       (unsigned long long)r->ipis_sent,
		       (unsigned long long)r->hypercalls,
		       (unsigned long long)r->shootdowns,
		       (unsigned long long)r->pages_invalidated,
		       r->latency_us_p50, r->latency_us_p99, r->latency_us_max,
		       (unsigned long long)r->violations,
		       (unsigned long long)r->latent_violations,
		       (unsigned long long)r->used_violations);
	}
}

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

/* Options that take a value; *i advances past it. */
static int take_value(int argc, char **argv, int *i, const char **value)
{
	if (*i + 1 >= argc)
		return cli_usage_error("sim", "%s needs a value", argv[*i]);
	*value = argv[++*i];
	return 0;
}

/* --trace, --trace-limit, --trace-window. */
struct trace_opts {
	const char *path, *limit_arg, *window_arg;
	bool seen_path, seen_limit, seen_window;
	uint64_t limit;
	double win_start, win_end;
	char (*paths)[4096]; /* per run */
	FILE **files;	     /* per run */
};

/* Returns 1 when argv[*i] was a trace option (*i past its value), 0 when
 * it is not one, or -2 after a usage error was printed. */
static int trace_opt(struct trace_opts *o, int argc, char **argv, int *i)
{
	static const char *const names[] = { "--trace", "--trace-limit",
					     "--trace-window" };
	const char **val[] = { &o->path, &o->limit_arg, &o->window_arg };
	bool *seen[] = { &o->seen_path, &o->seen_limit, &o->seen_window };

	for (int k = 0; k < 3; k++) {
		int r = cli_opt_value("sim", argc, argv, i, names[k], val[k]);

		if (r < 0)
			return -2;
		if (!r)
			continue;
		if (cli_once("sim", seen[k], names[k]))
			return -2;
		return 1;
	}
	return 0;
}

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
			if (rc && !first)
				first = rc;
			continue;
		}
		trace_json_attach(&tj, &b->cfg[i]);
		rc = sim_batch_run_one(b, i, !first);
		b->cfg[i].trace_fn = NULL;
		b->cfg[i].trace_data = NULL;
		if (rc && !first)
			first = rc;
		rc = trace_json_write(
			&tj, o->files[i], b->sc.path,
			hvtlb_strategy_name(b->cfg[i].strategy.kind));
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

int cmd_sim(int argc, char **argv)
{
	enum out_format fmt = OUT_TABLE;
	const char *path = NULL;
	struct sim_batch b;
	struct trace_opts topt = { 0 };
	bool trace_io_failed = false;
	int rc, want_fault = 0, exit_code = CLI_EXIT_OK;

	/* First pass: the scenario path and simple flags. */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int t = trace_opt(&topt, argc, argv, &i);

		if (t < 0)
			return CLI_EXIT_USAGE;
		if (t > 0)
			continue;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage_text, stdout);
			return CLI_EXIT_OK;
		}
		if (!strcmp(a, "--json") || !strcmp(a, "--csv")) {
			enum out_format f = a[2] == 'j' ? OUT_JSON : OUT_CSV;

			if (fmt != OUT_TABLE && fmt != f)
				return cli_usage_error(
					"sim", "--json and --csv exclude "
					       "each other");
			fmt = f;
		} else if (!strcmp(a, "--set") || !strcmp(a, "--seed") ||
			   !strcmp(a, "--threads") || !strcmp(a, "--fault") ||
			   !strcmp(a, "--compare")) {
			if (i + 1 >= argc)
				return cli_usage_error("sim",
						       "%s needs a value", a);
			i++;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error("sim", "unknown option '%s'", a);
		} else if (path) {
			return cli_usage_error("sim",
					       "one scenario at a time ('%s' "
					       "and '%s')",
					       path, a);
		} else {
			path = a;
		}
	}
	if (!path)
		return cli_usage_error("sim", "missing SCENARIO (try "
					      "scenarios/default.ini)");
	if (trace_check(&topt))
		return CLI_EXIT_USAGE;

	sim_batch_init(&b);
	rc = scenario_load(&b.sc, path);
	if (rc)
		goto bad_input;

	/* Second pass: overrides, in command-line order. */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		uint64_t n;

		if (!strcmp(a, "--trace") || !strcmp(a, "--trace-limit") ||
		    !strcmp(a, "--trace-window")) {
			i++; /* checked in the first pass */
			continue;
		}
		if (!strcmp(a, "--set")) {
			take_value(argc, argv, &i, &v);
			rc = scenario_add_override(&b.sc, v);
		} else if (!strcmp(a, "--compare")) {
			char arg[SCENARIO_LINE_MAX];

			take_value(argc, argv, &i, &v);
			snprintf(arg, sizeof(arg), "compare=%s", v);
			rc = scenario_add_override(&b.sc, arg);
		} else if (!strcmp(a, "--seed") || !strcmp(a, "--threads")) {
			take_value(argc, argv, &i, &v);
			if (parse_u64(v, &n)) {
				sim_batch_finish(&b);
				return cli_usage_error(
					"sim", "%s '%s': not a number", a, v);
			}
			rc = scenario_add_option(&b.sc, a, a + 2, v);
		} else if (!strcmp(a, "--fault")) {
			take_value(argc, argv, &i, &v);
			if (!known_fault(v)) {
				char names[256];

				sim_batch_finish(&b);
				fault_names(names, sizeof(names));
				return cli_usage_error(
					"sim", "--fault '%s': unknown (%s)", v,
					names);
			}
			want_fault = strcmp(v, "none") != 0;
			rc = scenario_add_option(&b.sc, a, "fault", v);
		}
		if (rc)
			goto bad_input;
	}
	if (!want_fault) {
		const struct scenario_setting *f =
			scenario_find(&b.sc, "fault");

		want_fault = f && strcmp(f->value, "none");
	}

	rc = sim_batch_configure(&b, sim_host_threads());
	if (rc)
		goto bad_input;
	if (topt.path) {
		if (trace_open_all(&topt, &b)) {
			sim_batch_finish(&b);
			return CLI_EXIT_USAGE;
		}
		rc = run_traced(&b, &topt, &trace_io_failed);
		trace_close_all(&topt, b.nruns, false);
	} else {
		rc = sim_batch_run(&b);
	}
	if (rc) {
		fprintf(stderr, "hvtlb sim: %s\n", b.sc.err);
		sim_batch_finish(&b);
		return CLI_EXIT_FAIL;
	}
	if (trace_io_failed)
		exit_code = CLI_EXIT_FAIL;

	switch (fmt) {
	case OUT_JSON:
		if (print_json(&b))
			exit_code = CLI_EXIT_FAIL;
		break;
	case OUT_CSV:
		print_csv(&b);
		break;
	default:
		print_table(&b);
		break;
	}
	if (!want_fault) {
		for (size_t i = 0; i < b.nruns; i++) {
			if (b.res[i]->violations) {
				fprintf(stderr,
					"hvtlb sim: %s: oracle violations "
					"without a fault: %llu latent, %llu "
					"used\n",
					sim_strategy_name(b.res[i]),
					(unsigned long long)b.res[i]
						->latent_violations,
					(unsigned long long)b.res[i]
						->used_violations);
				exit_code = CLI_EXIT_FAIL;
			}
		}
	}
	if (fflush(stdout) || ferror(stdout))
		exit_code = CLI_EXIT_FAIL;
	sim_batch_finish(&b);
	return exit_code;

bad_input:
	fprintf(stderr, "%s\n", b.sc.err);
	sim_batch_finish(&b);
	return CLI_EXIT_USAGE;
}
