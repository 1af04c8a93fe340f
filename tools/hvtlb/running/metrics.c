// SPDX-License-Identifier: MIT
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "metrics.h"

#define FIELD_GETTER(field)                                                    \
	static double get_##field(const struct hvtlb_sim_results *r,           \
				  const struct hvtlb_sim_config *c)            \
	{                                                                      \
		(void)c;                                                       \
		return (double)r->field;                                       \
	}

FIELD_GETTER(real_s)
FIELD_GETTER(user_s)
FIELD_GETTER(sys_s)
FIELD_GETTER(sys_consumed_s)
FIELD_GETTER(latency_us_p50)
FIELD_GETTER(latency_us_p99)
FIELD_GETTER(latency_us_max)
FIELD_GETTER(ack_wait_share)

static double get_ipi_ack_us_p50(const struct hvtlb_sim_results *r,
				 const struct hvtlb_sim_config *c)
{
	(void)c;
	return r->ipi_acks.us_p50;
}

static double get_ipi_ack_us_p99(const struct hvtlb_sim_results *r,
				 const struct hvtlb_sim_config *c)
{
	(void)c;
	return r->ipi_acks.us_p99;
}

/* The counters of HVTLB_SIM_COUNTER_MAP, each as a metric (no name: it
 * has none). */
#define C_(field, group, key, label, metric) FIELD_GETTER(field)
#define S_(step)
HVTLB_SIM_COUNTER_MAP(C_, S_)
#undef C_

enum {
#define C_(field, group, key, label, metric) COUNTER_##field,
	HVTLB_SIM_COUNTER_MAP(C_, S_)
#undef C_
};

static const struct counter counters[] = {
#define C_(field, group, key, label, metric)                                   \
	{ offsetof(struct hvtlb_sim_results, field),                           \
	  { metric, label, get_##field } },
	HVTLB_SIM_COUNTER_MAP(C_, S_)
#undef C_
#undef S_
};

#define NCOUNTERS (sizeof(counters) / sizeof(counters[0]))

#define IPI_GETTER(purpose, name)                                              \
	static double get_ipis_##name(const struct hvtlb_sim_results *r,       \
				      const struct hvtlb_sim_config *c)        \
	{                                                                      \
		(void)c;                                                       \
		return (double)r->ipis[HVTLB_SIM_IPI_##purpose];               \
	}

IPI_GETTER(FLUSH, flush)
IPI_GETTER(RESCHED, resched)
IPI_GETTER(OTHER, other)

/* Workload operations per second of virtual time, over every VM: the
 * operations the run completed (threads x iterations x VMs) over its real
 * time, or, with workload.duration_s, those that started before it over
 * that time. */
static double get_ops_per_s(const struct hvtlb_sim_results *r,
			    const struct hvtlb_sim_config *c)
{
	double ops = (double)r->ops;

	/* ebizzy -S: the operations over the time asked for, whenever the
	 * last one ended (records/s = records / elapsed seconds) */
	if (c->wl_duration_s > 0)
		return ops / c->wl_duration_s;
	return r->real_s > 0 ? ops / r->real_s : 0;
}

/* The mean over VMs of the share of the run with some but not all of a
 * VM's vCPUs on a pCPU. */
static double get_corun_some(const struct hvtlb_sim_results *r,
			     const struct hvtlb_sim_config *c)
{
	double sum = 0;

	(void)c;
	for (uint32_t i = 0; i < r->nvms; i++)
		sum += r->corun[i].some;
	return r->nvms ? sum / r->nvms : 0;
}

/* The share of flush targets that were preempted when their flush was
 * posted. */
static double get_targets_preempted(const struct hvtlb_sim_results *r,
				    const struct hvtlb_sim_config *c)
{
	double all = 0;

	(void)c;
	for (int i = 0; i < HVTLB_SIM_TARGET_COUNT_; i++)
		all += (double)r->targets[i].posted;
	return all > 0 ? (double)r->targets[HVTLB_SIM_TARGET_PREEMPTED].posted /
				 all
		       : 0;
}

#define FIGURE(name, label, get)                                               \
	&(const struct metric)                                                 \
	{                                                                      \
		name, label, get                                               \
	}
#define COUNTER(field) &counters[COUNTER_##field].m

/* The order of the metrics before the counters had a list: an output
 * (sweep bands, the uncertainty of sim --json), kept. The counters'
 * metrics that it does not name follow in list order. */
static const struct metric *const fixed[] = {
	FIGURE("real_s", "real time (s)", get_real_s),
	FIGURE("user_s", "guest user time (s)", get_user_s),
	FIGURE("sys_s", "guest sys time (s)", get_sys_s),
	FIGURE("sys_consumed_s", "guest sys time consumed (s)",
	       get_sys_consumed_s),
	COUNTER(vm_exits_total),
	COUNTER(ipis_sent),
	COUNTER(ipis_delivered),
	FIGURE("ipis_flush", "flush IPIs sent", get_ipis_flush),
	FIGURE("ipis_resched", "wake-up IPIs sent", get_ipis_resched),
	FIGURE("ipis_other", "other IPIs sent", get_ipis_other),
	COUNTER(hypercalls),
	COUNTER(shootdowns),
	COUNTER(pages_invalidated),
	COUNTER(page_faults),
	COUNTER(tlb_misses),
	FIGURE("latency_us_p50", "shootdown latency p50 (us)",
	       get_latency_us_p50),
	FIGURE("latency_us_p99", "shootdown latency p99 (us)",
	       get_latency_us_p99),
	FIGURE("latency_us_max", "shootdown latency max (us)",
	       get_latency_us_max),
	FIGURE("ipi_ack_us_p50", "flush IPI to handled p50 (us)",
	       get_ipi_ack_us_p50),
	FIGURE("ipi_ack_us_p99", "flush IPI to handled p99 (us)",
	       get_ipi_ack_us_p99),
	COUNTER(violations),
	COUNTER(latent_violations),
	COUNTER(used_violations),
	FIGURE("ops_per_s", "operations per second", get_ops_per_s),
	COUNTER(vcpu_migrations),
	FIGURE("ack_wait_share", "share of guest time waiting for flush acks",
	       get_ack_wait_share),
	FIGURE("corun_some", "share of time a VM partly ran (mean over VMs)",
	       get_corun_some),
	FIGURE("targets_preempted",
	       "share of flush targets preempted when posted",
	       get_targets_preempted),
};

#define NFIXED (sizeof(fixed) / sizeof(fixed[0]))

/* Whether counter @p k is a metric that fixed[] does not name. */
static bool appended(size_t k)
{
	if (!counters[k].m.name)
		return false;
	for (size_t i = 0; i < NFIXED; i++)
		if (fixed[i] == &counters[k].m)
			return false;
	return true;
}

size_t metric_count(void)
{
	size_t n = NFIXED;

	for (size_t k = 0; k < NCOUNTERS; k++)
		n += appended(k);
	return n;
}

const struct metric *metric_at(size_t i)
{
	if (i < NFIXED)
		return fixed[i];
	i -= NFIXED;
	for (size_t k = 0; k < NCOUNTERS; k++)
		if (appended(k) && !i--)
			return &counters[k].m;
	return NULL;
}

const struct metric *metric_find(const char *name)
{
	const struct metric *m;

	for (size_t i = 0; (m = metric_at(i)); i++)
		if (!strcmp(name, m->name))
			return m;
	return NULL;
}

const struct counter *counter_at(size_t i)
{
	return i < NCOUNTERS ? &counters[i] : NULL;
}

const struct counter *counter_find(size_t offset)
{
	for (size_t k = 0; k < NCOUNTERS; k++)
		if (counters[k].offset == offset)
			return &counters[k];
	return NULL;
}

void metric_names(char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < metric_count() && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? ", " : "", metric_at(i)->name);
}
