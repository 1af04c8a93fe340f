// SPDX-License-Identifier: MIT
/* The guest OS models (guest-os.h), by their guest.os name. */
#include <errno.h>

#include "sim/guest-os.h"

static const struct guest_os *const models[HVTLB_SIM_GUEST_OS_COUNT_] = {
#define GUEST_OS_X_(n, s) [HVTLB_SIM_GUEST_OS_##n] = &sim_guest_os_##n,
	HVTLB_SIM_GUEST_OS_MAP(GUEST_OS_X_)
#undef GUEST_OS_X_
};

const struct guest_os *sim_guest_os_get(enum hvtlb_sim_guest_os os)
{
	return (unsigned)os < HVTLB_SIM_GUEST_OS_COUNT_ ? models[os] : NULL;
}

int sim_guest_os_apply(struct hvtlb_sim_config *c, enum hvtlb_sim_guest_os os)
{
	const struct guest_os *m = sim_guest_os_get(os);

	if (!m)
		return -EINVAL;
	for (const struct guest_os_key *k = m->keys; k->key; k++) {
		int rc = hvtlb_sim_config_set(c, k->key, k->value);

		if (rc)
			return rc;
	}
	return 0;
}
