// SPDX-License-Identifier: MIT
/*
 * hvtlb calibrate: measures this host's virtualization costs on real vCPUs
 * with the KVM prototype (tools/kvm-vmm) and, with --out, writes them as a
 * cost profile whose other lines come from a base profile.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "datadir.h"

#ifdef HVTLB_HAVE_KVM
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "profile.h"
#include "stats.h"
#include "vmm.h"
#endif

static int run_calibrate(int argc, char **argv);

enum { OPT_OUT = 256, OPT_BASE, OPT_DEVICE, OPT_SAMPLES, OPT_VCPUS };

static const struct option options[] = {
	{ "out", required_argument, NULL, OPT_OUT },
	{ "base", required_argument, NULL, OPT_BASE },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "samples", required_argument, NULL, OPT_SAMPLES },
	{ "vcpus", required_argument, NULL, OPT_VCPUS },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

const struct cli_command cmd_calibrate = {
	.name = "calibrate",
	.summary = "measure this host's costs on KVM",
	.run = run_calibrate,
	.options = options,
	.operands = "",
};

static const char usage_text[] =
	"usage: hvtlb calibrate [--out FILE] [--base NAME|FILE] [--samples N]\n"
	"                       [--vcpus N] [--device PATH]\n"
	"\n"
	"Measures this host's virtualization costs on real vCPUs (a VM on\n"
	"/dev/kvm run by the prototype VMM) as distributions of TSC cycles:\n"
	"exit round trips, IPIs, waking a halted vCPU, the flush doorbell.\n"
	"With --out, writes a cost profile: each measured cost as its median\n"
	"with its p10..p90 range, every other line copied from the base\n"
	"profile (default kvm-2018). Use it with --set profile=FILE.\n"
	"\n"
	"  --samples N   samples per measurement (default 2000, min 20)\n"
	"  --vcpus N     VM size for the N-target doorbell (default: CPUs)\n"
	"vCPU i runs on CPU i when there are enough CPUs.\n"
	"  --device PATH the KVM device (default /dev/kvm)\n";

#ifndef HVTLB_HAVE_KVM
static int run_calibrate(int argc, char **argv)
{
	int c;

	while ((c = cli_getopt(&cmd_calibrate, argc, argv)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return CLI_EXIT_OK;
		}
		if (c == '?')
			return CLI_EXIT_USAGE;
	}
	return cli_usage_error("calibrate",
			       "this build has no KVM support (it needs "
			       "Linux on x86-64 with <linux/kvm.h>)");
}
#else

#define DEFAULT_BASE "kvm-2018"
#define DEFAULT_SAMPLES 2000u
#define IDLE_US 50u

enum row {
	ROW_CLOCK,
	ROW_KERNEL_EXIT,
	ROW_CPUID,
	ROW_USER_EXIT,
	ROW_SYSCALL,
	ROW_IPI_XAPIC,
	ROW_SEND_XAPIC,
	ROW_IPI_X2APIC,
	ROW_SEND_X2APIC,
	ROW_HALTED_NOPOLL,
	ROW_HALTED_POLL,
	ROW_DOORBELL_SELF,
	ROW_DOORBELL_1,
	ROW_DOORBELL_N,
	ROW_FLUSH_1,
	ROW_FLUSH_32,
	ROW_FLUSH_ALL,
	ROW_COUNT,
};

struct measurement {
	const char *what;
	uint32_t bench;
	bool x2apic;
	int64_t halt_poll_ns; /**< -1: the host's */
	uint32_t sample_div;  /**< samples / this (slow ones) */
	uint32_t pages;	      /**< FLUSH: pages, 0 = everything */
	/* filled in */
	bool done;
	uint32_t nvcpus, targets;
	struct kvmvmm_dist d;
};

static struct measurement rows[ROW_COUNT] = {
	[ROW_CLOCK] = { "clock: two TSC reads", KVMVMM_BENCH_TSC, true, -1, 1 },
	[ROW_KERNEL_EXIT] = { "kernel exit: IN from the in-kernel PIC",
			      KVMVMM_BENCH_KERNEL_EXIT, true, -1, 1 },
	[ROW_CPUID] = { "CPUID", KVMVMM_BENCH_CPUID, true, -1, 1 },
	[ROW_USER_EXIT] = { "user exit: OUT to the VMM", KVMVMM_BENCH_USER_EXIT,
			    true, -1, 1 },
	[ROW_SYSCALL] = { "guest syscall: user, kernel, user",
			  KVMVMM_BENCH_SYSCALL, true, -1, 1 },
	[ROW_IPI_XAPIC] = { "IPI round trip, xAPIC", KVMVMM_BENCH_IPI, false,
			    -1, 1 },
	[ROW_SEND_XAPIC] = { "IPI send (ICR write), xAPIC",
			     KVMVMM_BENCH_IPI_SEND, false, -1, 1 },
	[ROW_IPI_X2APIC] = { "IPI round trip, x2APIC", KVMVMM_BENCH_IPI, true,
			     -1, 1 },
	[ROW_SEND_X2APIC] = { "IPI send (ICR write), x2APIC",
			      KVMVMM_BENCH_IPI_SEND, true, -1, 1 },
	[ROW_HALTED_NOPOLL] = { "IPI to a halted vCPU, halt polling off",
				KVMVMM_BENCH_IPI_HALTED, true, 0, 4 },
	[ROW_HALTED_POLL] = { "IPI to a halted vCPU, host halt polling",
			      KVMVMM_BENCH_IPI_HALTED, true, -1, 4 },
	[ROW_DOORBELL_SELF] = { "flush doorbell, the caller only",
				KVMVMM_BENCH_DOORBELL, true, -1, 2 },
	[ROW_DOORBELL_1] = { "flush doorbell, 1 running target",
			     KVMVMM_BENCH_DOORBELL, true, -1, 2 },
	[ROW_DOORBELL_N] = { "flush doorbell, N running targets",
			     KVMVMM_BENCH_DOORBELL, true, -1, 2 },
	[ROW_FLUSH_1] = { "guest syscall + INVLPG of 1 page",
			  KVMVMM_BENCH_FLUSH, true, -1, 1, 1 },
	[ROW_FLUSH_32] = { "guest syscall + INVLPG of 32 pages",
			   KVMVMM_BENCH_FLUSH, true, -1, 2, 32 },
	[ROW_FLUSH_ALL] = { "guest syscall + CR3 reload", KVMVMM_BENCH_FLUSH,
			    true, -1, 1, 0 },
};

/* Where and when: "HOST (CPU model, kernel, date)". */
struct host_info {
	char host[65], cpu[128], kernel[160], date[16], backend[16];
	long cpus;
	uint64_t tsc_khz;
	long halt_poll_ns; /**< the host's module parameter, -1 unknown */
	double load;	   /**< 1-minute load average at the start */
};

/* With more runnable threads than CPUs a vCPU waits for one, and the
 * samples measure the host's scheduler more than KVM. */
static bool busy(const struct host_info *h)
{
	return h->load >= 0 && h->cpus > 0 && h->load > (double)h->cpus - 0.5;
}

static void read_first_line(const char *path, const char *prefix, char *out,
			    size_t size)
{
	char line[512];
	FILE *f = fopen(path, "r");
	size_t n = strlen(prefix);

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, prefix, n))
			continue;
		char *v = strchr(line + n, ':');

		if (!v)
			continue;
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		v[strcspn(v, "\n")] = '\0';
		snprintf(out, size, "%s", v);
		break;
	}
	fclose(f);
}

/* Drops "(R)"-style marks and what would read as separators in a
 * source (',', ';', parentheses), and squeezes the spaces. */
static void tidy(char *s)
{
	static const char *const marks[] = { "(R)", "(TM)", "(tm)" };
	char *r = s, *w = s;
	size_t i;

	while (*r) {
		for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
			if (!strncmp(r, marks[i], strlen(marks[i])))
				break;
		}
		if (i < sizeof(marks) / sizeof(marks[0])) {
			r += strlen(marks[i]);
			continue;
		}
		char c = strchr(";,()", *r) ? ' ' : *r;

		r++;
		if (c == ' ' && (w == s || w[-1] == ' '))
			continue;
		*w++ = c;
	}
	while (w > s && w[-1] == ' ')
		w--;
	*w = '\0';
}

static void host_info(struct host_info *h)
{
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;
	FILE *f;
	static const char *const backends[] = { "kvm_intel", "kvm_amd",
						"kvm_pvm" };
	size_t i;

	memset(h, 0, sizeof(*h));
	if (gethostname(h->host, sizeof(h->host) - 1) < 0 || !h->host[0])
		snprintf(h->host, sizeof(h->host), "unknown");
	snprintf(h->cpu, sizeof(h->cpu), "unknown CPU");
	read_first_line("/proc/cpuinfo", "model name", h->cpu, sizeof(h->cpu));
	snprintf(h->kernel, sizeof(h->kernel), "unknown kernel");
	if (uname(&u) == 0)
		snprintf(h->kernel, sizeof(h->kernel), "%s %s", u.sysname,
			 u.release);
	gmtime_r(&now, &tm);
	strftime(h->date, sizeof(h->date), "%Y-%m-%d", &tm);
	tidy(h->host);
	tidy(h->cpu);
	tidy(h->kernel);
	snprintf(h->backend, sizeof(h->backend), "unknown");
	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		char path[64];

		snprintf(path, sizeof(path), "/sys/module/%s", backends[i]);
		if (access(path, F_OK) == 0)
			snprintf(h->backend, sizeof(h->backend), "%s",
				 backends[i]);
	}
	h->cpus = sysconf(_SC_NPROCESSORS_ONLN);
	h->load = -1;
	f = fopen("/proc/loadavg", "r");
	if (f) {
		if (fscanf(f, "%lf", &h->load) != 1)
			h->load = -1;
		fclose(f);
	}
	h->halt_poll_ns = -1;
	f = fopen("/sys/module/kvm/parameters/halt_poll_ns", "r");
	if (f) {
		if (fscanf(f, "%ld", &h->halt_poll_ns) != 1)
			h->halt_poll_ns = -1;
		fclose(f);
	}
}

/* Runs one measurement; returns 0, 1 when the host cannot do it (an
 * x2APIC guest without x2APIC), or -errno. */
static int measure(struct measurement *m, uint32_t samples, const char *device,
		   uint64_t clock_cycles, uint64_t *tsc_khz)
{
	struct kvmvmm_config c = {
		.device = device,
		.nvcpus = m->nvcpus,
		.mode = KVMVMM_MODE_BENCH,
		.bench = m->bench,
		.rounds = samples / m->sample_div,
		.targets = m->targets,
		.pages = m->pages,
		.x2apic = m->x2apic,
		.decode_profile = HVTLB_PROFILE_KVM,
		.halt_poll_ns = m->halt_poll_ns,
		.idle_us = IDLE_US,
		.timeout_ms = 300000,
		.pin = true,
	};
	struct kvmvmm_result r;
	uint32_t i;
	int ret = kvmvmm_run(&c, &r);

	if (ret == 0 && r.guest_fail == KVMVMM_FAIL_NO_X2APIC) {
		free(r.samples);
		return 1;
	}
	if (ret == 0 && (r.guest_fail || r.nsamples != c.rounds))
		ret = -EPROTO;
	if (ret < 0) {
		free(r.samples);
		return ret;
	}
	/* The interval includes one read of the clock; take it out. */
	for (i = 0; i < r.nsamples; i++)
		r.samples[i] = r.samples[i] > clock_cycles
				       ? r.samples[i] - clock_cycles
				       : 0;
	kvmvmm_dist_compute(r.samples, r.nsamples, &m->d);
	m->done = true;
	if (r.tsc_khz)
		*tsc_khz = r.tsc_khz;
	free(r.samples);
	return 0;
}

static void print_row(const struct measurement *m, uint64_t khz)
{
	if (!m->done) {
		printf("%-44s  not measured on this host\n", m->what);
		return;
	}
	printf("%-44s %7zu %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64
	       " %9.2f\n",
	       m->what, m->d.n, m->d.p10, m->d.p50, m->d.p90, m->d.p99,
	       khz ? (double)m->d.p50 * 1000.0 / (double)khz : 0.0);
}

/* Source texts outlive the lines: one buffer per line. */
#define MAX_LINES 14
static char sources[MAX_LINES][1024];

static void add_measured(struct kvmvmm_profile_line *l, size_t *n,
			 const char *key, const struct measurement *m,
			 const char *what, const struct host_info *h)
{
	struct kvmvmm_profile_line *p = &l[*n];

	if (!m->done || *n >= MAX_LINES)
		return;
	snprintf(sources[*n], sizeof(sources[*n]),
		 "measured on %s (%s, %s, %s), %zu samples: %s, median TSC "
		 "cycles at %" PRIu64 " kHz, range p10..p90, KVM backend %s",
		 h->host, h->cpu, h->kernel, h->date, m->d.n, what, h->tsc_khz,
		 h->backend);
	p->key = key;
	p->value = m->d.p50;
	p->lo = m->d.p10;
	p->hi = m->d.p90 > m->d.p10 ? m->d.p90 : m->d.p10 + 1;
	p->source = sources[*n];
	(*n)++;
}

/* (@p a minus the median of @p b) / @p per, minus @p minus. */
static void add_derived(struct kvmvmm_profile_line *l, size_t *n,
			const char *key, const struct measurement *a,
			const struct measurement *b, uint32_t per,
			uint64_t minus, const char *what,
			const struct host_info *h)
{
	struct kvmvmm_profile_line *p = &l[*n];
	uint64_t base;

	if (!a->done || !b->done || *n >= MAX_LINES)
		return;
	/* A difference within the noise can come out negative: it is then
	 * written as 0, with the range from the spread of @p a. */
	base = b->d.p50 + minus * per;
	snprintf(sources[*n], sizeof(sources[*n]),
		 "measured on %s (%s, %s, %s), %zu samples: %s = median of "
		 "'%s' minus median of '%s' (%zu samples)%s%s, TSC cycles at "
		 "%" PRIu64 " kHz, range from the first one's p10..p90, KVM "
		 "backend %s",
		 h->host, h->cpu, h->kernel, h->date, a->d.n, what, a->what,
		 b->what, b->d.n, per > 1 ? ", divided by the count" : "",
		 minus ? ", minus flush_per_page" : "", h->tsc_khz, h->backend);
	p->key = key;
	p->value = a->d.p50 > base ? (a->d.p50 - base) / per : 0;
	p->lo = a->d.p10 > base ? (a->d.p10 - base) / per : 0;
	p->hi = a->d.p90 > base ? (a->d.p90 - base) / per : 0;
	if (p->hi <= p->lo)
		p->hi = p->lo + 1;
	if (p->value < p->lo)
		p->value = p->lo;
	p->source = sources[*n];
	(*n)++;
}

/* The guest kernel's own INVLPG and CR3 reload: what a local flush costs
 * a guest here (the emulated kernel of a PVM host, or a real one). */
static void add_flush_lines(struct kvmvmm_profile_line *l, size_t *n,
			    const struct host_info *h)
{
	size_t before = *n;
	uint64_t per_page;

	add_derived(l, n, "flush_per_page", &rows[ROW_FLUSH_32],
		    &rows[ROW_FLUSH_1], 31, 0,
		    "one more page of a local INVLPG flush", h);
	if (*n == before)
		return;
	per_page = l[before].value;
	add_derived(l, n, "flush_base", &rows[ROW_FLUSH_1], &rows[ROW_SYSCALL],
		    1, per_page, "a local INVLPG flush before its pages", h);
	add_derived(l, n, "flush_full", &rows[ROW_FLUSH_ALL],
		    &rows[ROW_SYSCALL], 1, 0,
		    "a local full flush: CR3 reload, refills not included", h);
}

static size_t profile_lines(struct kvmvmm_profile_line *l,
			    const struct host_info *h, uint32_t ntargets,
			    bool overcommitted)
{
	static char mhz_source[1024], poll_source[1024];
	size_t n = 0;

	snprintf(mhz_source, sizeof(mhz_source),
		 "exact: the guest TSC frequency KVM_GET_TSC_KHZ reports on "
		 "%s (%s, %s, %s), %" PRIu64
		 " kHz: every measured line here is in TSC cycles",
		 h->host, h->cpu, h->kernel, h->date, h->tsc_khz);
	l[n++] = (struct kvmvmm_profile_line){
		"cpu_mhz", (h->tsc_khz + 500) / 1000, (h->tsc_khz + 500) / 1000,
		(h->tsc_khz + 500) / 1000, mhz_source
	};
	add_measured(l, &n, "vmexit", &rows[ROW_KERNEL_EXIT],
		     "an exit KVM completes in the kernel: IN from the "
		     "in-kernel PIC in guest user mode",
		     h);
	add_measured(l, &n, "hypercall", &rows[ROW_USER_EXIT],
		     "the flush doorbell's transport: an OUT to the VMM and "
		     "back, guest user mode",
		     h);
	/* x2APIC where the guest has it, like the figures the shipped
	 * profiles cite; here its WRMSR needs a guest kernel entry (the
	 * test runs in user mode), which the figure includes. */
	if (rows[ROW_IPI_X2APIC].done && rows[ROW_SEND_X2APIC].done) {
		add_measured(l, &n, "ipi_send", &rows[ROW_SEND_X2APIC],
			     "one x2APIC ICR write (WRMSR) issued from guest "
			     "user mode through a guest kernel entry, until it "
			     "returns",
			     h);
		add_measured(l, &n, "ipi_latency", &rows[ROW_IPI_X2APIC],
			     "x2APIC IPI from guest user mode until the "
			     "target's handler acknowledged, target spinning",
			     h);
	} else {
		add_measured(l, &n, "ipi_send", &rows[ROW_SEND_XAPIC],
			     "one xAPIC ICR write from guest user mode, until "
			     "it returns",
			     h);
		add_measured(
			l, &n, "ipi_latency", &rows[ROW_IPI_XAPIC],
			"xAPIC IPI from guest user mode until the target's "
			"handler acknowledged, target spinning",
			h);
	}
	add_derived(l, &n, "halt_wake", &rows[ROW_HALTED_NOPOLL],
		    &rows[ROW_IPI_X2APIC], 1, 0,
		    "waking a vCPU halted for 50 us, halt polling off", h);
	add_derived(l, &n, "kick", &rows[ROW_DOORBELL_1], &rows[ROW_USER_EXIT],
		    1, 0,
		    "kicking a running target out of the guest and servicing "
		    "it",
		    h);
	if (ntargets >= 2 && !overcommitted)
		add_derived(l, &n, "hv_per_target", &rows[ROW_DOORBELL_N],
			    &rows[ROW_DOORBELL_1], ntargets - 1, 0,
			    "host work per additional running target", h);
	add_flush_lines(l, &n, h);
	if (h->halt_poll_ns >= 0 && n < MAX_LINES) {
		snprintf(poll_source, sizeof(poll_source),
			 "exact: read on %s (%s, %s, %s): "
			 "/sys/module/kvm/parameters/halt_poll_ns = %ld",
			 h->host, h->cpu, h->kernel, h->date, h->halt_poll_ns);
		l[n++] = (struct kvmvmm_profile_line){
			"halt_poll_us", (uint64_t)h->halt_poll_ns / 1000,
			(uint64_t)h->halt_poll_ns / 1000,
			(uint64_t)h->halt_poll_ns / 1000, poll_source
		};
	}
	return n;
}

/* The base profile: a path as given, or the shipped profile NAME. */
static FILE *open_base(const char *name, char *path, size_t size)
{
	size_t n = strlen(name);
	char *found, *dir;
	FILE *f;

	if (strchr(name, '/') || (n > 4 && !strcmp(name + n - 4, ".ini"))) {
		snprintf(path, size, "%s", name);
		return fopen(name, "r");
	}
	found = datadir_find("profiles", name);
	if (!found) {
		dir = datadir_path("profiles");
		snprintf(path, size, "%s/%s.ini", dir ? dir : "profiles", name);
		free(dir);
		errno = ENOENT;
		return NULL;
	}
	snprintf(path, size, "%s", found);
	f = fopen(found, "r");
	free(found);
	return f;
}

static int write_profile(const char *out, FILE *base, const char *base_path,
			 const struct host_info *h, uint32_t samples)
{
	struct kvmvmm_profile_line lines[MAX_LINES];
	char header[8192], tmp[4200];
	uint32_t ntargets =
		rows[ROW_DOORBELL_N].done ? rows[ROW_DOORBELL_N].targets : 1;
	bool over = rows[ROW_DOORBELL_N].nvcpus > (uint32_t)h->cpus;
	size_t n = profile_lines(lines, h, ntargets, over);
	char busy_note[96] = "";
	FILE *f;
	int ret;

	if (busy(h))
		snprintf(busy_note, sizeof(busy_note),
			 ",\n#   on a busy host: load average %.1f on %ld CPUs",
			 h->load, h->cpus);
	snprintf(header, sizeof(header),
		 "# Calibrated by 'hvtlb calibrate' on\n"
		 "#   %s (%s, %s, %s),\n"
		 "#   KVM backend %s, up to %u samples per measurement%s.\n"
		 "# The lines that say \"measured on\" are this host's; every "
		 "other line\n"
		 "# is copied from %s.\n"
		 "# Nested or software virtualization makes the measured "
		 "figures much\n"
		 "# higher than on a bare-metal VMX/SVM host.\n",
		 h->host, h->cpu, h->kernel, h->date, h->backend, samples,
		 busy_note, base_path);
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", out) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	ret = kvmvmm_profile_write(f, base, header, lines, n);
	if (fclose(f) != 0 && ret == 0)
		ret = -EIO;
	if (ret == 0 && rename(tmp, out) < 0)
		ret = -errno;
	if (ret < 0)
		remove(tmp);
	return ret;
}

static int parse_count(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* The command line. */
struct calibrate_opts {
	const char *out, *base_name, *device;
	uint32_t samples, vcpus; /**< vcpus 0: as many as CPUs */
};

/* Returns 0, 1 after --help, or 2 (message printed). */
static int parse_args(int argc, char **argv, struct calibrate_opts *o)
{
	bool seen_out = false, seen_base = false;
	int c;

	while ((c = cli_getopt(&cmd_calibrate, argc, argv)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage_text, stdout);
			return 1;
		case OPT_OUT:
			if (cli_once("calibrate", &seen_out, "--out"))
				return CLI_EXIT_USAGE;
			o->out = optarg;
			break;
		case OPT_BASE:
			if (cli_once("calibrate", &seen_base, "--base"))
				return CLI_EXIT_USAGE;
			o->base_name = optarg;
			break;
		case OPT_DEVICE:
			o->device = optarg;
			break;
		case OPT_SAMPLES:
			if (parse_count(optarg, 20, KVMVMM_MAX_SAMPLES,
					&o->samples) < 0)
				return cli_usage_error("calibrate",
						       "bad --samples '%s'",
						       optarg);
			break;
		case OPT_VCPUS:
			if (parse_count(optarg, 2, KVMVMM_MAX_VCPUS,
					&o->vcpus) < 0)
				return cli_usage_error("calibrate",
						       "bad --vcpus '%s'",
						       optarg);
			break;
		default:
			return CLI_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error("calibrate", "unexpected argument '%s'",
				       argv[optind]);
	return 0;
}

/* Every row, in order: the clock first, as the others take its median
 * out. The N-target doorbell needs a VM of at least 3 vCPUs. Returns 0
 * or -errno (message printed). */
static int measure_all(const struct calibrate_opts *o, uint32_t vcpus,
		       struct host_info *h)
{
	size_t i;
	int ret;

	for (i = 0; i < ROW_COUNT; i++) {
		struct measurement *m = &rows[i];

		m->nvcpus = 2;
		m->targets = 0;
		if (i == ROW_DOORBELL_1)
			m->targets = 1;
		if (i == ROW_DOORBELL_N) {
			if (vcpus < 3)
				continue;
			m->nvcpus = vcpus;
			m->targets = vcpus - 1;
		}
		ret = measure(m, o->samples, o->device,
			      i == ROW_CLOCK ? 0 : rows[ROW_CLOCK].d.p50,
			      &h->tsc_khz);
		if (ret < 0) {
			fprintf(stderr, "hvtlb calibrate: %s: %s\n", m->what,
				strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* The host, what the figures are, and the table of every row measured. */
static void print_results(const struct host_info *h, uint32_t vcpus)
{
	size_t i;

	printf("hvtlb calibrate: %s (%s, %s), KVM backend %s, TSC %" PRIu64
	       " kHz, %ld CPUs\n",
	       h->host, h->cpu, h->kernel, h->backend, h->tsc_khz, h->cpus);
	printf("TSC cycles in guest user mode, the clock's own %" PRIu64
	       " cycles taken out.\n",
	       rows[ROW_CLOCK].d.p50);
	if (busy(h))
		printf("warning: load average %.1f on %ld CPUs: the figures "
		       "include waiting for a CPU; calibrate on a quiet "
		       "host.\n",
		       h->load, h->cpus);
	if (rows[ROW_DOORBELL_N].done)
		printf("N = %u targets on %u vCPUs%s.\n",
		       rows[ROW_DOORBELL_N].targets,
		       rows[ROW_DOORBELL_N].nvcpus,
		       rows[ROW_DOORBELL_N].nvcpus > (uint32_t)h->cpus
			       ? " (more vCPUs than CPUs: host scheduling "
				 "included)"
			       : "");
	printf("%-44s %7s %9s %9s %9s %9s %9s\n", "measurement", "samples",
	       "p10", "p50", "p90", "p99", "p50 us");
	for (i = 0; i < ROW_COUNT; i++) {
		if (i != ROW_DOORBELL_N || vcpus >= 3)
			print_row(&rows[i], h->tsc_khz);
	}
}

static int run_calibrate(int argc, char **argv)
{
	struct calibrate_opts o = { .base_name = DEFAULT_BASE,
				    .samples = DEFAULT_SAMPLES };
	uint32_t vcpus;
	char base_path[4096];
	struct host_info h;
	FILE *base = NULL;
	int ret;

	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret == 1 ? CLI_EXIT_OK : ret;
	ret = kvmvmm_probe(o.device);
	if (ret < 0)
		return cli_usage_error(
			"calibrate", "%s: %s (calibrate measures on KVM)",
			o.device ? o.device : "/dev/kvm", strerror(-ret));
	if (o.out) {
		base = open_base(o.base_name, base_path, sizeof(base_path));
		if (!base)
			return cli_usage_error("calibrate",
					       "base profile %s: %s", base_path,
					       strerror(errno));
	}
	host_info(&h);
	vcpus = o.vcpus;
	if (!vcpus)
		vcpus = h.cpus < 2		    ? 2
			: h.cpus > KVMVMM_MAX_VCPUS ? KVMVMM_MAX_VCPUS
						    : (uint32_t)h.cpus;
	if (measure_all(&o, vcpus, &h) < 0) {
		if (base)
			fclose(base);
		return CLI_EXIT_FAIL;
	}
	print_results(&h, vcpus);
	if (!o.out)
		return CLI_EXIT_OK;
	ret = write_profile(o.out, base, base_path, &h, o.samples);
	fclose(base);
	if (ret < 0) {
		fprintf(stderr, "hvtlb calibrate: %s: %s\n", o.out,
			strerror(-ret));
		return CLI_EXIT_FAIL;
	}
	printf("wrote %s (base %s)\n", o.out, base_path);
	return CLI_EXIT_OK;
}
#endif
