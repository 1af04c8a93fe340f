// SPDX-License-Identifier: MIT
/*
 * hvtlb plan: one flush request through one strategy into the recording
 * backend; prints the ordered actions (hypercalls encoded and decoded).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hvtlb/core.h>

#include "cli.h"
#include "json.h"
#include "parse.h"
#include "suggest.h"

#define CMD "plan"
#define MAX_SETS 64

static const char usage_text[] =
	"           --cpus N --targets LIST [--initiator N]\n"
	"           --range START-END|START+PAGES|all [--stride 4k|2m|1g]\n"
	"           [--global] [--address-space HEX] [--freed-tables]\n"
	"           [--preempted LIST] [--lazy LIST] [--cas-lose LIST]\n"
	"           [--vp-map identity|FILE] [--hints LIST]\n"
	"           [--hypercall-status HEX] [--reps-per-call N]\n"
	"           [--vmm-result ERRNO] [--set KEY=VALUE]... [--json]\n"
	"\n"
	"Runs the request through the strategy into the recording backend and\n"
	"prints the actions in order. --range: the bytes START..END (END\n"
	"excluded) or PAGES pages of --stride from START; addresses are hex,\n"
	"0x needed unless the number has a-f or is one digit; PAGES decimal\n"
	"or 0x hex. LIST is like 0,5,64-127. --hints names:\n"
	"remote-flush, ex, xmm, extended-ranges, broadcast, kvm-pv, "
	"vmm-assist\n"
	"or none; the default is what the strategy needs (remote-flush,ex;\n"
	"kvm-pv, vmm-assist or broadcast for those strategies, vmm-assist\n"
	"for xen-pv). --vp-map "
	"FILE:\n"
	"one \"cpu vp\" pair per line, '#' comments. --set keys: concurrent,\n"
	"early_ack, lazy_skip, full_flush_ceiling, xmm_fast, compact_vpset,\n"
	"extended_ranges, broadcast_max_pages.\n";

/* The usage, its strategies from the map. */
static void print_usage(void)
{
	fputs("usage: hvtlb plan --strategy ", stdout);
	for (unsigned k = 0; k < HVTLB_STRATEGY_COUNT_; k++)
		printf("%s%s", k ? "|" : "",
		       hvtlb_strategy_name((enum hvtlb_strategy_kind)k));
	fputs("\n", stdout);
	fputs(usage_text, stdout);
}

struct plan_args {
	const char *strategy, *cpus, *targets, *initiator, *range, *stride;
	const char *address_space, *preempted, *lazy, *cas_lose, *vp_map;
	const char *hints, *status, *reps, *vmm_result;
	const char *sets[MAX_SETS];
	unsigned nsets;
	bool freed_tables, global, json;
};

enum {
	OPT_SET = 256,
	OPT_FREED_TABLES,
	OPT_GLOBAL,
	OPT_JSON,
	OPT_VALUE, /* OPT_VALUE + i: value option i of value_opts[] */
};

/* Options that take a value, and where it goes. */
static const struct {
	const char *name;
	size_t offset;
} value_opts[] = {
#define O(n, f)                                                                \
	{                                                                      \
		n, offsetof(struct plan_args, f)                               \
	}
	O("strategy", strategy),
	O("cpus", cpus),
	O("targets", targets),
	O("initiator", initiator),
	O("range", range),
	O("stride", stride),
	O("address-space", address_space),
	O("preempted", preempted),
	O("lazy", lazy),
	O("cas-lose", cas_lose),
	O("vp-map", vp_map),
	O("hints", hints),
	O("hypercall-status", status),
	O("reps-per-call", reps),
	O("vmm-result", vmm_result),
#undef O
};

#define NVALUE (sizeof(value_opts) / sizeof(value_opts[0]))

static const struct option options[] = {
	{ "strategy", required_argument, NULL, OPT_VALUE + 0 },
	{ "cpus", required_argument, NULL, OPT_VALUE + 1 },
	{ "targets", required_argument, NULL, OPT_VALUE + 2 },
	{ "initiator", required_argument, NULL, OPT_VALUE + 3 },
	{ "range", required_argument, NULL, OPT_VALUE + 4 },
	{ "stride", required_argument, NULL, OPT_VALUE + 5 },
	{ "address-space", required_argument, NULL, OPT_VALUE + 6 },
	{ "preempted", required_argument, NULL, OPT_VALUE + 7 },
	{ "lazy", required_argument, NULL, OPT_VALUE + 8 },
	{ "cas-lose", required_argument, NULL, OPT_VALUE + 9 },
	{ "vp-map", required_argument, NULL, OPT_VALUE + 10 },
	{ "hints", required_argument, NULL, OPT_VALUE + 11 },
	{ "hypercall-status", required_argument, NULL, OPT_VALUE + 12 },
	{ "reps-per-call", required_argument, NULL, OPT_VALUE + 13 },
	{ "vmm-result", required_argument, NULL, OPT_VALUE + 14 },
	{ "set", required_argument, NULL, OPT_SET },
	{ "freed-tables", no_argument, NULL, OPT_FREED_TABLES },
	{ "global", no_argument, NULL, OPT_GLOBAL },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* Returns 0, 1 after --help, or CLI_EXIT_USAGE (message printed). */
static int parse_args(int argc, char **argv, struct plan_args *a)
{
	int c;

	while ((c = cli_getopt(&cmd_plan, argc, argv)) != -1) {
		switch (c) {
		case 'h':
			print_usage();
			return 1;
		case OPT_FREED_TABLES:
			a->freed_tables = true;
			break;
		case OPT_GLOBAL:
			a->global = true;
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case OPT_SET:
			if (a->nsets == MAX_SETS)
				return cli_usage_error(CMD, "too many --set");
			a->sets[a->nsets++] = optarg;
			break;
		default:
			if (c < OPT_VALUE || c >= OPT_VALUE + (int)NVALUE)
				return CLI_EXIT_USAGE;
			if (strcmp(options[c - OPT_VALUE].name,
				   value_opts[c - OPT_VALUE].name))
				return CLI_EXIT_USAGE; /* tables disagree */
			*(const char **)((char *)a +
					 value_opts[c - OPT_VALUE].offset) =
				optarg;
			break;
		}
	}
	if (optind < argc)
		return cli_usage_error(CMD, "unexpected argument '%s'",
				       argv[optind]);
	return 0;
}

static int parse_cpu_list(const char *opt, const char *s, uint32_t ncpus,
			  struct hvtlb_cpumask *m)
{
	uint32_t bad;

	memset(m, 0, sizeof(*m));
	if (!s)
		return 0;
	if (parse_index_list(s, m->bits, HVTLB_MAX_CPUS))
		return cli_usage_error(CMD, "bad --%s list '%s'", opt, s);
	bad = hvtlb_cpumask_next(m, ncpus);
	if (bad < HVTLB_MAX_CPUS)
		return cli_usage_error(CMD, "--%s: CPU %u >= --cpus %u", opt,
				       bad, ncpus);
	return 0;
}

static int parse_hints(const char *s, struct hvtlb_hints *h)
{
	static const struct {
		const char *name;
		size_t offset;
	} names[] = {
#define H(n, f) { n, offsetof(struct hvtlb_hints, f) }
		H("remote-flush", remote_flush_recommended),
		H("ex", ex_available),
		H("xmm", xmm_input),
		H("extended-ranges", extended_ranges),
		H("broadcast", broadcast),
		H("kvm-pv", kvm_pv_flush),
		H("vmm-assist", vmm_assist),
#undef H
	};

	memset(h, 0, sizeof(*h));
	if (!strcmp(s, "none") || !*s)
		return 0;
	while (*s) {
		const char *comma = strchr(s, ',');
		size_t n = comma ? (size_t)(comma - s) : strlen(s);
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			if (strlen(names[i].name) == n &&
			    !strncmp(s, names[i].name, n)) {
				*(bool *)((char *)h + names[i].offset) = true;
				break;
			}
		}
		if (i == sizeof(names) / sizeof(names[0])) {
			const char *list[sizeof(names) / sizeof(names[0]) + 2];
			char word[64];

			for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
				list[i] = names[i].name;
			list[i++] = "none";
			list[i] = NULL;
			snprintf(word, sizeof(word), "%.*s", (int)n, s);
			return cli_enum_error(CMD, "--hints", "hint", word,
					      list);
		}
		if (!comma)
			break;
		s = comma + 1;
		if (!*s)
			return cli_usage_error(CMD, "bad --hints list");
	}
	return 0;
}

/* "cpu vp" per line; '#' starts a comment. */
static int load_vp_map(const char *path, uint32_t ncpus,
		       struct hvtlb_recorder *rec)
{
	FILE *f = fopen(path, "r");
	char line[256];
	unsigned lineno = 0;
	int rc = 0;

	if (!f)
		return cli_usage_error(CMD, "--vp-map: cannot open '%s': %s",
				       path, strerror(errno));
	while (!rc && fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#'), *tok[3], *save = NULL;
		uint64_t cpu, vp;
		unsigned n = 0;

		lineno++;
		if (hash)
			*hash = '\0';
		for (char *t = strtok_r(line, " \t\r\n", &save); t && n < 3;
		     t = strtok_r(NULL, " \t\r\n", &save))
			tok[n++] = t;
		if (n == 0)
			continue;
		if (n != 2 || parse_u64(tok[0], &cpu) ||
		    parse_u64_max(tok[1], UINT32_MAX, &vp))
			rc = cli_usage_error(CMD, "%s:%u: expected \"cpu vp\"",
					     path, lineno);
		else if (cpu >= ncpus)
			rc = cli_usage_error(
				CMD, "%s:%u: CPU %llu >= --cpus %u", path,
				lineno, (unsigned long long)cpu, ncpus);
		else
			hvtlb_recorder_set_vp(rec, (uint32_t)cpu, (uint32_t)vp);
	}
	fclose(f);
	return rc;
}

/*
 * Without --hints, the host offers what the chosen strategy needs
 * (hvtlb_strategy_needs(): a Hyper-V host recommends remote flush and
 * offers Ex; a KVM host offers PV_TLB_FLUSH; ...), so that `--strategy
 * kvm-pv` shows the deferred path rather than its fallback; for ipi and
 * lazy, which need nothing, a Hyper-V host's. --hints none shows the
 * fallbacks.
 */
static void default_hints(const char *strategy, struct hvtlb_hints *h)
{
	enum hvtlb_strategy_kind k;

	memset(h, 0, sizeof(*h));
	if (!hvtlb_strategy_from_name(strategy, &k))
		hvtlb_strategy_needs(k, h);
	if (!h->remote_flush_recommended && !h->kvm_pv_flush &&
	    !h->vmm_assist && !h->broadcast) {
		h->remote_flush_recommended = true;
		h->ex_available = true;
	}
}

/* Applies the backend state from the command line to @p rec. */
static int setup_recorder(const struct plan_args *a, uint32_t ncpus,
			  struct hvtlb_recorder *rec)
{
	struct hvtlb_cpumask pre, lazy, lose;
	struct hvtlb_hints hints;
	uint64_t v;
	int rc;

	if ((rc = parse_cpu_list("preempted", a->preempted, ncpus, &pre)) ||
	    (rc = parse_cpu_list("lazy", a->lazy, ncpus, &lazy)) ||
	    (rc = parse_cpu_list("cas-lose", a->cas_lose, ncpus, &lose)))
		return rc;
	for (uint32_t c = 0; c < ncpus; c++) {
		bool p = hvtlb_cpumask_test(&pre, c);

		if (p && hvtlb_cpumask_test(&lazy, c))
			return cli_usage_error(
				CMD, "CPU %u is both --preempted and --lazy",
				c);
		if (p) {
			hvtlb_recorder_set_cpu_state(rec, c,
						     HVTLB_CPU_PREEMPTED);
			hvtlb_recorder_set_preempted(rec, c,
						     HVTLB_KVM_VCPU_PREEMPTED);
		} else if (hvtlb_cpumask_test(&lazy, c)) {
			hvtlb_recorder_set_cpu_state(rec, c, HVTLB_CPU_LAZY);
		}
		if (hvtlb_cpumask_test(&lose, c))
			hvtlb_recorder_set_cas_lose(rec, c, true);
	}

	if (!a->hints)
		default_hints(a->strategy, &hints);
	else if ((rc = parse_hints(a->hints, &hints)))
		return rc;
	hvtlb_recorder_set_hints(rec, &hints);

	if (a->vp_map && strcmp(a->vp_map, "identity") &&
	    (rc = load_vp_map(a->vp_map, ncpus, rec)))
		return rc;
	if (a->status) {
		if (parse_hex_u64(a->status, &v) || v > 0xffff)
			return cli_usage_error(CMD,
					       "bad --hypercall-status '%s' "
					       "(hex, up to 0xffff)",
					       a->status);
		hvtlb_recorder_set_hypercall_status(rec, (hvtlb_status)v);
	}
	if (a->reps) {
		if (parse_u64_max(a->reps, HVTLB_REP_MAX, &v))
			return cli_usage_error(CMD, "bad --reps-per-call '%s'",
					       a->reps);
		hvtlb_recorder_set_reps_per_call(rec, (uint32_t)v);
	}
	if (a->vmm_result) {
		if (parse_u64_max(a->vmm_result, 4095, &v))
			return cli_usage_error(
				CMD,
				"bad --vmm-result '%s' (an errno "
				"number, 0 for success)",
				a->vmm_result);
		hvtlb_recorder_set_vmm_result(rec, -(int)v);
	}
	return 0;
}

static int build_request(const struct plan_args *a,
			 struct hvtlb_flush_request *req)
{
	struct parse_range range;
	uint64_t v;
	int rc;

	memset(req, 0, sizeof(*req));
	if (!a->strategy || !a->cpus || !a->targets || !a->range)
		return cli_usage_error(CMD, "missing %s (see --help)",
				       !a->strategy  ? "--strategy"
				       : !a->cpus    ? "--cpus"
				       : !a->targets ? "--targets"
						     : "--range");
	if (parse_u64_max(a->cpus, HVTLB_MAX_CPUS, &v) || v == 0)
		return cli_usage_error(CMD, "bad --cpus '%s' (1..%u)", a->cpus,
				       HVTLB_MAX_CPUS);
	req->ncpus = (uint32_t)v;
	if (a->initiator) {
		if (parse_u64(a->initiator, &v) || v >= req->ncpus)
			return cli_usage_error(CMD,
					       "bad --initiator '%s' (below "
					       "--cpus %u)",
					       a->initiator, req->ncpus);
		req->initiator = (uint32_t)v;
	}
	if ((rc = parse_cpu_list("targets", a->targets, req->ncpus,
				 &req->targets)))
		return rc;
	if ((rc = cli_range(CMD, "--range", a->range, true, &range)))
		return rc;
	req->range.stride_shift = 12;
	if (a->stride && parse_page_size(a->stride, &req->range.stride_shift))
		return cli_usage_error(CMD, "bad --stride '%s' (4k, 2m or 1g)",
				       a->stride);
	req->range.all = range.all;
	if (!range.all && parse_range_bytes(&range, req->range.stride_shift,
					    &req->range.start, &req->range.end))
		return cli_usage_error(CMD,
				       "--range '%s': the range wraps past "
				       "2^64",
				       a->range);
	req->range.include_global = a->global;
	if (a->address_space && parse_hex_u64(a->address_space, &v))
		return cli_usage_error(CMD, "bad --address-space '%s'",
				       a->address_space);
	req->address_space = a->address_space ? v : 0;
	req->freed_tables = a->freed_tables;
	if (hvtlb_request_validate(req))
		return cli_usage_error(CMD, "invalid request: --range end "
					    "rounds up past 2^64");
	return 0;
}

/* The knobs hvtlb_strategy_config_set() takes (core.h), for --set. */
static const char *const strategy_keys[] = {
	"concurrent", "early_ack",     "lazy_skip",	  "full_flush_ceiling",
	"xmm_fast",   "compact_vpset", "extended_ranges", "broadcast_max_pages",
	NULL,
};

static int build_config(const struct plan_args *a,
			struct hvtlb_strategy_config *cfg)
{
	enum hvtlb_strategy_kind kind;

	if (hvtlb_strategy_from_name(a->strategy, &kind)) {
		struct suggest s;
		char hint[96];

		suggest_init(&s, a->strategy);
		suggest_add_strategies(&s);
		return cli_usage_error(CMD, "unknown --strategy '%s'%s",
				       a->strategy,
				       suggest_hint(&s, hint, sizeof(hint)));
	}
	hvtlb_strategy_config_init(cfg, kind);
	for (unsigned i = 0; i < a->nsets; i++) {
		const char *eq = strchr(a->sets[i], '=');
		char key[64];
		size_t n = eq ? (size_t)(eq - a->sets[i]) : 0;
		int rc;

		if (!eq || n == 0 || n >= sizeof(key))
			return cli_usage_error(
				CMD, "bad --set '%s' (KEY=VALUE)", a->sets[i]);
		memcpy(key, a->sets[i], n);
		key[n] = '\0';
		rc = hvtlb_strategy_config_set(cfg, key, eq + 1);
		if (rc == -ENOENT)
			return cli_enum_error(CMD, "--set", "key", key,
					      strategy_keys);
		if (rc)
			return cli_usage_error(CMD, "bad --set value '%s'",
					       a->sets[i]);
	}
	return 0;
}

static void print_outcome(const struct hvtlb_strategy_config *cfg,
			  const struct hvtlb_flush_outcome *o, bool json)
{
	const char *fmt =
		json ? "\"strategy\":\"%s\",\"outcome\":{\"hypercalls\":%u,"
		       "\"ipis\":%u,\"deferred\":%u,\"fell_back\":%s,"
		       "\"full_flush\":%s,\"reuse_epoch\":%llu}"
		     : "outcome strategy=%s hypercalls=%u ipis=%u deferred=%u "
		       "fell_back=%s full_flush=%s reuse_epoch=%llu\n";

	printf(fmt, hvtlb_strategy_name(cfg->kind), o->hypercalls, o->ipis,
	       o->deferred,
	       o->fell_back ? (json ? "true" : "1") : (json ? "false" : "0"),
	       o->full_flush ? (json ? "true" : "1") : (json ? "false" : "0"),
	       (unsigned long long)o->reuse_epoch);
}

/* The recorder's {"actions":[...]} with the strategy and outcome added. */
static int print_json(const struct hvtlb_recorder *rec,
		      const struct hvtlb_strategy_config *cfg,
		      const struct hvtlb_flush_outcome *o)
{
	size_t len = 0;
	char *buf;

	hvtlb_recorder_render(rec, HVTLB_RENDER_JSON, NULL, 0, &len);
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	if (hvtlb_recorder_render(rec, HVTLB_RENDER_JSON, buf, len + 1, NULL) ||
	    len < 3 || buf[0] != '{') {
		free(buf);
		return -EIO;
	}
	/* The metadata after the opening brace; drop the closing "}\n" and
	 * add two members. */
	putchar('{');
	json_meta(stdout, PLAN_JSON_SCHEMA);
	putchar(',');
	fwrite(buf + 1, 1, len - 3, stdout);
	putchar(',');
	print_outcome(cfg, o, true);
	fputs("}\n", stdout);
	free(buf);
	return 0;
}

static int run_plan(int argc, char **argv)
{
	struct plan_args a = { 0 };
	struct hvtlb_flush_request req;
	struct hvtlb_strategy_config cfg;
	struct hvtlb_flush_outcome out;
	struct hvtlb_recorder *rec = NULL;
	struct hvtlb_flusher *f = NULL;
	int rc;

	rc = parse_args(argc, argv, &a);
	if (rc)
		return rc == 1 ? CLI_EXIT_OK : rc;
	if ((rc = build_request(&a, &req)) || (rc = build_config(&a, &cfg)))
		return rc;
	rec = hvtlb_recorder_create();
	if (!rec) {
		fprintf(stderr, "hvtlb plan: out of memory\n");
		return CLI_EXIT_FAIL;
	}
	if ((rc = setup_recorder(&a, req.ncpus, rec)))
		goto out;
	f = hvtlb_flusher_create(&cfg, hvtlb_recorder_ops(), rec);
	if (!f) {
		rc = cli_usage_error(CMD, "the --set values make no valid "
					  "strategy");
		goto out;
	}
	if (hvtlb_flush(f, &req, &out)) {
		rc = cli_usage_error(CMD, "invalid request");
		goto out;
	}
	if (a.json) {
		rc = print_json(rec, &cfg, &out) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	} else {
		rc = hvtlb_recorder_write(rec, HVTLB_RENDER_TEXT, stdout)
			     ? CLI_EXIT_FAIL
			     : CLI_EXIT_OK;
		print_outcome(&cfg, &out, false);
	}
	if (fflush(stdout))
		rc = CLI_EXIT_FAIL;
out:
	hvtlb_flusher_destroy(f);
	hvtlb_recorder_destroy(rec);
	return rc;
}

const struct cli_command cmd_plan = {
	.name = "plan",
	.summary = "run a flush request through a strategy, print the actions",
	.run = run_plan,
	.options = options,
	.operands = "",
};
