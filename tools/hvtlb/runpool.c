// SPDX-License-Identifier: MIT
#include <pthread.h>
#include <stdatomic.h>

#include "runpool.h"

struct pool {
	struct run_job *const *jobs;
	size_t n;
	atomic_size_t next;
};

static void *pool_worker(void *arg)
{
	struct pool *p = arg;
	size_t i;

	while ((i = atomic_fetch_add(&p->next, 1)) < p->n) {
		struct run_job *j = p->jobs[i];

		j->rc = hvtlb_sim_run(&j->cfg, &j->res);
		if (j->rc)
			j->res = NULL;
	}
	return NULL;
}

void runpool_run(struct run_job *const *jobs, size_t n, unsigned threads)
{
	pthread_t tid[HVTLB_SIM_MAX_THREADS];
	struct pool p = { .jobs = jobs, .n = n };
	size_t started = 0;

	atomic_init(&p.next, 0);
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

void run_job_finish(struct run_job *j)
{
	hvtlb_sim_results_destroy(j->res);
	j->res = NULL;
}
