// SPDX-License-Identifier: MIT
/*
 * tlb-churn: a small multithreaded workload whose threads share one mm and
 * keep changing its page tables, so that the kernel flushes the other
 * CPUs' TLBs by IPI (remote shootdowns). It is what traces/ was recorded
 * from (traces/README.md); scripts/record-trace.sh runs it under tracefs.
 *
 * usage: tlb-churn [THREADS [ITERATIONS [PAGES]]]   (default 2 200 16)
 *
 * Each thread owns a slice of PAGES pages of one shared mapping. Per
 * iteration it writes every page of its slice (so its CPU holds the
 * translations and stays in the mm's CPU mask), then changes the slice:
 * madvise(MADV_DONTNEED), then mprotect(PROT_READ) and back, and every
 * fourth iteration munmap() and mmap() of a private page. While one thread
 * does that the others are running on the other CPUs, touching their own
 * slices, so the kernel must send them a shootdown.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct churn {
	unsigned char *base;
	size_t slice; /* bytes per thread */
	unsigned iterations;
	int failed;
};

struct worker {
	struct churn *c;
	unsigned index;
	pthread_t tid;
};

static size_t page_size;

static void touch(unsigned char *p, size_t len, unsigned stamp)
{
	for (size_t off = 0; off < len; off += page_size)
		p[off] = (unsigned char)stamp;
}

/* One iteration's page-table changes on @p p; 0, or -1 on a failed call. */
static int churn_once(unsigned char *p, size_t len, unsigned it)
{
	void *extra;

	if (madvise(p, len, MADV_DONTNEED))
		return -1;
	touch(p, len, it);
	if (mprotect(p, len, PROT_READ) ||
	    mprotect(p, len, PROT_READ | PROT_WRITE))
		return -1;
	if (it % 4)
		return 0;
	extra = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (extra == MAP_FAILED)
		return -1;
	touch(extra, page_size, it);
	return munmap(extra, page_size);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned char *p = w->c->base + w->index * w->c->slice;

	for (unsigned it = 0; it < w->c->iterations; it++) {
		touch(p, w->c->slice, it);
		if (churn_once(p, w->c->slice, it)) {
			perror("tlb-churn");
			w->c->failed = 1;
			break;
		}
	}
	return NULL;
}

static unsigned arg_or(int argc, char **argv, int i, unsigned def, unsigned max)
{
	unsigned long v;
	char *end;

	if (argc <= i)
		return def;
	v = strtoul(argv[i], &end, 10);
	if (*end || !v || v > max) {
		fprintf(stderr, "tlb-churn: '%s': want 1..%u\n", argv[i], max);
		exit(2);
	}
	return (unsigned)v;
}

int main(int argc, char **argv)
{
	struct churn c = { 0 };
	struct worker *w;
	unsigned threads = arg_or(argc, argv, 1, 2, 256);
	unsigned pages = arg_or(argc, argv, 3, 16, 1u << 16);

	page_size = (size_t)sysconf(_SC_PAGESIZE);
	c.iterations = arg_or(argc, argv, 2, 200, 1u << 24);
	c.slice = pages * page_size;
	c.base = mmap(NULL, c.slice * threads, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	w = calloc(threads, sizeof(*w));
	if (c.base == MAP_FAILED || !w) {
		perror("tlb-churn");
		return 1;
	}
	for (unsigned i = 0; i < threads; i++) {
		w[i] = (struct worker){ .c = &c, .index = i };
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i])) {
			fprintf(stderr, "tlb-churn: pthread_create failed\n");
			return 1;
		}
	}
	for (unsigned i = 0; i < threads; i++)
		pthread_join(w[i].tid, NULL);
	free(w);
	munmap(c.base, c.slice * threads);
	return c.failed;
}
