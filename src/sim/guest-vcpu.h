/* SPDX-License-Identifier: MIT */
/*
 * The guest kernel's state of one vCPU (struct vcpu's guest), apart from
 * the rest of guest.h so that machine.h can hold it by value. Written by
 * the guest's scheduler (guest-sched.c: switch_mm and lazy TLB mode), its
 * interrupts (guest-irq.c: applying lazy invalidations) and the lazy
 * strategy's posts (backend.c). A new per-vCPU field the guest alone
 * writes goes here.
 *
 * Also the state of the guest's seams that have a struct of their own:
 * the acknowledgements an initiator was posted (struct vcpu_ack) and the
 * idle loop's polling (struct vcpu_idle).
 */
#ifndef HVTLB_SIM_GUEST_VCPU_H
#define HVTLB_SIM_GUEST_VCPU_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/event.h"

/* A lazy invalidation posted to a vCPU (strategy lazy). */
struct lazy_rec {
	uint64_t start, end;
	unsigned shift;
	uint32_t asid;
};

struct vcpu_guest {
	/* Linux's cpu_tlbstate: in lazy TLB mode (kernel thread or idle on
	 * a borrowed mm), and the mm's tlb generation its TLB holds */
	uint64_t mm_gen;
	bool lazy;
	/* strategy lazy: invalidations posted and not yet applied (nlz of
	 * them in lz, or lz_all: everything), and the oldest (UINT64_MAX:
	 * none) and newest epoch among them */
	bool lz_all;
	uint32_t nlz;
	struct lazy_rec *lz;
	uint64_t lz_min_epoch;
	uint64_t lz_max_epoch;
};

/*
 * The guest scheduler's view of one vCPU (struct vcpu's gs): the thread
 * it runs and since when, its run queue of guest threads (a list linked
 * through struct task's next), and its tick and timer. Written by
 * guest-sched.c alone (setup.c starts cur at NONE_ID); the host, the
 * oracle and the backend read cur to tell what the vCPU is doing.
 */
struct vcpu_gsched {
	uint32_t cur; /* task or NONE_ID */
	uint32_t rq_head, rq_tail, rq_n;
	simtime cur_since;
	bool tick_armed;
	simtime timer_at; /* its earliest known guest timer (0: none) */
};

/*
 * The acknowledgements posted so far to one initiator (struct vcpu's ack),
 * written by sim_ack_post() (guest-irq.c) alone: of which shootdown (its
 * ack_seq then), how many, and the latest (time, key) among them, the key
 * the initiator's one EV_ACK is queued under once all are in.
 */
struct vcpu_ack {
	uint32_t posted, posted_seq;
	simtime last_t;
	uint64_t last_key;
};

/*
 * The guest's idle loop (guest.idle) of one vCPU (struct vcpu's idle),
 * written by guest-sched.c alone: polling for work while idle (keeping
 * its pCPU) until poll_end (SIM_NEVER: idle=poll), the EV_IDLE_POLL it
 * queued (poll_token), haltpoll's adaptive limit, and whether it halted
 * from idle and is not yet back in the guest.
 */
struct vcpu_idle {
	bool polling;
	bool halted;
	uint64_t poll_token;
	simtime poll_limit, poll_end;
};

#endif
