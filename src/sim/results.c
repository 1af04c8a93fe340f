// SPDX-License-Identifier: MIT
/* Results: destruction and the JSON writer. */
#include <errno.h>
#include <stdlib.h>

#include <hvtlb/sim.h>

static const char *const exit_names[] = {
#define HVTLB_X_(n, s) s,
	HVTLB_SIM_EXIT_MAP(HVTLB_X_)
#undef HVTLB_X_
};

static const char *const flush_names[] = {
#define HVTLB_X_(n, s) s,
	HVTLB_SIM_FLUSH_MAP(HVTLB_X_)
#undef HVTLB_X_
};

static const char *const stale_names[] = {
#define HVTLB_X_(n, s) s,
	HVTLB_SIM_STALE_MAP(HVTLB_X_)
#undef HVTLB_X_
};

const char *hvtlb_sim_stale_name(enum hvtlb_sim_stale w)
{
	return (unsigned)w < HVTLB_SIM_STALE_COUNT_ ? stale_names[w] : NULL;
}

static const char *const ipi_names[] = {
#define HVTLB_X_(n, s) s,
	HVTLB_SIM_IPI_MAP(HVTLB_X_)
#undef HVTLB_X_
};

const char *hvtlb_sim_ipi_name(enum hvtlb_sim_ipi_purpose p)
{
	return (unsigned)p < HVTLB_SIM_IPI_COUNT_ ? ipi_names[p] : NULL;
}

static const char *const target_names[] = {
#define HVTLB_X_(n, s) s,
	HVTLB_SIM_TARGET_MAP(HVTLB_X_)
#undef HVTLB_X_
};

const char *hvtlb_sim_target_name(enum hvtlb_sim_target_state st)
{
	return (unsigned)st < HVTLB_SIM_TARGET_COUNT_ ? target_names[st] : NULL;
}

const char *hvtlb_sim_exit_name(enum hvtlb_sim_exit e)
{
	return (unsigned)e < HVTLB_SIM_EXIT_COUNT_ ? exit_names[e] : NULL;
}

const char *hvtlb_sim_flush_name(enum hvtlb_sim_flush_kind k)
{
	return (unsigned)k < HVTLB_SIM_FLUSH_COUNT_ ? flush_names[k] : NULL;
}

void hvtlb_sim_results_destroy(struct hvtlb_sim_results *r)
{
	if (!r)
		return;
	free(r->violation);
	free(r->corun);
	free(r);
}

/* Violation @p i of a list: a used one names no flush (null). */
static void write_violation(FILE *f, const struct hvtlb_sim_violation *v,
			    uint32_t i)
{
	bool used = v->why == HVTLB_SIM_STALE_USED;
	const char *why = hvtlb_sim_stale_name(v->why);

	fprintf(f,
		"%s{\"kind\":\"%s\",\"why\":\"%s\",\"vm\":%u,\"vcpu\":%u,"
		"\"address\":\"0x%llx\",\"generation\":%u,\"covered\":%u,",
		i ? "," : "", used ? "used" : "latent", why ? why : "?", v->vm,
		v->vcpu, (unsigned long long)v->address, v->generation,
		v->covered);
	if (used)
		fputs("\"initiator\":null,\"shootdown\":null,", f);
	else
		fprintf(f, "\"initiator\":%u,\"shootdown\":%llu,", v->initiator,
			(unsigned long long)v->shootdown);
	fprintf(f, "\"time_s\":%.9g}", v->time_s);
}

int hvtlb_sim_results_write_json(const struct hvtlb_sim_results *r, FILE *f)
{
	if (!r || !f)
		return -EINVAL;

	const char *sname = hvtlb_strategy_name(r->strategy);
	const char *fname = hvtlb_sim_fault_name(r->fault);

	/* No threads: they never change a result, and a result that named
	 * them would differ from machine to machine. */
	fprintf(f, "{\"seed\":%llu,\"strategy\":\"%s\",",
		(unsigned long long)r->seed, sname ? sname : "?");
	fprintf(f, "\"fault\":\"%s\",", fname ? fname : "?");
	fprintf(f, "\"real_s\":%.9g,\"user_s\":%.9g,\"sys_s\":%.9g,", r->real_s,
		r->user_s, r->sys_s);
	fprintf(f, "\"sys_consumed_s\":%.9g,", r->sys_consumed_s);
	fputs("\"vm_exits\":{", f);
	for (int i = 0; i < HVTLB_SIM_EXIT_COUNT_; i++)
		fprintf(f, "\"%s\":%llu,", exit_names[i],
			(unsigned long long)r->vm_exits[i]);
	fprintf(f, "\"total\":%llu},", (unsigned long long)r->vm_exits_total);
	fprintf(f, "\"ipis\":{\"sent\":%llu,\"delivered\":%llu",
		(unsigned long long)r->ipis_sent,
		(unsigned long long)r->ipis_delivered);
	for (int i = 0; i < HVTLB_SIM_IPI_COUNT_; i++)
		fprintf(f, ",\"%s\":%llu", ipi_names[i],
			(unsigned long long)r->ipis[i]);
	fputs("},", f);
	fprintf(f, "\"hypercalls\":%llu,\"shootdowns\":%llu,",
		(unsigned long long)r->hypercalls,
		(unsigned long long)r->shootdowns);
	fputs("\"flushes\":{", f);
	for (int i = 0; i < HVTLB_SIM_FLUSH_COUNT_; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "", flush_names[i],
			(unsigned long long)r->flushes[i]);
	fprintf(f, "},\"target_flushes\":%llu,",
		(unsigned long long)r->target_flushes);
	fprintf(f, "\"pages_invalidated\":%llu,\"deferred_marked\":%llu,",
		(unsigned long long)r->pages_invalidated,
		(unsigned long long)r->deferred_marked);
	fprintf(f,
		"\"tlb\":{\"l1_hits\":%llu,\"l2_hits\":%llu,\"misses\":%llu},",
		(unsigned long long)r->tlb_l1_hits,
		(unsigned long long)r->tlb_l2_hits,
		(unsigned long long)r->tlb_misses);
	fprintf(f, "\"page_faults\":%llu,\"ops\":%llu,",
		(unsigned long long)r->page_faults, (unsigned long long)r->ops);
	fprintf(f,
		"\"shootdown_latency_us\":{\"p50\":%.9g,\"p99\":%.9g,"
		"\"max\":%.9g},",
		r->latency_us_p50, r->latency_us_p99, r->latency_us_max);
	fprintf(f,
		"\"violations\":{\"latent\":%llu,\"used\":%llu,\"total\":%llu},"
		"\"violation_list\":[",
		(unsigned long long)r->latent_violations,
		(unsigned long long)r->used_violations,
		(unsigned long long)r->violations);
	for (uint32_t i = 0; i < r->nrecorded; i++)
		write_violation(f, &r->violation[i], i);
	fprintf(f, "],\"vcpu_migrations\":%llu,\"corun\":[",
		(unsigned long long)r->vcpu_migrations);
	for (uint32_t i = 0; i < r->nvms; i++)
		fprintf(f, "%s{\"none\":%.9g,\"some\":%.9g,\"all\":%.9g}",
			i ? "," : "", r->corun[i].none, r->corun[i].some,
			r->corun[i].all);
	fputs("],\"flush_targets\":{", f);
	for (int i = 0; i < HVTLB_SIM_TARGET_COUNT_; i++)
		fprintf(f,
			"%s\"%s\":{\"posted\":%llu,\"ack_us_p50\":%.9g,"
			"\"ack_us_p99\":%.9g}",
			i ? "," : "", target_names[i],
			(unsigned long long)r->targets[i].posted,
			r->targets[i].ack_us_p50, r->targets[i].ack_us_p99);
	fprintf(f, "},\"ack_wait_share\":%.9g", r->ack_wait_share);
	fprintf(f,
		",\"fault_hits\":%llu,\"mem_per_vcpu_bytes\":%llu,"
		"\"events\":%llu}",
		(unsigned long long)r->fault_hits,
		(unsigned long long)r->mem_per_vcpu_bytes,
		(unsigned long long)r->events);
	return ferror(f) ? -EIO : 0;
}
