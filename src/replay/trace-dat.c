// SPDX-License-Identifier: MIT
/*
 * trace.dat to the text of `trace-cmd report` (trace-dat.h). The child
 * does the library's work and writes lines into a pipe; the parent only
 * reads bytes, bounds them and looks at how the child ended.
 */
#include "trace-dat.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

bool trace_dat_is(const void *buf, size_t len)
{
	return len >= TRACE_DAT_MAGIC_LEN &&
	       !memcmp(buf, TRACE_DAT_MAGIC, TRACE_DAT_MAGIC_LEN);
}

#ifndef HVTLB_HAVE_TRACECMD

bool trace_dat_supported(void)
{
	return false;
}

int trace_dat_text(const char *path, size_t max, char **text, size_t *len,
		   char *err, size_t errlen)
{
	(void)path;
	(void)max;
	*text = NULL;
	*len = 0;
	snprintf(err, errlen,
		 "a trace.dat needs hvtlb built with libtracecmd "
		 "(-Dtrace=enabled; Debian: libtracecmd-dev); or convert it "
		 "with `trace-cmd report -N -i FILE > FILE.txt`");
	return -ENOTSUP;
}

#else

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <trace-cmd/trace-cmd.h>
#include <unistd.h>

/* Instance buffers beyond the top one that are read; more is an error. */
#define DAT_MAX_BUFFERS 64
/* The child's exit status when the library refused the file. */
#define DAT_EXIT_REFUSED 3
/*
 * The child's CPU time, at most: a malformed file can make libtracecmd
 * take seconds an event (a CPU count in the millions, scanned for each).
 * A real trace reads at 2 to 3 us an event, so 1 GiB of text in well under
 * a minute. The libFuzzer build sets a few seconds.
 */
#ifndef TRACE_DAT_CPU_SECONDS
#define TRACE_DAT_CPU_SECONDS 600
#endif

bool trace_dat_supported(void)
{
	return true;
}

struct dat_ctx {
	FILE *out;
	struct trace_seq seq;
	unsigned long long unknown;
};

/*
 * A syscall event as the kernel's own trace file prints it
 * ("sys_munmap(addr: 0x7f.., len: 0x1000)", "sys_munmap -> 0x0"):
 * libtraceevent prints these events by their format file instead, which
 * the text reader does not read. 0 when @p ev is not one.
 */
static int dat_syscall(struct trace_seq *s, struct tep_event *ev,
		       struct tep_record *rec)
{
	bool enter = !strncmp(ev->name, "sys_enter_", 10);
	const char *sep = "";
	unsigned long long v;

	if (strcmp(ev->system, "syscalls") ||
	    (!enter && strncmp(ev->name, "sys_exit_", 9)))
		return 0;
	if (!enter) {
		struct tep_format_field *ret = tep_find_field(ev, "ret");

		if (!ret || tep_read_number_field(ret, rec->data, &v))
			return -1;
		trace_seq_printf(s, "sys_%s -> 0x%llx", ev->name + 9, v);
		return 1;
	}
	trace_seq_printf(s, "sys_%s(", ev->name + 10);
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		if (!strcmp(f->name, "__syscall_nr"))
			continue;
		if (tep_read_number_field(f, rec->data, &v))
			return -1;
		trace_seq_printf(s, "%s%s: 0x%llx", sep, f->name, v);
		sep = ", ";
	}
	trace_seq_puts(s, ")");
	return 1;
}

/* One record as `trace-cmd report` prints it (trace-text.h reads it). */
static int dat_line(struct tracecmd_input *h, struct tep_record *rec,
		    int buffer_cpu, void *data)
{
	struct dat_ctx *c = data;
	/* The record's own CPU: iterating several buffers, the callback's
	 * cpu counts across them. */
	int cpu = rec->cpu;
	struct tep_handle *tep = tracecmd_get_tep(h);
	struct tep_event *ev = tep_find_event_by_record(tep, rec);
	int pid = tep_data_pid(tep, rec);
	const char *comm = tep_data_comm_from_pid(tep, pid);
	int sys;

	(void)buffer_cpu;
	if (rec->missed_events > 0)
		fprintf(c->out, "CPU:%d [LOST %lld EVENTS]\n", cpu,
			rec->missed_events);
	if (!ev) {
		c->unknown++;
		return 0;
	}
	trace_seq_reset(&c->seq);
	sys = dat_syscall(&c->seq, ev, rec);
	if (sys < 0) {
		c->unknown++;
		return 0;
	}
	if (!sys)
		tep_print_event(tep, &c->seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&c->seq);
	/* Newlines inside a field would split the record: none in a line. */
	for (char *p = c->seq.buffer; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	fprintf(c->out, "%16s-%-7d [%03d] ", comm ? comm : "<...>", pid, cpu);
	if (tep_test_flag(tep, TEP_NSEC_OUTPUT))
		fprintf(c->out, "%llu: ", rec->ts);
	else
		fprintf(c->out, "%llu.%09llu: ", rec->ts / 1000000000ull,
			rec->ts % 1000000000ull);
	if (sys)
		fprintf(c->out, "%s\n", c->seq.buffer);
	else
		fprintf(c->out, "%s: %s\n", ev->name, c->seq.buffer);
	return ferror(c->out) ? -1 : 0;
}

/* The child: every buffer of @p path, in time order, into @p out. */
static int dat_child(const char *path, FILE *out, FILE *errf)
{
	struct tracecmd_input *h[DAT_MAX_BUFFERS + 1];
	struct dat_ctx c = { .out = out };
	int n = 0, nb, rc;

	tracecmd_set_loglevel(TEP_LOG_NONE);
	/* No plugins: every event printed by its kernel format, as in the
	 * tracefs trace file (plugins reword tlb_flush and sched_switch). */
	h[n] = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h[n]) {
		fprintf(errf, "libtracecmd cannot read it (truncated, "
			      "malformed, or a version it does not know)");
		return DAT_EXIT_REFUSED;
	}
	n++;
	nb = tracecmd_buffer_instances(h[0]);
	if (nb < 0 || nb > DAT_MAX_BUFFERS) {
		fprintf(errf, "%d instance buffers (at most %d are read)", nb,
			DAT_MAX_BUFFERS);
		return DAT_EXIT_REFUSED;
	}
	for (int i = 0; i < nb; i++) {
		h[n] = tracecmd_buffer_instance_handle(h[0], i);
		if (!h[n]) {
			fprintf(errf, "libtracecmd cannot read its buffer %d",
				i);
			return DAT_EXIT_REFUSED;
		}
		n++;
	}
	trace_seq_init(&c.seq);
	rc = tracecmd_iterate_events_multi(h, n, dat_line, &c);
	trace_seq_destroy(&c.seq);
	if (rc < 0 || fflush(out)) {
		fprintf(errf, "reading its events failed");
		return DAT_EXIT_REFUSED;
	}
	return 0;
}

/* Reads @p fd to its end into *@p text, at most @p max bytes. */
static int dat_slurp(int fd, size_t max, char **text, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap), *nb;
	ssize_t got;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			if (cap > max) {
				free(buf);
				return -EFBIG;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		got = read(fd, buf + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(buf);
			return -errno;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (n > max) {
		free(buf);
		return -EFBIG;
	}
	*text = buf;
	*len = n;
	return 0;
}

/*
 * The child speaks only through its pipes. libtracecmd writes warnings
 * of its own ("Can not mmap file, will read instead"), and glibc reports a
 * heap the library corrupted ("free(): double free detected") on stderr,
 * or on the terminal unless LIBC_FATAL_STDERR_ is set: extra lines around
 * the caller's one-line error, or inside its --json on stdout.
 */
static void dat_child_quiet(int out_fd, int err_fd)
{
	int fd = open("/dev/null", O_WRONLY);

	setenv("LIBC_FATAL_STDERR_", "1", 1);
	/* A caller that ran with stdout or stderr closed may have been
	 * given the pipe in its place: that one stays. */
	for (int std = STDOUT_FILENO; std <= STDERR_FILENO; std++) {
		if (std == out_fd || std == err_fd || std == fd)
			continue;
		if (fd < 0 || dup2(fd, std) < 0)
			close(std);
	}
	if (fd > STDERR_FILENO)
		close(fd);
}

/*
 * A fault of the library kills the child by its signal, which the parent
 * reports: a handler the caller installed (a crash reporter, a
 * sanitizer's, libFuzzer's) would take it for a fault of its own. So does
 * the end of its CPU time.
 */
static void dat_child_signals(void)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL,
				     SIGABRT, SIGSYS, SIGXCPU };
	struct rlimit cpu;

	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], SIG_DFL);
	/* SIGXCPU past the soft limit, SIGKILL a second later; a lower
	 * limit the caller set stays. */
	if (!getrlimit(RLIMIT_CPU, &cpu) &&
	    cpu.rlim_cur > TRACE_DAT_CPU_SECONDS) {
		cpu.rlim_cur = TRACE_DAT_CPU_SECONDS;
		if (cpu.rlim_max > TRACE_DAT_CPU_SECONDS + 1)
			cpu.rlim_max = TRACE_DAT_CPU_SECONDS + 1;
		setrlimit(RLIMIT_CPU, &cpu);
	}
}

static void dat_child_run(const char *path, int out_fd, int err_fd)
{
	FILE *out, *errf;
	int rc;

	dat_child_signals();
	dat_child_quiet(out_fd, err_fd);
	out = fdopen(out_fd, "w");
	errf = fdopen(err_fd, "w");
	if (!out || !errf)
		_exit(DAT_EXIT_REFUSED);
	rc = dat_child(path, out, errf);
	fflush(errf);
	_exit(rc);
}

/* How the child ended, as the caller's return value and message. */
static int dat_status(int status, const char *msg, char *err, size_t errlen)
{
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU) {
		snprintf(err, errlen,
			 "libtracecmd used its %d s of CPU time reading it: a "
			 "malformed trace.dat",
			 TRACE_DAT_CPU_SECONDS);
		return -EINVAL;
	}
	if (WIFSIGNALED(status)) {
		snprintf(err, errlen,
			 "libtracecmd stopped on signal %d reading it: a "
			 "malformed or truncated trace.dat",
			 WTERMSIG(status));
		return -EINVAL;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		snprintf(err, errlen, "%s",
			 *msg ? msg : "libtracecmd cannot read it");
		return -EINVAL;
	}
	return 0;
}

int trace_dat_text(const char *path, size_t max, char **text, size_t *len,
		   char *err, size_t errlen)
{
	int out[2], ef[2], status = 0, rc;
	char msg[256] = "";
	ssize_t got;
	pid_t pid;

	*text = NULL;
	*len = 0;
	if (pipe(out))
		return -errno;
	if (pipe(ef)) {
		rc = -errno;
		close(out[0]);
		close(out[1]);
		return rc;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(out[0]);
		close(ef[0]);
		dat_child_run(path, out[1], ef[1]);
	}
	close(out[1]);
	close(ef[1]);
	if (pid < 0) {
		rc = -errno;
		close(out[0]);
		close(ef[0]);
		return rc;
	}
	rc = dat_slurp(out[0], max, text, len);
	close(out[0]);
	if (rc == -EFBIG)
		kill(pid, SIGKILL);
	got = read(ef[0], msg, sizeof(msg) - 1);
	msg[got > 0 ? got : 0] = '\0';
	close(ef[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!rc)
		rc = dat_status(status, msg, err, errlen);
	else if (rc == -EFBIG)
		snprintf(err, errlen, "its text is larger than %zu bytes", max);
	if (rc) {
		free(*text);
		*text = NULL;
		*len = 0;
	}
	return rc;
}

#endif
