// SPDX-License-Identifier: MIT
/*
 * Pause-loop exiting and KVM's directed yield (hypervisor.ple).
 *
 * A vCPU that spins in a PAUSE loop (waiting for acknowledgements or for
 * a lock) exits once the loop has lasted its PLE window. VMX ignores the control at CPL > 0, so only a vCPU in
 * guest kernel mode exits (handle_pause() passes yield_to_kernel_mode =
 * true). With hypervisor.directed_yield (the default), KVM's handling as
 * of 2018 (arch/x86/kvm/vmx.c, virt/kvm/kvm_main.c, Linux 4.15):
 *
 * - The window is per vCPU: it starts at ple_window (cost.ple_window),
 *   grows at every exit (ple_window_grow: x2, at most ple_window_max)
 *   and shrinks when the vCPU is scheduled in (ple_window_shrink: 0, back
 *   to ple_window) - __grow_ple_window(), __shrink_ple_window().
 * - sim_kvm_vcpu_on_spin(): round-robin over the VM's vCPUs from the one
 *   after the last boosted, two passes, at most three failed yields
 *   (-ESRCH). A candidate is preempted (descheduled while runnable,
 *   vcpu->preempted), not the spinner, not blocked in halt, preempted in
 *   kernel mode (preempted_in_kernel, set when it was preempted), and
 *   eligible: a vCPU that is itself in a spin loop (it yielded from one
 *   and waits to run again) is eligible every other time it is looked at
 *   (dy_eligible, commit 06e48c510aa3). The spinner leaves with
 *   dy_eligible cleared.
 * - yield_to(): fails with -ESRCH when both run queues hold one task;
 *   otherwise the candidate becomes the next buddy of its pCPU, the
 *   spinner the skip buddy of its own, the candidate's pCPU reschedules
 *   and so does the spinner's (host-cfs.c). The FIFO scheduler and the
 *   older CFS have no buddies: the target is not boosted, the spinner
 *   goes behind the others of its own queue.
 * - hypervisor.ple_boost_ready (Linux 5.3, commit d73eb57b80b9, with
 *   046ddeed0461): vCPUs woken from halt that wait for a pCPU
 *   (vcpu->ready) are candidates too, and only preempted candidates must
 *   have been preempted in kernel mode.
 * - hypervisor.ple_boost_irq (Linux 5.13, commit 52acd22faa1a): a
 *   preempted candidate that was not in kernel mode still qualifies when
 *   an interrupt is pending for it (kvm_arch_dy_has_pending_interrupt():
 *   on x86, APICv active and the posted-interrupt descriptor's
 *   notification bit set), since the spinner may be waiting for that
 *   interrupt to be handled.
 *
 * - hypervisor.kick_yield (Linux 5.3, commit 266e85a5ec9): the guest's PV
 *   spinlock kicks the halted queue head at an unlock (KVM_HC_KICK_CPU);
 *   KVM then calls kvm_sched_yield(), which yields the releaser's pCPU to
 *   the kicked vCPU when it is `ready` (woken, or preempted, and waiting
 *   for a pCPU): the same yield_to() as above, then schedule(). A kicked
 *   vCPU that is still waking in this model (wake latency) would already
 *   be queued on Linux when its pCPU shares the releaser's last-level
 *   cache (try_to_wake_up() enqueues it): the releaser yields at once
 *   and the waiter gets its boost when it is queued. Across last-level
 *   caches the wake-up goes through the target pCPU's wake list
 *   (TTWU_QUEUE) and the task is still TASK_WAKING: no yield.
 *
 * hypervisor.directed_yield = false keeps the engine's older model: a
 * fixed window armed only while other vCPUs wait on the spinner's pCPU;
 * an exit gives that pCPU to them if any vCPU of the VM is preempted
 * (or always, with ple_boost_ready), else the spinner keeps it.
 */
#include "sim/host.h"
#include "sim/machine.h"
#include "sim/stats.h"

/* kvm_arch_vcpu_in_kernel(), from the guest's side: no thread (the idle
 * loop or the scheduler), a thread in sys, or an interrupt being
 * handled. */
bool sim_vcpu_in_kernel(const struct sim *s, const struct vcpu *v)
{
	const struct task *t = v->gs.cur != NONE_ID ? &s->t[v->gs.cur] : NULL;

	return !t || t->acct != ACCT_USER || v->seg.busy_until > s->now;
}

/* The vCPU executes a PAUSE loop the engine lets exit: spinning for
 * acknowledgements or a lock. An idle loop that polls (guest.idle) PAUSEs
 * too, but its exits are not modelled: in this model idle vCPUs that
 * poll then boost each other every window and starve the vCPUs with work
 * (preempted in user mode, no candidates), and what bounds that on a
 * real host is not established. */
static bool in_pause_loop(const struct vcpu *v)
{
	return v->act == ACT_SPIN;
}

void sim_ple_vcpu_init(struct sim *s, struct vcpu *v)
{
	v->host.ple_window = cyc(s, SIM_COST_ple_window);
}

/* __grow_ple_window() */
static simtime ple_grow(struct sim *s, simtime w)
{
	simtime base = cyc(s, SIM_COST_ple_window);
	uint32_t m = s->c->ple_window_grow;

	if (m < 1)
		return base;
	w = m < base ? w * m : w + m;
	return w < s->c->ple_window_max ? w : s->c->ple_window_max;
}

/* __shrink_ple_window(), at least the base */
static simtime ple_shrink(struct sim *s, simtime w)
{
	simtime base = cyc(s, SIM_COST_ple_window);
	uint32_t m = s->c->ple_window_shrink;

	if (m < 1)
		return base;
	w = m < base ? w / m : (w > m ? w - m : 0);
	return w > base ? w : base;
}

void sim_ple_sched_in(struct sim *s, struct vcpu *v)
{
	/* sim_kvm_vcpu_on_spin() ends once the spinner runs again. */
	if (v->host.in_spin_loop) {
		v->host.in_spin_loop = false;
		v->host.dy_eligible = false;
	}
	v->host.ple_window =
		ple_shrink(s, v->host.ple_window ? v->host.ple_window
						 : cyc(s, SIM_COST_ple_window));
}

void sim_arm_ple(struct sim *s, struct vcpu *v)
{
	simtime start;

	if (!s->c->ple || v->host.ple_armed || v->hs != H_RUNNING)
		return;
	if (!s->c->directed_yield) {
		if (v->act != ACT_SPIN || !s->p[v->pcpu].rq_n)
			return;
		v->host.ple_armed = true;
		ev_push(s, s->now + cyc(s, SIM_COST_ple_window), EV_PLE, v->gid,
			++v->host.ple_token);
		return;
	}
	if (!in_pause_loop(v) || !sim_vcpu_in_kernel(s, v))
		return;
	start = v->seg.busy_until > s->now ? v->seg.busy_until : s->now;
	v->host.ple_armed = true;
	ev_push(s, start + v->host.ple_window, EV_PLE, v->gid,
		++v->host.ple_token);
}

/* kvm_arch_dy_has_pending_interrupt(): an interrupt (a flush or a
 * reschedule IPI) reached @p v while it waits for its pCPU; it takes it
 * when it runs again. */
static bool dy_pending_irq(const struct sim *s, const struct vcpu *v)
{
	for (uint32_t i = 0; i < v->irq.npend; i++)
		if (v->irq.pend[i].arrive <= s->now)
			return true;
	return false;
}

/* sim_kvm_vcpu_on_spin()'s filter for candidate @p v of spinner @p me;
 * looking at an in-spin-loop candidate flips its dy_eligible. */
static bool dy_candidate(struct sim *s, const struct vcpu *me, struct vcpu *v)
{
	bool ready = s->c->ple_boost_ready;

	if (v == me || v->hs != H_READY || (!ready && !v->host.preempted))
		return false;
	/* yield_to_kernel_mode: the spinner is in kernel mode, so a
	 * preempted candidate must have been too (before 5.3 every candidate
	 * is a preempted one), or, since 5.13, have an interrupt pending */
	if (v->host.preempted && !v->host.preempted_in_kernel &&
	    !(s->c->ple_boost_irq && dy_pending_irq(s, v)))
		return false;
	if (v->host.in_spin_loop) {
		bool eligible = v->host.dy_eligible;

		v->host.dy_eligible = !v->host.dy_eligible;
		return eligible;
	}
	return true;
}

/* yield_to(preempt = true)'s resched_curr() of the boosted vCPU's pCPU
 * @p p: the vCPU running there stops if the boosted one runs first. */
static void resched_boosted(struct sim *s, struct pcpu *p)
{
	if (p->cur != NONE_ID && s->sched->resched(s, p)) {
		sim_count_exit(s, &s->v[p->cur], HVTLB_SIM_EXIT_PREEMPTION, 1);
		sim_vcpu_deschedule(s, &s->v[p->cur], true);
	}
}

/* yield_to(@p t, preempt = true) from spinner @p me: 1 boosted, 0 not,
 * -1 (-ESRCH) when both run queues hold one task. */
static int yield_to(struct sim *s, struct vcpu *me, struct vcpu *t)
{
	struct pcpu *rq = &s->p[me->pcpu], *prq = &s->p[t->pcpu];

	if (!rq->rq_n && prq->rq_n + (prq->cur != NONE_ID) == 1)
		return -1;
	/* yield_to_task(): without buddies (the FIFO, the older CFS) the
	 * target is not boosted, the spinner still yields */
	if (s->sched->boost)
		s->sched->boost(s, prq, t);
	if (s->sched->yield)
		s->sched->yield(s, rq);
	if (s->sched->boost && rq != prq)
		resched_boosted(s, prq);
	return 1;
}

/* The yielder's schedule(): it leaves its pCPU (true) if another vCPU of
 * its queue runs first. */
static bool yield_resched(struct sim *s, struct vcpu *me)
{
	if (!s->sched->resched(s, &s->p[me->pcpu]))
		return false;
	sim_vcpu_deschedule(s, me, true);
	return true;
}

/* sim_kvm_vcpu_on_spin(@p me, yield_to_kernel_mode = true); true if @p me
 * gave up its pCPU. */
static bool vcpu_on_spin(struct sim *s, struct vcpu *me)
{
	uint32_t n = s->c->vcpus, last = s->vmh[me->vm].boosted;
	int tries = 3, yielded = 0;

	me->host.in_spin_loop = true;
	for (int pass = 0;
	     pass < 2 && !yielded && tries && s->vmh[me->vm].ready; pass++) {
		for (uint32_t i = pass ? 0 : last + 1; i < n; i++) {
			if (pass && i > last)
				break;
			if (!dy_candidate(s, me, vm_vcpu(s, me, i)))
				continue;
			yielded = yield_to(s, me, vm_vcpu(s, me, i));
			if (yielded > 0) {
				s->r->directed_yields++;
				s->vmh[me->vm].boosted = i;
				break;
			}
			if (yielded < 0 && !--tries)
				break;
		}
	}
	/* schedule(): it waits, still in its spin loop */
	if (yielded > 0 && yield_resched(s, me))
		return true;
	me->host.in_spin_loop = false;
	me->host.dy_eligible = false;
	return false;
}

void sim_host_on_kick_yield(struct sim *s, const struct event *e)
{
	struct vcpu *me = &s->v[e->obj], *t = &s->v[e->arg];
	struct pcpu *prq = &s->p[t->pcpu];

	/* the releaser is in its hypercall; a target that runs is not
	 * ready, nor one that halted again */
	if (me->hs != H_RUNNING || me == t)
		return;
	if (t->hs == H_READY) {
		if (yield_to(s, me, t) > 0) {
			s->r->kick_yields++;
			(void)yield_resched(s, me);
		}
		return;
	}
	if (t->hs != H_WAKING)
		return;
	/* try_to_wake_up() queues a wake-up to a pCPU of another last-level
	 * cache on that pCPU's wake list (TTWU_QUEUE, ttwu_queue_remote()):
	 * the task stays TASK_WAKING until that pCPU takes it, and yield_to()
	 * refuses a task whose state is not TASK_RUNNING */
	if (!sim_pcpus_share_llc(s, me->pcpu, t->pcpu))
		return;
	/* yield_to()'s -ESRCH with the waker already on its run queue */
	if (!s->p[me->pcpu].rq_n && !prq->rq_n && prq->cur == NONE_ID)
		return;
	s->r->kick_yields++;
	t->host.kick_boost = s->sched->boost != NULL;
	if (s->sched->yield)
		s->sched->yield(s, &s->p[me->pcpu]);
	(void)yield_resched(s, me);
}

void sim_kick_boost_queued(struct sim *s, struct pcpu *p, struct vcpu *v)
{
	v->host.kick_boost = false;
	s->sched->boost(s, p, v);
	resched_boosted(s, p);
}

/* The engine's older model (hypervisor.directed_yield = false): a
 * directed yield needs a candidate of the VM; before KVM 5.3 only a vCPU
 * preempted while running qualifies, not one woken from halt
 * (vcpu->ready). Without one the spinner keeps its pCPU. */
static bool spin_fixed(struct sim *s, struct vcpu *v)
{
	if (!s->p[v->pcpu].rq_n ||
	    (!s->c->ple_boost_ready && !s->vmh[v->vm].preempted)) {
		sim_vcpu_steal(s, v, cyc(s, SIM_COST_vmexit));
		return false;
	}
	if (s->sched->yield)
		s->sched->yield(s, &s->p[v->pcpu]); /* another runs first */
	sim_vcpu_deschedule(s, v, true);
	return true;
}

bool sim_kvm_vcpu_on_spin(struct sim *s, struct vcpu *v)
{
	if (!s->c->directed_yield)
		return spin_fixed(s, v);
	sim_vcpu_steal(s, v, cyc(s, SIM_COST_vmexit));
	return vcpu_on_spin(s, v);
}

/* EV_PLE: a spinning vCPU reached its pause-loop window. */
void sim_host_on_ple(struct sim *s, const struct event *e)
{
	struct vcpu *v = &s->v[e->obj];

	if (e->arg != v->host.ple_token)
		return;
	v->host.ple_armed = false;
	if (v->hs != H_RUNNING)
		return;
	if (!s->c->directed_yield) {
		if (v->act != ACT_SPIN || !s->p[v->pcpu].rq_n)
			return;
		sim_count_exit(s, v, HVTLB_SIM_EXIT_PLE, 1);
		s->r->ple_exits_ack_wait += v->sd.ipi_wait;
		/* No re-arm when it keeps its pCPU: no candidate can appear
		 * while it runs; a new wake-up re-arms. */
		spin_fixed(s, v);
		return;
	}
	if (!in_pause_loop(v))
		return;
	/* handle_pause(): grow the window, then sim_kvm_vcpu_on_spin() */
	sim_count_exit(s, v, HVTLB_SIM_EXIT_PLE, 1);
	s->r->ple_exits_ack_wait += v->sd.ipi_wait;
	v->host.ple_window = ple_grow(s, v->host.ple_window);
	sim_kvm_vcpu_on_spin(s, v);
	sim_arm_ple(s, v); /* still spinning: the next window */
}
