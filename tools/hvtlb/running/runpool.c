// SPDX-License-Identifier: MIT
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "progress.h"
#include "runpool.h"

struct pool {
	struct run_job *const *jobs;
	size_t n;
	atomic_size_t next;
	atomic_bool stop;
	/* watched: finished job indices, in finishing order */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t *finished, nfinished;
};

static void *pool_worker(void *arg)
{
	struct pool *p = arg;
	size_t i;

	while (!atomic_load(&p->stop) &&
	       (i = atomic_fetch_add(&p->next, 1)) < p->n) {
		struct run_job *j = p->jobs[i];

		j->rc = hvtlb_sim_run(&j->cfg, &j->res);
		if (j->rc)
			j->res = NULL;
		progress_add(1);
		if (p->finished) {
			pthread_mutex_lock(&p->lock);
			p->finished[p->nfinished++] = i;
			pthread_cond_signal(&p->cond);
			pthread_mutex_unlock(&p->lock);
		}
	}
	return NULL;
}

void runpool_run(struct run_job *const *jobs, size_t n, unsigned threads)
{
	pthread_t tid[HVTLB_SIM_MAX_THREADS];
	struct pool p = { .jobs = jobs, .n = n };
	size_t started = 0;

	atomic_init(&p.next, 0);
	atomic_init(&p.stop, false);
	if (threads > HVTLB_SIM_MAX_THREADS)
		threads = HVTLB_SIM_MAX_THREADS;
	if (threads > n)
		threads = (unsigned)n;
	for (; threads > 1 && started < threads - 1; started++)
		if (pthread_create(&tid[started], NULL, pool_worker, &p))
			break;
	pool_worker(&p);
	for (size_t t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
}

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

int runpool_run_watched(struct run_job *const *jobs, size_t n, unsigned threads,
			const struct runpool_watch *w)
{
	/* Static: after SIGINT the workers outlive this call. */
	static struct pool p;
	pthread_t tid[HVTLB_SIM_MAX_THREADS];
	struct sigaction sa = { .sa_handler = on_sigint }, old;
	size_t started = 0, seen = 0;
	int rc = 0;

	p = (struct pool){ .jobs = jobs, .n = n };
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.cond, NULL);
	atomic_init(&p.next, 0);
	atomic_init(&p.stop, false);
	p.finished = malloc((n ? n : 1) * sizeof(*p.finished));
	if (!p.finished) {
		/* No room to watch: run them plainly. */
		runpool_run(jobs, n, threads);
		for (size_t i = 0; i < n; i++)
			w->done(w->data, i);
		return 0;
	}
	if (threads > HVTLB_SIM_MAX_THREADS)
		threads = HVTLB_SIM_MAX_THREADS;
	if (threads > n)
		threads = (unsigned)n;
	interrupted = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	for (; started < threads; started++)
		if (pthread_create(&tid[started], NULL, pool_worker, &p))
			break;
	if (!started && n)
		pool_worker(&p); /* no thread: this one works */
	pthread_mutex_lock(&p.lock);
	while (seen < n) {
		struct timespec t;

		while (seen == p.nfinished && !interrupted) {
			clock_gettime(CLOCK_REALTIME, &t);
			t.tv_nsec += 100000000L;
			if (t.tv_nsec >= 1000000000L) {
				t.tv_sec++;
				t.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&p.cond, &p.lock, &t);
		}
		if (seen == p.nfinished) {
			rc = -EINTR;
			break;
		}
		while (seen < p.nfinished) {
			size_t i = p.finished[seen++];

			pthread_mutex_unlock(&p.lock);
			w->done(w->data, i);
			pthread_mutex_lock(&p.lock);
		}
	}
	if (rc) {
		atomic_store(&p.stop, true);
		/* What finished between the signal and now counts too. */
		while (seen < p.nfinished) {
			size_t i = p.finished[seen++];

			pthread_mutex_unlock(&p.lock);
			w->done(w->data, i);
			pthread_mutex_lock(&p.lock);
		}
	}
	pthread_mutex_unlock(&p.lock);
	sigaction(SIGINT, &old, NULL);
	if (rc)
		return rc; /* the workers go on; the caller exits */
	for (size_t t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	free(p.finished);
	p.finished = NULL;
	return 0;
}

void run_job_finish(struct run_job *j)
{
	if (!j->same)
		hvtlb_sim_results_destroy(j->res);
	j->res = NULL;
	j->same = NULL;
}

static uint64_t cfg_hash(const struct hvtlb_sim_config *c)
{
	const unsigned char *b = (const unsigned char *)c;
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (size_t i = 0; i < sizeof(*c); i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

long runpool_share(struct run_job *const *jobs, size_t n, struct run_job **run)
{
	/* Open addressing over the first job of each configuration. */
	size_t cap = 16, nrun = 0;
	size_t *slot;

	while (cap < 2 * n)
		cap *= 2;
	slot = malloc(cap * sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (size_t s = 0; s < cap; s++)
		slot[s] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		const struct hvtlb_sim_config *c = &jobs[i]->cfg;
		size_t s = (size_t)(cfg_hash(c) & (cap - 1));

		jobs[i]->same = NULL;
		for (; slot[s] != SIZE_MAX; s = (s + 1) & (cap - 1)) {
			if (!memcmp(&jobs[slot[s]]->cfg, c, sizeof(*c))) {
				jobs[i]->same = jobs[slot[s]];
				break;
			}
		}
		if (!jobs[i]->same) {
			slot[s] = i;
			run[nrun++] = jobs[i];
		}
	}
	free(slot);
	return (long)nrun;
}

void runpool_share_results(struct run_job *const *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct run_job *j = jobs[i];

		if (j->same) {
			j->rc = j->same->rc;
			j->res = j->same->res;
		}
	}
}
