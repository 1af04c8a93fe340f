/* SPDX-License-Identifier: MIT */
/*
 * One vCPU's send to many (send-chain.c): the events of its last send
 * (flush IPIs, the hypervisor's kicks), queued one at a time. Apart from
 * machine.h, which holds struct vcpu_send by value.
 */
#ifndef HVTLB_SIM_SEND_CHAIN_H
#define HVTLB_SIM_SEND_CHAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/event.h"

struct sim;
struct vcpu;

/*
 * The events of a vCPU's last send still on their way (struct vcpu's
 * send), in key order; only ev[next] is queued. Written by send-chain.c
 * alone (setup.c frees ev).
 */
struct vcpu_send {
	struct event *ev;
	uint32_t next, n, cap;
};

/* The events of one send of @p from: sim_send_begin() says whether they
 * may be chained; sim_send_queue() for each, in the order they are due;
 * sim_send_end() queues the first. */
bool sim_send_begin(struct vcpu *from);
void sim_send_queue(struct sim *s, struct vcpu *from, bool chain, simtime t,
		    enum ev_kind k, uint32_t obj, uint64_t arg);
void sim_send_end(struct sim *s, struct vcpu *from, bool chain);
/* An event of a chain was popped: queues the next; @p e gets its kind. */
void sim_send_popped(struct sim *s, struct event *e);

#endif
