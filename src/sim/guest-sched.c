// SPDX-License-Identifier: MIT
/*
 * Guest threads (tasks) on vCPUs: the guest scheduler's run queue per
 * vCPU, switching address spaces (lazy TLB mode when idle), the tick that
 * preempts user work, timers and wake-up placement (the accounting of
 * user and sys time is guest-acct.c's). A task is a coroutine: sim_t_work() and friends yield to
 * the engine, which resumes the task when its vCPU has executed that
 * much.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/contention.h"
#include "sim/guest.h"
#include "sim/host.h"
#include "sim/ipi-send.h"
#include "sim/machine.h"
#include "sim/oracle.h"
#include "sim/stats.h"
#include "sim/vcpu-tlb.h"
#include "sim/workload.h"

void sim_arm_tick(struct sim *s, struct vcpu *v)
{
	if (v->gs.tick_armed)
		return;
	v->gs.tick_armed = true;
	ev_push(s, s->now + s->tick, EV_TICK, v->gid, 0);
}

void sim_task_enqueue(struct sim *s, struct vcpu *v, struct task *t)
{
	t->st = T_RUNNABLE;
	t->next = NONE_ID;
	if (v->gs.rq_n)
		s->t[v->gs.rq_tail].next = t->id;
	else
		v->gs.rq_head = t->id;
	v->gs.rq_tail = t->id;
	v->gs.rq_n++;
	if (v->gs.cur != NONE_ID)
		sim_arm_tick(s, v);
}

static struct task *task_dequeue(struct sim *s, struct vcpu *v)
{
	if (!v->gs.rq_n)
		return NULL;
	struct task *t = &s->t[v->gs.rq_head];

	v->gs.rq_head = t->next;
	v->gs.rq_n--;
	return t;
}

/* Switches the vCPU's address space to @p t's mm (switch_mm_irqs_off). */
static simtime switch_mm(struct sim *s, struct vcpu *v, struct task *t)
{
	struct mm *m = &s->mm[t->mm];
	simtime h = 0;

	if (v->guest.loaded_mm != t->mm) {
		if (v->guest.loaded_mm != NONE_ID) {
			hvtlb_cpumask_clear(&s->mm[v->guest.loaded_mm].cpumask,
					    v->idx);
			oracle_left_mm(s, v);
			h += sim_ct_cpumask_write(s, v, v->guest.loaded_mm);
		}
		/* Without PCID the CR3 write flushes; with it, the
		 * per-ASID generation is not tracked here, so a switch
		 * between address spaces flushes too (conservative).
		 * Either way global entries stay, as on a CR3 write. */
		if (v->guest.loaded_mm != NONE_ID) {
			sim_vcpu_flush_all(s, v, HVTLB_SIM_FLUSH_SWITCH_MM,
					   false);
			h += flush_cost(s, true, 0);
		} else if (v->guest.left_mm) {
			/* From the idle process's address space: its TLB
			 * was flushed when it left (idle_leave_mm), the
			 * CR3 write costs as much again. */
			h += flush_cost(s, true, 0);
		}
		v->guest.loaded_mm = t->mm;
		v->guest.mm_gen = m->tlb_gen;
		h += sim_ct_tlb_gen_read(s, v, t->mm);
		v->guest.left_mm = false;
	} else if (v->guest.lazy && s->c->tlb_gen) {
		/* Back from lazy mode: the mm's tlb_gen says whether it
		 * missed flushes; if so, catch up. */
		h += sim_ct_tlb_gen_read(s, v, t->mm);
		if (v->guest.mm_gen < m->tlb_gen) {
			sim_vcpu_flush_all(s, v, HVTLB_SIM_FLUSH_SWITCH_MM,
					   false);
			h += flush_cost(s, true, 0);
			v->guest.mm_gen = m->tlb_gen;
		}
	}
	v->guest.lazy = false;
	if (!hvtlb_cpumask_test(&m->cpumask, v->idx)) {
		hvtlb_cpumask_set(&m->cpumask, v->idx);
		h += sim_ct_cpumask_write(s, v, t->mm);
	}
	return h;
}

/* HLT: the vCPU exits and the host blocks it until it is woken. */
static void guest_halt(struct sim *s, struct vcpu *v)
{
	/* A halted vCPU must not hold lazy invalidations back (backend.c
	 * op_lazy_post): one that polled may have received some. */
	if (s->c->strategy.kind == HVTLB_STRATEGY_LAZY)
		sim_lazy_apply(s, v);
	v->idle.polling = false;
	v->idle.halted = true;
	sim_count_exit(s, v, HVTLB_SIM_EXIT_HLT, 1);
	sim_vcpu_deschedule(s, v, false);
}

/*
 * The idle loop (guest.idle). halt: HLT at once. poll (idle=poll): spin
 * in the guest until there is work, keeping the pCPU. haltpoll (the
 * cpuidle-haltpoll driver and governor, Linux >= 5.4): poll up to the
 * vCPU's limit, then HLT; the limit starts at 0 and adapts to how long
 * the vCPU stayed halted (sim_guest_idle_exit()).
 */
static void guest_idle(struct sim *s, struct vcpu *v)
{
	switch (s->c->guest_idle) {
	case HVTLB_SIM_GUEST_IDLE_HALT:
		guest_halt(s, v);
		return;
	case HVTLB_SIM_GUEST_IDLE_POLL:
		v->idle.polling = true;
		v->idle.poll_end = SIM_NEVER;
		return;
	case HVTLB_SIM_GUEST_IDLE_HALTPOLL:
		if (!v->idle.poll_limit) {
			guest_halt(s, v);
			return;
		}
		v->idle.polling = true;
		v->idle.poll_end = s->now + v->idle.poll_limit;
		ev_push(s, v->idle.poll_end, EV_IDLE_POLL, v->gid,
			++v->idle.poll_token);
		return;
	}
}

/* A vCPU preempted while it polled runs again: its idle loop goes on
 * polling until the limit it started with (the guest's clock ran on
 * meanwhile), unless a thread was made runnable on it. False: it has
 * work, schedule. */
bool sim_guest_idle_continue(struct sim *s, struct vcpu *v)
{
	if (!v->idle.polling || v->gs.rq_n)
		return false;
	if (s->now >= v->idle.poll_end) {
		guest_halt(s, v);
		return true;
	}
	if (v->idle.poll_end != SIM_NEVER)
		ev_push(s, v->idle.poll_end, EV_IDLE_POLL, v->gid,
			++v->idle.poll_token);
	return true;
}

/* haltpoll's adjust_poll_limit(), with the governor's defaults: grow
 * (x2, from 50 us) when the vCPU stayed halted longer than its limit but
 * at most guest.halt_poll_us, shrink (/2) when it stayed longer. */
void sim_guest_idle_exit(struct sim *s, struct vcpu *v)
{
	simtime max = us_to_cyc(s, s->c->guest_halt_poll_us), block;

	v->idle.polling = false;
	v->idle.poll_token++;
	if (!v->idle.halted)
		return;
	v->idle.halted = false;
	if (s->c->guest_idle != HVTLB_SIM_GUEST_IDLE_HALTPOLL)
		return;
	block = s->now - v->host.halted_at;
	if (block > v->idle.poll_limit && block <= max) {
		simtime val = v->idle.poll_limit * 2;
		simtime start = us_to_cyc(s, 50.0);

		if (val < start)
			val = start;
		v->idle.poll_limit = val > max ? max : val;
	} else if (block > max) {
		v->idle.poll_limit /= 2;
	}
}

/* EV_IDLE_POLL: a polling idle vCPU reached its limit: HLT. */
void sim_guest_on_idle_poll(struct sim *s, const struct event *e)
{
	struct vcpu *v = &s->v[e->obj];

	if (e->arg != v->idle.poll_token || !v->idle.polling ||
	    v->hs != H_RUNNING || v->gs.cur != NONE_ID || v->act != ACT_IDLE)
		return;
	guest_halt(s, v);
}

/*
 * guest.idle_leaves_mm: the idle thread belongs to a process of its own
 * (Windows' idle process), so switching to it is a switch of address
 * space: the processor leaves the process's set of active processors and
 * loads the idle process's page tables, which flushes the TLB (WRK
 * SwapContext, ctxswap.asm). Instead of Linux's lazy TLB mode, an idle
 * vCPU is then no flush target.
 */
static void idle_leave_mm(struct sim *s, struct vcpu *v)
{
	if (v->guest.loaded_mm == NONE_ID)
		return;
	hvtlb_cpumask_clear(&s->mm[v->guest.loaded_mm].cpumask, v->idx);
	oracle_left_mm(s, v);
	sim_vcpu_flush_all(s, v, HVTLB_SIM_FLUSH_SWITCH_MM, false);
	v->guest.loaded_mm = NONE_ID;
	v->guest.left_mm = true;
}

/* The guest scheduler on a running vCPU with no current task. */
static void guest_schedule(struct sim *s, struct vcpu *v)
{
	struct task *t = task_dequeue(s, v);

	if (s->c->strategy.kind == HVTLB_STRATEGY_LAZY)
		sim_lazy_apply(s, v); /* LATR: at every context switch */
	if (!t) {
		/* Idle: lazy TLB mode (or leave the mm), then the idle
		 * loop. */
		v->gs.cur = NONE_ID;
		if (s->c->idle_leaves_mm)
			idle_leave_mm(s, v);
		else if (!v->guest.lazy && v->guest.loaded_mm != NONE_ID)
			oracle_lazy(s, v); /* enters lazy TLB mode */
		v->guest.lazy = v->guest.loaded_mm != NONE_ID;
		v->act = ACT_IDLE;
		guest_idle(s, v);
		return;
	}
	v->gs.cur = t->id;
	t->st = T_RUNNING;
	v->gs.cur_since = s->now;
	sim_acct_start(s, t);
	sim_acct_set(s, t, ACCT_SYS);
	v->act = ACT_WORK;
	v->seg.work = cyc(s, SIM_COST_ctx_switch) + switch_mm(s, v, t);
	oracle_resume(s, v); /* what it owes is flushed by now */
	if (t->saved_work) {
		/* Resume preempted user work after the switch. */
		v->seg.work += t->saved_work;
		t->saved_work = 0;
		sim_acct_set(s, t, ACCT_USER);
		t->in_user_seg = true;
	}
	if (v->gs.rq_n)
		sim_arm_tick(s, v);
	sim_vcpu_arm_run(s, v);
}

static void task_resume(struct sim *s, struct task *t);

/* The current task's segment is over. */
void sim_vcpu_segment_done(struct sim *s, struct vcpu *v)
{
	v->act = ACT_NONE;
	if (v->gs.cur == NONE_ID) {
		guest_schedule(s, v);
		return;
	}
	task_resume(s, &s->t[v->gs.cur]);
}

static void task_yield(struct task *t)
{
	sim_coro_switch(&t->ctx, &t->s->main_ctx);
}

/*
 * The segment v->work of running @p v, about to be queued as an EV_RUN:
 * when it ends before every queued event (and within the time limit), the
 * engine would pop it next and resume this task at once. Do exactly that
 * here, without the two coroutine switches and the queue: the clock,
 * run token, sequence number, event count and vCPU state end as they
 * would have. False: queue it (yield).
 */
static bool run_ahead(struct sim *s, struct vcpu *v)
{
	simtime start = v->seg.busy_until > s->now ? v->seg.busy_until : s->now;
	simtime end = start + v->seg.work;

	if (end >= evq_next_time(&s->q) || end > s->limit || s->failed ||
	    s->q.failed || v->hs != H_RUNNING)
		return false;
	/* sim_vcpu_arm_run() and the push */
	v->seg.end = end;
	v->seg.run_token++;
	s->q.seq++;
	/* the pop: run_events() */
	s->now = end;
	s->r->events++;
	/* sim_host_on_run(), sim_vcpu_segment_done() */
	v->seg.armed = false;
	v->act = ACT_NONE;
	return true;
}

/* Runs @p cycles on the task's vCPU, accounted as @p a. */
void sim_t_work(struct task *t, simtime cycles, enum acct a)
{
	struct sim *s = t->s;
	struct vcpu *v = &s->v[t->vcpu];

	cycles += t->debt;
	t->debt = 0;
	if (!cycles)
		return;
	sim_acct_set(s, t, a);
	t->in_user_seg = a == ACCT_USER;
	v->act = ACT_WORK;
	v->seg.work = cycles;
	if (!run_ahead(s, v))
		task_yield(t);
	t->in_user_seg = false;
}

/* Spins (in sys) until the vCPU's pending acknowledgements are in. */
void sim_t_spin(struct task *t)
{
	struct sim *s = t->s;
	struct vcpu *v = &s->v[t->vcpu];

	if (t->debt)
		sim_t_work(t, 0, ACCT_SYS);
	if (!v->sd.ack_wait && !v->lock.spin_hold)
		return;
	sim_acct_set(s, t, ACCT_SYS);
	v->act = ACT_SPIN;
	task_yield(t);
}

/* Halts the task's vCPU in the PV spinlock's pv_wait() (in sys, its
 * task current) until it is woken and runs again. */
void sim_t_pv_wait(struct task *t)
{
	struct sim *s = t->s;

	if (t->debt)
		sim_t_work(t, 0, ACCT_SYS);
	sim_acct_set(s, t, ACCT_SYS);
	s->v[t->vcpu].act = ACT_PVWAIT;
	task_yield(t);
}

/* Blocks until sim_task_wake(). */
void sim_t_block(struct task *t)
{
	struct sim *s = t->s;

	/* No yield before T_BLOCKED: a wakeup in between would be lost.
	 * Any debt is paid by the next sim_t_work. */
	sim_acct_set(s, t, ACCT_NONE);
	t->st = T_BLOCKED;
	s->v[t->vcpu].act = ACT_NONE;
	task_yield(t);
}

/* Wakes a blocked task; @p waker is the waking vCPU or NULL (timer). */
static bool vcpu_idle(const struct vcpu *v)
{
	return v->gs.cur == NONE_ID && !v->gs.rq_n;
}

/* Wake-up placement (select_idle_sibling): the previous vCPU if idle,
 * else the next idle vCPU of the VM within 64, else the previous one.
 * With processor groups (guest.group_size) only the vCPUs of the group
 * of the thread's process are candidates. */
static struct vcpu *pick_vcpu(struct sim *s, struct task *t)
{
	struct vcpu *prev = &s->v[t->vcpu];
	uint32_t base, n;

	if (!s->c->migrate || vcpu_idle(prev))
		return prev;
	sim_guest_group(s, t->mm % s->c->wl_processes, &base, &n);
	for (uint32_t k = 1; k < (n < 64 ? n : 64); k++) {
		struct vcpu *c = &s->v[t->vm * s->c->vcpus + base +
				       (prev->idx - base + k) % n];

		if (vcpu_idle(c))
			return c;
	}
	return prev;
}

void sim_guest_group(const struct sim *s, uint32_t process, uint32_t *base,
		     uint32_t *n)
{
	uint32_t g = s->c->group_size, groups;

	if (!g || g >= s->c->vcpus) {
		*base = 0;
		*n = s->c->vcpus;
		return;
	}
	groups = (s->c->vcpus + g - 1) / g;
	*base = process % groups * g;
	*n = s->c->vcpus - *base < g ? s->c->vcpus - *base : g;
}

/* A reschedule IPI from @p waker's vCPU to @p v, sent as
 * hypervisor.ipi_delivery says; the waker pays its exits. The wake-up
 * itself is the caller's (the IPI is delivered at once). */
static void send_resched(struct sim *s, struct task *waker, struct vcpu *v)
{
	struct ipi_send ip;
	struct hvtlb_cpumask one;

	memset(&one, 0, sizeof(one));
	hvtlb_cpumask_set(&one, v->idx);
	sim_ipi_send_begin(&ip, &s->v[waker->vcpu], &one,
			   IPI_VECTOR_RESCHEDULE);
	for (uint32_t c = hvtlb_cpumask_next(&ip.to, 0); c < s->c->vcpus;
	     c = hvtlb_cpumask_next(&ip.to, c + 1))
		sim_ipi_send_next(&ip, c);
	s->r->ipis_sent++;
	s->r->ipis[HVTLB_SIM_IPI_RESCHED]++;
	s->r->ipis_delivered++;
	waker->debt += sim_ipi_send_end(&ip);
}

void sim_task_wake(struct sim *s, struct task *t, struct task *waker)
{
	struct vcpu *v;

	if (t->st != T_BLOCKED)
		return;
	v = pick_vcpu(s, t);
	t->vcpu = v->gid;
	sim_task_enqueue(s, v, t);
	if (v->gs.cur != NONE_ID || v->hs == H_WAKING)
		return;
	if (v->idle.polling && v->hs == H_RUNNING) {
		/* It polls need_resched: no IPI (TIF_POLLING_NRFLAG). */
		v->idle.polling = false;
		v->idle.poll_token++;
		v->act = ACT_WORK;
		v->seg.work = 0;
		sim_vcpu_arm_run(s, v);
		return;
	}
	if (v->hs == H_HALTED) {
		simtime at = 0;

		if (waker && waker->vcpu != t->vcpu)
			send_resched(s, waker, v);
		sim_vcpu_wake(s, v, at);
	}
	/* H_READY with no current task: it schedules when it enters. */
}

void sim_sleep_timer(struct sim *s, struct task *t, simtime cycles)
{
	struct vcpu *v = &s->v[t->vcpu];

	/* The guest's timer on this vCPU: the host arms it for a halted
	 * vCPU (its idle governor sees it). Only the earliest is kept. */
	if (v->gs.timer_at <= s->now || s->now + cycles < v->gs.timer_at)
		v->gs.timer_at = s->now + cycles;
	ev_push(s, s->now + cycles, EV_TIMER, t->id, ++t->wait_token);
	sim_t_block(t);
}

void sim_task_entry(void *arg)
{
	struct task *t = arg;

	sim_workload_run(t);
	t->st = T_DONE;
	for (;;)
		task_yield(t);
}

/* Enters the task's coroutine and handles what it asked for on return. */
static void task_resume(struct sim *s, struct task *t)
{
	struct vcpu *v = &s->v[t->vcpu];

	s->running = t;
	t->st = T_RUNNING;
	sim_coro_switch(&s->main_ctx, &t->ctx);
	s->running = NULL;
	if (t->st == T_DONE) {
		sim_acct_set(s, t, ACCT_NONE);
		t->done_at = s->now;
		s->tasks_left--;
		v->gs.cur = NONE_ID;
		v->act = ACT_WORK;
		v->seg.work = 0;
		sim_vcpu_arm_run(s, v);
		return;
	}
	if (t->st == T_BLOCKED) {
		v->gs.cur = NONE_ID;
		v->act = ACT_WORK;
		v->seg.work = 0;
		sim_vcpu_arm_run(s, v);
		return;
	}
	sim_vcpu_continue(s, v);
}

simtime sim_workload_spawn_at(struct sim *s, const struct task *t)
{
	return us_to_cyc(s, s->cost[SIM_COST_thread_create_us] *
				    (double)(t->id % s->c->wl_threads));
}

/* EV_SPAWN: the workload's main thread created task e->obj, which the
 * guest places as it places a woken thread (wake_up_new_task). */
void sim_guest_on_spawn(struct sim *s, const struct event *e)
{
	sim_task_wake(s, &s->t[e->obj], NULL);
}

/* EV_TIMER: a sleeping task's timer. */
void sim_guest_on_timer(struct sim *s, const struct event *e)
{
	struct task *t = &s->t[e->obj];

	if (e->arg != t->wait_token || t->st != T_BLOCKED)
		return;
	sim_task_wake(s, t, NULL);
}

/* EV_TICK: the guest timer tick of a vCPU: lazy invalidations (LATR) and
 * the preemption of user work that used up its slice. */
void sim_guest_on_tick(struct sim *s, const struct event *e)
{
	struct vcpu *v = &s->v[e->obj];
	bool lazy = s->c->strategy.kind == HVTLB_STRATEGY_LAZY;

	v->gs.tick_armed = false;
	if (v->hs != H_RUNNING)
		return;
	if (lazy)
		sim_lazy_apply(s, v);
	if (v->gs.cur != NONE_ID && v->gs.rq_n && v->act == ACT_WORK &&
	    s->t[v->gs.cur].in_user_seg &&
	    s->now - v->gs.cur_since >= s->guest_slice) {
		/* Guest preemption of user work. */
		struct task *t = &s->t[v->gs.cur];

		t->saved_work = sim_vcpu_seg_cancel(s, v);
		sim_acct_set(s, t, ACCT_NONE);
		v->gs.cur = NONE_ID;
		sim_task_enqueue(s, v, t);
		guest_schedule(s, v);
	}
	if (lazy || v->gs.rq_n)
		sim_arm_tick(s, v);
}

int sim_guest_vcpu_init(struct sim *s, struct vcpu *v)
{
	v->gs.cur = NONE_ID;
	v->guest.loaded_mm = NONE_ID;
	v->guest.lz_min_epoch = UINT64_MAX;
	if (s->c->strategy.kind == HVTLB_STRATEGY_LAZY) {
		v->guest.lz = calloc((size_t)s->cost[SIM_COST_lazy_slots] + 1,
				     sizeof(*v->guest.lz));
		if (!v->guest.lz)
			return -ENOMEM;
	}
	return 0;
}

void sim_guest_vcpu_finish(struct vcpu *v)
{
	free(v->irq.pend);
	free(v->irq.mbox);
	free(v->guest.lz);
}
