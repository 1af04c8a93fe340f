// SPDX-License-Identifier: MIT
/*
 * The host scheduler's mechanics: a pCPU runs one vCPU at a time from its
 * run queue for a time slice; a vCPU leaves when its slice ends with
 * others waiting (preempted, KVM's vcpu->preempted), when it halts, or
 * when it yields. Which vCPU runs next and for how long is the policy's
 * (host-fifo.c, host-cfs.c).
 */
#include <errno.h>
#include <stdlib.h>

#include "sim/guest.h"
#include "sim/host.h"
#include "sim/hypervisor.h"
#include "sim/machine.h"
#include "sim/oracle.h"
#include "sim/stats.h"
#include "sim/vcpu-tlb.h"

/* Doubles @p p's run-queue ring (vCPUs move between pCPUs with
 * hypervisor.balance); false when out of memory. */
static bool rq_grow(struct pcpu *p)
{
	uint32_t cap = p->rq_cap * 2, *rq = calloc(cap, sizeof(*rq));

	if (!rq)
		return false;
	for (uint32_t k = 0; k < p->rq_n; k++)
		rq[k] = p->rq[(p->rq_head + k) % p->rq_cap];
	free(p->rq);
	p->rq = rq;
	p->rq_cap = cap;
	p->rq_head = 0;
	return true;
}

void sim_pcpu_push(struct sim *s, struct pcpu *p, uint32_t vid, bool head)
{
	if (p->rq_n == p->rq_cap && !rq_grow(p)) {
		s->fail_rc = -ENOMEM;
		s->failed = true;
		return;
	}
	if (head) {
		p->rq_head = (p->rq_head + p->rq_cap - 1) % p->rq_cap;
		p->rq[p->rq_head] = vid;
	} else {
		p->rq[(p->rq_head + p->rq_n) % p->rq_cap] = vid;
	}
	p->rq_n++;
}

void sim_pcpu_take(struct pcpu *p, uint32_t k)
{
	/* Shift the ones before it up by one, keeping their order. */
	for (; k > 0; k--)
		p->rq[(p->rq_head + k) % p->rq_cap] =
			p->rq[(p->rq_head + k - 1) % p->rq_cap];
	p->rq_head = (p->rq_head + 1) % p->rq_cap;
	p->rq_n--;
}

static uint32_t pcpu_pop(struct sim *s, struct pcpu *p)
{
	uint32_t vid;

	if (s->sched->pop)
		return s->sched->pop(s, p);
	if (s->sched->pick && p->rq_n > 1)
		s->sched->pick(s, p);
	p->cfs.skip = NONE_ID;
	vid = p->rq[p->rq_head];

	p->rq_head = (p->rq_head + 1) % p->rq_cap;
	p->rq_n--;
	return vid;
}

/*
 * Schedules the segment end of a running vCPU doing ACT_WORK. Interrupts
 * and exits (sim_vcpu_steal) push the end of an armed segment later, often
 * dozens of times per segment: rather than queue one more EV_RUN each time
 * and leave the old one to be popped for nothing, the new end waits for
 * the queued one (which fires first) and is queued then, under the key
 * (time, sequence) it was given here, so events pop in exactly the same
 * order.
 */
void sim_vcpu_arm_run(struct sim *s, struct vcpu *v)
{
	simtime start = v->seg.busy_until > s->now ? v->seg.busy_until : s->now;
	bool live = v->seg.armed;
	uint64_t seq = s->q.seq++;

	v->seg.end = start + v->seg.work;
	v->seg.run_token++;
	v->seg.armed = true;
	if (live && v->seg.runq_t <= v->seg.end) {
		v->seg.defer_seq = seq;
		v->seg.deferred = true;
		return;
	}
	ev_push_seq(s, v->seg.end, seq, EV_RUN, v->gid, v->seg.run_token);
	v->seg.runq_token = v->seg.run_token;
	v->seg.runq_t = v->seg.end;
	v->seg.deferred = false;
}

void sim_vcpu_spin_over(struct sim *s, struct vcpu *v)
{
	if (!v->sd.ack_wait && !v->lock.spin_hold && v->act == ACT_SPIN &&
	    v->hs == H_RUNNING) {
		v->act = ACT_WORK;
		v->seg.work = 0;
		sim_vcpu_arm_run(s, v);
	}
}

simtime sim_vcpu_seg_cancel(struct sim *s, struct vcpu *v)
{
	/* The segment's guest work starts after the handling in progress
	 * (busy_until), which does not survive a deschedule: its rest is
	 * not guest work left. */
	simtime from = v->seg.busy_until > s->now ? v->seg.busy_until : s->now;
	simtime rest = v->seg.end > from ? v->seg.end - from : 0;

	v->seg.run_token++;
	v->seg.armed = false;
	return rest;
}

/* Adds @p h cycles of interrupt/exit handling to a running vCPU. */
simtime sim_vcpu_steal(struct sim *s, struct vcpu *v, simtime h)
{
	simtime start = v->seg.busy_until > s->now ? v->seg.busy_until : s->now;

	v->seg.busy_until = start + h;
	if (v->hs == H_RUNNING && v->act == ACT_WORK && v->seg.armed) {
		/* The segment started before: only its rest moves. */
		v->seg.work = v->seg.end > start ? v->seg.end - start : 0;
		sim_vcpu_arm_run(s, v);
	}
	return v->seg.busy_until;
}

static void slice_queue(struct sim *s, struct pcpu *p)
{
	ev_push_seq(s, p->slice.end, p->slice.seq, EV_SLICE,
		    (uint32_t)(p - s->p), p->slice.token);
	if (!p->slice.q++ || p->slice.end < p->slice.q_min)
		p->slice.q_min = p->slice.end;
	p->slice.queued = true;
}

/*
 * Starts a host time slice on @p p ending at @p end. A vCPU that halts
 * soon after it entered leaves its slice event behind; rather than queue
 * one more per entry, the new slice waits behind an earlier queued one,
 * which queues it when it fires (slice_fired). Its key is taken now, so
 * events are popped in exactly the order of queueing every slice.
 */
static void slice_arm(struct sim *s, struct pcpu *p, simtime end)
{
	p->slice.token++;
	p->slice.end = end;
	p->slice.seq = s->q.seq++;
	p->slice.queued = false;
	if (end != SIM_NEVER && (!p->slice.q || p->slice.q_min > end))
		slice_queue(s, p);
}

/* An EV_SLICE of @p p was popped; false if it was not the current one. */
static bool slice_fired(struct sim *s, struct pcpu *p, uint64_t token)
{
	p->slice.q--;
	p->slice.q_min = SIM_NEVER; /* the others' times are not kept */
	if (token == p->slice.token)
		return p->cur != NONE_ID;
	/* A stale one: the current slice waited behind it. */
	if (p->cur != NONE_ID && !p->slice.queued && p->slice.end != SIM_NEVER)
		slice_queue(s, p);
	return false;
}

void sim_vm_corun_step(struct sim *s, uint32_t vm, int delta)
{
	uint32_t n = s->vmh[vm].running;
	unsigned k = !n ? 0 : n == s->c->vcpus ? 2 : 1;

	s->vmh[vm].corun[k] += s->now - s->vmh[vm].since;
	s->vmh[vm].since = s->now;
	s->vmh[vm].running = (uint32_t)((int)n + delta);
}

static void vcpu_enter(struct sim *s, struct vcpu *v)
{
	struct pcpu *p = &s->p[v->pcpu];
	simtime h = 0;

	p->cur = v->gid;
	sim_vm_corun_step(s, v->vm, 1);
	s->vmh[v->vm].ready--;
	if (v->host.preempted) {
		v->host.preempted = false;
		s->vmh[v->vm].preempted--;
	}
	sim_ple_sched_in(s, v);
	if (p->last != v->gid && p->last != NONE_ID)
		h += cyc(s, SIM_COST_vcpu_switch);
	p->last = v->gid;
	if (v->host.migrated) {
		/* vmx_vcpu_load() on a new pCPU: KVM_REQ_TLB_FLUSH */
		v->host.migrated = false;
		sim_vcpu_flush_all(s, v, HVTLB_SIM_FLUSH_MIGRATE, true);
		h += cyc(s, SIM_COST_flush_full);
	}
	sim_vcpu_move(s, v, H_RUNNING);
	v->host.run_start = s->now;
	slice_arm(s, p, s->sched->slice_end(s, p));
	if (v->gs.cur != NONE_ID)
		sim_acct_on_cpu(s, &s->t[v->gs.cur]);
	h += sim_hv_vcpu_entry(s, v);
	if (h)
		sim_vcpu_steal(s, v, h);
	sim_vcpu_take_ipis(s, v);
	/* Back in guest mode, in its thread: what it owes is flushed by now
	 * (an idle vCPU is checked when it switches a thread in). */
	if (v->gs.cur != NONE_ID)
		oracle_resume(s, v);
	if (s->c->strategy.kind == HVTLB_STRATEGY_LAZY)
		sim_arm_tick(s, v);
	sim_vcpu_continue(s, v);
}

void sim_pcpu_schedule(struct sim *s, struct pcpu *p)
{
	struct vcpu *v;

	if (p->cur != NONE_ID || !p->rq_n)
		return;
	v = &s->v[pcpu_pop(s, p)];
	if (s->sched->picked)
		s->sched->picked(s, p, v);
	vcpu_enter(s, v);
}

/* Takes @p v off its pCPU (it stays runnable when @p ready). */
void sim_vcpu_deschedule(struct sim *s, struct vcpu *v, bool ready)
{
	struct pcpu *p = &s->p[v->pcpu];

	TRACE(s, HVTLB_SIM_TRACE_VCPU_RUN, v, TR_NONE, v->host.run_start,
	      !!ready, 0);
	if (ready) /* kvm_arch_vcpu_put() of a preempted vCPU */
		v->host.preempted_in_kernel = sim_vcpu_in_kernel(s, v);
	if (v->act == ACT_WORK && v->seg.armed) {
		v->seg.work = sim_vcpu_seg_cancel(s, v);
	}
	if (v->seg.busy_until > s->now)
		v->seg.busy_until = s->now;
	v->host.ple_armed = false;
	v->host.ple_token++;
	v->host.long_spin_armed = false;
	v->host.long_spin_token++;
	if (v->gs.cur != NONE_ID)
		sim_acct_off_cpu(s, &s->t[v->gs.cur]);
	if (s->sched->ran)
		s->sched->ran(s, p, v, ready);
	p->cur = NONE_ID;
	sim_vm_corun_step(s, v->vm, -1);
	v->host.desched_at = s->now;
	if (ready) {
		sim_vcpu_move(s, v, H_READY);
		v->host.preempted = true;
		s->vmh[v->vm].preempted++;
		s->vmh[v->vm].ready++;
		v->steal |= HVTLB_KVM_VCPU_PREEMPTED;
		sim_pcpu_push(s, p, v->gid, false);
	} else {
		sim_vcpu_move(s, v, H_HALTED);
		v->host.halted_at = s->now;
		TRACE(s, HVTLB_SIM_TRACE_HALT, v, TR_NONE, s->now, 0, 0);
	}
	sim_pcpu_schedule(s, p);
	if (p->cur == NONE_ID && s->c->balance)
		sim_balance_idle(s, p);
	if (p->cur == NONE_ID) {
		p->idle.since = s->now;
		sim_pcpu_idle_enter(s, p);
	}
}

/* Queues @p q's new arrivals' effect on its running vCPU: a shorter
 * slice, a pause-loop exit with someone to yield to. */
static void queue_grew(struct sim *s, struct pcpu *q)
{
	if (q->cur == NONE_ID)
		return;
	if (s->sched->reslice)
		slice_arm(s, q, s->sched->slice_end(s, q));
	sim_arm_ple(s, &s->v[q->cur]);
}

void sim_vcpu_migrate(struct sim *s, struct vcpu *v, struct pcpu *to)
{
	struct pcpu *from = &s->p[v->pcpu];
	int64_t rel;

	if (s->sched->update_curr) {
		s->sched->update_curr(s, from);
		s->sched->update_curr(s, to);
	}
	rel = (int64_t)(v->host.vruntime - from->cfs.min_vruntime);
	if (v->hs == H_READY) {
		uint32_t k = 0;

		while (from->rq[(from->rq_head + k) % from->rq_cap] != v->gid)
			k++;
		sim_pcpu_take(from, k);
		if (from->cfs.next_buddy == v->gid)
			from->cfs.next_buddy = NONE_ID;
		if (from->cfs.last_buddy == v->gid)
			from->cfs.last_buddy = NONE_ID;
		if (from->cfs.skip == v->gid)
			from->cfs.skip = NONE_ID;
		/* One fewer waits: the running vCPU's slice may be longer. */
		if (from->cur != NONE_ID && s->sched->reslice)
			slice_arm(s, from, s->sched->slice_end(s, from));
	}
	/* migrate_task_rq_fair(): the distance to min_vruntime is kept */
	v->host.vruntime =
		rel < 0 && (simtime)-rel > to->cfs.min_vruntime
			? 0
			: (simtime)((int64_t)to->cfs.min_vruntime + rel);
	v->pcpu = (uint32_t)(to - s->p);
	v->host.migrated = true;
	s->r->vcpu_migrations++;
	if (v->hs != H_READY)
		return; /* a wake-up: it is queued when its EV_WAKE comes */
	sim_pcpu_push(s, to, v->gid, false);
	if (to->cur == NONE_ID) {
		to->idle.state = -1; /* it never went idle, or wakes now */
		to->idle.awake_at = s->now;
		sim_pcpu_schedule(s, to);
	} else {
		queue_grew(s, to);
	}
}

/* What a running vCPU does next, given v->act. */
void sim_vcpu_continue(struct sim *s, struct vcpu *v)
{
	if (v->hs != H_RUNNING)
		return;
	switch (v->act) {
	case ACT_WORK:
		sim_vcpu_arm_run(s, v);
		break;
	case ACT_SPIN:
		if (!v->sd.ack_wait && !v->lock.spin_hold) {
			v->act = ACT_WORK;
			v->seg.work = 0;
			sim_vcpu_arm_run(s, v);
		} else {
			sim_arm_ple(s, v);
			sim_arm_long_spin(s, v);
		}
		break;
	case ACT_PVWAIT:
		sim_pvl_continue(s, v);
		break;
	case ACT_IDLE:
	case ACT_NONE:
		if (sim_guest_idle_continue(s, v))
			return;
		/* Woken from halt: run the guest scheduler. */
		sim_guest_idle_exit(s, v);
		v->act = ACT_WORK;
		v->seg.work = 0;
		sim_vcpu_arm_run(s, v);
		break;
	}
}

/* EV_RUN: the segment of work a running vCPU was doing is over. */
void sim_host_on_run(struct sim *s, const struct event *e)
{
	struct vcpu *v = &s->v[e->obj];

	if (v->seg.deferred && v->seg.armed && e->arg == v->seg.runq_token) {
		/* The segment's end moved: queue it now (sim_vcpu_arm_run). */
		ev_push_seq(s, v->seg.end, v->seg.defer_seq, EV_RUN, v->gid,
			    v->seg.run_token);
		v->seg.runq_token = v->seg.run_token;
		v->seg.runq_t = v->seg.end;
		v->seg.deferred = false;
		return;
	}
	if (e->arg != v->seg.run_token || v->hs != H_RUNNING ||
	    v->act != ACT_WORK)
		return;
	v->seg.armed = false;
	sim_vcpu_segment_done(s, v);
}

/* EV_SLICE: the pCPU's time slice is over. */
void sim_host_on_slice(struct sim *s, const struct event *e)
{
	struct pcpu *p = &s->p[e->obj];

	if (!slice_fired(s, p, e->arg))
		return;
	if (!p->rq_n) {
		slice_arm(s, p, s->sched->slice_end(s, p));
		return;
	}
	if (s->sched->expired)
		s->sched->expired(s, p);
	sim_count_exit(s, &s->v[p->cur], HVTLB_SIM_EXIT_PREEMPTION, 1);
	sim_vcpu_deschedule(s, &s->v[p->cur], true);
}

/* EV_WAKE: a halted vCPU becomes runnable on its pCPU. */
void sim_host_on_wake(struct sim *s, const struct event *e)
{
	struct vcpu *v = &s->v[e->obj];
	struct pcpu *p = &s->p[v->pcpu];

	if (v->hs != H_WAKING)
		return;
	sim_vcpu_move(s, v, H_READY);
	s->vmh[v->vm].ready++;
	TRACE(s, HVTLB_SIM_TRACE_WAKE, v, TR_NONE, e->arg, 0, 0);
	p->bal.waking--;
	if (s->sched->woken(s, p, v)) {
		v->host.kick_boost = false;
		return;
	}
	queue_grew(s, p);
	if (v->host.kick_boost)
		sim_kick_boost_queued(s, p, v);
	sim_pcpu_schedule(s, p);
}
