// SPDX-License-Identifier: MIT
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

/* Nothing is drawn for work shorter than this, then every TICK. */
#define SHOW_AFTER_S 1.0
#define TICK_NS 250000000L

static struct {
	bool quiet, running, drawn;
	const char *cmd, *unit;
	atomic_uint_fast64_t done, total;
	struct timespec start;
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
} pg = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
};

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static void hms(char *buf, size_t len, double s)
{
	/* Past 100 000 hours it is no estimate any more. */
	unsigned long t = s > 0 ? (unsigned long)(fmin(s, 3.6e8) + 0.5) : 0;

	if (t >= 3600)
		snprintf(buf, len, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60,
			 t % 60);
	else
		snprintf(buf, len, "%lu:%02lu", t / 60, t % 60);
}

void progress_format(char *buf, size_t len, const char *unit, uint64_t done,
		     uint64_t total, double elapsed)
{
	char el[32], left[32];

	hms(el, sizeof(el), elapsed);
	if (!total) {
		snprintf(buf, len, "%llu %s, %s elapsed",
			 (unsigned long long)done, unit, el);
		return;
	}
	if (!done) {
		snprintf(buf, len, "0/%llu %s, %s elapsed",
			 (unsigned long long)total, unit, el);
		return;
	}
	hms(left, sizeof(left),
	    elapsed * (double)(total > done ? total - done : 0) / (double)done);
	snprintf(buf, len, "%llu/%llu %s, %s elapsed, about %s left",
		 (unsigned long long)done, (unsigned long long)total, unit, el,
		 left);
}

static void draw(void)
{
	char line[160];
	double el = since(&pg.start);

	if (el < SHOW_AFTER_S)
		return;
	progress_format(line, sizeof(line), pg.unit, atomic_load(&pg.done),
			atomic_load(&pg.total), el);
	/* \r and "erase to the end of the line": one line, redrawn. */
	fprintf(stderr, "\rhvtlb %s: %s\033[K", pg.cmd, line);
	fflush(stderr);
	pg.drawn = true;
}

static void *ticker(void *arg)
{
	struct timespec t;

	(void)arg;
	pthread_mutex_lock(&pg.lock);
	while (!pg.stop) {
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += TICK_NS;
		if (t.tv_nsec >= 1000000000L) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&pg.wake, &pg.lock, &t);
		if (!pg.stop)
			draw();
	}
	pthread_mutex_unlock(&pg.lock);
	return NULL;
}

void progress_quiet(void)
{
	pg.quiet = true;
}

void progress_begin(const char *cmd, const char *unit, uint64_t total)
{
	if (pg.running)
		progress_end();
	pg.cmd = cmd;
	pg.unit = unit;
	atomic_store(&pg.done, 0);
	atomic_store(&pg.total, total);
	clock_gettime(CLOCK_MONOTONIC, &pg.start);
	pg.stop = false;
	pg.drawn = false;
	if (pg.quiet || !isatty(STDERR_FILENO))
		return;
	pg.running = pthread_create(&pg.tid, NULL, ticker, NULL) == 0;
}

void progress_grow(uint64_t n)
{
	atomic_fetch_add(&pg.total, n);
}

void progress_add(uint64_t n)
{
	atomic_fetch_add_explicit(&pg.done, n, memory_order_relaxed);
}

uint64_t progress_done(void)
{
	return atomic_load(&pg.done);
}

void progress_end(void)
{
	if (!pg.running)
		return;
	pthread_mutex_lock(&pg.lock);
	pg.stop = true;
	pthread_cond_signal(&pg.wake);
	pthread_mutex_unlock(&pg.lock);
	pthread_join(pg.tid, NULL);
	pg.running = false;
	if (pg.drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}
