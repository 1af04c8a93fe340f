// SPDX-License-Identifier: MIT
/* The replayed side of `hvtlb replay --check` (replay-sim.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <hvtlb/sim.h>

#include "replay-sim.h"
#include "trace-workload.h"

/* The recorded machine: one VM of as many vCPUs as the trace has CPUs,
 * on as many pCPUs, the trace's processes; everything else at its
 * default. */
static int recorded_config(struct hvtlb_sim_config *c,
			   const struct trace_workload *w)
{
	char n[4][16];
	int rc;

	hvtlb_sim_config_init(c);
	snprintf(n[0], sizeof(n[0]), "%u", w->cpus);
	snprintf(n[1], sizeof(n[1]), "%u", w->script.nthreads);
	snprintf(n[2], sizeof(n[2]), "%u", w->pages);
	snprintf(n[3], sizeof(n[3]), "%u", w->processes);
	rc = hvtlb_sim_config_set(c, "strategy", REPLAY_SIM_STRATEGY);
	if (!rc)
		rc = hvtlb_sim_config_set(c, "vm.vcpus", n[0]);
	if (!rc)
		rc = hvtlb_sim_config_set(c, "machine.pcpus", n[0]);
	if (!rc)
		rc = hvtlb_sim_config_set(c, "workload.kind", "trace");
	if (!rc)
		rc = hvtlb_sim_config_set(c, "workload.threads", n[1]);
	if (!rc)
		rc = hvtlb_sim_config_set(c, "workload.pages", n[2]);
	if (!rc)
		rc = hvtlb_sim_config_set(c, "workload.processes", n[3]);
	c->wl_script = &w->script;
	return rc ? rc : hvtlb_sim_config_validate(c, NULL);
}

static void take_results(struct replay_side *s,
			 const struct hvtlb_sim_results *r)
{
	s->shootdowns = r->shootdowns;
	s->hypercalls = r->hypercalls;
	s->local = r->flushes[HVTLB_SIM_FLUSH_LOCAL];
	s->switch_mm = r->flushes[HVTLB_SIM_FLUSH_SWITCH_MM];
	s->guest_target = r->flushes[HVTLB_SIM_FLUSH_IPI];
	s->real_s = r->real_s;
	s->seed = r->seed;
}

int replay_side_run(const char *buf, size_t len, struct replay_side *s)
{
	struct trace_workload w;
	struct hvtlb_sim_config c;
	struct hvtlb_sim_results *r = NULL;
	int rc;

	memset(s, 0, sizeof(*s));
	rc = trace_workload_read(&w, buf, len);
	if (rc) {
		snprintf(s->err, sizeof(s->err), "%s",
			 rc == -ENOMEM ? "out of memory" : w.err);
		trace_workload_free(&w);
		return rc;
	}
	s->threads = w.script.nthreads;
	s->processes = w.processes;
	s->cpus = w.cpus;
	s->requests = w.flushes;
	for (int k = 0; k < 4; k++)
		s->by_kind[k] = w.by_kind[HVTLB_SIM_STEP_MUNMAP + k];
	s->remote = w.remote;
	s->remote_elsewhere = w.remote_elsewhere;
	rc = recorded_config(&c, &w);
	if (!rc)
		rc = hvtlb_sim_run(&c, &r);
	if (rc)
		snprintf(s->err, sizeof(s->err), "the run failed: %s",
			 strerror(-rc));
	else
		take_results(s, r);
	hvtlb_sim_results_destroy(r);
	trace_workload_free(&w);
	return rc;
}
