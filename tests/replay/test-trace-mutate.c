// SPDX-License-Identifier: MIT
/*
 * Property: a real trace, mutated at random (seeded), never crashes the
 * reader or the check, and either reads to its end or stops with an
 * error whose line and byte are inside the mutated buffer. Each mutant
 * lives in a heap block of exactly its length, so ASan catches a read
 * past it.
 *
 * usage: test-trace-mutate TRACE_EXCERPT...
 * HVTLB_SEED sets the seed (printed at start), HVTLB_PROPERTY_ITERS the
 * mutants per file (default 3000).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay-check.h"
#include "trace-text.h"

static uint64_t rng;

static uint64_t next(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static size_t below(size_t n)
{
	return n ? (size_t)(next() % n) : 0;
}

/* Bytes that make the reader work: digits, separators, NUL, newline. */
static char interesting(void)
{
	static const char set[] = "0123456789:.-[]()=, \n\t#x\0\xff"
				  "9999999999";

	return set[below(sizeof(set) - 1)];
}

/* One mutation of @p b (length *n, room for @p cap) in place. */
static void mutate(char *b, size_t *n, size_t cap)
{
	size_t at = below(*n), len;

	switch (below(6)) {
	case 0: /* overwrite a byte */
		if (*n)
			b[at] = next() & 1 ? interesting() : (char)next();
		break;
	case 1: /* insert one */
		if (*n < cap) {
			memmove(b + at + 1, b + at, *n - at);
			b[at] = interesting();
			(*n)++;
		}
		break;
	case 2: /* delete a run */
		len = below(*n - at + 1);
		memmove(b + at, b + at + len, *n - at - len);
		*n -= len;
		break;
	case 3: /* truncate */
		*n = at;
		break;
	case 4: /* a run of nines: huge numbers */
		for (len = below(24); len-- && at < *n; at++)
			b[at] = '9';
		break;
	default: /* copy a run over another place */
		len = below(64);
		if (at + len <= *n) {
			size_t to = below(*n - len + 1);

			memmove(b + to, b + at, len);
		}
		break;
	}
}

static uint64_t count_lines(const char *b, size_t n)
{
	uint64_t lines = 1;

	for (size_t i = 0; i < n; i++)
		lines += b[i] == '\n';
	return lines;
}

/* Reads @p b to its end or its error; 0 when the error is in bounds. */
static int check_one(const char *b, size_t n, unsigned *errors)
{
	struct trace_reader r;
	struct trace_record rec;
	struct replay_check c;
	bool bad;
	int rc;

	trace_reader_init(&r, b, n);
	while ((rc = trace_reader_next(&r, &rec)) > 0) {
		if (rec.comm.len &&
		    (rec.comm.p < b || rec.comm.p + rec.comm.len > b + n))
			return -1;
		if (rec.cpu >= TRACE_MAX_CPUS)
			return -1;
	}
	if (rc < 0) {
		(*errors)++;
		if (rc != -EINVAL || !r.err_line ||
		    r.err_line > count_lines(b, n) || r.err_byte > n ||
		    !strstr(r.err, "line "))
			return -1;
	}
	rc = replay_check_run(&c, b, n);
	bad = (rc && rc != -EINVAL) ||
	      (!rc && c.paired + c.unpaired > c.shootdowns);
	replay_check_finish(&c);
	return bad ? -1 : 0;
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) || !(b = malloc((size_t)len + 1)) ||
	    fread(b, 1, (size_t)len, f) != (size_t)len) {
		perror(path);
		free(b);
		b = NULL;
	}
	if (f)
		fclose(f);
	*n = b ? (size_t)len : 0;
	return b;
}

static int run_file(const char *path, unsigned long iters)
{
	size_t n0, n, cap;
	char *orig = slurp(path, &n0), *work, *exact;
	unsigned errors = 0;

	if (!orig)
		return 1;
	cap = n0 + 256;
	work = malloc(cap);
	for (unsigned long i = 0; work && i < iters; i++) {
		memcpy(work, orig, n0);
		n = n0;
		for (size_t k = 1 + below(4); k--;)
			mutate(work, &n, cap);
		exact = malloc(n ? n : 1);
		if (!exact)
			break;
		memcpy(exact, work, n);
		if (check_one(exact, n, &errors)) {
			fprintf(stderr, "%s: mutant %lu broke an invariant\n",
				path, i);
			fwrite(exact, 1, n, stderr);
			free(exact);
			free(work);
			free(orig);
			return 1;
		}
		free(exact);
	}
	printf("# %s: %lu mutants, %u rejected with an in-bounds error\n", path,
	       iters, errors);
	free(work);
	free(orig);
	return errors ? 0 : 1; /* mutants that never fail test nothing */
}

int main(int argc, char **argv)
{
	const char *seed = getenv("HVTLB_SEED");
	const char *it = getenv("HVTLB_PROPERTY_ITERS");
	unsigned long iters = it ? strtoul(it, NULL, 0) : 3000;
	int rc = 0;

	rng = seed ? strtoull(seed, NULL, 0) : 0x7265706c6179ull;
	if (!rng)
		rng = 1;
	printf("# property: HVTLB_SEED=%#llx HVTLB_PROPERTY_ITERS=%lu\n",
	       (unsigned long long)rng, iters);
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		rc |= run_file(argv[i], iters);
	return rc;
}
