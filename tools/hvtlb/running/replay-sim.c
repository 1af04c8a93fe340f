// SPDX-License-Identifier: MIT
/* The replayed side of `hvtlb replay --check` (replay-sim.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvtlb/sim.h>

#include "ensemble.h"
#include "metrics.h"
#include "replay-sim.h"
#include "sim-run.h"
#include "trace-in.h"
#include "trace-workload.h"
#include "uncertain.h"

static void take_results(struct replay_side *s,
			 const struct hvtlb_sim_results *r)
{
	s->shootdowns = r->shootdowns;
	s->hypercalls = strcmp(s->strategy, REPLAY_SIM_IPI)
				? r->hypercalls
				: r->ipis[HVTLB_SIM_IPI_FLUSH];
	s->local = r->flushes[HVTLB_SIM_FLUSH_LOCAL];
	s->switch_mm = r->flushes[HVTLB_SIM_FLUSH_SWITCH_MM];
	s->guest_target = r->flushes[HVTLB_SIM_FLUSH_IPI];
	s->ipi_targets = r->ipi_acks.targets;
	s->ack_us_p50 = r->ipi_acks.us_p50;
	s->ack_us_p99 = r->ipi_acks.us_p99;
	s->real_s = r->real_s;
	s->seed = r->seed;
}

/* What the trace itself says: its threads, processes and flush requests,
 * from the steps @p w the replay then runs. */
static void recorded_side(struct replay_side *s, const struct trace_workload *w)
{
	s->threads = w->script.nthreads;
	s->processes = w->processes;
	s->cpus = w->cpus;
	s->requests = w->flushes;
	for (int k = 0; k < 4; k++)
		s->by_kind[k] = w->by_kind[HVTLB_SIM_STEP_MUNMAP + k];
	s->remote = w->remote;
	s->remote_elsewhere = w->remote_elsewhere;
}

/* The trace's steps into *@p out (calloc'd), read once from the bytes
 * already loaded; 0, or -errno with s->err set. */
static int read_steps(struct replay_side *s, const char *buf, size_t len,
		      struct trace_workload **out)
{
	struct trace_workload *w = calloc(1, sizeof(*w));
	int rc = w ? trace_workload_read(w, buf, len) : -ENOMEM;

	*out = rc ? NULL : w;
	if (!rc)
		return 0;
	snprintf(s->err, sizeof(s->err), "%s",
		 rc == -ENOMEM ? "out of memory" : w->err);
	if (w)
		trace_workload_free(w);
	free(w);
	return rc;
}

/* The run `hvtlb sim --trace-in PATH --set strategy=S --uncertainty N`
 * makes: the recorded machine, everything else at its default. */
static int replayed_side(struct replay_side *s, const char *path,
			 struct trace_workload *w, size_t ndraws,
			 const char *const *sets, size_t nsets,
			 struct sim_batch *b, struct unc_plan *u,
			 struct ensemble *e)
{
	char set[64], err[sizeof(s->err)];
	int rc;

	snprintf(set, sizeof(set), "strategy=%s", s->strategy);
	rc = sim_load_with_trace(b, NULL, path);
	if (rc) {
		trace_workload_free(w);
		free(w);
	} else {
		/* the batch owns the steps: it does not read the file again */
		rc = sim_batch_take_trace(b, path, w);
	}
	if (!rc)
		rc = scenario_add_override(&b->sc, set);
	for (size_t i = 0; !rc && i < nsets; i++)
		rc = scenario_add_override(&b->sc, sets[i]);
	if (!rc)
		rc = sim_configure_with_trace(b, sim_host_threads());
	if (rc) {
		snprintf(s->err, sizeof(s->err), "%s", b->sc.err);
		/* the scenario code names the override it refused */
		s->bad_set = !strncmp(b->sc.err, "--set ", 6);
		return rc;
	}
	if (!ndraws) {
		rc = sim_batch_run(b);
		if (rc)
			snprintf(s->err, sizeof(s->err), "%s", b->sc.err);
		return rc;
	}
	rc = ensemble_run_batch(e, u, b, ndraws, b->cfg[0].threads, err,
				sizeof(err));
	if (rc) {
		snprintf(s->err, sizeof(s->err), "%s", err);
		return rc;
	}
	ensemble_band(e, 0, metric_find("ipi_ack_us_p50"), &s->ack_p50);
	ensemble_band(e, 0, metric_find("ipi_ack_us_p99"), &s->ack_p99);
	return 0;
}

int replay_side_run(const char *path, const char *buf, size_t len,
		    bool ipi_trace, size_t ndraws, const char *const *sets,
		    size_t nsets, struct replay_side *s)
{
	struct sim_batch b;
	struct unc_plan u;
	struct ensemble e;
	struct trace_workload *w;
	int rc;

	memset(s, 0, sizeof(*s));
	memset(&e, 0, sizeof(e));
	s->strategy = ipi_trace ? REPLAY_SIM_IPI : REPLAY_SIM_HYPERCALL;
	s->ndraws = ndraws;
	rc = read_steps(s, buf, len, &w);
	if (rc)
		return rc;
	recorded_side(s, w);
	sim_batch_init(&b);
	unc_plan_init(&u);
	rc = replayed_side(s, path, w, ndraws, sets, nsets, &b, &u, &e);
	if (!rc && b.run_rc[0])
		rc = b.run_rc[0];
	if (!rc && !b.res[0])
		rc = -EIO;
	if (rc && !s->err[0])
		snprintf(s->err, sizeof(s->err), "the run failed: %s",
			 strerror(-rc));
	if (!rc)
		take_results(s, b.res[0]);
	ensemble_finish(&e);
	unc_plan_finish(&u);
	sim_batch_finish(&b);
	return rc;
}
