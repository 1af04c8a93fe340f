// SPDX-License-Identifier: MIT
/* The simulator's configuration: defaults, key/value setting, validation. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <hvtlb/sim.h>

#include "sim/cost.h"

static const char *const fault_names[] = {
#define HVTLB_X_(n, s) s,
	HVTLB_SIM_FAULT_MAP(HVTLB_X_)
#undef HVTLB_X_
};

static const char *const workload_names[] = {
#define HVTLB_X_(n, s) s,
	HVTLB_SIM_WORKLOAD_MAP(HVTLB_X_)
#undef HVTLB_X_
};

static const char *const touch_names[] = { "none", "first", "all", "random" };

static const char *const strategy_knobs[] = {
	"concurrent", "early_ack",     "lazy_skip",	  "full_flush_ceiling",
	"xmm_fast",   "compact_vpset", "extended_ranges", "broadcast_max_pages",
};

enum key_id {
	K_SEED,
	K_THREADS,
	K_FAULT,
	K_STRATEGY,
	K_PCPUS,
	K_VMS,
	K_PARTITION,
	K_VCPUS,
	K_PROFILE,
	K_IPIV,
	K_PLE,
	K_PLE_BOOST,
	K_CFS,
	K_IPI_BATCH,
	K_XMM,
	K_EX,
	K_TLB_LEVELS,
	K_L1_SETS,
	K_L1_WAYS,
	K_L2_SETS,
	K_L2_WAYS,
	K_PCID,
	K_LAZY_LEAVE,
	K_STEAL,
	K_MIGRATE,
	K_LOCK_SPIN,
	K_TLB_GEN,
	K_LOCK_HANDOFF,
	K_FAULT_EXCL,
	K_WL_KIND,
	K_WL_THREADS,
	K_WL_PROCESSES,
	K_WL_ITERATIONS,
	K_WL_PAGES,
	K_WL_PAGE_SIZE,
	K_WL_TOUCH,
	K_WL_TOUCH_REPEAT,
	K_WL_SLEEP,
	K_WL_FILE,
	K_WL_SHARED,
	K_WL_SEARCH,
	K_WL_USER_NS,
	K_WL_KERNEL_PAGES,
	K_MAX_VIRTUAL,
	K_MAX_VIOLATIONS,
	K_COUNT
};

static const char *const key_names[K_COUNT] = {
	[K_SEED] = "seed",
	[K_THREADS] = "threads",
	[K_FAULT] = "fault",
	[K_STRATEGY] = "strategy",
	[K_PCPUS] = "machine.pcpus",
	[K_VMS] = "machine.vms",
	[K_PARTITION] = "machine.partition",
	[K_VCPUS] = "vm.vcpus",
	[K_PROFILE] = "hypervisor.profile",
	[K_IPIV] = "hypervisor.ipiv",
	[K_PLE] = "hypervisor.ple",
	[K_PLE_BOOST] = "hypervisor.ple_boost_ready",
	[K_CFS] = "hypervisor.cfs",
	[K_IPI_BATCH] = "hypervisor.ipi_batch",
	[K_XMM] = "hypervisor.xmm",
	[K_EX] = "hypervisor.ex",
	[K_TLB_LEVELS] = "tlb.levels",
	[K_L1_SETS] = "tlb.l1_sets",
	[K_L1_WAYS] = "tlb.l1_ways",
	[K_L2_SETS] = "tlb.l2_sets",
	[K_L2_WAYS] = "tlb.l2_ways",
	[K_PCID] = "tlb.pcid",
	[K_LAZY_LEAVE] = "guest.lazy_leave",
	[K_STEAL] = "guest.steal_accounting",
	[K_MIGRATE] = "guest.migrate",
	[K_LOCK_SPIN] = "guest.lock_spin_us",
	[K_TLB_GEN] = "guest.tlb_gen",
	[K_LOCK_HANDOFF] = "guest.lock_handoff_us",
	[K_FAULT_EXCL] = "guest.fault_exclusive",
	[K_WL_KIND] = "workload.kind",
	[K_WL_THREADS] = "workload.threads",
	[K_WL_PROCESSES] = "workload.processes",
	[K_WL_ITERATIONS] = "workload.iterations",
	[K_WL_PAGES] = "workload.pages",
	[K_WL_PAGE_SIZE] = "workload.page_size",
	[K_WL_TOUCH] = "workload.touch",
	[K_WL_TOUCH_REPEAT] = "workload.touch_repeat",
	[K_WL_SLEEP] = "workload.sleep_ns_max",
	[K_WL_FILE] = "workload.file_backed",
	[K_WL_SHARED] = "workload.shared",
	[K_WL_SEARCH] = "workload.search_pages",
	[K_WL_USER_NS] = "workload.user_ns",
	[K_WL_KERNEL_PAGES] = "workload.kernel_pages",
	[K_MAX_VIRTUAL] = "engine.max_virtual_s",
	[K_MAX_VIOLATIONS] = "engine.max_violations",
};

#define NKNOBS (sizeof(strategy_knobs) / sizeof(strategy_knobs[0]))

/* "strategy.<knob>" and "cost.<name>" as static strings for enumeration. */
static const char *const knob_keys[] = {
	"strategy.concurrent",	    "strategy.early_ack",
	"strategy.lazy_skip",	    "strategy.full_flush_ceiling",
	"strategy.xmm_fast",	    "strategy.compact_vpset",
	"strategy.extended_ranges", "strategy.broadcast_max_pages",
};
_Static_assert(sizeof(knob_keys) == sizeof(strategy_knobs), "knob keys");

static const char *const cost_keys[] = {
#define HVTLB_X_(n, d, u, s) "cost." #n,
	HVTLB_SIM_COST_MAP(HVTLB_X_)
#undef HVTLB_X_
};

void hvtlb_sim_config_init(struct hvtlb_sim_config *c)
{
	memset(c, 0, sizeof(*c));
	c->seed = 1;
	c->threads = 1;
	c->fault = HVTLB_SIM_FAULT_NONE;
	hvtlb_strategy_config_init(&c->strategy, HVTLB_STRATEGY_IPI);
	c->pcpus = 16;
	c->vms = 1;
	c->vcpus = 16;
	c->decoder = HVTLB_PROFILE_STRICT;
	c->ipiv = false;
	c->ple = true;
	c->ple_boost_ready = true;
	c->cfs = false;
	c->ipi_batch = 1;
	c->offer_xmm = true;
	c->offer_ex = true;
	c->tlb_levels = 2;
	c->l1_sets = 16;
	c->l1_ways = 4;
	c->l2_sets = 128;
	c->l2_ways = 12;
	c->pcid = true;
	c->lazy_leave = true;
	c->steal_accounting = false;
	c->migrate = true;
	c->tlb_gen = true;
	c->lock_handoff_us = 0;
	c->fault_exclusive = false;
	c->workload = HVTLB_SIM_WORKLOAD_TRASHER;
	c->wl_threads = 32;
	c->wl_processes = 1;
	c->wl_iterations = 1000;
	c->wl_pages = 1;
	c->wl_page_shift = 12;
	c->wl_touch = HVTLB_SIM_TOUCH_ALL;
	c->wl_touch_repeat = 1;
	c->wl_sleep_ns_max = 0;
	c->wl_file_backed = true;
	c->wl_search_pages = 64;
	c->wl_user_ns = 0;
	c->wl_kernel_pages = 0;
	c->max_virtual_s = 3600.0;
	c->max_violations = 16;
	for (size_t i = 0; i < SIM_COST_COUNT; i++)
		c->cost[i] = hvtlb_sim_cost_default(i);
}

static int parse_u64(const char *v, uint64_t *out)
{
	char *end;

	if (!v || !*v || *v == '-' || *v == '+' || *v == ' ')
		return -EINVAL;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || *end)
		return -EINVAL;
	*out = x;
	return 0;
}

static int parse_u32_range(const char *v, uint32_t lo, uint32_t hi,
			   uint32_t *out)
{
	uint64_t x;
	int r = parse_u64(v, &x);

	if (r)
		return r;
	if (x < lo || x > hi)
		return -ERANGE;
	*out = (uint32_t)x;
	return 0;
}

static int parse_bool(const char *v, bool *out)
{
	static const char *const t[] = { "1", "true", "yes", "on" };
	static const char *const f[] = { "0", "false", "no", "off" };

	if (!v)
		return -EINVAL;
	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(v, t[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(v, f[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_double(const char *v, double *out)
{
	char *end;

	if (!v || !*v || *v == ' ')
		return -EINVAL;
	errno = 0;
	double x = strtod(v, &end);
	if (*end || errno == EINVAL)
		return -EINVAL;
	if (errno == ERANGE || !isfinite(x))
		return -ERANGE;
	*out = x;
	return 0;
}

static int parse_name(const char *v, const char *const *names, size_t n,
		      int *out)
{
	if (!v)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(v, names[i])) {
			*out = (int)i;
			return 0;
		}
	}
	return -EINVAL;
}

static bool is_pow2(uint32_t x)
{
	return x && !(x & (x - 1));
}

static int set_key(struct hvtlb_sim_config *c, enum key_id k, const char *v)
{
	int r = 0, n;
	uint64_t u;

	switch (k) {
	case K_SEED:
		return parse_u64(v, &c->seed);
	case K_THREADS:
		return parse_u32_range(v, 1, HVTLB_SIM_MAX_THREADS,
				       &c->threads);
	case K_FAULT:
		r = parse_name(v, fault_names, HVTLB_SIM_FAULT_COUNT_, &n);
		if (!r)
			c->fault = (enum hvtlb_sim_fault)n;
		return r;
	case K_STRATEGY: {
		enum hvtlb_strategy_kind sk;

		if (!v || hvtlb_strategy_from_name(v, &sk))
			return -EINVAL;
		hvtlb_strategy_config_init(&c->strategy, sk);
		return 0;
	}
	case K_PCPUS:
		return parse_u32_range(v, 1, HVTLB_SIM_MAX_VCPUS, &c->pcpus);
	case K_VMS:
		return parse_u32_range(v, 1, 64, &c->vms);
	case K_PARTITION:
		return parse_bool(v, &c->partition);
	case K_VCPUS:
		return parse_u32_range(v, 1, HVTLB_SIM_MAX_VCPUS, &c->vcpus);
	case K_PROFILE: {
		enum hvtlb_profile p;

		if (!v || hvtlb_profile_from_name(v, &p))
			return -EINVAL;
		c->decoder = p;
		return 0;
	}
	case K_IPIV:
		return parse_bool(v, &c->ipiv);
	case K_PLE:
		return parse_bool(v, &c->ple);
	case K_PLE_BOOST:
		return parse_bool(v, &c->ple_boost_ready);
	case K_CFS:
		return parse_bool(v, &c->cfs);
	case K_IPI_BATCH:
		return parse_u32_range(v, 1, HVTLB_MAX_CPUS, &c->ipi_batch);
	case K_XMM:
		return parse_bool(v, &c->offer_xmm);
	case K_EX:
		return parse_bool(v, &c->offer_ex);
	case K_TLB_LEVELS:
		return parse_u32_range(v, 1, 2, &c->tlb_levels);
	case K_L1_SETS:
		r = parse_u32_range(v, 1, 1u << 16, &c->l1_sets);
		return r ? r : is_pow2(c->l1_sets) ? 0 : -ERANGE;
	case K_L1_WAYS:
		return parse_u32_range(v, 1, 64, &c->l1_ways);
	case K_L2_SETS:
		r = parse_u32_range(v, 1, 1u << 16, &c->l2_sets);
		return r ? r : is_pow2(c->l2_sets) ? 0 : -ERANGE;
	case K_L2_WAYS:
		return parse_u32_range(v, 1, 64, &c->l2_ways);
	case K_PCID:
		return parse_bool(v, &c->pcid);
	case K_LAZY_LEAVE:
		return parse_bool(v, &c->lazy_leave);
	case K_STEAL:
		return parse_bool(v, &c->steal_accounting);
	case K_MIGRATE:
		return parse_bool(v, &c->migrate);
	case K_TLB_GEN:
		return parse_bool(v, &c->tlb_gen);
	case K_FAULT_EXCL:
		return parse_bool(v, &c->fault_exclusive);
	case K_LOCK_HANDOFF: {
		double d;

		r = parse_double(v, &d);
		if (r)
			return r;
		if (d < 0 || d > 1e9)
			return -ERANGE;
		c->lock_handoff_us = d;
		return 0;
	}
	case K_LOCK_SPIN: {
		double d;

		r = parse_double(v, &d);
		if (r)
			return r;
		if (d < 0 || d > 1e6)
			return -ERANGE;
		c->lock_spin_us = d;
		return 0;
	}
	case K_WL_KIND:
		r = parse_name(v, workload_names, HVTLB_SIM_WORKLOAD_COUNT_,
			       &n);
		if (!r)
			c->workload = (enum hvtlb_sim_workload)n;
		return r;
	case K_WL_THREADS:
		return parse_u32_range(v, 1, 65536, &c->wl_threads);
	case K_WL_PROCESSES:
		return parse_u32_range(v, 1, 4096, &c->wl_processes);
	case K_WL_ITERATIONS:
		r = parse_u64(v, &u);
		if (r)
			return r;
		if (u < 1 || u > (1ULL << 40))
			return -ERANGE;
		c->wl_iterations = u;
		return 0;
	case K_WL_PAGES:
		return parse_u32_range(v, 1, 1u << 20, &c->wl_pages);
	case K_WL_PAGE_SIZE:
		if (!v)
			return -EINVAL;
		if (!strcasecmp(v, "4k"))
			c->wl_page_shift = 12;
		else if (!strcasecmp(v, "2m"))
			c->wl_page_shift = 21;
		else if (!strcasecmp(v, "1g"))
			c->wl_page_shift = 30;
		else
			return -EINVAL;
		return 0;
	case K_WL_TOUCH:
		r = parse_name(v, touch_names, 4, &n);
		if (!r)
			c->wl_touch = (enum hvtlb_sim_touch)n;
		return r;
	case K_WL_TOUCH_REPEAT:
		return parse_u32_range(v, 1, 1u << 20, &c->wl_touch_repeat);
	case K_WL_SLEEP:
		r = parse_u64(v, &u);
		if (r)
			return r;
		if (u > 10ULL * 1000 * 1000 * 1000)
			return -ERANGE;
		c->wl_sleep_ns_max = u;
		return 0;
	case K_WL_FILE:
		return parse_bool(v, &c->wl_file_backed);
	case K_WL_SHARED:
		return parse_bool(v, &c->wl_shared);
	case K_WL_SEARCH:
		return parse_u32_range(v, 1, 1u << 20, &c->wl_search_pages);
	case K_WL_USER_NS:
		r = parse_u64(v, &u);
		if (r)
			return r;
		if (u > 1000ULL * 1000 * 1000)
			return -ERANGE;
		c->wl_user_ns = u;
		return 0;
	case K_MAX_VIRTUAL: {
		double d;

		r = parse_double(v, &d);
		if (r)
			return r;
		if (!(d > 0))
			return -ERANGE;
		c->max_virtual_s = d;
		return 0;
	}
	case K_WL_KERNEL_PAGES:
		return parse_u32_range(v, 0, 1u << 20, &c->wl_kernel_pages);
	case K_MAX_VIOLATIONS:
		return parse_u32_range(v, 0, 1u << 20, &c->max_violations);
	case K_COUNT:
		break;
	}
	return -ENOENT;
}

int hvtlb_sim_config_set(struct hvtlb_sim_config *c, const char *key,
			 const char *value)
{
	if (!c || !key)
		return -EINVAL;
	for (int k = 0; k < K_COUNT; k++) {
		if (!strcmp(key, key_names[k]))
			return set_key(c, (enum key_id)k, value);
	}
	if (!strncmp(key, "strategy.", 9)) {
		const char *knob = key + 9;

		for (size_t i = 0; i < NKNOBS; i++) {
			if (!strcmp(knob, strategy_knobs[i])) {
				int r = hvtlb_strategy_config_set(&c->strategy,
								  knob, value);
				return r == -ENOENT ? -EINVAL : r;
			}
		}
		return -ENOENT;
	}
	if (!strncmp(key, "cost.", 5)) {
		for (size_t i = 0; i < SIM_COST_COUNT; i++) {
			if (strcmp(key + 5, hvtlb_sim_cost_name(i)))
				continue;
			double d;
			int r = parse_double(value, &d);

			if (r)
				return r;
			if (d < 0 || (i == SIM_COST_cpu_mhz && d <= 0))
				return -ERANGE;
			c->cost[i] = d;
			return 0;
		}
	}
	return -ENOENT;
}

int hvtlb_sim_config_validate(const struct hvtlb_sim_config *c,
			      const char **bad_key)
{
	const char *bad = NULL;

	if (!c)
		return -EINVAL;
	if (c->threads < 1 || c->threads > HVTLB_SIM_MAX_THREADS)
		bad = key_names[K_THREADS];
	else if (c->fault >= HVTLB_SIM_FAULT_COUNT_)
		bad = key_names[K_FAULT];
	else if (c->strategy.kind >= HVTLB_STRATEGY_COUNT_)
		bad = key_names[K_STRATEGY];
	else if (c->pcpus < 1 || c->pcpus > HVTLB_SIM_MAX_VCPUS)
		bad = key_names[K_PCPUS];
	else if (c->vms < 1 || c->vms > 64)
		bad = key_names[K_VMS];
	else if (c->partition && c->pcpus % c->vms)
		bad = key_names[K_PARTITION];
	else if (c->vcpus < 1 || c->vcpus > HVTLB_SIM_MAX_VCPUS)
		bad = key_names[K_VCPUS];
	else if (c->decoder >= HVTLB_PROFILE_COUNT_)
		bad = key_names[K_PROFILE];
	else if (c->ipi_batch < 1)
		bad = key_names[K_IPI_BATCH];
	else if (c->tlb_levels < 1 || c->tlb_levels > 2)
		bad = key_names[K_TLB_LEVELS];
	else if (!is_pow2(c->l1_sets) || c->l1_sets > (1u << 16))
		bad = key_names[K_L1_SETS];
	else if (c->l1_ways < 1 || c->l1_ways > 64)
		bad = key_names[K_L1_WAYS];
	else if (!is_pow2(c->l2_sets) || c->l2_sets > (1u << 16))
		bad = key_names[K_L2_SETS];
	else if (c->l2_ways < 1 || c->l2_ways > 64)
		bad = key_names[K_L2_WAYS];
	else if (c->workload >= HVTLB_SIM_WORKLOAD_COUNT_)
		bad = key_names[K_WL_KIND];
	else if (c->wl_threads < 1 || c->wl_threads > 65536)
		bad = key_names[K_WL_THREADS];
	else if (c->wl_processes < 1 || c->wl_processes > c->wl_threads)
		bad = key_names[K_WL_PROCESSES];
	else if (c->wl_iterations < 1 || c->wl_iterations > (1ULL << 40))
		bad = key_names[K_WL_ITERATIONS];
	else if (c->wl_pages < 1 || c->wl_pages > (1u << 20))
		bad = key_names[K_WL_PAGES];
	else if (c->wl_page_shift != 12 && c->wl_page_shift != 21 &&
		 c->wl_page_shift != 30)
		bad = key_names[K_WL_PAGE_SIZE];
	else if (c->wl_touch > HVTLB_SIM_TOUCH_RANDOM)
		bad = key_names[K_WL_TOUCH];
	else if (c->wl_touch_repeat < 1)
		bad = key_names[K_WL_TOUCH_REPEAT];
	else if (c->wl_search_pages < 1)
		bad = key_names[K_WL_SEARCH];
	else if (c->wl_kernel_pages > (1u << 20))
		bad = key_names[K_WL_KERNEL_PAGES];
	else if (!(c->lock_spin_us >= 0) || c->lock_spin_us > 1e6)
		bad = key_names[K_LOCK_SPIN];
	else if (!(c->lock_handoff_us >= 0) || c->lock_handoff_us > 1e9)
		bad = key_names[K_LOCK_HANDOFF];
	else if (!(c->max_virtual_s > 0) || !isfinite(c->max_virtual_s))
		bad = key_names[K_MAX_VIRTUAL];
	else if ((uint64_t)c->vms * c->vcpus > 64u * HVTLB_SIM_MAX_VCPUS)
		bad = key_names[K_VMS];
	for (size_t i = 0; !bad && i < SIM_COST_COUNT; i++) {
		if (!isfinite(c->cost[i]) || c->cost[i] < 0 ||
		    (i == SIM_COST_cpu_mhz && c->cost[i] <= 0))
			bad = cost_keys[i];
	}
	if (!bad) {
		/* The arena of one process must fit the simulator's page
		 * tables: threads x pages x 2 pages of page-table entries. */
		uint64_t per = (uint64_t)c->wl_pages *
			       ((c->wl_threads + c->wl_processes - 1) /
				c->wl_processes);
		if (per > (1ULL << 26))
			bad = key_names[K_WL_PAGES];
	}
	if (bad) {
		if (bad_key)
			*bad_key = bad;
		return -ERANGE;
	}
	return 0;
}

const char *hvtlb_sim_config_key_name(size_t i)
{
	if (i < K_COUNT)
		return key_names[i];
	i -= K_COUNT;
	if (i < NKNOBS)
		return knob_keys[i];
	i -= NKNOBS;
	if (i < SIM_COST_COUNT)
		return cost_keys[i];
	return NULL;
}

const char *hvtlb_sim_fault_name(enum hvtlb_sim_fault f)
{
	return (unsigned)f < HVTLB_SIM_FAULT_COUNT_ ? fault_names[f] : NULL;
}

const char *hvtlb_sim_workload_name(enum hvtlb_sim_workload w)
{
	return (unsigned)w < HVTLB_SIM_WORKLOAD_COUNT_ ? workload_names[w]
						       : NULL;
}
