/* SPDX-License-Identifier: MIT */
/*
 * What a guest kernel version (guest.kernel) and a confidential-VM
 * platform (machine.backing) allow, and the choices a guest of that
 * version makes itself (docs/model.md, "Version gates and backings").
 */
#ifndef HVTLB_SIM_GATE_H
#define HVTLB_SIM_GATE_H

#include <stdbool.h>

#include <hvtlb/sim.h>

/* The effective IPI delivery of a run and where it came from. */
struct sim_delivery {
	enum hvtlb_sim_ipi_delivery how;
	enum hvtlb_sim_origin origin;
	const char *why; /* static; "" unless derived */
};

/* Whether @p key was given to hvtlb_sim_config_set() (config.c). */
bool sim_config_given(const struct hvtlb_sim_config *c, const char *key);

/* The first key of @p c that a gate refuses, its reason in *@p why; NULL
 * when every gate passes. */
const char *sim_gate_refused(const struct hvtlb_sim_config *c,
			     const char **why);

/* Makes @p c (a run's copy of a valid config) what the guest runs: the
 * delivery and the knobs guest.kernel decides when not given; the
 * delivery's origin in *@p d. */
void sim_gate_apply(struct hvtlb_sim_config *c, struct sim_delivery *d);

#endif
