// SPDX-License-Identifier: MIT
/*
 * The events one vCPU sends to many (flush IPIs, the hypervisor's kicks),
 * queued one at a time.
 *
 * One send reaches up to every vCPU of the VM, each with an event of its
 * own. Queued together they fill the event queue (a 64-vCPU VM with every
 * vCPU flushing holds hundreds), and every pop pays for its depth.
 * Instead the sender keeps the events of its last send in key order and
 * only the first is queued; each, when popped, queues the next under the
 * key (time, sequence) it was given at the send, which orders it after
 * the one just popped: events pop in exactly the order of queueing them
 * all at once. An event that cannot join the chain in key order (the
 * sender's last send is not over, or it is due before the chain's last)
 * is queued at once.
 */
#include <stdlib.h>

#include "sim/machine.h"
#include "sim/send-chain.h"

bool sim_send_begin(struct vcpu *from)
{
	if (from->send.next != from->send.n)
		return false;
	from->send.next = from->send.n = 0;
	return true;
}

void sim_send_queue(struct sim *s, struct vcpu *from, bool chain, simtime t,
		    enum ev_kind k, uint32_t obj, uint64_t arg)
{
	if (t < s->now)
		t = s->now;
	if (!chain || (from->send.n && t < from->send.ev[from->send.n - 1].t)) {
		ev_push(s, t, k, obj, arg);
		return;
	}
	if (from->send.n == from->send.cap) {
		uint32_t nc = from->send.cap ? from->send.cap * 2 : 4;
		struct event *p = realloc(from->send.ev, nc * sizeof(*p));

		if (!p) {
			s->failed = true;
			return;
		}
		from->send.ev = p;
		from->send.cap = nc;
	}
	from->send.ev[from->send.n++] = (struct event){
		t, s->q.seq++, k | (from->gid + 1) << EV_SENDER_SHIFT, obj, arg
	};
}

static void send_push(struct sim *s, struct vcpu *from)
{
	const struct event *e = &from->send.ev[from->send.next];

	ev_push_seq(s, e->t, e->seq, (enum ev_kind)e->kind, e->obj, e->arg);
}

void sim_send_end(struct sim *s, struct vcpu *from, bool chain)
{
	if (chain && from->send.n)
		send_push(s, from);
}

void sim_send_popped(struct sim *s, struct event *e)
{
	struct vcpu *from = &s->v[(e->kind >> EV_SENDER_SHIFT) - 1];

	e->kind &= EV_KIND_MASK;
	if (++from->send.next < from->send.n)
		send_push(s, from);
}
