// SPDX-License-Identifier: MIT
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hvtlb/core.h>

#include "sim-run.h"

#define MAX_SECTIONS 32

const char *const *sim_sections(void)
{
	static char names[MAX_SECTIONS][32];
	static const char *list[MAX_SECTIONS + 1];
	static size_t n;
	const char *key;

	if (n)
		return list;
	for (size_t i = 0; (key = hvtlb_sim_config_key_name(i)); i++) {
		const char *dot = strchr(key, '.');
		size_t len = dot ? (size_t)(dot - key) : 0;
		size_t j;

		if (!len || len >= sizeof(names[0]))
			continue;
		for (j = 0; j < n; j++) {
			if (strlen(names[j]) == len &&
			    !strncmp(names[j], key, len))
				break;
		}
		if (j < n || n == MAX_SECTIONS)
			continue;
		memcpy(names[n], key, len);
		names[n][len] = '\0';
		list[n] = names[n];
		n++;
	}
	list[n] = NULL;
	return list;
}

void sim_batch_init(struct sim_batch *b)
{
	memset(b, 0, sizeof(*b));
	scenario_init(&b->sc, sim_sections());
}

void sim_batch_finish(struct sim_batch *b)
{
	for (size_t i = 0; i < b->nruns; i++)
		hvtlb_sim_results_destroy(b->res[i]);
	scenario_finish(&b->sc);
	memset(b, 0, sizeof(*b));
}

unsigned sim_host_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	if (n > (long)HVTLB_SIM_MAX_THREADS)
		return HVTLB_SIM_MAX_THREADS;
	return (unsigned)n;
}

const char *sim_strategy_name(const struct hvtlb_sim_results *r)
{
	const char *name = hvtlb_strategy_name(r->strategy);

	return name ? name : "?";
}

struct apply_ctx {
	struct hvtlb_sim_config *cfg;
	int skip_strategy;
	int skip_guest_os;
};

int sim_cost_index(const char *key, size_t *index)
{
	const char *name;

	if (strncmp(key, "cost.", 5))
		return -ENOENT;
	for (size_t i = 0; (name = hvtlb_sim_cost_name(i)); i++) {
		if (!strcmp(key + 5, name)) {
			*index = i;
			return 0;
		}
	}
	return -ENOENT;
}

static int apply_one(void *data, const char *key, const char *value)
{
	struct apply_ctx *ctx = data;
	size_t i;

	if (ctx->skip_strategy && !strcmp(key, "strategy"))
		return 0;
	if (ctx->skip_guest_os && !strcmp(key, "guest.os"))
		return 0;
	/* `cost.NAME = default`: the library's value. */
	if (!strcmp(value, "default") && !sim_cost_index(key, &i)) {
		ctx->cfg->cost[i] = hvtlb_sim_cost_default(i);
		return 0;
	}
	return hvtlb_sim_config_set(ctx->cfg, key, value);
}

static void report_set_error(struct scenario *sc,
			     const struct scenario_setting *bad, int rc)
{
	switch (rc) {
	case -ENOENT:
		scenario_error_at(sc, bad, "unknown key '%s'", bad->key);
		break;
	case -ERANGE:
		scenario_error_at(sc, bad, "impossible value '%s' for '%s'",
				  bad->value, bad->key);
		break;
	case -EINVAL:
		scenario_error_at(sc, bad, "bad value '%s' for '%s'",
				  bad->value, bad->key);
		break;
	default:
		scenario_error_at(sc, bad, "cannot set '%s': %s", bad->key,
				  strerror(-rc));
		break;
	}
}

/* An error about the `compare` list: at its line, or at its --set. */
static void report_compare_error(struct scenario *sc, const char *name, int rc)
{
	const struct scenario_setting *at = &sc->compare_at;

	if (at->line)
		snprintf(sc->err, sizeof(sc->err),
			 "%s:%u: %s strategy '%s' in compare", at->file,
			 at->line, rc == -ERANGE ? "impossible" : "unknown",
			 name);
	else
		snprintf(sc->err, sizeof(sc->err),
			 "%s: %s strategy '%s' in compare",
			 at->file ? at->file : "compare",
			 rc == -ERANGE ? "impossible" : "unknown", name);
}

static int configure_one(struct sim_batch *b, size_t i,
			 unsigned default_threads)
{
	struct hvtlb_sim_config *cfg = &b->cfg[i];
	struct apply_ctx ctx = { .cfg = cfg, .skip_strategy = 0 };
	const struct scenario_setting *bad = NULL, *os;
	const char *bad_key = NULL;
	char threads[16];
	int rc;

	hvtlb_sim_config_init(cfg);
	snprintf(threads, sizeof(threads), "%u", default_threads);
	rc = hvtlb_sim_config_set(cfg, "threads", threads);
	if (rc)
		return rc;
	if (b->strategy[i]) {
		/* "strategy" resets the strategy.* knobs: set it first and
		 * let the scenario's knobs apply on top. */
		rc = hvtlb_sim_config_set(cfg, "strategy", b->strategy[i]);
		if (rc) {
			report_compare_error(&b->sc, b->strategy[i], rc);
			return rc;
		}
		ctx.skip_strategy = 1;
	}
	os = scenario_find(&b->sc, "guest.os");
	if (os) {
		/* "guest.os" sets its model's keys: set it first and let the
		 * scenario's guest keys apply on top, wherever it stands. */
		rc = hvtlb_sim_config_set(cfg, "guest.os", os->value);
		if (rc) {
			report_set_error(&b->sc, os, rc);
			return rc;
		}
		ctx.skip_guest_os = 1;
	}
	rc = scenario_apply(&b->sc, apply_one, &ctx, &bad);
	if (rc) {
		report_set_error(&b->sc, bad, rc);
		return rc;
	}
	rc = hvtlb_sim_config_validate(cfg, &bad_key);
	if (rc) {
		bad = bad_key ? scenario_find(&b->sc, bad_key) : NULL;
		if (bad)
			scenario_error_at(&b->sc, bad,
					  "impossible machine: '%s = %s'",
					  bad->key, bad->value);
		else
			snprintf(b->sc.err, sizeof(b->sc.err),
				 "%s: impossible machine: '%s' (at its "
				 "default)",
				 b->sc.path ? b->sc.path : "scenario",
				 bad_key ? bad_key : "?");
		return rc;
	}
	return 0;
}

int sim_batch_configure(struct sim_batch *b, unsigned default_threads)
{
	b->nruns = b->sc.ncompare ? b->sc.ncompare : 1;
	for (size_t i = 0; i < b->nruns; i++) {
		int rc;

		b->strategy[i] = b->sc.ncompare ? b->sc.compare[i] : NULL;
		rc = configure_one(b, i, default_threads);
		if (rc)
			return rc;
	}
	return 0;
}

int sim_batch_run_one_report(struct sim_batch *b, size_t i)
{
	snprintf(b->sc.err, sizeof(b->sc.err), "%s: run %zu (%s) failed: %s",
		 b->sc.path ? b->sc.path : "scenario", i + 1,
		 b->strategy[i] ? b->strategy[i] : "as configured",
		 b->run_rc[i] == -ETIME ? "virtual time limit "
					  "(engine.max_virtual_s) reached"
					: strerror(-b->run_rc[i]));
	return b->run_rc[i];
}

int sim_batch_run_one(struct sim_batch *b, size_t i, bool report)
{
	b->run_rc[i] = hvtlb_sim_run(&b->cfg[i], &b->res[i]);
	if (b->run_rc[i]) {
		b->res[i] = NULL;
		if (report)
			sim_batch_run_one_report(b, i);
	}
	return b->run_rc[i];
}

/* The runs of a batch are independent simulations: workers take them in
 * index order from a shared counter. */
struct batch_pool {
	struct sim_batch *b;
	atomic_size_t next;
};

static void *batch_worker(void *arg)
{
	struct batch_pool *p = arg;
	size_t i;

	while ((i = atomic_fetch_add(&p->next, 1)) < p->b->nruns)
		sim_batch_run_one(p->b, i, false);
	return NULL;
}

int sim_batch_run(struct sim_batch *b)
{
	struct batch_pool pool = { .b = b };
	pthread_t tid[SCENARIO_COMPARE_MAX];
	size_t workers = b->nruns, started = 0;

	/* As many runs at once as the engine may use host threads (the
	 * scenario's "threads", --threads, or the host's cores). */
	if (b->nruns && workers > b->cfg[0].threads)
		workers = b->cfg[0].threads; /* validated: >= 1 */
	atomic_init(&pool.next, 0);
	for (; workers > 1 && started < workers - 1; started++)
		if (pthread_create(&tid[started], NULL, batch_worker, &pool))
			break;
	batch_worker(&pool); /* this thread works too */
	for (size_t t = 0; t < started; t++)
		pthread_join(tid[t], NULL);

	/* Report the first failure in run order, whichever finished first. */
	for (size_t i = 0; i < b->nruns; i++)
		if (b->run_rc[i])
			return sim_batch_run_one_report(b, i);
	return 0;
}
