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
 * its run queue (struct vcpu_gsched), its interrupts (struct vcpu_irq),
 * the shootdown it initiates (struct vcpu_shootdown), the
 * acknowledgements an initiator was posted (struct vcpu_ack) and the
 * idle loop's polling (struct vcpu_idle).
 */
#ifndef HVTLB_SIM_GUEST_VCPU_H
#define HVTLB_SIM_GUEST_VCPU_H

#include <stdbool.h>
#include <stdint.h>

#include <hvtlb/core.h>

#include "sim/event.h"

/* A lazy invalidation posted to a vCPU (strategy lazy). */
struct lazy_rec {
	uint64_t start, end;
	unsigned shift;
	uint32_t asid;
};

struct vcpu_guest {
	/* Linux's cpu_tlbstate: the mm it has loaded (mm index or NONE_ID),
	 * in lazy TLB mode (kernel thread or idle on a borrowed mm), and the
	 * mm's tlb generation its TLB holds */
	uint32_t loaded_mm;
	uint64_t mm_gen;
	bool lazy;
	bool left_mm; /* guest.idle_leaves_mm: it left one when idle */
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
 * guest-sched.c alone (sim_guest_vcpu_init() starts cur at NONE_ID); the
 * host, the oracle and the backend read cur to tell what the vCPU is
 * doing.
 */
struct vcpu_gsched {
	uint32_t cur; /* task or NONE_ID */
	uint32_t rq_head, rq_tail, rq_n;
	simtime cur_since;
	bool tick_armed;
	simtime timer_at; /* its earliest known guest timer (0: none) */
};

enum ipi_kind { IPI_FLUSH, IPI_RESCHED };

struct ipi_rec {
	simtime arrive;
	uint32_t from; /* global vCPU id */
	uint32_t seq;
	uint32_t asid;
	uint8_t kind;
	uint8_t state; /* the target's, when it was sent (sim_target_posted) */
	uint8_t lock;  /* its PV spinlock state then (sim_target_lock) */
	simtime posted;
	bool early;
	bool drop;   /* drop-target fault: ack without flushing */
	bool no_gen; /* the flush carries no tlb generation (batched) */
	uint8_t how; /* enum hvtlb_sim_ipi_delivery that carried it */
	struct hvtlb_flush_range r;
};

/* guest.ipi_mailbox: a flush request from @p from whose handler on the
 * target runs until @p done (it started while the target ran since
 * @p at). */
struct mbox_rec {
	uint32_t from;
	simtime at, done;
};

/*
 * The interrupts of one vCPU (struct vcpu's irq): the IPIs posted to it
 * and not yet taken (pend, npend of them, in the order they were
 * posted) and, with guest.ipi_mailbox, the flush handlers in progress on
 * it (mbox). Written by guest-irq.c alone: sim_ipi_post() for a sender,
 * sim_vcpu_take_ipis() for the vCPU; the oracle, the backend and PLE
 * read pend. sim_guest_vcpu_finish() frees both arrays.
 */
struct vcpu_irq {
	struct ipi_rec *pend;
	uint32_t npend, cappend;
	struct mbox_rec *mbox;
	uint32_t nmbox, capmbox;
};

/*
 * The shootdown a vCPU has in progress as its initiator (struct vcpu's
 * sd): its number, the acknowledgements still awaited (posted one by one
 * with sim_ack_post() and reaching the initiator as one EV_ACK at the key
 * of the last to arrive), and whether its guest spins for flush IPI
 * acknowledgements. Several writers by design: a guest strategy's IPIs
 * start one (backend.c), so does a flush hypercall, whose initiator
 * waits for the hypervisor's kicks of running targets (hypervisor.c),
 * and the EV_ACK handler ends it (guest-irq.c).
 */
struct vcpu_shootdown {
	uint32_t ack_seq;
	uint32_t ack_wait;
	bool ipi_wait;
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
