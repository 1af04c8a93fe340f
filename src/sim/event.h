/* SPDX-License-Identifier: MIT */
/*
 * The event queue: remote effects (IPIs, kicks, acknowledgements,
 * wake-ups, timers, slice ends) are events stamped in the future, popped
 * in (time, sequence) order, so a run is a pure function of its config
 * and seed.
 */
#ifndef HVTLB_SIM_EVENT_H
#define HVTLB_SIM_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t simtime;
#define SIM_NEVER UINT64_MAX

enum ev_kind {
	EV_RUN,	       /* vCPU finished its work segment */
	EV_SLICE,      /* pCPU time slice over */
	EV_IPI,	       /* an IPI reaches a vCPU */
	EV_KICK,       /* the hypervisor's kick reaches a vCPU */
	EV_WAKE,       /* a halted vCPU becomes runnable on its pCPU */
	EV_TIMER,      /* a sleeping task's timer */
	EV_TICK,       /* guest timer tick of a vCPU */
	EV_ACK,	       /* an acknowledgement reaches an initiator */
	EV_PLE,	       /* pause-loop exit of a spinning vCPU */
	EV_SPIN_END,   /* a lock spinner's budget is over */
	EV_PVL_SPIN,   /* a PV spinlock waiter's spin threshold */
	EV_IDLE_POLL,  /* an idle vCPU's poll limit (guest.idle = haltpoll) */
	EV_LONG_SPIN,  /* a spinning guest notifies the hypervisor */
	EV_SPAWN,      /* the workload creates a thread */
	EV_BALANCE,    /* a pCPU's periodic load balancing */
	EV_KICK_YIELD, /* KVM yields a PV lock kicker's pCPU to the kicked */
};

/* kind: an enum ev_kind; above EV_SENDER_SHIFT, the vCPU (global id + 1)
 * whose send chain it belongs to (send-chain.c), or 0 */
#define EV_SENDER_SHIFT 8
#define EV_KIND_MASK ((1u << EV_SENDER_SHIFT) - 1)

struct event {
	simtime t;
	uint64_t seq;
	uint32_t kind;
	uint32_t obj;
	uint64_t arg;
};

/*
 * The queued events: one held event, the earliest of all when present (an
 * event pushed ahead of everything else, typically the segment a task
 * just started on its vCPU, waits there and is popped at once), the
 * earliest of the others, at most EVQ_NEAR, in an array sorted latest
 * first, and the rest, all later than those, in a binary min-heap.
 *
 * A run of a few dozen vCPUs keeps 5 to 50 events queued and most are due
 * soon: a pop takes the array's last element, a push walks back from
 * there and shifts the few later ones. The heap keeps a large machine's
 * far events (slices, ticks) at log n each; when the array runs empty,
 * the heap's earliest refill it. Events pop in (t, seq) order; keys are
 * unique. A 64-vCPU VM with every vCPU flushing keeps 130 to 170 queued
 * (a slice per pCPU among them): 256 keeps them out of the heap, and a
 * push still walks only past the few due earlier.
 */
#define EVQ_NEAR 256

struct evq {
	uint64_t seq;	   /* the next key */
	struct event *ev;  /* the near events, latest first: n of them */
	struct event *far; /* the heap: nfar events, later than ev[] */
	size_t n, nfar, far_cap;
	struct event hold; /* the earliest event, if held */
	bool held;
	bool failed; /* out of memory: an event was lost */
};

static inline bool ev_less(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

/* The slower halves of evq_push_seq() and evq_pop() (event.c): queue
 * @p e in the array or the heap; move the heap's earliest to the empty
 * array. */
void sim_evq_insert(struct evq *q, const struct event *e);
void sim_evq_refill(struct evq *q);

/* Room for one more event in q->far (grown by doubling); false, with
 * q->failed set, when memory runs out. */
bool sim_evq_far_reserve(struct evq *q);

#ifndef HVTLB_SIM_EVQ_NAIVE
/* Queues an event at @p t (not before @p now) under a key taken earlier
 * (q->seq++): it is popped exactly where an event pushed at that moment
 * would have been. */
static inline void evq_push_seq(struct evq *q, simtime now, simtime t,
				uint64_t seq, enum ev_kind k, uint32_t obj,
				uint64_t arg)
{
	struct event e = { t < now ? now : t, seq, k, obj, arg };

	if (q->held) {
		if (ev_less(&e, &q->hold)) {
			sim_evq_insert(q, &q->hold);
			q->hold = e;
		} else {
			sim_evq_insert(q, &e);
		}
	} else if (!q->n || ev_less(&e, &q->ev[q->n - 1])) {
		q->hold = e;
		q->held = true;
	} else {
		sim_evq_insert(q, &e);
	}
}

static inline bool evq_pending(const struct evq *q)
{
	return q->held || q->n;
}

/* Time of the earliest queued event, SIM_NEVER when there is none. */
static inline simtime evq_next_time(const struct evq *q)
{
	if (q->held)
		return q->hold.t;
	return q->n ? q->ev[q->n - 1].t : SIM_NEVER;
}

/* Pops the earliest event; the queue must not be empty. */
static inline struct event evq_pop(struct evq *q)
{
	if (q->held) {
		q->held = false;
		return q->hold;
	}
	struct event e = q->ev[--q->n];

	if (!q->n && q->nfar)
		sim_evq_refill(q);
	return e;
}

#else
/* bench-sim's baseline (bench/sim/evq-naive.c): the same operations on an
 * unsorted array, the earliest found by a linear scan. Same pop order. */
void evq_push_seq(struct evq *q, simtime now, simtime t, uint64_t seq,
		  enum ev_kind k, uint32_t obj, uint64_t arg);
bool evq_pending(const struct evq *q);
simtime evq_next_time(const struct evq *q);
struct event evq_pop(struct evq *q);
#endif

static inline void evq_push(struct evq *q, simtime now, simtime t,
			    enum ev_kind k, uint32_t obj, uint64_t arg)
{
	evq_push_seq(q, now, t, q->seq++, k, obj, arg);
}

void sim_evq_finish(struct evq *q);

/* The engine's shorthands: the queue of struct sim @p s at its now. */
#define ev_push(s, t, k, obj, arg) evq_push(&(s)->q, (s)->now, t, k, obj, arg)
#define ev_push_seq(s, t, seq, k, obj, arg)                                    \
	evq_push_seq(&(s)->q, (s)->now, t, seq, k, obj, arg)

#endif
