/* SPDX-License-Identifier: MIT */
/*
 * Guest OS models (guest.os): each is a named bundle of the keys that
 * describe how that kernel behaves. Setting guest.os sets every key of
 * the bundle but those given by name, before or after it (set_bundle() in
 * config.c), so a scenario overrides any of them in any order. Every
 * model sets the same keys, so switching models leaves nothing of the
 * previous one, and the Linux model's values are the keys' defaults.
 *
 * A new model is its row in HVTLB_SIM_GUEST_OS_MAP (sim.h), its file
 * (guest-os-NAME.c, defining sim_guest_os_<NAME>, NAME exactly as in the
 * row) and its line in meson.build: the rows make the extern list below
 * and the table of guest-os.c, and a row without its definition does not
 * link.
 */
#ifndef HVTLB_SIM_GUEST_OS_H
#define HVTLB_SIM_GUEST_OS_H

#include <hvtlb/sim.h>

/* One key of a bundle, as hvtlb_sim_config_set() takes it. */
struct guest_os_key {
	const char *key, *value;
};

struct guest_os {
	const char *name;
	/* The keys and values, ending with { NULL, NULL }. */
	const struct guest_os_key *keys;
};

#define GUEST_OS_X_(n, s) extern const struct guest_os sim_guest_os_##n;
HVTLB_SIM_GUEST_OS_MAP(GUEST_OS_X_)
#undef GUEST_OS_X_

/* The model registered for @p os, or NULL. */
const struct guest_os *sim_guest_os_get(enum hvtlb_sim_guest_os os);

/* Sets every key of @p os's bundle in @p c. Returns 0 or the first
 * hvtlb_sim_config_set() error (a bug in the bundle). */
int sim_guest_os_apply(struct hvtlb_sim_config *c, enum hvtlb_sim_guest_os os);

#endif
