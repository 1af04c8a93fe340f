// SPDX-License-Identifier: MIT
/*
 * hvtlb record -o FILE [-d FILE.dat] -- COMMAND [ARGS...]: records the
 * kernel events `hvtlb replay` reads (src/replay) while COMMAND runs, as
 * scripts/record-trace.sh does: through tracefs directly, in a private
 * instance (instances/hvtlb-PID) so that the global buffer, its events,
 * options and pid filter stay as other users left them; the instance is
 * removed at the end, after an error or Ctrl-C too.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_RDTSC 1
#endif

#ifdef HVTLB_HAVE_ZLIB
#include <zlib.h>
#endif

#include "cli.h"

static const char usage_text[] =
	"usage: hvtlb record -o FILE [-d FILE.dat] [-b KB] [-c CLOCK] "
	"-- COMMAND [ARGS...]\n"
	"\n"
	"Runs COMMAND and records the kernel events hvtlb replay reads\n"
	"(TLB flushes, IPIs, scheduler switches and wake-ups, mmap_lock,\n"
	"the munmap/madvise/mprotect/mmap syscalls) raised while a task of\n"
	"COMMAND, its threads or its children runs, into FILE as the\n"
	"tracefs text (gzipped when FILE ends in .gz). Needs root and\n"
	"tracefs (/sys/kernel/tracing, else /sys/kernel/debug/tracing, or\n"
	"$HVTLB_TRACEFS). Exits with COMMAND's status.\n"
	"  -o FILE     where the trace goes (required)\n"
	"  -d FILE     also the same events as trace-cmd's trace.dat\n"
	"              (runs trace-cmd extract; needs trace-cmd)\n"
	"  -b KB       ring buffer per CPU in KiB (default 8192)\n"
	"  -c CLOCK    trace clock (default local)\n";

static const struct option options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "dat", required_argument, NULL, 'd' },
	{ "buffer-kb", required_argument, NULL, 'b' },
	{ "clock", required_argument, NULL, 'c' },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* What hvtlb replay reads: the list of scripts/record-trace.sh. */
static const char *const events[] = {
	"tlb:tlb_flush",
	"ipi:ipi_send_cpumask",
	"ipi:ipi_send_cpu",
	"csd:csd_queue_cpu",
	"csd:csd_function_entry",
	"csd:csd_function_exit",
	"irq_vectors:call_function_entry",
	"irq_vectors:call_function_exit",
	"irq_vectors:call_function_single_entry",
	"irq_vectors:call_function_single_exit",
	"sched:sched_switch",
	"sched:sched_wakeup",
	"mmap_lock:mmap_lock_start_locking",
	"mmap_lock:mmap_lock_acquire_returned",
	"mmap_lock:mmap_lock_released",
	"syscalls:sys_enter_munmap",
	"syscalls:sys_exit_munmap",
	"syscalls:sys_enter_madvise",
	"syscalls:sys_exit_madvise",
	"syscalls:sys_enter_mprotect",
	"syscalls:sys_exit_mprotect",
	"syscalls:sys_enter_mmap",
	"syscalls:sys_exit_mmap",
	NULL,
};

struct record_opts {
	const char *out, *dat, *clock;
	uint64_t kb;
	bool seen_b, seen_c;
};

/*
 * The rate of the x86-tsc trace clock, which its text does not say:
 * the TSC against CLOCK_MONOTONIC_RAW over the whole recording (at least
 * 50 ms), written as the "# hvtlb-clock-mhz:" line the reader converts
 * the counts with (docs/replay.md).
 */
struct tsc_rate {
	bool on;
	uint64_t tsc0;
	struct timespec t0;
};

static void tsc_start(struct tsc_rate *r, const char *clock)
{
#ifdef HAVE_RDTSC
	r->on = !strcmp(clock, "x86-tsc");
	if (r->on) {
		clock_gettime(CLOCK_MONOTONIC_RAW, &r->t0);
		r->tsc0 = __rdtsc();
	}
#else
	(void)clock;
	r->on = false;
#endif
}

/* Writes "# hvtlb-clock-mhz: F\n" into @p line, or "" without a rate. */
static void tsc_line(const struct tsc_rate *r, char *line, size_t len)
{
	line[0] = 0;
#ifdef HAVE_RDTSC
	if (r->on) {
		struct timespec t1, rest = { 0, 0 };
		uint64_t tsc1;
		double ns;

		clock_gettime(CLOCK_MONOTONIC_RAW, &t1);
		ns = (double)(t1.tv_sec - r->t0.tv_sec) * 1e9 +
		     (double)(t1.tv_nsec - r->t0.tv_nsec);
		if (ns < 5e7) { /* a short command: sleep, not spin, to 50 ms */
			rest.tv_nsec = (long)(5e7 - ns);
			nanosleep(&rest, NULL);
		}
		clock_gettime(CLOCK_MONOTONIC_RAW, &t1);
		tsc1 = __rdtsc();
		ns = (double)(t1.tv_sec - r->t0.tv_sec) * 1e9 +
		     (double)(t1.tv_nsec - r->t0.tv_nsec);
		snprintf(line, len, "# hvtlb-clock-mhz: %.3f\n",
			 (double)(tsc1 - r->tsc0) * 1e3 / ns);
	}
#else
	(void)r;
	(void)len;
#endif
}

/* The instance being recorded into, for the cleanup; empty when none. */
static char inst[4096];
static volatile sig_atomic_t interrupted;
static volatile pid_t child_pid;

static int take(void *ctx, int c, const char *v)
{
	struct record_opts *o = ctx;

	switch (c) {
	case 'o':
		return cli_once_str("record", &o->out, "-o", v);
	case 'd':
		return cli_once_str("record", &o->dat, "-d", v);
	case 'b':
		if (cli_once("record", &o->seen_b, "-b"))
			return CLI_EXIT_USAGE;
		return cli_u64("record", "-b", v, 4, 1u << 22, &o->kb);
	case 'c':
		o->clock = v;
		return cli_once("record", &o->seen_c, "-c");
	}
	return CLI_EXIT_USAGE;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* The tracefs mount: $HVTLB_TRACEFS, else the usual two places. */
static const char *find_tracefs(void)
{
	static const char *const places[] = { "/sys/kernel/tracing",
					      "/sys/kernel/debug/tracing" };
	const char *env = getenv("HVTLB_TRACEFS");
	char p[4096];

	if (env && *env) {
		snprintf(p, sizeof(p), "%s/instances", env);
		return is_dir(p) ? env : NULL;
	}
	for (size_t i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/instances", places[i]);
		if (is_dir(p))
			return places[i];
	}
	return NULL;
}

/* Writes @p text to file @p name of the instance (appended with
 * @p append). Returns 0, or prints one line and returns -errno. */
static int put(const char *name, const char *text, bool append)
{
	char p[4200];
	int fd, err = 0;
	size_t len = strlen(text);

	snprintf(p, sizeof(p), "%s/%s", inst, name);
	errno = 0;
	fd = open(p, O_WRONLY | (append ? O_APPEND : O_TRUNC));
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		err = errno ? errno : EIO;
	if (fd >= 0 && close(fd) && !err)
		err = errno;
	if (err == EINVAL)
		fprintf(stderr,
			"hvtlb record: cannot write %s: the kernel refused "
			"'%s'\n",
			p, text);
	else if (err)
		fprintf(stderr,
			"hvtlb record: cannot write %s: %s (needs root and "
			"tracefs)\n",
			p, strerror(err));
	return -err;
}

/* Tracing off, no events, the instance removed (which drops its buffer,
 * options and pid filter). Safe to call twice. */
static void cleanup(void)
{
	char p[4200];
	int fd;

	if (!inst[0])
		return;
	snprintf(p, sizeof(p), "%s/tracing_on", inst);
	fd = open(p, O_WRONLY);
	if (fd >= 0) {
		(void)!write(fd, "0", 1);
		close(fd);
	}
	snprintf(p, sizeof(p), "%s/set_event", inst);
	fd = open(p, O_WRONLY | O_TRUNC);
	if (fd >= 0)
		close(fd);
	if (rmdir(inst) && errno != ENOENT)
		fprintf(stderr, "hvtlb record: cannot remove %s: %s\n", inst,
			strerror(errno));
	inst[0] = '\0';
}

static void on_signal(int sig)
{
	interrupted = 1;
	/* COMMAND gets it too when it was not sent to its group */
	if (child_pid > 0)
		kill(child_pid, sig);
}

/* The instance with its buffer, clock and events; returns 0 or -errno
 * (printed). */
static int setup(const char *tracefs, const struct record_opts *o)
{
	char buf[64], p[4200];

	snprintf(inst, sizeof(inst), "%s/instances/hvtlb-%ld", tracefs,
		 (long)getpid());
	if (mkdir(inst, 0755)) {
		int err = errno;

		fprintf(stderr,
			"hvtlb record: cannot create %s: %s (needs root and "
			"tracefs)\n",
			inst, strerror(err));
		inst[0] = '\0';
		return -err;
	}
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)o->kb);
	if (put("tracing_on", "0", false) ||
	    put("buffer_size_kb", buf, false) ||
	    put("trace_clock", o->clock, false))
		return -EIO;
	for (size_t i = 0; events[i]; i++) {
		const char *colon = strchr(events[i], ':');

		snprintf(p, sizeof(p), "%s/events/%.*s/%s", inst,
			 (int)(colon - events[i]), events[i], colon + 1);
		if (!is_dir(p)) {
			fprintf(stderr,
				"hvtlb record: this kernel has no %s; left "
				"out\n",
				events[i]);
			continue;
		}
		if (put("set_event", events[i], true))
			return -EIO;
	}
	/* new threads and children of a listed task join the list */
	return put("options/event-fork", "1", false) ? -EIO : 0;
}

/* Forks COMMAND held on a pipe until its pid is the filter and tracing
 * is on. Returns its exit status as a shell gives it (128+signal), or -1
 * after printing why it could not be started. */
static int run_command(char **argv)
{
	int go[2], status = 0;
	bool failed = false;
	char pid[32], c;
	pid_t p;

	if (pipe(go))
		return fprintf(stderr, "hvtlb record: pipe: %s\n",
			       strerror(errno)),
		       -1;
	p = fork();
	if (p < 0)
		return fprintf(stderr, "hvtlb record: fork: %s\n",
			       strerror(errno)),
		       -1;
	if (p == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(126); /* the recorder gave up */
		close(go[0]);
		execvp(argv[0], argv);
		fprintf(stderr, "hvtlb record: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	child_pid = p;
	close(go[0]);
	snprintf(pid, sizeof(pid), "%ld", (long)p);
	if (put("set_event_pid", pid, false) || put("tracing_on", "1", false))
		failed = true; /* COMMAND reads EOF and exits unrun */
	else
		(void)!write(go[1], "g", 1);
	close(go[1]);
	while (waitpid(p, &status, 0) < 0 && errno == EINTR)
		;
	child_pid = 0;
	put("tracing_on", "0", false);
	if (failed)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* The instance's trace file copied to @p out (gzip for .gz), after the
 * line @p head (may be ""). Returns 0 or -errno (printed); counts its
 * event lines into *@p nev. */
static int save_trace(const char *out, const char *head, unsigned long *nev)
{
	char p[4200], line[8192];
	bool gz = ends_with(out, ".gz"), bol = true;
	FILE *in, *f = NULL;
	int err = 0;
#ifdef HVTLB_HAVE_ZLIB
	gzFile z = NULL;
#endif

	snprintf(p, sizeof(p), "%s/trace", inst);
	in = fopen(p, "r");
	if (!in) {
		err = errno;
		fprintf(stderr, "hvtlb record: cannot read %s: %s\n", p,
			strerror(err));
		return -err;
	}
#ifdef HVTLB_HAVE_ZLIB
	if (gz)
		z = gzopen(out, "wb9");
	if (gz && !z)
		err = errno ? errno : ENOMEM;
#else
	if (gz)
		err = ENOTSUP;
#endif
	if (!gz && !(f = fopen(out, "w")))
		err = errno;
	*nev = 0;
	snprintf(line, sizeof(line), "%s", head);
	while (!err && (line[0] || fgets(line, sizeof(line), in))) {
		size_t n = strlen(line);

		*nev += bol && line[0] != '#';
		bol = n && line[n - 1] == '\n';
#ifdef HVTLB_HAVE_ZLIB
		if (z && gzwrite(z, line, (unsigned)n) != (int)n)
			err = EIO;
#endif
		if (f && fwrite(line, 1, n, f) != n)
			err = errno ? errno : EIO;
		line[0] = 0; /* the head is written: read the next line */
	}
	if (!err && ferror(in))
		err = EIO;
	fclose(in);
#ifdef HVTLB_HAVE_ZLIB
	if (z && gzclose(z) != Z_OK && !err)
		err = EIO;
#endif
	if (f && fclose(f) && !err)
		err = errno;
	if (err)
		fprintf(stderr, "hvtlb record: cannot write %s: %s%s\n", out,
			strerror(err),
			err == ENOTSUP ? " (this build has no zlib; name "
					 "it without .gz)"
				       : "");
	return -err;
}

/* Whether @p prog is an executable in $PATH. */
static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char p[4200];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(p, sizeof(p), "%.*s/%s", (int)n, n ? path : ".", prog);
		if (!access(p, X_OK))
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

/* trace-cmd extract of the instance into @p dat; it removes the
 * instance when done. Returns 0, or 1 after printing why not. */
static int extract_dat(const char *dat)
{
	const char *name = strrchr(inst, '/') + 1;
	int status;
	pid_t p = fork();

	if (p == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execlp("trace-cmd", "trace-cmd", "extract", "-B", name, "-o",
		       dat, (char *)NULL);
		_exit(127);
	}
	if (p < 0 || waitpid(p, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "hvtlb record: trace-cmd extract failed; the "
				"text has the events\n");
		return 1;
	}
	fprintf(stderr, "hvtlb record: the same events as trace.dat to %s\n",
		dat);
	return 0;
}

static int parse(struct record_opts *o, int argc, char **argv)
{
	int rc =
		cli_parse_options(&cmd_record, usage_text, argc, argv, take, o);

	if (rc >= 0)
		return rc;
	if (!o->out)
		return cli_usage_error("record", "-o FILE is required (where "
						 "the trace goes)");
	if (optind >= argc)
		return cli_usage_error("record", "no COMMAND (usage: hvtlb "
						 "record -o FILE -- COMMAND "
						 "[ARGS...])");
	if (o->dat && !in_path("trace-cmd"))
		return cli_usage_error("record", "-d needs trace-cmd, not "
						 "found in PATH (Debian: "
						 "trace-cmd)");
	return -1;
}

static int run_record(int argc, char **argv)
{
	struct record_opts o = { .clock = "local", .kb = 8192 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct tsc_rate tsc;
	char head[64];
	const char *tracefs;
	unsigned long nev = 0;
	int rc = parse(&o, argc, argv), status;

	if (rc >= 0)
		return rc;
	tracefs = find_tracefs();
	if (!tracefs) {
		const char *env = getenv("HVTLB_TRACEFS");

		fprintf(stderr,
			"hvtlb record: no tracefs at %s (mount -t tracefs "
			"nodev /sys/kernel/tracing)\n",
			env && *env ? env
				    : "/sys/kernel/tracing or "
				      "/sys/kernel/debug/tracing");
		return CLI_EXIT_FAIL;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (setup(tracefs, &o)) {
		cleanup();
		return CLI_EXIT_FAIL;
	}
	tsc_start(&tsc, o.clock);
	status = run_command(argv + optind);
	tsc_line(&tsc, head, sizeof(head));
	if (status < 0) {
		cleanup();
		return CLI_EXIT_FAIL;
	}
	rc = save_trace(o.out, head, &nev) ? CLI_EXIT_FAIL : status;
	if (!rc || rc == status)
		fprintf(stderr,
			"hvtlb record: %lu events to %s (clock %s, exit "
			"%d)\n",
			nev, o.out, o.clock, status);
	if (o.dat && rc == status && extract_dat(o.dat))
		rc = CLI_EXIT_FAIL;
	cleanup();
	return interrupted ? CLI_EXIT_INTERRUPTED : rc;
}

const struct cli_command cmd_record = {
	.name = "record",
	.summary = "record a kernel trace of a command for replay",
	.run = run_record,
	.options = options,
	.operands = "file",
};
