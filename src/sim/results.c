// SPDX-License-Identifier: MIT
/* Results: destruction and the JSON writer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

static const char *const target_lock_names[] = {
#define HVTLB_X_(n, s) s,
	HVTLB_SIM_TARGET_LOCK_MAP(HVTLB_X_)
#undef HVTLB_X_
};

const char *hvtlb_sim_target_lock_name(enum hvtlb_sim_target_lock st)
{
	return (unsigned)st < HVTLB_SIM_TARGET_LOCK_COUNT_
		       ? target_lock_names[st]
		       : NULL;
}

const char *hvtlb_sim_target_name(enum hvtlb_sim_target_state st)
{
	return (unsigned)st < HVTLB_SIM_TARGET_COUNT_ ? target_names[st] : NULL;
}

static const char *const origin_names[] = { "default", "given", "derived" };

const char *hvtlb_sim_origin_name(enum hvtlb_sim_origin o)
{
	return (unsigned)o < sizeof(origin_names) / sizeof(origin_names[0])
		       ? origin_names[o]
		       : NULL;
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

/*
 * The JSON writer: each member names the object it belongs to ("" the
 * result itself), and the writer closes and opens objects on the way, so
 * HVTLB_SIM_COUNTER_MAP's group column is the whole layout.
 */
struct writer {
	FILE *f;
	const char *group; /* the object open in the result, or "" */
	bool any;	   /* a member of the result written */
	bool first;	   /* no member of group written */
};

static void member(struct writer *w, const char *group, const char *key)
{
	if (strcmp(group, w->group)) {
		if (*w->group)
			fputc('}', w->f);
		if (*group)
			fprintf(w->f, "%s\"%s\":{", w->any ? "," : "", group);
		w->group = group;
		w->first = true;
	}
	fprintf(w->f, "%s\"%s\":", w->first && (*group || !w->any) ? "" : ",",
		key);
	w->first = false;
	w->any = true;
}

static void put_u64(struct writer *w, const char *group, const char *key,
		    uint64_t v)
{
	member(w, group, key);
	fprintf(w->f, "%llu", (unsigned long long)v);
}

static void put_double(struct writer *w, const char *group, const char *key,
		       double v)
{
	member(w, group, key);
	fprintf(w->f, "%.9g", v);
}

/* A static string with no character JSON escapes; NULL as "?". */
static void put_name(struct writer *w, const char *group, const char *key,
		     const char *name)
{
	member(w, group, key);
	fprintf(w->f, "\"%s\"", name ? name : "?");
}

/* The S() steps of HVTLB_SIM_COUNTER_MAP. No threads: they never change a
 * result, and a result that named them would differ from machine to
 * machine. */
static void step_head(struct writer *w, const struct hvtlb_sim_results *r)
{
	put_u64(w, "", "seed", r->seed);
	put_name(w, "", "strategy", hvtlb_strategy_name(r->strategy));
	put_name(w, "", "fault", hvtlb_sim_fault_name(r->fault));
	put_double(w, "", "real_s", r->real_s);
	put_double(w, "", "user_s", r->user_s);
	put_double(w, "", "sys_s", r->sys_s);
	put_double(w, "", "sys_consumed_s", r->sys_consumed_s);
}

static void step_exit_reasons(struct writer *w,
			      const struct hvtlb_sim_results *r)
{
	for (int i = 0; i < HVTLB_SIM_EXIT_COUNT_; i++)
		put_u64(w, "vm_exits", exit_names[i], r->vm_exits[i]);
}

static void step_ipi_purposes(struct writer *w,
			      const struct hvtlb_sim_results *r)
{
	for (int i = 0; i < HVTLB_SIM_IPI_COUNT_; i++)
		put_u64(w, "ipis", ipi_names[i], r->ipis[i]);
}

/* Two objects, each by delivery: the IPIs it carried, the sender exits
 * it took. */
static void step_ipi_deliveries(struct writer *w,
				const struct hvtlb_sim_results *r)
{
	for (int i = 0; i < HVTLB_SIM_IPI_DELIVERY_COUNT_; i++)
		put_u64(w, "ipis_by_delivery",
			hvtlb_sim_ipi_delivery_name(
				(enum hvtlb_sim_ipi_delivery)i),
			r->ipis_by_delivery[i]);
	for (int i = 0; i < HVTLB_SIM_IPI_DELIVERY_COUNT_; i++)
		put_u64(w, "ipi_exits_by_delivery",
			hvtlb_sim_ipi_delivery_name(
				(enum hvtlb_sim_ipi_delivery)i),
			r->ipi_exits[i]);
	/* The delivery the guest used, and where it came from. */
	put_name(w, "ipi_delivery", "effective",
		 hvtlb_sim_ipi_delivery_name(r->ipi_delivery));
	put_name(w, "ipi_delivery", "origin",
		 hvtlb_sim_origin_name(r->ipi_delivery_origin));
	put_name(w, "ipi_delivery", "why",
		 r->ipi_delivery_why ? r->ipi_delivery_why : "");
}

static void step_flush_kinds(struct writer *w,
			     const struct hvtlb_sim_results *r)
{
	for (int i = 0; i < HVTLB_SIM_FLUSH_COUNT_; i++)
		put_u64(w, "flushes", flush_names[i], r->flushes[i]);
}

static void step_latency(struct writer *w, const struct hvtlb_sim_results *r)
{
	put_double(w, "shootdown_latency_us", "p50", r->latency_us_p50);
	put_double(w, "shootdown_latency_us", "p99", r->latency_us_p99);
	put_double(w, "shootdown_latency_us", "max", r->latency_us_max);
}

static void step_ipi_acks(struct writer *w, const struct hvtlb_sim_results *r)
{
	member(w, "ipi_ack_us", "targets");
	fprintf(w->f, "%llu", (unsigned long long)r->ipi_acks.targets);
	put_double(w, "ipi_ack_us", "p50", r->ipi_acks.us_p50);
	put_double(w, "ipi_ack_us", "p99", r->ipi_acks.us_p99);
	put_double(w, "ipi_ack_us", "max", r->ipi_acks.us_max);
}

static void step_violation_list(struct writer *w,
				const struct hvtlb_sim_results *r)
{
	member(w, "", "violation_list");
	fputc('[', w->f);
	for (uint32_t i = 0; i < r->nrecorded; i++)
		write_violation(w->f, &r->violation[i], i);
	fputc(']', w->f);
}

static void step_corun(struct writer *w, const struct hvtlb_sim_results *r)
{
	member(w, "", "corun");
	fputc('[', w->f);
	for (uint32_t i = 0; i < r->nvms; i++)
		fprintf(w->f, "%s{\"none\":%.9g,\"some\":%.9g,\"all\":%.9g}",
			i ? "," : "", r->corun[i].none, r->corun[i].some,
			r->corun[i].all);
	fputc(']', w->f);
}

/* @p n target rows as the members of @p group, named by @p names. */
static void put_target_rows(struct writer *w, const char *group,
			    const char *const *names,
			    const struct hvtlb_sim_target_stats *t, int n)
{
	for (int i = 0; i < n; i++) {
		member(w, group, names[i]);
		fprintf(w->f,
			"{\"posted\":%llu,\"ack_us_p50\":%.9g,"
			"\"ack_us_p99\":%.9g}",
			(unsigned long long)t[i].posted, t[i].ack_us_p50,
			t[i].ack_us_p99);
	}
}

static void step_flush_targets(struct writer *w,
			       const struct hvtlb_sim_results *r)
{
	put_target_rows(w, "flush_targets", target_names, r->targets,
			HVTLB_SIM_TARGET_COUNT_);
}

static void step_ipi_lock(struct writer *w, const struct hvtlb_sim_results *r)
{
	put_target_rows(w, "flush_ipis_by_lock", target_lock_names, r->ipi_lock,
			HVTLB_SIM_TARGET_LOCK_COUNT_);
}

static void step_ack_wait_share(struct writer *w,
				const struct hvtlb_sim_results *r)
{
	put_double(w, "", "ack_wait_share", r->ack_wait_share);
}

static void step_mem_per_vcpu(struct writer *w,
			      const struct hvtlb_sim_results *r)
{
	put_u64(w, "", "mem_per_vcpu_bytes", r->mem_per_vcpu_bytes);
}

/* A C() row without a uint64_t field of that name does not build. */
#define C_(field, group, key, label, metric)                                   \
	_Static_assert(_Generic(((struct hvtlb_sim_results *)0)->field,        \
				uint64_t : 1, default : 0),                    \
		       #field " is not a uint64_t of hvtlb_sim_results");
#define S_(step)
HVTLB_SIM_COUNTER_MAP(C_, S_)
#undef S_
#undef C_

int hvtlb_sim_results_write_json(const struct hvtlb_sim_results *r, FILE *f)
{
	struct writer w = { f, "", false, true };

	if (!r || !f)
		return -EINVAL;
	fputc('{', f);
#define C_(field, group, key, label, metric) put_u64(&w, group, key, r->field);
#define S_(step) step_##step(&w, r);
	HVTLB_SIM_COUNTER_MAP(C_, S_)
#undef S_
#undef C_
	if (*w.group)
		fputc('}', f);
	fputc('}', f);
	return ferror(f) ? -EIO : 0;
}
