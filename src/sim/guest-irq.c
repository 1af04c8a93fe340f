// SPDX-License-Identifier: MIT
/*
 * Interrupts a vCPU takes: flush IPIs (the guest's handler flushes, or a
 * lazy CPU leaves the mm, and acknowledges, early or after the flush),
 * reschedule IPIs, acknowledgements reaching a spinning initiator, and
 * the lazy invalidations (LATR) a vCPU applies at ticks and context
 * switches.
 */
#include <stdlib.h>

#include "sim/contention.h"
#include "sim/guest.h"
#include "sim/host.h"
#include "sim/machine.h"
#include "sim/oracle.h"
#include "sim/stats.h"
#include "sim/vcpu-tlb.h"

/*
 * guest.ipi_mailbox: a sender has one request slot per target (WRK
 * KiIpiSendRequest spins until the target has processed the sender's
 * last request before it writes the next one into that target's
 * mailbox). With early acknowledgement the sender may be done with a
 * shootdown while the target still flushes for it; the handlers in
 * progress are remembered here.
 */
static bool mbox_live(const struct sim *s, const struct vcpu *v,
		      const struct mbox_rec *m)
{
	/* A handler cut short by a deschedule ended there (sim_vcpu_steal's
	 * time does not survive one). */
	return m->done > s->now && v->hs == H_RUNNING &&
	       v->host.run_start <= m->at;
}

static void mbox_note(struct sim *s, struct vcpu *v, uint32_t from,
		      simtime done)
{
	uint32_t keep = 0;

	for (uint32_t i = 0; i < v->irq.nmbox; i++)
		if (v->irq.mbox[i].from != from &&
		    mbox_live(s, v, &v->irq.mbox[i]))
			v->irq.mbox[keep++] = v->irq.mbox[i];
	v->irq.nmbox = keep;
	if (v->irq.nmbox == v->irq.capmbox) {
		uint32_t nc = v->irq.capmbox ? v->irq.capmbox * 2 : 4;
		struct mbox_rec *p = realloc(v->irq.mbox, nc * sizeof(*p));

		if (!p) {
			s->failed = true;
			return;
		}
		v->irq.mbox = p;
		v->irq.capmbox = nc;
	}
	v->irq.mbox[v->irq.nmbox++] = (struct mbox_rec){ from, s->now, done };
}

bool sim_ipi_post(struct sim *s, struct vcpu *v, const struct ipi_rec *q)
{
	if (v->irq.npend == v->irq.cappend) {
		uint32_t nc = v->irq.cappend ? v->irq.cappend * 2 : 4;
		struct ipi_rec *p = realloc(v->irq.pend, nc * sizeof(*p));

		if (!p) {
			s->failed = true;
			return false;
		}
		v->irq.pend = p;
		v->irq.cappend = nc;
	}
	v->irq.pend[v->irq.npend++] = *q;
	return true;
}

simtime sim_ipi_mailbox_free_at(struct sim *s, const struct vcpu *target,
				uint32_t from)
{
	for (uint32_t i = 0; i < target->irq.nmbox; i++) {
		const struct mbox_rec *m = &target->irq.mbox[i];

		if (m->from == from && mbox_live(s, target, m))
			return m->done;
	}
	return s->now;
}

static void handle_ipi(struct sim *s, struct vcpu *v, const struct ipi_rec *q)
{
	simtime h = cyc(s, SIM_COST_ipi_target), end;

	s->r->ipis_delivered++;
	if (!s->c->ipiv)
		sim_count_exit(s, v, HVTLB_SIM_EXIT_INTERRUPT, 1);
	if (q->kind == IPI_RESCHED) {
		sim_vcpu_steal(s, v, h);
		return;
	}
	TRACE(s, HVTLB_SIM_TRACE_IPI, v, TR_NONE, s->now, s->v[q->from].idx,
	      q->how);
	if (!q->drop) {
		struct mm *m = &s->mm[q->asid - 1];

		if (v->guest.lazy && v->guest.loaded_mm == q->asid - 1 &&
		    s->c->lazy_leave) {
			/* Linux < 4.19: a lazy CPU leaves the mm. */
			hvtlb_cpumask_clear(&m->cpumask, v->idx);
			h += sim_ct_cpumask_write(s, v, q->asid - 1);
			v->guest.loaded_mm = NONE_ID;
			oracle_left_mm(s, v);
			v->guest.lazy = false;
			/* The CR3 write keeps globals; a kernel flush
			 * (include_global) drops them all the same. */
			sim_vcpu_flush_all(s, v, HVTLB_SIM_FLUSH_IPI,
					   q->r.include_global);
			h += flush_cost(s, true, 0);
		} else if (q->no_gen &&
			   s->c->fault == HVTLB_SIM_FAULT_GEN_ZERO_SKIP) {
			/* flush_tlb_func() took it for an old flush */
			struct task *it = cur_task(&s->v[q->from]);

			if (it && sim_oracle_needs(s, v, it->of))
				fault_hit(s);
		} else {
			sim_vcpu_flush_range(s, v, &q->r, q->asid,
					     HVTLB_SIM_FLUSH_IPI);
			h += flush_cost(s, q->r.all, hvtlb_range_pages(&q->r));
			if (v->guest.loaded_mm == q->asid - 1) {
				/* flush_tlb_func() reads the mm's tlb_gen */
				h += sim_ct_tlb_gen_read(s, v, q->asid - 1);
				/* Up to date with the mm, unless lazy: a lazy
				 * CPU may have been skipped by flushes this one
				 * does not cover, and catches up when it
				 * switches back. */
				if (!v->guest.lazy)
					v->guest.mm_gen = m->tlb_gen;
			}
		}
	}
	end = sim_vcpu_steal(s, v, h);
	if (s->c->ipi_mailbox)
		mbox_note(s, v, q->from, end);
	if (q->early)
		end = end - h + cyc(s, SIM_COST_ipi_target) / 2;
	sim_ipi_acked(s, (enum hvtlb_sim_target_state)q->state,
		      (enum hvtlb_sim_target_lock)q->lock, end - q->posted);
	sim_ack_post(s, q->from, q->seq, end);
}

void sim_vcpu_take_ipis(struct sim *s, struct vcpu *v)
{
	uint32_t keep = 0;

	if (sim_pvl_irqs_off(&v->pvl))
		return; /* taken when the spinlock's holder enables them */
	for (uint32_t i = 0; i < v->irq.npend; i++) {
		if (v->irq.pend[i].arrive <= s->now)
			handle_ipi(s, v, &v->irq.pend[i]);
		else
			v->irq.pend[keep++] = v->irq.pend[i];
	}
	v->irq.npend = keep;
}

void sim_lazy_apply(struct sim *s, struct vcpu *v)
{
	if (!v->guest.nlz && !v->guest.lz_all)
		return;
	if (v->guest.lz_all) {
		/* An overflow of ranges too: conservative, globals go. */
		sim_vcpu_flush_all(s, v, HVTLB_SIM_FLUSH_LAZY, true);
	} else {
		for (uint32_t i = 0; i < v->guest.nlz; i++) {
			struct hvtlb_flush_range r = {
				.start = v->guest.lz[i].start,
				.end = v->guest.lz[i].end,
				.stride_shift = v->guest.lz[i].shift,
			};

			sim_vcpu_flush_range(s, v, &r, v->guest.lz[i].asid,
					     HVTLB_SIM_FLUSH_LAZY);
		}
	}
	v->guest.nlz = 0;
	v->guest.lz_all = false;
	v->guest.lz_min_epoch = UINT64_MAX;
}

/* EV_IPI: an IPI reaches a vCPU; a halted one wakes to take it. */
void sim_guest_on_ipi(struct sim *s, const struct event *e)
{
	struct vcpu *v = &s->v[e->obj];

	if (v->hs == H_RUNNING)
		sim_vcpu_take_ipis(s, v);
	else if (v->hs == H_HALTED && !sim_pvl_irqs_off(&v->pvl))
		sim_vcpu_wake(s, v, 0);
}

/*
 * A target acknowledges shootdown @p seq of vCPU @p from; it reaches the
 * initiator at @p at. The initiator only cares when the last one is in,
 * so instead of one EV_ACK each, the last to arrive is queued once every
 * target has posted: under the key (time, sequence) its own event would
 * have had, so it is popped exactly where that event was.
 */
void sim_ack_post(struct sim *s, uint32_t from, uint32_t seq, simtime at)
{
	struct vcpu *v = &s->v[from];
	uint64_t key = s->q.seq++;
	simtime t = at < s->now ? s->now : at;

	if (seq != v->sd.ack_seq || !v->sd.ack_wait)
		return; /* its EV_ACK would be ignored: the initiator moved on */
	if (v->ack.posted_seq != seq)
		v->ack = (struct vcpu_ack){ .posted_seq = seq };
	if (t > v->ack.last_t ||
	    (t == v->ack.last_t && key > v->ack.last_key)) {
		v->ack.last_t = t;
		v->ack.last_key = key;
	}
	if (++v->ack.posted == v->sd.ack_wait)
		ev_push_seq(s, v->ack.last_t, v->ack.last_key, EV_ACK, from,
			    seq);
}

/* EV_ACK: the last acknowledgement reaches an initiator. */
void sim_guest_on_ack(struct sim *s, const struct event *e)
{
	struct vcpu *v = &s->v[e->obj];

	if ((uint32_t)e->arg != v->sd.ack_seq || !v->sd.ack_wait)
		return;
	v->sd.ack_wait = 0;
	sim_vcpu_spin_over(s, v);
}
