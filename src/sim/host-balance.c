// SPDX-License-Identifier: MIT
/*
 * Where the host runs each vCPU thread (hypervisor.balance): a Linux host
 * does not pin a VM's vCPU threads (QEMU and libvirt leave them free
 * unless told otherwise), so the scheduler of kernel/sched/fair.c
 * (Linux 4.15, the hosts of the KVM profiles) decides on which pCPU each
 * runs, at three moments:
 *
 * - Wake-up (select_task_rq_fair, SD_BALANCE_WAKE): a halted vCPU woken by
 *   an interrupt runs on its previous pCPU if that one is idle, else on
 *   an idle pCPU of the same last-level cache (a socket here), searched
 *   from the previous one on (select_idle_sibling, select_idle_cpu), else
 *   it queues on its previous pCPU. wake_affine() may take the waker's
 *   pCPU as the target instead; for a vCPU woken by another vCPU's IPI
 *   the waker's pCPU is busy and, with equal loads, wake_affine_weight()
 *   keeps the previous one, so the target is always the previous pCPU.
 * - Idle (idle_balance, the new-idle balance of pick_next_task_fair): a
 *   pCPU that runs out of vCPUs pulls a waiting one from the busiest pCPU
 *   of its socket, then of the machine, unless its average idle period
 *   (rq->avg_idle) is below sysctl_sched_migration_cost.
 * - Periodically (rebalance_domains from the scheduler tick): each pCPU
 *   balances its socket every socket-size milliseconds (the domain's
 *   balance_interval), the machine every machine-size milliseconds, both
 *   times busy_factor (32) when it runs a vCPU; it pulls one vCPU from
 *   the busiest pCPU when that one runs two or more vCPUs more than it.
 *
 * A balance moves only a vCPU that waits (never the running one) and that
 * is not cache hot (task_hot: it ran within sysctl_sched_migration_cost),
 * the one that ran longest ago first (detach_tasks takes the tail of the
 * most-recently-run list). A hot one moves too once the domain's periodic
 * balances have failed more than its cache_nice_tries times in a row
 * (can_migrate_task, "too many balance attempts have failed"): 1 for a
 * socket (sd_init: SD_SHARE_PKG_RESOURCES), 2 for the machine, whose two
 * sockets are two NUMA nodes (SD_NUMA). load_balance() counts a failure
 * (sd->nr_balance_failed) when it found an imbalance and moved nothing,
 * not in a new-idle balance; a move or a balanced domain resets it. Its CFS virtual runtime keeps its distance to
 * the queue's min_vruntime (migrate_task_rq_fair). KVM flushes a moved
 * vCPU's TLB at its next entry (vmx_vcpu_load: KVM_REQ_TLB_FLUSH when the
 * VMCS was last loaded on another pCPU).
 *
 * Simplified: no SMT siblings (select_idle_core), no bound on the idle
 * search (select_idle_cpu's SIS_PROP), no NOHZ idle-balancer kick (an idle
 * pCPU balances at its own interval), the busiest pCPU of a domain taken
 * directly instead of its busiest group first, loads counted in runnable
 * vCPUs (every vCPU thread has the same weight), no doubling of
 * balance_interval, no active balance (it pushes a busiest pCPU's running
 * task after cache_nice_tries + 2 failures; here a busiest pCPU always has
 * a waiting vCPU, which the earlier forced move takes).
 */
#include "sim/host.h"
#include "sim/machine.h"

#define BUSY_FACTOR 32u
/* EV_BALANCE's argument: the domain (0: socket, 1: machine), or the new-idle
 * balance at the end of a halt poll */
#define BALANCE_NEWIDLE 2u

/* Linux's idle_cpu(): nothing runs, waits, is being woken there or
 * halt-polls there. */
static bool pcpu_is_idle(const struct sim *s, const struct pcpu *p)
{
	return p->cur == NONE_ID && !p->rq_n && !p->bal.waking &&
	       !sim_pcpu_polling(s, p);
}

static uint32_t nr_running(const struct pcpu *p)
{
	return (p->cur != NONE_ID) + p->rq_n + p->bal.waking;
}

/* The pCPUs of this part sharing @p i's socket: [*lo, *lo + *n). */
static void llc_span(const struct sim *s, uint32_t i, uint32_t *lo, uint32_t *n)
{
	uint32_t g = s->pcpu_base + i;
	uint32_t a = g / s->bal.llc_pcpus * s->bal.llc_pcpus,
		 b = a + s->bal.llc_pcpus;

	a = a > s->pcpu_base ? a - s->pcpu_base : 0;
	b -= s->pcpu_base;
	if (b > s->npcpus)
		b = s->npcpus;
	*lo = a;
	*n = b - a;
}

bool sim_pcpus_share_llc(const struct sim *s, uint32_t a, uint32_t b)
{
	return (s->pcpu_base + a) / s->bal.llc_pcpus ==
	       (s->pcpu_base + b) / s->bal.llc_pcpus;
}

void sim_balance_wake(struct sim *s, struct vcpu *v)
{
	uint32_t prev = v->pcpu, lo, n;

	if (pcpu_is_idle(s, &s->p[prev]))
		return;
	llc_span(s, prev, &lo, &n);
	for (uint32_t k = 1; k < n; k++) {
		uint32_t c = lo + (prev - lo + k) % n;

		if (pcpu_is_idle(s, &s->p[c])) {
			sim_vcpu_migrate(s, v, &s->p[c]);
			return;
		}
	}
}

void sim_balance_woke_idle(struct sim *s, struct pcpu *p)
{
	simtime max = 2 * s->bal.mig_cost, d;

	if (!p->bal.stamped)
		return;
	p->bal.stamped = false;
	d = s->now - p->bal.idle_stamp;
	/* update_avg(): avg += (sample - avg) / 8 */
	if (p->bal.avg_idle > max)
		p->bal.avg_idle = max;
	else if (d >= p->bal.avg_idle)
		p->bal.avg_idle += (d - p->bal.avg_idle) / 8;
	else
		p->bal.avg_idle -= (p->bal.avg_idle - d) / 8;
}

/* sd->cache_nice_tries of domain @p level (0: socket, 1: machine). */
static uint32_t cache_nice_tries(uint32_t level)
{
	return level ? 2 : 1;
}

/* detach_tasks(): of @p src's waiting vCPUs, the one that left a pCPU
 * longest ago, if it is not cache hot or @p hot_ok; NULL when there is
 * none. */
static struct vcpu *coldest(struct sim *s, const struct pcpu *src, bool hot_ok)
{
	struct vcpu *best = NULL;

	for (uint32_t k = 0; k < src->rq_n; k++) {
		struct vcpu *v =
			&s->v[src->rq[(src->rq_head + k) % src->rq_cap]];

		if (!hot_ok && s->now - v->host.desched_at < s->bal.mig_cost)
			continue;
		if (!best || v->host.desched_at < best->host.desched_at)
			best = v;
	}
	return best;
}

/*
 * load_balance() of @p p over pCPUs [lo, lo + n), domain @p level: pulls
 * one vCPU from the busiest pCPU when that one runs at least @p margin
 * vCPUs more than @p p; true if it did. A periodic balance (@p periodic)
 * that finds an imbalance and moves nothing counts a failure.
 */
static bool pull(struct sim *s, struct pcpu *p, uint32_t lo, uint32_t n,
		 uint32_t level, uint32_t margin, bool periodic)
{
	uint32_t *failed = &p->bal.failed[level];
	uint32_t mine = nr_running(p), most = 0, self = (uint32_t)(p - s->p);
	struct pcpu *busiest = NULL;
	struct vcpu *v;

	for (uint32_t c = lo; c < lo + n; c++) {
		uint32_t nr = nr_running(&s->p[c]);

		if (c != self && s->p[c].rq_n && nr > most) {
			most = nr;
			busiest = &s->p[c];
		}
	}
	if (!busiest || most < mine + margin) {
		*failed = 0; /* out_balanced */
		return false;
	}
	v = coldest(s, busiest, *failed > cache_nice_tries(level));
	if (!v) {
		if (periodic && *failed < UINT32_MAX)
			(*failed)++;
		return false;
	}
	sim_vcpu_migrate(s, v, p);
	*failed = 0;
	return true;
}

bool sim_balance_newidle(struct sim *s, struct pcpu *p)
{
	uint32_t lo, n;

	p->bal.idle_stamp = s->now;
	p->bal.stamped = true;
	if (p->bal.avg_idle < s->bal.mig_cost)
		return false;
	llc_span(s, (uint32_t)(p - s->p), &lo, &n);
	if (pull(s, p, lo, n, 0, 1, false) ||
	    (n < s->npcpus && pull(s, p, 0, s->npcpus, 1, 1, false))) {
		p->bal.stamped = false; /* pulled_task: idle_stamp = 0 */
		return true;
	}
	return false;
}

/* The balance interval of domain @p level (0: socket, 1: machine) of a
 * pCPU, busy or not: sd_init()'s balance_interval is the domain's weight
 * in ms, times busy_factor when busy (get_sd_balance_interval). */
static simtime interval(struct sim *s, uint32_t level, bool busy)
{
	uint32_t lo, n;

	if (level)
		n = s->npcpus;
	else
		llc_span(s, 0, &lo, &n);
	return us_to_cyc(s, 1000.0 * n * (busy ? BUSY_FACTOR : 1));
}

void sim_balance_setup(struct sim *s)
{
	uint32_t lo, n;

	s->bal.mig_cost =
		us_to_cyc(s, s->cost[SIM_COST_sched_migration_cost_us]);
	s->bal.llc_pcpus = (s->pcpus_total ? s->pcpus_total : s->npcpus) /
			   (s->c->sockets ? s->c->sockets : 1);
	if (!s->bal.llc_pcpus)
		s->bal.llc_pcpus = 1;
	for (uint32_t i = 0; i < s->npcpus; i++)
		s->p[i].bal.avg_idle = 2 * s->bal.mig_cost; /* sched_init() */
	if (!s->c->balance || s->npcpus < 2)
		return;
	llc_span(s, 0, &lo, &n);
	for (uint32_t i = 0; i < s->npcpus; i++) {
		/* Linux staggers nothing here: every pCPU's first balance
		 * is one interval after boot, as rq->next_balance = jiffies
		 * and sd->last_balance = jiffies at boot. */
		if (n > 1)
			ev_push(s, interval(s, 0, false), EV_BALANCE, i, 0);
		if (n < s->npcpus)
			ev_push(s, interval(s, 1, false), EV_BALANCE, i, 1);
	}
}

void sim_host_on_balance(struct sim *s, const struct event *e)
{
	struct pcpu *p = &s->p[e->obj];
	uint32_t level = (uint32_t)e->arg, lo = 0, n = s->npcpus;

	if (level == BALANCE_NEWIDLE) {
		if (pcpu_is_idle(s, p))
			sim_balance_newidle(s, p);
		return;
	}
	if (!level)
		llc_span(s, e->obj, &lo, &n);
	pull(s, p, lo, n, level, 2, true);
	ev_push(s, s->now + interval(s, level, p->cur != NONE_ID), EV_BALANCE,
		e->obj, level);
}

void sim_balance_idle(struct sim *s, struct pcpu *p)
{
	if (sim_pcpu_polling(s, p)) {
		/* KVM polls first; schedule() and idle_balance() come at
		 * the end of the poll */
		ev_push(s, s->v[p->last].host.halted_at + s->idle.halt_poll + 1,
			EV_BALANCE, (uint32_t)(p - s->p), BALANCE_NEWIDLE);
		return;
	}
	sim_balance_newidle(s, p);
}
