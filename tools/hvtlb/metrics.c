// SPDX-License-Identifier: MIT
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
FIELD_GETTER(vm_exits_total)
FIELD_GETTER(ipis_sent)
FIELD_GETTER(ipis_delivered)
FIELD_GETTER(hypercalls)
FIELD_GETTER(shootdowns)
FIELD_GETTER(pages_invalidated)
FIELD_GETTER(page_faults)
FIELD_GETTER(tlb_misses)
FIELD_GETTER(latency_us_p50)
FIELD_GETTER(latency_us_p99)
FIELD_GETTER(latency_us_max)
FIELD_GETTER(violations)
FIELD_GETTER(latent_violations)
FIELD_GETTER(used_violations)
FIELD_GETTER(vcpu_migrations)
FIELD_GETTER(ack_wait_share)

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

static const struct metric metrics[] = {
	{ "real_s", "real time (s)", get_real_s },
	{ "user_s", "guest user time (s)", get_user_s },
	{ "sys_s", "guest sys time (s)", get_sys_s },
	{ "sys_consumed_s", "guest sys time consumed (s)", get_sys_consumed_s },
	{ "vm_exits", "VM exits", get_vm_exits_total },
	{ "ipis_sent", "IPIs sent", get_ipis_sent },
	{ "ipis_delivered", "IPIs delivered", get_ipis_delivered },
	{ "ipis_flush", "flush IPIs sent", get_ipis_flush },
	{ "ipis_resched", "wake-up IPIs sent", get_ipis_resched },
	{ "ipis_other", "other IPIs sent", get_ipis_other },
	{ "hypercalls", "hypercalls", get_hypercalls },
	{ "shootdowns", "shootdowns", get_shootdowns },
	{ "pages_invalidated", "pages invalidated", get_pages_invalidated },
	{ "page_faults", "page faults", get_page_faults },
	{ "tlb_misses", "TLB misses", get_tlb_misses },
	{ "latency_us_p50", "shootdown latency p50 (us)", get_latency_us_p50 },
	{ "latency_us_p99", "shootdown latency p99 (us)", get_latency_us_p99 },
	{ "latency_us_max", "shootdown latency max (us)", get_latency_us_max },
	{ "violations", "oracle violations", get_violations },
	{ "latent_violations", "oracle violations, latent",
	  get_latent_violations },
	{ "used_violations", "oracle violations, used", get_used_violations },
	{ "ops_per_s", "operations per second", get_ops_per_s },
	{ "vcpu_migrations", "vCPU migrations", get_vcpu_migrations },
	{ "ack_wait_share", "share of guest time waiting for flush acks",
	  get_ack_wait_share },
	{ "corun_some", "share of time a VM partly ran (mean over VMs)",
	  get_corun_some },
	{ "targets_preempted", "share of flush targets preempted when posted",
	  get_targets_preempted },
};

#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))

size_t metric_count(void)
{
	return NMETRICS;
}

const struct metric *metric_at(size_t i)
{
	return i < NMETRICS ? &metrics[i] : NULL;
}

const struct metric *metric_find(const char *name)
{
	for (size_t i = 0; i < NMETRICS; i++)
		if (!strcmp(name, metrics[i].name))
			return &metrics[i];
	return NULL;
}

void metric_names(char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < NMETRICS && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? ", " : "", metrics[i].name);
}
