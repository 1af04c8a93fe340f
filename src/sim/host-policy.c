// SPDX-License-Identifier: MIT
/* The host policies (hypervisor.host_policy), one per row of
 * HVTLB_SIM_HOST_POLICY_MAP. */
#include "sim/gate.h"
#include "sim/host.h"

static const struct host_policy *const policies[] = {
#define HOST_POLICY_X_(n, s) [HVTLB_SIM_HOST_POLICY_##n] = &sim_host_##n,
	HVTLB_SIM_HOST_POLICY_MAP(HOST_POLICY_X_)
#undef HOST_POLICY_X_
};
_Static_assert(sizeof(policies) / sizeof(policies[0]) ==
		       HVTLB_SIM_HOST_POLICY_COUNT_,
	       "a host policy per row of HVTLB_SIM_HOST_POLICY_MAP");

const struct host_policy *sim_host_policy_get(enum hvtlb_sim_host_policy p)
{
	return (unsigned)p < HVTLB_SIM_HOST_POLICY_COUNT_ ? policies[p] : NULL;
}

/* The policy hypervisor.cfs and cfs_tick name. */
static enum hvtlb_sim_host_policy policy_of(bool cfs, bool cfs_tick)
{
	return !cfs	  ? HVTLB_SIM_HOST_POLICY_FIFO
	       : cfs_tick ? HVTLB_SIM_HOST_POLICY_CFS_TICK
			  : HVTLB_SIM_HOST_POLICY_CFS_ENTRY;
}

void sim_host_policy_follow(struct hvtlb_sim_config *c)
{
	enum hvtlb_sim_host_policy p = c->host_policy;

	if (!sim_config_given(c, "hypervisor.host_policy")) {
		c->host_policy = policy_of(c->cfs, c->cfs_tick);
		return;
	}
	if ((unsigned)p >= HVTLB_SIM_HOST_POLICY_COUNT_)
		return;
	if (!sim_config_given(c, "hypervisor.cfs"))
		c->cfs = p != HVTLB_SIM_HOST_POLICY_FIFO;
	if (!sim_config_given(c, "hypervisor.cfs_tick") &&
	    p != HVTLB_SIM_HOST_POLICY_FIFO)
		c->cfs_tick = p == HVTLB_SIM_HOST_POLICY_CFS_TICK;
}

const char *sim_host_policy_clash(const struct hvtlb_sim_config *c,
				  const char **why)
{
	static const char *const whys[] = {
#define HOST_POLICY_X_(n, s) "contradicts hypervisor.host_policy = " s,
		HVTLB_SIM_HOST_POLICY_MAP(HOST_POLICY_X_)
#undef HOST_POLICY_X_
	};
	bool fifo = c->host_policy == HVTLB_SIM_HOST_POLICY_FIFO;
	const char *bad = NULL;

	if ((unsigned)c->host_policy >= HVTLB_SIM_HOST_POLICY_COUNT_)
		return NULL; /* refused as out of range before */
	if (c->cfs == fifo)
		bad = "hypervisor.cfs";
	else if (!fifo && policy_of(c->cfs, c->cfs_tick) != c->host_policy)
		bad = "hypervisor.cfs_tick";
	if (bad)
		*why = whys[c->host_policy];
	return bad;
}
