// SPDX-License-Identifier: MIT
/* The moves of a vCPU thread's host state (vcpu-state.h). */
#include "sim/machine.h"
#include "sim/vcpu-state.h"

#define TO(x) (1u << (x))

/* From each state, the states it may move to. */
static const unsigned moves[] = {
	[H_RUNNING] = TO(H_READY) | TO(H_HALTED),
	[H_READY] = TO(H_RUNNING),
	[H_HALTED] = TO(H_WAKING),
	[H_WAKING] = TO(H_READY),
};

bool sim_vcpu_move(struct sim *s, struct vcpu *v, enum hstate to)
{
	if (!(moves[v->hs] & TO(to))) {
		s->failed = true;
		return false;
	}
	sim_ct_on_vcpu_move(s, v, to);
	sim_pvl_on_vcpu_move(s, v, to);
	v->hs = to;
	return true;
}
