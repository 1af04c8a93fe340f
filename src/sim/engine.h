/* SPDX-License-Identifier: MIT */
/* Building and freeing a machine (setup.c). */
#ifndef HVTLB_SIM_ENGINE_H
#define HVTLB_SIM_ENGINE_H

struct sim;

/* Builds the machine of s->c (s->c, s->cost, s->stream_base set);
 * 0 or -ENOMEM / -EINVAL. sim_teardown() frees it, also after a failure. */
int sim_setup(struct sim *s);
void sim_teardown(struct sim *s);

#endif
