/* SPDX-License-Identifier: MIT */
/*
 * The host's state of a vCPU thread (struct vcpu's hs) and the only moves
 * between its states, made by sim_vcpu_move() alone:
 *
 *   HALTED --sim_vcpu_wake()--> WAKING --EV_WAKE--> READY --picked--> RUNNING
 *     ^                                               ^                  |
 *     |                                               +---- preempted ---+
 *     +------------------------- halted --------------------------------+
 *
 * A vCPU starts HALTED (setup.c). RUNNING is on its pCPU; READY waits in
 * its pCPU's run queue (KVM's vcpu->preempted while it does); HALTED has
 * left the run queue (kvm_vcpu_halt() and schedule()); WAKING was woken
 * and reaches its pCPU's run queue after the wake-up latency
 * (host-idle.c).
 */
#ifndef HVTLB_SIM_VCPU_STATE_H
#define HVTLB_SIM_VCPU_STATE_H

#include <stdbool.h>

enum hstate { H_RUNNING, H_READY, H_HALTED, H_WAKING };

struct sim;
struct vcpu;

/* Moves @p v to @p to. A move the diagram does not have is an error of
 * the engine: the run fails (-EPROTO) and false is returned. */
bool sim_vcpu_move(struct sim *s, struct vcpu *v, enum hstate to);

#endif
