// SPDX-License-Identifier: MIT
/*
 * hvtlb-kvm: run the prototype VMM by hand.
 *
 *   hvtlb-kvm stale [OPTIONS]       remap + flush rounds, count stale reads
 *   hvtlb-kvm bench KIND [OPTIONS]  one measurement, as a distribution
 *
 * Exit status: 0 done, 1 the run failed (or --expect-stale did not hold),
 * 2 a bad command line or no usable /dev/kvm.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "vmm.h"

static const char usage_text[] =
	"usage: hvtlb-kvm stale [--strategy ipi|hypercall|none] [--rounds N]\n"
	"                 [--fault no-wait|drop-target] "
	"[--deschedule-every N]\n"
	"                 [--deschedule-us US] [--expect-stale none|some]\n"
	"       hvtlb-kvm bench tsc|cpuid|kernel-exit|user-exit|syscall|ipi|\n"
	"                 ipi-send|ipi-halted|doorbell|flush\n"
	"                 [--samples N] [--targets N] [--pages N] "
	"[--halt-poll-ns N] "
	"[--idle-us US]\n"
	"common options:  [--vcpus N] [--xapic] [--no-pin] [--profile "
	"strict|kvm|xen|openvmm]\n"
	"                 [--yield-us US] [--device PATH] "
	"[--samples-out FILE]\n"
	"       hvtlb-kvm --help\n"
	"\n"
	"Runs a small VM on /dev/kvm whose guest flushes TLBs through the\n"
	"hypervisor this program implements with libhvtlb (Linux, x86-64).\n"
	"stale: the guest's flush protocol under test; a target read through\n"
	"a translation the flush should have removed counts as stale, and\n"
	"--expect-stale says how many the run must see (exit 1 otherwise).\n"
	"bench KIND: one measurement of this host (the figures hvtlb\n"
	"calibrate turns into a cost profile), printed as percentiles.\n"
	"Exit: 0 done; 1 --expect-stale not met or a run failed; 2 a bad\n"
	"command line or no usable /dev/kvm.\n";

static const struct {
	const char *name;
	uint32_t bench;
} benches[] = {
	{ "tsc", KVMVMM_BENCH_TSC },
	{ "cpuid", KVMVMM_BENCH_CPUID },
	{ "kernel-exit", KVMVMM_BENCH_KERNEL_EXIT },
	{ "user-exit", KVMVMM_BENCH_USER_EXIT },
	{ "syscall", KVMVMM_BENCH_SYSCALL },
	{ "ipi", KVMVMM_BENCH_IPI },
	{ "ipi-send", KVMVMM_BENCH_IPI_SEND },
	{ "ipi-halted", KVMVMM_BENCH_IPI_HALTED },
	{ "doorbell", KVMVMM_BENCH_DOORBELL },
	{ "flush", KVMVMM_BENCH_FLUSH },
};

static int usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "hvtlb-kvm: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%s", usage_text);
	return 2;
}

static int parse_u32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > UINT32_MAX || s[0] == '-')
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static void print_dist(const char *what, uint64_t *s, size_t n, uint64_t khz)
{
	struct kvmvmm_dist d;
	double us = khz ? 1000.0 / (double)khz : 0;

	kvmvmm_dist_compute(s, n, &d);
	printf("%s: %zu samples, TSC cycles p10 %" PRIu64 " p50 %" PRIu64
	       " p90 %" PRIu64 " p99 %" PRIu64 " max %" PRIu64 "\n",
	       what, d.n, d.p10, d.p50, d.p90, d.p99, d.max);
	if (khz)
		printf("%s: us p10 %.2f p50 %.2f p90 %.2f p99 %.2f "
		       "(TSC %" PRIu64 " kHz)\n",
		       what, (double)d.p10 * us, (double)d.p50 * us,
		       (double)d.p90 * us, (double)d.p99 * us, khz);
}

static int write_samples(const char *path, const struct kvmvmm_result *r)
{
	FILE *f = fopen(path, "w");
	uint32_t i;

	if (!f) {
		fprintf(stderr, "hvtlb-kvm: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < r->nsamples; i++)
		fprintf(f, "%" PRIu64 "\n", r->samples[i]);
	return fclose(f) ? -1 : 0;
}

/* What the command line asks for besides the VMM's configuration. */
struct cli {
	const char *expect;	 /* --expect-stale none|some, or NULL */
	const char *samples_out; /* --samples-out FILE, or NULL */
	const char *what;	 /* the distribution's name */
};

enum {
	OPT_STRATEGY = 256,
	OPT_FAULT,
	OPT_PROFILE,
	OPT_EXPECT,
	OPT_DEVICE,
	OPT_SAMPLES_OUT,
	OPT_HALT_POLL,
	OPT_VCPUS,
	OPT_ROUNDS,
	OPT_TARGETS,
	OPT_PAGES,
	OPT_DESCHED_EVERY,
	OPT_DESCHED_US,
	OPT_IDLE_US,
	OPT_YIELD_US,
	OPT_XAPIC,
	OPT_NO_PIN,
};

static const struct option options[] = {
	{ "strategy", required_argument, NULL, OPT_STRATEGY },
	{ "fault", required_argument, NULL, OPT_FAULT },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "expect-stale", required_argument, NULL, OPT_EXPECT },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "samples-out", required_argument, NULL, OPT_SAMPLES_OUT },
	{ "halt-poll-ns", required_argument, NULL, OPT_HALT_POLL },
	{ "vcpus", required_argument, NULL, OPT_VCPUS },
	{ "rounds", required_argument, NULL, OPT_ROUNDS },
	{ "samples", required_argument, NULL, OPT_ROUNDS },
	{ "targets", required_argument, NULL, OPT_TARGETS },
	{ "pages", required_argument, NULL, OPT_PAGES },
	{ "deschedule-every", required_argument, NULL, OPT_DESCHED_EVERY },
	{ "deschedule-us", required_argument, NULL, OPT_DESCHED_US },
	{ "idle-us", required_argument, NULL, OPT_IDLE_US },
	{ "yield-us", required_argument, NULL, OPT_YIELD_US },
	{ "xapic", no_argument, NULL, OPT_XAPIC },
	{ "no-pin", no_argument, NULL, OPT_NO_PIN },
	{ NULL, 0, NULL, 0 },
};

/* The command (stale, or bench KIND) in argv[1..]; returns the index of
 * the first option, 0 after printing the help (--help, -h), or -1 after
 * printing the error. */
static int parse_command(int argc, char **argv, struct kvmvmm_config *c,
			 struct cli *o)
{
	if (argc < 2)
		return usage("a command is needed", ""), -1;
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "stale")) {
		c->mode = KVMVMM_MODE_STALE;
		c->strategy = KVMVMM_STRATEGY_HYPERCALL;
		o->what = "flush";
		return 2;
	}
	if (!strcmp(argv[1], "bench") && argc > 2) {
		c->mode = KVMVMM_MODE_BENCH;
		for (size_t b = 0; b < sizeof(benches) / sizeof(benches[0]);
		     b++) {
			if (!strcmp(argv[2], benches[b].name))
				c->bench = benches[b].bench;
		}
		if (!c->bench)
			return usage("unknown measurement '%s'", argv[2]), -1;
		o->what = argv[2];
		return 3;
	}
	return usage("unknown command '%s'", argv[1]), -1;
}

/* One option with its value @p v; 0, or 2 after printing the error. */
static int parse_option(int opt, const char *v, struct kvmvmm_config *c,
			struct cli *o)
{
	uint32_t u = 0;

	switch (opt) {
	case OPT_XAPIC:
		c->x2apic = false;
		return 0;
	case OPT_NO_PIN:
		c->pin = false;
		return 0;
	case OPT_STRATEGY:
		if (!strcmp(v, "ipi"))
			c->strategy = KVMVMM_STRATEGY_IPI;
		else if (!strcmp(v, "hypercall"))
			c->strategy = KVMVMM_STRATEGY_HYPERCALL;
		else if (!strcmp(v, "none"))
			c->strategy = KVMVMM_STRATEGY_NONE;
		else
			return usage("unknown strategy '%s'", v);
		return 0;
	case OPT_FAULT:
		if (!strcmp(v, "no-wait"))
			c->faults |= KVMVMM_FAULT_NO_WAIT;
		else if (!strcmp(v, "drop-target"))
			c->faults |= KVMVMM_FAULT_DROP_TARGET;
		else
			return usage("unknown fault '%s'", v);
		return 0;
	case OPT_PROFILE:
		if (hvtlb_profile_from_name(v, &c->decode_profile) < 0)
			return usage("unknown profile '%s'", v);
		return 0;
	case OPT_EXPECT:
		if (strcmp(v, "none") && strcmp(v, "some"))
			return usage("--expect-stale takes none or some, not "
				     "'%s'",
				     v);
		o->expect = v;
		return 0;
	case OPT_DEVICE:
		c->device = v;
		return 0;
	case OPT_SAMPLES_OUT:
		o->samples_out = v;
		return 0;
	}
	if (parse_u32(v, &u) < 0)
		return usage("bad value '%s'", v);
	switch (opt) {
	case OPT_HALT_POLL:
		c->halt_poll_ns = u;
		break;
	case OPT_VCPUS:
		c->nvcpus = u;
		break;
	case OPT_ROUNDS:
		c->rounds = u;
		break;
	case OPT_TARGETS:
		c->targets = u;
		break;
	case OPT_PAGES:
		c->pages = u;
		break;
	case OPT_DESCHED_EVERY:
		c->deschedule_every = u;
		break;
	case OPT_DESCHED_US:
		c->deschedule_us = u;
		break;
	case OPT_IDLE_US:
		c->idle_us = u;
		break;
	case OPT_YIELD_US:
		c->yield_us = u;
		break;
	}
	return 0;
}

/* 0, or 2 after printing the error. */
static int parse_args(int argc, char **argv, struct kvmvmm_config *c,
		      struct cli *o)
{
	int first = parse_command(argc, argv, c, o), opt;

	if (first <= 0)
		return first < 0 ? 2 : -1; /* -1: --help, done */
	/* getopt_long from the first option on, with its own argv[0]. */
	argc -= first - 1;
	argv += first - 1;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (opt == '?')
			return usage(optopt ? "%s needs a value"
					    : "unknown option '%s'",
				     argv[optind - 1]);
		if (parse_option(opt, optarg, c, o))
			return 2;
	}
	if (optind < argc)
		return usage("unexpected argument '%s'", argv[optind]);
	if (c->deschedule_every && !c->deschedule_us)
		c->deschedule_us = 200;
	return 0;
}

/* The stale-read count of a stale run; 1 when --expect-stale fails. */
static int report_stale(const struct kvmvmm_config *c,
			const struct kvmvmm_result *r, const char *expect)
{
	uint64_t reads = r->stale_reads + r->fresh_reads;

	printf("stale: %" PRIu64 " of %" PRIu64
	       " target reads after a completed flush (%.3f%%)\n",
	       r->stale_reads, reads,
	       reads ? 100.0 * (double)r->stale_reads / (double)reads : 0.0);
	if (r->stale_reads) {
		printf("stale reads by target:");
		for (uint32_t v = 1; v < (c->nvcpus ? c->nvcpus : 2); v++)
			printf(" vCPU %u: %" PRIu64, v, r->stale_by_vcpu[v]);
		printf("\n");
	}
	if (expect && !strcmp(expect, "none") && r->stale_reads)
		return 1;
	if (expect && !strcmp(expect, "some") && !r->stale_reads)
		return 1;
	return 0;
}

static void report_vmm(const struct kvmvmm_result *r)
{
	printf("vmm: %" PRIu64 " exits, %" PRIu64 " hypercalls, %" PRIu64
	       " kicks, %" PRIu64 " kick exits, %" PRIu64 " services (%" PRIu64
	       " deferred), %" PRIu64 " timeouts, %" PRIu64
	       " dropped targets, %" PRIu64 " yields\n",
	       r->stats.exits, r->stats.hypercalls, r->stats.kicks,
	       r->stats.kick_exits, r->stats.services, r->stats.deferred,
	       r->stats.timeouts, r->stats.dropped_targets, r->stats.yields);
	if (r->stats.hypercalls)
		printf("vmm per doorbell: %.2f us copying and decoding, %.2f "
		       "us posting and waiting\n",
		       (double)r->stats.decode_ns / 1000.0 /
			       (double)r->stats.hypercalls,
		       (double)r->stats.post_ns / 1000.0 /
			       (double)r->stats.hypercalls);
}

int main(int argc, char **argv)
{
	struct kvmvmm_config c = { .halt_poll_ns = -1,
				   .decode_profile = HVTLB_PROFILE_KVM,
				   .x2apic = true,
				   .pin = true };
	struct kvmvmm_result r;
	struct cli o = { 0 };
	int ret, status = 0;

	ret = parse_args(argc, argv, &c, &o);
	if (ret)
		return ret < 0 ? 0 : 2;
	ret = kvmvmm_probe(c.device);
	if (ret < 0) {
		fprintf(stderr, "hvtlb-kvm: %s: %s\n",
			c.device ? c.device : "/dev/kvm", strerror(-ret));
		return 2;
	}
	ret = kvmvmm_run(&c, &r);
	if (ret == -EINVAL) {
		free(r.samples);
		return usage("the options do not fit together%s", "");
	}
	if (ret < 0 || r.guest_fail) {
		fprintf(stderr,
			"hvtlb-kvm: the run failed (%s, guest code %u, "
			"status 0x%" PRIx64 ")\n",
			ret < 0 ? strerror(-ret) : "VMM ok", r.guest_fail,
			r.failed_status);
		status = 1;
	}
	if (c.mode == KVMVMM_MODE_STALE && report_stale(&c, &r, o.expect))
		status = 1;
	/* Before print_dist(), which sorts them. */
	if (o.samples_out && r.nsamples && write_samples(o.samples_out, &r) < 0)
		status = 1;
	print_dist(o.what, r.samples, r.nsamples, r.tsc_khz);
	report_vmm(&r);
	free(r.samples);
	return status;
}
