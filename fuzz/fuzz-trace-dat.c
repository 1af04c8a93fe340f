// SPDX-License-Identifier: MIT
/*
 * Fuzzes the trace.dat reader (src/replay/trace-dat.c) with any bytes, the
 * way the tool reads a file: a file that starts with the trace.dat magic
 * goes to trace_dat_text() by its path (here a memfd, rewritten for each
 * input and named /proc/self/fd/N), and the text it gives goes through
 * the text reader, the recorded side of `hvtlb replay --check` and the
 * trace workload of `hvtlb sim --trace-in`.
 *
 * Invariants:
 * - the conversion ends (0) or fails with -EINVAL or -EFBIG: a crash or
 *   a refusal of libtracecmd in the child is an error of one line, never
 *   a crash here; it frees what it returns and leaks no descriptor;
 * - its text is at most the bound, and every reader of it ends or fails
 *   with one line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "replay-check.h"
#include "trace-dat.h"
#include "trace-text.h"
#include "trace-workload.h"

/* Text kept at most: the tool's 1 GiB would let one input take minutes. */
#define FUZZ_DAT_MAX (4u << 20)

static int dat_fd = -1;
static char dat_path[64];
/* How the inputs ended, printed at exit: read, refused by libtracecmd,
 * the child killed by a signal (a fault of the library), out of CPU
 * time, too large. */
static unsigned long long n_read, n_refused, n_signal, n_cpu, n_big;

static void print_counts(void)
{
	fprintf(stderr,
		"fuzz-trace-dat: %llu read, %llu refused, %llu killed the "
		"child, %llu out of CPU time, %llu too large\n",
		n_read, n_refused, n_signal, n_cpu, n_big);
}

static bool one_line(const char *s)
{
	return *s && !strchr(s, '\n') && !strchr(s, '\r');
}

/* The bytes as the file the reader opens; the same memfd each time. */
static void put_file(const uint8_t *data, size_t size)
{
	size_t off = 0;
	ssize_t n;

	if (dat_fd < 0) {
		dat_fd = memfd_create("fuzz-trace-dat", MFD_CLOEXEC);
		FUZZ_CHECK(dat_fd >= 0);
		snprintf(dat_path, sizeof(dat_path), "/proc/self/fd/%d",
			 dat_fd);
		atexit(print_counts);
	}
	FUZZ_CHECK(!ftruncate(dat_fd, 0));
	while (off < size) {
		n = pwrite(dat_fd, data + off, size - off, (off_t)off);
		FUZZ_CHECK(n > 0 || (n < 0 && errno == EINTR));
		if (n > 0)
			off += (size_t)n;
	}
}

/* The lowest free descriptor: the same before and after a call that
 * leaks none. (libFuzzer itself opens some between calls: the pipes to
 * llvm-symbolizer for NEW_FUNC.) */
static int lowest_fd(void)
{
	int fd = dup(dat_fd);

	FUZZ_CHECK(fd >= 0);
	close(fd);
	return fd;
}

/* What the tool does with the text: fuzz-trace-text.c checks more. */
static void read_text(const char *text, size_t len)
{
	struct trace_reader r;
	struct trace_record rec;
	struct replay_check c;
	struct trace_workload *w;
	int rc, crc;

	trace_reader_init(&r, text, len);
	while ((rc = trace_reader_next(&r, &rec)) > 0)
		FUZZ_CHECK(rec.cpu < TRACE_MAX_CPUS);
	FUZZ_CHECK(rc == 0 || rc == -EINVAL);
	if (rc)
		FUZZ_CHECK(one_line(r.err));
	crc = replay_check_run(&c, text, len);
	FUZZ_CHECK(crc == rc || crc == -ENOMEM);
	if (crc == -EINVAL)
		FUZZ_CHECK(one_line(c.err));
	replay_check_finish(&c);
	w = calloc(1, sizeof(*w));
	FUZZ_CHECK(w);
	rc = trace_workload_read(w, text, len);
	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	if (rc == -EINVAL)
		FUZZ_CHECK(one_line(w->err));
	trace_workload_free(w);
	free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256] = "", *text = (char *)"";
	size_t len = 1;
	int rc, fd;

	/* Anything else the tool reads as text (fuzz-trace-text.c). */
	if (!trace_dat_is(data, size))
		return 0;
	put_file(data, size);
	fd = lowest_fd();
	rc = trace_dat_text(dat_path, FUZZ_DAT_MAX, &text, &len, err,
			    sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -EFBIG);
	if (rc) {
		FUZZ_CHECK(!text && !len && one_line(err));
		if (rc == -EFBIG)
			n_big++;
		else if (strstr(err, "on signal"))
			n_signal++;
		else if (strstr(err, "CPU time"))
			n_cpu++;
		else
			n_refused++;
	} else {
		n_read++;
		FUZZ_CHECK(text && len <= FUZZ_DAT_MAX);
		read_text(text, len);
	}
	free(text);
	FUZZ_CHECK(lowest_fd() == fd);
	return 0;
}
