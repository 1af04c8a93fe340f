/* SPDX-License-Identifier: MIT */
/* The host: pCPUs and the scheduler that runs vCPUs on them. */
#ifndef HVTLB_SIM_HOST_H
#define HVTLB_SIM_HOST_H

#include <stdbool.h>
#include <stdint.h>

#include "hvtlb/sim.h"
#include "sim/event.h"
#include "sim/idle-menu.h"

struct sim;
struct pcpu;
struct vcpu;

/* One pCPU's time slice (struct pcpu's slice), host-sched.c's: the
 * current slice's end and queue key, and whether its EV_SLICE is queued;
 * q EV_SLICE events of this pCPU are queued, the earliest at q_min if
 * known (SIM_NEVER: unknown). */
struct pcpu_slice {
	uint64_t token;
	simtime end;
	uint64_t seq;
	bool queued;
	uint32_t q;
	simtime q_min;
};

/* hypervisor.cfs on one pCPU (struct pcpu's cfs), host-cfs.c's and
 * host-sched.c's: the run queue's min_vruntime, a vCPU that yielded
 * (pick another), and with cfs_tick the next and last buddies (vCPU ids
 * or NONE_ID: run next if not too unfair). */
struct pcpu_cfs {
	simtime min_vruntime;
	uint32_t skip;
	uint32_t next_buddy, last_buddy;
};

/* One pCPU's idle side (struct pcpu's idle), host-idle.c's: when it last
 * ran out of vCPUs; with idle_governor = menu the idle state chosen then,
 * entered at entry (after any halt polling), or -1 once woken, the
 * end of that exit (awake_at), and the governor's data. */
struct pcpu_idle {
	simtime since;
	int state;
	simtime entry, awake_at;
	struct menu_gov gov;
};

/* hypervisor.balance on one pCPU (struct pcpu's bal), host-balance.c's:
 * vCPUs woken onto it whose EV_WAKE is pending; Linux's rq->avg_idle and
 * rq->idle_stamp (stamped: idle since idle_stamp, no wake-up since). */
struct pcpu_balance {
	uint32_t waking;
	simtime avg_idle, idle_stamp;
	bool stamped;
	/* sd->nr_balance_failed of its socket and machine domains */
	uint32_t failed[2];
};

/* The host's view of one VM (struct sim's vmh, one per VM): written by
 * host-sched.c (ready, preempted, the co-running clock) and host-ple.c
 * (boosted); read by directed yield and, for corun, the results. */
struct vm_host {
	uint32_t preempted; /* vCPUs with host.preempted set */
	uint32_t ready;	    /* vCPUs runnable, not running */
	uint32_t boosted;   /* KVM's last_boosted_vcpu */
	/* vCPUs on a pCPU, since when, and the time none, some and all of
	 * them were (results.corun) */
	uint32_t running;
	simtime since;
	simtime corun[3];
};

/* The host's idle side (host-idle.c, sim_host_idle_setup()): halt
 * polling, the idle states (POLL, C1, C1E, C3, C6) the menu governor picks
 * from, with their exit latencies in cycles, the single deep state of
 * idle_governor = none, and cost.idle_timer_us, all in cycles. */
struct sim_host_idle {
	simtime halt_poll;
	simtime cstate_exit, cstate_residency;
	struct idle_state cstates[5];
	simtime cstate_exit_cyc[5];
	unsigned ncstates;
	simtime idle_timer;
};

/* hypervisor.cfs (host-cfs.c): sched_latency, min_granularity,
 * wakeup_granularity (Linux defaults 6, 0.75, 1 ms times 1 +
 * ilog2(min(pCPUs, 8))) and cost.host_tick_us, the host's scheduler tick,
 * in cycles. */
struct sim_cfs {
	simtime latency, min_gran, wakeup_gran;
	simtime host_tick;
};

/* hypervisor.balance (host-balance.c): cost.sched_migration_cost_us in
 * cycles, and the pCPUs of a socket (the last-level cache domain). */
struct sim_balance {
	simtime mig_cost;
	uint32_t llc_pcpus;
};

/*
 * The run segment of one vCPU (struct vcpu's seg): guest code it runs
 * without an event (ACT_WORK), from when its exits let it (busy_until)
 * until end, and the EV_RUN that ends it. The guest gives the work
 * (guest-sched.c's sim_t_work(), which also runs a segment ahead
 * without queueing it when nothing comes first, and sets work to 0 where
 * a blocked or interrupted task has none left); host-sched.c arms,
 * moves (sim_vcpu_steal()), cancels (sim_vcpu_seg_cancel()) and ends it.
 */
struct vcpu_seg {
	simtime work;	    /* remaining work when not running */
	simtime end;	    /* when running ACT_WORK */
	simtime busy_until; /* exits and interrupts handled until then */
	uint64_t run_token;
	bool armed; /* an EV_RUN for run_token is pending */
	/* The EV_RUN last queued (its token and time); when a steal moved the
	 * segment's end later, it waits for that one to fire and is queued
	 * then under the key it was given (defer_seq). */
	uint64_t runq_token;
	uint64_t defer_seq;
	simtime runq_t;
	bool deferred;
};

/*
 * The host's state of one vCPU (struct vcpu's host): written by the host
 * scheduler (host-sched.c, host-cfs.c, host-balance.c), pause-loop
 * exits (host-ple.c) and long-spin notifications (long-spin.c); read by
 * its idle side (host-idle.c) too. A new per-vCPU field the host alone
 * writes goes here.
 */
struct vcpu_host {
	simtime vruntime;  /* hypervisor.cfs: CFS virtual runtime */
	simtime run_start; /* when it last entered its pCPU */
	/* hypervisor.balance (host-balance.c): when it last left a pCPU
	 * (cache hot until cost.sched_migration_cost_us after) */
	simtime desched_at;
	/* pause-loop exits (host-ple.c): its PLE window, the EV_PLE it
	 * armed (ple_token, ple_armed); a Hyper-V guest's long-spin
	 * notification (long-spin.c): the EV_LONG_SPIN it armed */
	simtime ple_window;
	uint64_t ple_token, long_spin_token;
	bool ple_armed, long_spin_armed;
	/* hypervisor.directed_yield: preempted in guest kernel mode (KVM's
	 * preempted_in_kernel, kept from its last preemption), in a
	 * sim_kvm_vcpu_on_spin() it yielded from, dy_eligible */
	bool preempted_in_kernel;
	bool in_spin_loop;
	bool dy_eligible;
	/* hypervisor.balance: moved to another pCPU since it last ran (its
	 * TLB is flushed at entry) */
	bool migrated;
	bool preempted; /* descheduled while runnable (KVM vcpu->preempted) */
	/* hypervisor.kick_yield: a kick yielded to it while it was waking
	 * (host-ple.c); boosted once it is queued */
	bool kick_boost;
	/* when it last halted (host-idle.c: halt polling, wake latency) */
	simtime halted_at;
};

/*
 * A host scheduling policy (host-fifo.c, host-cfs.c): which vCPU of a
 * pCPU's run queue runs next and until when. Optional members may be
 * NULL.
 */
struct host_policy {
	const char *name;
	/* Once, at setup (optional). */
	void (*init)(struct sim *s);
	/* Moves the vCPU to run next to the head of the run queue, which
	 * holds at least two (optional: FIFO order). */
	void (*pick)(struct sim *s, struct pcpu *p);
	/* Takes the vCPU to run next off the run queue, which is not empty,
	 * and returns it (optional: pick, then the head). */
	uint32_t (*pop)(struct sim *s, struct pcpu *p);
	/* When the vCPU running on @p p now stops for another (SIM_NEVER:
	 * not until something changes). */
	simtime (*slice_end)(struct sim *s, const struct pcpu *p);
	/* True: slice_end is evaluated again whenever a vCPU joins the run
	 * queue (the running one is checked at every host tick, as Linux's
	 * check_preempt_tick does); false: it is fixed when a vCPU enters. */
	bool reslice;
	/* @p v was picked to run / stopped running on @p p, runnable when
	 * @p ready (optional). */
	void (*picked)(struct sim *s, struct pcpu *p, struct vcpu *v);
	void (*ran)(struct sim *s, struct pcpu *p, struct vcpu *v, bool ready);
	/* The slice of the vCPU running on @p p is over (optional). */
	void (*expired)(struct sim *s, struct pcpu *p);
	/* Queues woken @p v on @p p; true if it preempted the running vCPU
	 * (which is then descheduled). */
	bool (*woken)(struct sim *s, struct pcpu *p, struct vcpu *v);
	/* Directed yield (Linux yield_to): @p v, waiting in @p p's run
	 * queue, should run next there. */
	void (*boost)(struct sim *s, struct pcpu *p, struct vcpu *v);
	/* The running vCPU of @p p yields: another of the queue first. */
	void (*yield)(struct sim *s, struct pcpu *p);
	/* True if a reschedule of @p p now would run another vCPU than the
	 * running one. */
	bool (*resched)(struct sim *s, const struct pcpu *p);
	/* Brings @p p's accounting up to now, as Linux's update_curr() does
	 * at every tick, before a vCPU moves from or to it (optional). */
	void (*update_curr)(struct sim *s, struct pcpu *p);
};

/*
 * A host policy is its row in HVTLB_SIM_HOST_POLICY_MAP (sim.h), its
 * definition sim_host_<NAME> (NAME exactly as in the row; host-NAME.c)
 * and its file's line in meson.build: the rows make the extern list below
 * and the table of host-policy.c, and a row without its definition does
 * not link.
 */
#define HOST_POLICY_X_(n, s) extern const struct host_policy sim_host_##n;
HVTLB_SIM_HOST_POLICY_MAP(HOST_POLICY_X_)
#undef HOST_POLICY_X_

/* The implementation of policy @p p (NULL past the end). */
const struct host_policy *sim_host_policy_get(enum hvtlb_sim_host_policy p);
/*
 * The host scheduler keys, whatever their order (hvtlb_sim_config_set()
 * after each of them): hypervisor.host_policy given, the booleans
 * hypervisor.cfs and cfs_tick not given follow it; not given, it follows
 * the booleans. A given boolean keeps its value.
 */
void sim_host_policy_follow(struct hvtlb_sim_config *c);
/* A given boolean that says otherwise than hypervisor.host_policy: its
 * key, with why in @p why; NULL when they agree (cfs_tick is not read
 * under fifo). */
const char *sim_host_policy_clash(const struct hvtlb_sim_config *c,
				  const char **why);

/* host-sched.c */
/* Queues @p vid on @p p's run queue, at its head or its tail (the run
 * fails with -ENOMEM if the queue cannot grow). */
void sim_pcpu_push(struct sim *s, struct pcpu *p, uint32_t vid, bool head);
/* Takes the @p k-th of @p p's run queue out, keeping the others' order. */
void sim_pcpu_take(struct pcpu *p, uint32_t k);
/* The number of VM @p vm's vCPUs on a pCPU changes by @p delta now
 * (0: only book the time so far; results.corun). */
void sim_vm_corun_step(struct sim *s, uint32_t vm, int delta);
/* Runs the next vCPU of @p p's run queue if nothing runs there. */
void sim_pcpu_schedule(struct sim *s, struct pcpu *p);
/* Moves @p v, waiting in a run queue or being woken, to @p to
 * (hypervisor.balance); its TLB is flushed when it next enters. */
void sim_vcpu_migrate(struct sim *s, struct vcpu *v, struct pcpu *to);
/* A vCPU spinning (ACT_SPIN) for acknowledgements or a lock whose waits
 * are both over goes on with its task, if it is on its pCPU (else it
 * does when it runs: sim_vcpu_continue()). */
void sim_vcpu_spin_over(struct sim *s, struct vcpu *v);
/* Schedules the segment end of a running vCPU doing ACT_WORK. */
void sim_vcpu_arm_run(struct sim *s, struct vcpu *v);
/* Adds @p h cycles of interrupt/exit handling to a running vCPU; returns
 * when they end. */
/* host-ple.c: @p v's pause-loop window at the start of a run. */
void sim_ple_vcpu_init(struct sim *s, struct vcpu *v);
simtime sim_vcpu_steal(struct sim *s, struct vcpu *v, simtime h);
/* Ends running @p v's segment now: its EV_RUN will find nothing to do.
 * Returns the work it had left. */
simtime sim_vcpu_seg_cancel(struct sim *s, struct vcpu *v);
/* Takes @p v off its pCPU (it stays runnable when @p ready). */
void sim_vcpu_deschedule(struct sim *s, struct vcpu *v, bool ready);
/* What a running vCPU does next, given v->act. */
void sim_vcpu_continue(struct sim *s, struct vcpu *v);
void sim_host_on_run(struct sim *s, const struct event *e);
void sim_host_on_slice(struct sim *s, const struct event *e);
void sim_host_on_wake(struct sim *s, const struct event *e);

/* host-idle.c */
/* Wakes a halted vCPU @p delay cycles from now (plus the host's wake
 * latency). */
void sim_vcpu_wake(struct sim *s, struct vcpu *v, simtime delay);
/* @p p ran out of vCPUs now: the governor picks its idle state. */
void sim_pcpu_idle_enter(struct sim *s, struct pcpu *p);
/* Builds the idle-state table from the costs; every pCPU idle at 0. */
void sim_host_idle_setup(struct sim *s);

/* True if the vCPU that last ran on idle @p p halted there and KVM still
 * polls for it (its thread has not left the pCPU). */
bool sim_pcpu_polling(const struct sim *s, const struct pcpu *p);

/* host-balance.c (hypervisor.balance) */
/* Wake-up placement of halted @p v (select_idle_sibling): moves it to an
 * idle pCPU when its previous one is not idle. */
void sim_balance_wake(struct sim *s, struct vcpu *v);
/* A wake-up reaches @p p: the end of its idle period (avg_idle). */
void sim_balance_woke_idle(struct sim *s, struct pcpu *p);
/* @p p ran out of vCPUs: the new-idle balance, now or after the halt
 * poll. */
void sim_balance_idle(struct sim *s, struct pcpu *p);
bool sim_balance_newidle(struct sim *s, struct pcpu *p);
/* Costs, avg_idle, and the first periodic balance of each pCPU. */
void sim_balance_setup(struct sim *s);
/* True if pCPUs @p a and @p b of this part share a last-level cache (a
 * socket, machine.sockets): Linux's cpus_share_cache(). */
bool sim_pcpus_share_llc(const struct sim *s, uint32_t a, uint32_t b);
void sim_host_on_balance(struct sim *s, const struct event *e);

/* host-ple.c */
/* Arms the pause-loop exit of a vCPU that starts spinning. */
void sim_arm_ple(struct sim *s, struct vcpu *v);
/* True if @p v's guest is in kernel mode (CPL 0) now. */
bool sim_vcpu_in_kernel(const struct sim *s, const struct vcpu *v);
/* @p v is scheduled in: its PLE window shrinks, a spin loop it yielded
 * from is over. */
void sim_ple_sched_in(struct sim *s, struct vcpu *v);
void sim_host_on_ple(struct sim *s, const struct event *e);
/* KVM's kvm_vcpu_on_spin for @p v after a spin exit (a pause-loop exit, a
 * long-spin notification): yields its pCPU to a candidate vCPU of the VM
 * if there is one (true), else charges the exit and lets it spin on. */
bool sim_kvm_vcpu_on_spin(struct sim *s, struct vcpu *v);
/* EV_KICK_YIELD (hypervisor.kick_yield): the vCPU @p e->obj, in its
 * KVM_HC_KICK_CPU, yields its pCPU to the PV lock waiter @p e->arg it
 * kicked, if that one waits for a pCPU. */
void sim_host_on_kick_yield(struct sim *s, const struct event *e);
/* @p v, woken by a kick that yielded to it before it was queued, is now
 * on @p p's run queue: it gets the boost it was given. */
void sim_kick_boost_queued(struct sim *s, struct pcpu *p, struct vcpu *v);

/* long-spin.c */
/* Arms the long-spin notification of @p v, spinning in a flush wait. */
void sim_arm_long_spin(struct sim *s, struct vcpu *v);
void sim_host_on_long_spin(struct sim *s, const struct event *e);

#endif
