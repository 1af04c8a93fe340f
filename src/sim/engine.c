// SPDX-License-Identifier: MIT
/*
 * The simulation engine: a discrete-event simulation in virtual time.
 *
 * Objects: pCPUs (host run queues with time slices), vCPUs (guest run
 * queues, a TLB, pending interrupts, the hypervisor's flush queue, the KVM
 * preempted byte, one hvtlb_flusher each), tasks (the workload's guest
 * threads, each a coroutine that runs on one vCPU at a time and may move
 * when it wakes), processes (an mm: page tables with generations, the
 * mmap lock, the cpumask).
 *
 * A task runs straight-line workload code (the workloads section below)
 * and calls the real strategies of src/core through hvtlb_flush(); the
 * backend (the op_* functions) charges virtual time by yielding to the
 * engine, which resumes the task when its vCPU has executed that many
 * cycles on a pCPU. Remote effects (IPIs, kicks, acknowledgements,
 * wakeups, timers) are events stamped in the future; events are ordered
 * by (time, sequence), so a run is a pure function of its config and seed.
 *
 * Threads: one machine is simulated on one host thread. With
 * machine.partition every VM owns its own pCPUs, shares nothing with the
 * others and becomes a separate simulation ("part"); parts run on up to
 * `threads` host threads and are merged in VM order, so the result does
 * not depend on the thread count.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <hvtlb/core.h>
#include <hvtlb/flushq.h>
#include <hvtlb/hypercall.h>
#include <hvtlb/sim.h>

#include "sim/sim-private.h"

/* Coroutine stacks are registered with valgrind when its header exists
 * (client requests cost a few instructions outside valgrind): without it,
 * valgrind takes a switch to a stack mapped near a thread's own stack for
 * a huge frame and reports false errors. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define HAVE_VALGRIND 1
#endif
#endif

/* A task's stack (the deepest path measured: 8.5 KiB) above a PROT_NONE
 * guard page, so an overflow faults instead of corrupting a neighbour. */
#define STACK_BYTES (64u * 1024u)
#define STACK_GUARD 4096u
#define NONE_ID UINT32_MAX
#define GVA_BASE 0x00007f0000000000ULL
/* Kernel (global) pages of workload.kernel_pages: a vmalloc area. */
#define KVA_BASE 0xffffc90000000000ULL
/* Operations a thread holds its kernel page before freeing it. */
#define KERNEL_HOLD 4u
#define HIST_SUB 32u
#define HIST_BUCKETS (64u * HIST_SUB)

/* ------------------------------------------------------------- events */
enum ev_kind {
	EV_RUN,	     /* vCPU finished its work segment */
	EV_SLICE,    /* pCPU time slice over */
	EV_IPI,	     /* an IPI reaches a vCPU */
	EV_KICK,     /* the hypervisor's kick reaches a vCPU */
	EV_WAKE,     /* a halted vCPU becomes runnable on its pCPU */
	EV_TIMER,    /* a sleeping task's timer */
	EV_TICK,     /* guest timer tick of a vCPU */
	EV_ACK,	     /* an acknowledgement reaches an initiator */
	EV_PLE,	     /* pause-loop exit of a spinning vCPU */
	EV_SPIN_END, /* a lock spinner's budget is over */
};

struct event {
	simtime t;
	uint64_t seq;
	uint32_t kind;
	uint32_t obj;
	uint64_t arg;
};

#define SIMTIME_MAX UINT64_MAX

/* ------------------------------------------------------------ objects */
enum hstate { H_RUNNING, H_READY, H_HALTED, H_WAKING };
enum act { ACT_NONE, ACT_WORK, ACT_SPIN, ACT_IDLE };
enum acct { ACCT_NONE, ACCT_USER, ACCT_SYS };
enum tstate { T_RUNNABLE, T_RUNNING, T_BLOCKED, T_DONE };

struct pte {
	uint32_t gen;	  /* odd: present */
	uint32_t flushed; /* generation the last completed flush covered */
};

struct qslot {
	uint32_t slot;
	uint64_t epoch;
};

struct mm {
	uint32_t id; /* asid/pcid, 1-based */
	uint32_t vm;
	unsigned shift;
	uint32_t pages; /* per slot */
	uint32_t nslots;
	struct pte *pte;
	/* per slot: the pages (0..pages-1) made present since its last zap,
	 * in plist[slot * pages ...], pn[slot] of them; a zap visits only
	 * these instead of every PTE of the slot */
	uint32_t *plist;
	uint32_t *pn;
	uint32_t *free_stack;
	uint8_t *live; /* slot mapped and not being unmapped */
	uint32_t nfree;
	struct qslot *quar; /* lazy strategy: slots waiting for reuse */
	uint32_t qhead, qn;
	uint32_t writer;    /* task or NONE_ID */
	uint32_t wwait;	    /* writers queued (readers queue behind them) */
	uint32_t *spinners; /* vCPUs spinning on the lock */
	uint32_t nspin;
	uint32_t readers; /* count */
	uint32_t *waiters;
	uint32_t wq_head, wq_n, wq_cap;
	struct hvtlb_cpumask cpumask;
	uint64_t tlb_gen;
};

enum ipi_kind { IPI_FLUSH, IPI_RESCHED };

struct ipi_rec {
	simtime arrive;
	uint32_t from; /* global vCPU id */
	uint32_t seq;
	uint32_t asid;
	uint8_t kind;
	bool early;
	bool drop; /* drop-target fault: ack without flushing */
	struct hvtlb_flush_range r;
};

struct lazy_rec {
	uint64_t start, end;
	unsigned shift;
	uint32_t asid;
};

struct task;

struct vcpu {
	struct sim *s;
	uint32_t gid, vm, idx, pcpu;
	enum hstate hs;
	enum act act;
	simtime work;	 /* remaining work when not running */
	simtime seg_end; /* when running ACT_WORK */
	simtime busy_until;
	uint64_t run_token;
	bool armed; /* an EV_RUN for run_token is pending */
	uint64_t ple_token;
	bool ple_armed;
	bool tick_armed;
	uint32_t cur; /* task or NONE_ID */
	uint32_t rq_head, rq_tail, rq_n;
	simtime cur_since;
	struct ipi_rec *pend;
	uint32_t npend, cappend;
	struct hvtlb_flushq fq;
	bool fq_ready;
	bool fq_global; /* a pending "flush everything" drops globals too */
	uint8_t steal;
	struct tlb tlb;
	bool tlb_ready;
	uint32_t loaded_mm; /* mm index or NONE_ID */
	bool lazy;
	uint64_t mm_gen;
	struct lazy_rec *lz;
	uint32_t nlz;
	bool lz_all;
	uint64_t lz_min_epoch; /* oldest unapplied lazy post, or UINT64_MAX */
	uint64_t lz_max_epoch;
	struct hvtlb_flusher *fl;
	uint32_t ack_wait;
	uint32_t ack_seq;
	uint32_t spin_hold; /* lock spinning: 1 until released or timed out */
	simtime halted_at;
	bool preempted;	  /* descheduled while runnable (KVM vcpu->preempted) */
	simtime vruntime; /* hypervisor.cfs: CFS virtual runtime */
	simtime run_start; /* when it last entered its pCPU */
	uint64_t spin_token;
	bool no_wait_pending;
};

struct pcpu {
	uint32_t cur;
	simtime idle_since; /* when it last ran out of vCPUs */
	uint32_t last;
	uint32_t *rq; /* ring of vCPU ids */
	uint32_t rq_head, rq_n, rq_cap;
	uint64_t slice_token;
	/* The current slice's end and queue key, and whether its EV_SLICE is
	 * queued; slice_q EV_SLICE events of this pCPU are queued, the
	 * earliest at slice_q_min if known (SIMTIME_MAX: unknown). */
	simtime slice_end;
	uint64_t slice_seq;
	bool slice_queued;
	uint32_t slice_q;
	simtime slice_q_min;
	simtime min_vruntime; /* hypervisor.cfs */
	uint32_t skip;	      /* hypervisor.cfs: yielded, pick another */
};

struct task {
	struct sim *s;
	uint32_t id, vm, mm, vcpu;
	enum tstate st;
	uint32_t next; /* guest run queue link */
	struct coro ctx;
	void *stack;
	enum acct acct;
	simtime acct_since;
	bool acct_paused;
	simtime user, sys;
	struct sim_rng rng;
	simtime debt;
	simtime saved_work; /* preempted user work */
	bool granted;	    /* the mmap lock was handed over while asleep */
	simtime wait_since; /* a writer's first queueing for the lock */
	bool in_user_seg;
	uint64_t wait_token;
	simtime done_at;
	unsigned vg_stack; /* valgrind stack id */
	uint32_t *covered; /* per page of a slot: generation a zap covers */
	uint32_t *zidx; /* pages of the last zap (covered[] is 0 elsewhere) */
	uint32_t nz;
	uint32_t kpage; /* kernel page held, or NONE_ID */
	uint32_t kage;	/* operations since it was mapped */
	/* tracing only: the mode (enum acct) of the open USER/KERNEL event */
	uint8_t tr_mode;
	simtime tr_since;
};

struct sim {
	const struct hvtlb_sim_config *c;
	double cost[SIM_COST_COUNT];
	simtime now;
	uint64_t seq;
	struct event *heap;
	size_t nheap, capheap;
	struct event hold; /* the earliest event, if held */
	bool held;
	uint32_t nvcpus, npcpus, ntasks, nmms;
	struct vcpu *v;
	struct pcpu *p;
	struct task *t;
	struct mm *mm;
	struct coro main_ctx;
	struct task *running;
	uint32_t tasks_left;
	simtime host_slice, guest_slice, tick, lock_spin, halt_poll;
	simtime lock_handoff;
	simtime cstate_exit, cstate_residency;
	simtime limit;
	bool timed_out;
	bool failed;
	uint64_t lazy_epoch;
	struct hvtlb_backend_ops ops;
	uint64_t hist[HIST_BUCKETS];
	simtime lat_max;
	struct hvtlb_sim_results *r;
	uint32_t stream_base;	/* first task's random stream - 1 */
	uint32_t *vm_preempted; /* per VM: vCPUs with ->preempted set */
	/* workload.kernel_pages: per VM, pages shared by all its processes
	 * and mapped global; free stacks of page indexes */
	struct pte *kpte; /* vms * kernel_pages */
	uint32_t *kfree;  /* vms * kernel_pages */
	uint32_t *knfree; /* per VM */
	/* hypervisor.cfs: sched_latency, min_granularity, wakeup_granularity
	 * (Linux defaults 6, 0.75, 1 ms times 1 + ilog2(min(pCPUs, 8))) */
	simtime cfs_latency, cfs_min_gran, cfs_wakeup_gran;
	/* tracing: this part's first VM and first pCPU, machine-wide */
	uint32_t vm_base, pcpu_base;
};

/* ------------------------------------------------------------ helpers */
static void slog(struct sim *s, enum hvtlb_sim_log_level lv, const char *fmt,
		 ...)
{
	char buf[256];
	va_list ap;

	if (!s->c->log_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	s->c->log_fn(s->c->log_data, lv, buf);
}

/* Tracing (config.trace_fn): every hook is one predictable branch on
 * TRACING(); the hooks only read the simulation's state. trace_emit()
 * emits one event of vCPU @p v: an instant when @p start is now, else a
 * complete event [start, now). */
#define TRACING(s) __builtin_expect((s)->c->trace_fn != NULL, 0)
#define TRACE(s, ...)                                                          \
	do {                                                                   \
		if (TRACING(s))                                                \
			trace_emit((s), __VA_ARGS__);                          \
	} while (0)
#define TR_NONE HVTLB_SIM_TRACE_NONE
static void trace_emit(struct sim *s, enum hvtlb_sim_trace_kind k,
		       const struct vcpu *v, uint32_t thread, simtime start,
		       uint64_t a0, uint64_t a1);

static inline simtime cyc(struct sim *s, enum sim_cost k)
{
	return (simtime)s->cost[k];
}

static simtime us_to_cyc(struct sim *s, double us)
{
	return (simtime)(us * s->cost[SIM_COST_cpu_mhz]);
}

static double cyc_to_s(const struct sim *s, simtime c)
{
	return (double)c / (s->cost[SIM_COST_cpu_mhz] * 1e6);
}

static simtime flush_cost(struct sim *s, bool all, uint64_t pages)
{
	if (all)
		return cyc(s, SIM_COST_flush_full);
	return cyc(s, SIM_COST_flush_base) +
	       (simtime)(s->cost[SIM_COST_flush_per_page] * (double)pages);
}

/*
 * The event queue: a min-heap on (t, seq) plus one held event, the
 * earliest of all when present. An event pushed ahead of everything else
 * (typically the segment a task just started on its vCPU) waits there and
 * is popped without touching the heap; order is exactly the heap's.
 */
static bool ev_less(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void heap_push(struct sim *s, const struct event *e)
{
	if (s->nheap == s->capheap) {
		size_t n = s->capheap ? s->capheap * 2 : 1024;
		struct event *h = realloc(s->heap, n * sizeof(*h));

		if (!h) {
			s->failed = true;
			return;
		}
		s->heap = h;
		s->capheap = n;
	}
	size_t i = s->nheap++;

	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!ev_less(e, &s->heap[p]))
			break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i] = *e;
}

/* Queues an event under a key taken earlier (s->seq++): it is popped
 * exactly where an event pushed at that moment would have been. */
static void ev_push_seq(struct sim *s, simtime t, uint64_t seq, enum ev_kind k,
			uint32_t obj, uint64_t arg)
{
	struct event e = { t < s->now ? s->now : t, seq, k, obj, arg };

	if (s->held) {
		if (ev_less(&e, &s->hold)) {
			heap_push(s, &s->hold);
			s->hold = e;
		} else {
			heap_push(s, &e);
		}
	} else if (!s->nheap || ev_less(&e, &s->heap[0])) {
		s->hold = e;
		s->held = true;
	} else {
		heap_push(s, &e);
	}
}

static void ev_push(struct sim *s, simtime t, enum ev_kind k, uint32_t obj,
		    uint64_t arg)
{
	ev_push_seq(s, t, s->seq++, k, obj, arg);
}

static bool ev_pending(const struct sim *s)
{
	return s->held || s->nheap;
}

/* Pops the earliest event; the queue must not be empty. */
static struct event ev_pop(struct sim *s)
{
	if (s->held) {
		s->held = false;
		return s->hold;
	}

	struct event top = s->heap[0];
	struct event last = s->heap[--s->nheap];
	size_t i = 0, n = s->nheap;

	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l >= n)
			break;
		m = l;
		if (l + 1 < n && ev_less(&s->heap[l + 1], &s->heap[l]))
			m = l + 1;
		if (!ev_less(&s->heap[m], &last))
			break;
		s->heap[i] = s->heap[m];
		i = m;
	}
	if (n)
		s->heap[i] = last;
	return top;
}

static void count_exit(struct sim *s, const struct vcpu *v,
		       enum hvtlb_sim_exit why, uint64_t n)
{
	TRACE(s, HVTLB_SIM_TRACE_EXIT, v, TR_NONE, s->now, why, n);
	s->r->vm_exits[why] += n;
	s->r->vm_exits_total += n;
}

static void hist_add(struct sim *s, simtime c)
{
	unsigned msb = 63 - (unsigned)__builtin_clzll(c | 1);
	unsigned sub = msb >= 5 ? (unsigned)(c >> (msb - 5)) & (HIST_SUB - 1)
				: (unsigned)c & (HIST_SUB - 1);

	s->hist[msb * HIST_SUB + sub]++;
	if (c > s->lat_max)
		s->lat_max = c;
}

static simtime hist_value(unsigned b)
{
	unsigned msb = b / HIST_SUB, sub = b % HIST_SUB;

	if (msb < 5)
		return sub;
	return (simtime)(HIST_SUB + sub) << (msb - 5);
}

static double hist_pct(const uint64_t *hist, simtime lat_max, double mhz,
		       double pct)
{
	uint64_t total = 0, want, acc = 0;

	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		total += hist[b];
	if (!total)
		return 0;
	want = (uint64_t)ceil(pct * (double)total);
	if (want < 1)
		want = 1;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		acc += hist[b];
		if (acc >= want) {
			simtime v = hist_value(b);

			if (v > lat_max)
				v = lat_max;
			return (double)v / mhz;
		}
	}
	return (double)lat_max / mhz;
}

/* ------------------------------------------------------------ tracing */
static void trace_emit(struct sim *s, enum hvtlb_sim_trace_kind k,
		       const struct vcpu *v, uint32_t thread, simtime start,
		       uint64_t a0, uint64_t a1)
{
	struct hvtlb_sim_trace_event e = {
		.kind = k,
		.vm = s->vm_base + v->vm,
		.vcpu = v->idx,
		.pcpu = v->hs == H_RUNNING ? s->pcpu_base + v->pcpu : TR_NONE,
		.thread = thread,
		.start = start,
		.dur = s->now - start,
		.arg0 = a0,
		.arg1 = a1,
	};

	s->c->trace_fn(s->c->trace_data, &e);
}

/* The shootdown @p req of task @p t, requested at @p t0, is complete. */
static void trace_shootdown(struct sim *s, struct task *t, simtime t0,
			    const struct hvtlb_flush_request *req,
			    const struct hvtlb_flush_outcome *out)
{
	const struct vcpu *v = &s->v[t->vcpu];
	uint32_t n = hvtlb_cpumask_weight(&req->targets);
	uint64_t what = 0;

	if (hvtlb_cpumask_test(&req->targets, v->idx))
		n--;
	what |= out->ipis ? HVTLB_SIM_TRACE_SD_IPI : 0;
	what |= out->hypercalls ? HVTLB_SIM_TRACE_SD_HYPERCALL : 0;
	what |= out->deferred ? HVTLB_SIM_TRACE_SD_DEFERRED : 0;
	what |= out->fell_back ? HVTLB_SIM_TRACE_SD_FELL_BACK : 0;
	what |= out->full_flush ? HVTLB_SIM_TRACE_SD_FULL : 0;
	what |= out->reuse_epoch ? HVTLB_SIM_TRACE_SD_LAZY : 0;
	trace_emit(s, HVTLB_SIM_TRACE_SHOOTDOWN, v, t->id % s->c->wl_threads,
		   t0, n, what);
}

/* ------------------------------------------------------- accounting */
static void acct_close(struct sim *s, struct task *t)
{
	if (!t->acct_paused) {
		simtime d = s->now - t->acct_since;

		if (t->acct == ACCT_USER)
			t->user += d;
		else if (t->acct == ACCT_SYS)
			t->sys += d;
	}
	t->acct_since = s->now;
}

/* Tracing: the thread's mode in the trace becomes @p a; a USER/KERNEL
 * event closes when the mode changes. */
static void trace_mode(struct sim *s, struct task *t, enum acct a)
{
	if (t->tr_mode == a)
		return;
	if (t->tr_mode != ACCT_NONE && s->now > t->tr_since)
		trace_emit(s,
			   t->tr_mode == ACCT_USER ? HVTLB_SIM_TRACE_USER
						   : HVTLB_SIM_TRACE_KERNEL,
			   &s->v[t->vcpu], t->id % s->c->wl_threads,
			   t->tr_since, 0, 0);
	t->tr_mode = (uint8_t)a;
	t->tr_since = s->now;
}

static void acct_set(struct sim *s, struct task *t, enum acct a)
{
	acct_close(s, t);
	if (TRACING(s))
		trace_mode(s, t, a);
	t->acct = a;
}

/* --------------------------------------------------------- oracle */
static void violation(struct sim *s, struct vcpu *v, uint64_t va)
{
	struct hvtlb_sim_results *r = s->r;

	TRACE(s, HVTLB_SIM_TRACE_VIOLATION, v, TR_NONE, s->now, va, 0);
	if (r->nrecorded < s->c->max_violations) {
		struct hvtlb_sim_violation *x = &r->violation[r->nrecorded++];

		x->vm = v->vm;
		x->vcpu = v->idx;
		x->address = va;
		x->time_s = cyc_to_s(s, s->now);
	}
	if (!r->violations)
		slog(s, HVTLB_SIM_LOG_INFO,
		     "oracle: vm %u vcpu %u used a stale entry for 0x%llx at "
		     "%.9f s",
		     v->vm, v->idx, (unsigned long long)va,
		     cyc_to_s(s, s->now));
	r->violations++;
}

static bool mm_pte_index(const struct mm *m, uint64_t va, uint64_t *idx)
{
	if (va < GVA_BASE)
		return false;
	uint64_t i = (va - GVA_BASE) >> m->shift;

	if (i >= (uint64_t)m->nslots * m->pages)
		return false;
	*idx = i;
	return true;
}

/* PTE @p idx just became present: its slot's next zap must visit it. */
static void mm_list_present(struct mm *m, uint64_t idx)
{
	uint64_t slot = idx / m->pages;

	m->plist[slot * m->pages + m->pn[slot]++] =
		(uint32_t)(idx - slot * m->pages);
}

/* ------------------------------------------------- TLB side effects */
static void vcpu_tlb_ready(struct sim *s, struct vcpu *v)
{
	if (v->tlb_ready)
		return;
	if (tlb_init(&v->tlb, s->c)) {
		s->failed = true;
		return;
	}
	v->tlb_ready = true;
}

/* A full flush; @p global: global entries too (unless the fault
 * global-survives, which treats every such flush as non-global). */
static void vcpu_flush_all(struct sim *s, struct vcpu *v,
			   enum hvtlb_sim_flush_kind kind, bool global)
{
	if (s->c->fault == HVTLB_SIM_FAULT_GLOBAL_SURVIVES)
		global = false;
	TRACE(s, HVTLB_SIM_TRACE_FLUSH, v, TR_NONE, s->now, kind, 0);
	s->r->flushes[kind]++;
	s->r->flushes[HVTLB_SIM_FLUSH_FULL]++;
	s->r->target_flushes += kind != HVTLB_SIM_FLUSH_LOCAL &&
				kind != HVTLB_SIM_FLUSH_SWITCH_MM;
	if (v->tlb_ready)
		tlb_flush_all(&v->tlb, global);
}

static void vcpu_flush_range(struct sim *s, struct vcpu *v,
			     const struct hvtlb_flush_range *r, uint32_t asid,
			     enum hvtlb_sim_flush_kind kind)
{
	if (r->all) {
		vcpu_flush_all(s, v, kind, r->include_global);
		return;
	}
	uint64_t n = hvtlb_range_pages(r);

	TRACE(s, HVTLB_SIM_TRACE_FLUSH, v, TR_NONE, s->now, kind, n);
	s->r->flushes[kind]++;
	s->r->target_flushes += kind != HVTLB_SIM_FLUSH_LOCAL;
	s->r->pages_invalidated += n;
	if (v->tlb_ready)
		tlb_invalidate(&v->tlb, r->start, n, r->stride_shift, asid);
}

/* ------------------------------------------------------- scheduling */
static void task_resume(struct sim *s, struct task *t);
static void vcpu_continue(struct sim *s, struct vcpu *v);
static void guest_schedule(struct sim *s, struct vcpu *v);
static void vcpu_wake(struct sim *s, struct vcpu *v, simtime at);
static void arm_ple(struct sim *s, struct vcpu *v);
static void arm_tick(struct sim *s, struct vcpu *v);

static void pcpu_push(struct pcpu *p, uint32_t vid, bool head)
{
	if (head) {
		p->rq_head = (p->rq_head + p->rq_cap - 1) % p->rq_cap;
		p->rq[p->rq_head] = vid;
	} else {
		p->rq[(p->rq_head + p->rq_n) % p->rq_cap] = vid;
	}
	p->rq_n++;
}

static uint32_t pcpu_pop(struct sim *s, struct pcpu *p)
{
	uint32_t vid;

	if (s->c->cfs && p->rq_n > 1) {
		/* CFS: the smallest virtual runtime (the first on ties),
		 * not the vCPU that just yielded if there is another. */
		uint32_t best = 0;

		for (uint32_t k = 1; k < p->rq_n; k++) {
			uint32_t a = p->rq[(p->rq_head + k) % p->rq_cap];
			uint32_t b = p->rq[(p->rq_head + best) % p->rq_cap];

			if (b == p->skip ||
			    (a != p->skip &&
			     s->v[a].vruntime < s->v[b].vruntime))
				best = k;
		}
		/* Move the pick to the head, keeping the others' order. */
		for (uint32_t k = best; k > 0; k--) {
			uint32_t *x = &p->rq[(p->rq_head + k) % p->rq_cap];
			uint32_t *y = &p->rq[(p->rq_head + k - 1) % p->rq_cap];
			uint32_t tmp = *x;

			*x = *y;
			*y = tmp;
		}
	}
	p->skip = NONE_ID;
	vid = p->rq[p->rq_head];

	p->rq_head = (p->rq_head + 1) % p->rq_cap;
	p->rq_n--;
	return vid;
}

/* Schedules the segment end of a running vCPU doing ACT_WORK. */
static void vcpu_arm_run(struct sim *s, struct vcpu *v)
{
	simtime start = v->busy_until > s->now ? v->busy_until : s->now;

	v->seg_end = start + v->work;
	v->run_token++;
	v->armed = true;
	ev_push(s, v->seg_end, EV_RUN, v->gid, v->run_token);
}

/* The host time slice: fixed (cost.host_slice_us), or CFS's
 * sched_latency shared by the runnable vCPUs, at least min_granularity. */
static simtime host_slice(struct sim *s, const struct pcpu *p)
{
	simtime sl;

	if (!s->c->cfs)
		return s->host_slice;
	sl = s->cfs_latency / (p->rq_n + 1);
	return sl > s->cfs_min_gran ? sl : s->cfs_min_gran;
}

/* CFS virtual runtime of @p v now (all vCPUs have the same weight). */
static simtime vcpu_vruntime(const struct sim *s, const struct vcpu *v)
{
	if (v->hs == H_RUNNING)
		return v->vruntime + (s->now - v->run_start);
	return v->vruntime;
}

/* Adds @p h cycles of interrupt/exit handling to a running vCPU. */
static simtime vcpu_steal(struct sim *s, struct vcpu *v, simtime h)
{
	simtime start = v->busy_until > s->now ? v->busy_until : s->now;

	v->busy_until = start + h;
	if (v->hs == H_RUNNING && v->act == ACT_WORK && v->armed) {
		/* The segment started before: only its rest moves. */
		v->work = v->seg_end > start ? v->seg_end - start : 0;
		vcpu_arm_run(s, v);
	}
	return v->busy_until;
}

static void handle_ipi(struct sim *s, struct vcpu *v, const struct ipi_rec *q)
{
	simtime h = cyc(s, SIM_COST_ipi_target), end;

	s->r->ipis_delivered++;
	if (!s->c->ipiv)
		count_exit(s, v, HVTLB_SIM_EXIT_INTERRUPT, 1);
	if (q->kind == IPI_RESCHED) {
		vcpu_steal(s, v, h);
		return;
	}
	TRACE(s, HVTLB_SIM_TRACE_IPI, v, TR_NONE, s->now, s->v[q->from].idx, 0);
	if (!q->drop) {
		struct mm *m = &s->mm[q->asid - 1];

		if (v->lazy && v->loaded_mm == q->asid - 1 &&
		    s->c->lazy_leave) {
			/* Linux < 4.19: a lazy CPU leaves the mm. */
			hvtlb_cpumask_clear(&m->cpumask, v->idx);
			v->loaded_mm = NONE_ID;
			v->lazy = false;
			/* The CR3 write keeps globals; a kernel flush
			 * (include_global) drops them all the same. */
			vcpu_flush_all(s, v, HVTLB_SIM_FLUSH_IPI,
				       q->r.include_global);
			h += flush_cost(s, true, 0);
		} else {
			vcpu_flush_range(s, v, &q->r, q->asid,
					 HVTLB_SIM_FLUSH_IPI);
			h += flush_cost(s, q->r.all, hvtlb_range_pages(&q->r));
			if (v->loaded_mm == q->asid - 1)
				v->mm_gen = m->tlb_gen;
		}
	}
	end = vcpu_steal(s, v, h);
	if (q->early)
		end = end - h + cyc(s, SIM_COST_ipi_target) / 2;
	ev_push(s, end, EV_ACK, q->from, q->seq);
}

static void vcpu_take_ipis(struct sim *s, struct vcpu *v)
{
	uint32_t keep = 0;

	for (uint32_t i = 0; i < v->npend; i++) {
		if (v->pend[i].arrive <= s->now)
			handle_ipi(s, v, &v->pend[i]);
		else
			v->pend[keep++] = v->pend[i];
	}
	v->npend = keep;
}

/* The hypervisor's flush requests for @p v, before entry or on a kick. */
static simtime vcpu_service_fq(struct sim *s, struct vcpu *v)
{
	struct hvtlb_flushq_batch b;
	simtime h = 0;
	bool global;

	if (!hvtlb_flushq_pending(&v->fq))
		return 0;
	hvtlb_flushq_drain(&v->fq, &b);
	global = v->fq_global;
	v->fq_global = false;
	if (b.all) {
		vcpu_flush_all(s, v, HVTLB_SIM_FLUSH_HYPERVISOR, global);
		return flush_cost(s, true, 0);
	}
	for (size_t i = 0; i < b.n; i++) {
		unsigned sh = hvtlb_page_shift(b.ranges[i].size);
		struct hvtlb_flush_range r = {
			.start = b.ranges[i].gva,
			.end = b.ranges[i].gva + (b.ranges[i].pages << sh),
			.stride_shift = sh,
		};

		vcpu_flush_range(s, v, &r, ~0u, HVTLB_SIM_FLUSH_HYPERVISOR);
		h += flush_cost(s, false, b.ranges[i].pages);
	}
	return h;
}

static void lazy_apply(struct sim *s, struct vcpu *v)
{
	if (!v->nlz && !v->lz_all)
		return;
	if (v->lz_all) {
		/* An overflow of ranges too: conservative, globals go. */
		vcpu_flush_all(s, v, HVTLB_SIM_FLUSH_LAZY, true);
	} else {
		for (uint32_t i = 0; i < v->nlz; i++) {
			struct hvtlb_flush_range r = {
				.start = v->lz[i].start,
				.end = v->lz[i].end,
				.stride_shift = v->lz[i].shift,
			};

			vcpu_flush_range(s, v, &r, v->lz[i].asid,
					 HVTLB_SIM_FLUSH_LAZY);
		}
	}
	v->nlz = 0;
	v->lz_all = false;
	v->lz_min_epoch = UINT64_MAX;
}

static void slice_queue(struct sim *s, struct pcpu *p)
{
	ev_push_seq(s, p->slice_end, p->slice_seq, EV_SLICE,
		    (uint32_t)(p - s->p), p->slice_token);
	if (!p->slice_q++ || p->slice_end < p->slice_q_min)
		p->slice_q_min = p->slice_end;
	p->slice_queued = true;
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
	p->slice_token++;
	p->slice_end = end;
	p->slice_seq = s->seq++;
	p->slice_queued = false;
	if (!p->slice_q || p->slice_q_min > end)
		slice_queue(s, p);
}

/* An EV_SLICE of @p p was popped; false if it was not the current one. */
static bool slice_fired(struct sim *s, struct pcpu *p, uint64_t token)
{
	p->slice_q--;
	p->slice_q_min = SIMTIME_MAX; /* the others' times are not kept */
	if (token == p->slice_token)
		return p->cur != NONE_ID;
	/* A stale one: the current slice waited behind it. */
	if (p->cur != NONE_ID && !p->slice_queued)
		slice_queue(s, p);
	return false;
}

static void vcpu_enter(struct sim *s, struct vcpu *v)
{
	struct pcpu *p = &s->p[v->pcpu];
	simtime h = 0;
	unsigned old;

	p->cur = v->gid;
	if (v->preempted) {
		v->preempted = false;
		s->vm_preempted[v->vm]--;
	}
	if (p->last != v->gid && p->last != NONE_ID)
		h += cyc(s, SIM_COST_vcpu_switch);
	p->last = v->gid;
	v->hs = H_RUNNING;
	v->run_start = s->now;
	slice_arm(s, p, s->now + host_slice(s, p));
	if (v->cur != NONE_ID && s->c->steal_accounting) {
		struct task *t = &s->t[v->cur];

		t->acct_since = s->now;
		t->acct_paused = false;
	}
	/* KVM: exchange the preempted byte with 0, flush if asked. */
	old = v->steal;
	v->steal = 0;
	if (old & HVTLB_KVM_VCPU_FLUSH_TLB) {
		if (s->c->fault != HVTLB_SIM_FAULT_LOSE_DEFERRED) {
			/* KVM flushes the whole guest context. */
			vcpu_flush_all(s, v, HVTLB_SIM_FLUSH_DEFERRED, true);
			h += flush_cost(s, true, 0);
		}
	}
	h += vcpu_service_fq(s, v);
	if (h)
		vcpu_steal(s, v, h);
	vcpu_take_ipis(s, v);
	if (s->c->strategy.kind == HVTLB_STRATEGY_LAZY)
		arm_tick(s, v);
	vcpu_continue(s, v);
}

static void pcpu_schedule(struct sim *s, struct pcpu *p)
{
	struct vcpu *v;

	if (p->cur != NONE_ID || !p->rq_n)
		return;
	v = &s->v[pcpu_pop(s, p)];
	if (s->c->cfs && v->vruntime > p->min_vruntime)
		p->min_vruntime = v->vruntime;
	vcpu_enter(s, v);
}

/* Takes @p v off its pCPU (it stays runnable when @p ready). */
static void vcpu_deschedule(struct sim *s, struct vcpu *v, bool ready)
{
	struct pcpu *p = &s->p[v->pcpu];

	TRACE(s, HVTLB_SIM_TRACE_VCPU_RUN, v, TR_NONE, v->run_start, !!ready,
	      0);
	if (v->act == ACT_WORK && v->armed) {
		v->work = v->seg_end > s->now ? v->seg_end - s->now : 0;
		v->run_token++;
		v->armed = false;
	}
	if (v->busy_until > s->now)
		v->busy_until = s->now;
	v->ple_armed = false;
	v->ple_token++;
	if (v->cur != NONE_ID && s->c->steal_accounting) {
		struct task *t = &s->t[v->cur];

		acct_close(s, t);
		t->acct_paused = true;
	}
	if (s->c->cfs) {
		v->vruntime += s->now - v->run_start;
		if (v->vruntime > p->min_vruntime && !p->rq_n)
			p->min_vruntime = v->vruntime;
	}
	p->cur = NONE_ID;
	if (ready) {
		v->hs = H_READY;
		v->preempted = true;
		s->vm_preempted[v->vm]++;
		v->steal |= HVTLB_KVM_VCPU_PREEMPTED;
		pcpu_push(p, v->gid, false);
	} else {
		v->hs = H_HALTED;
		v->halted_at = s->now;
		TRACE(s, HVTLB_SIM_TRACE_HALT, v, TR_NONE, s->now, 0, 0);
	}
	pcpu_schedule(s, p);
	if (p->cur == NONE_ID)
		p->idle_since = s->now;
}

/* What a running vCPU does next, given v->act. */
static void vcpu_continue(struct sim *s, struct vcpu *v)
{
	if (v->hs != H_RUNNING)
		return;
	switch (v->act) {
	case ACT_WORK:
		vcpu_arm_run(s, v);
		break;
	case ACT_SPIN:
		if (!v->ack_wait && !v->spin_hold) {
			v->act = ACT_WORK;
			v->work = 0;
			vcpu_arm_run(s, v);
		} else {
			arm_ple(s, v);
		}
		break;
	case ACT_IDLE:
	case ACT_NONE:
		/* Woken from halt: run the guest scheduler. */
		v->act = ACT_WORK;
		v->work = 0;
		vcpu_arm_run(s, v);
		break;
	}
}

static void arm_ple(struct sim *s, struct vcpu *v)
{
	if (!s->c->ple || v->ple_armed || v->hs != H_RUNNING ||
	    v->act != ACT_SPIN || !s->p[v->pcpu].rq_n)
		return;
	v->ple_armed = true;
	ev_push(s, s->now + cyc(s, SIM_COST_ple_window), EV_PLE, v->gid,
		++v->ple_token);
}

static void arm_tick(struct sim *s, struct vcpu *v)
{
	if (v->tick_armed)
		return;
	v->tick_armed = true;
	ev_push(s, s->now + s->tick, EV_TICK, v->gid, 0);
}

/* Host latency to run a halted vCPU again: KVM's halt polling keeps a
 * vCPU that halted less than halt_poll_us ago spinning on its pCPU (when
 * nothing else ran there since), so it re-enters at once; otherwise the
 * host wakes and schedules its thread (halt_wake). */
static simtime wake_latency(struct sim *s, const struct vcpu *v)
{
	const struct pcpu *p = &s->p[v->pcpu];

	simtime lat = cyc(s, SIM_COST_halt_wake);

	if (s->halt_poll && p->cur == NONE_ID && p->last == v->gid &&
	    s->now - v->halted_at <= s->halt_poll)
		return cyc(s, SIM_COST_vmexit);
	/* An idle pCPU sinks into a deeper idle state with time. */
	if (s->cstate_exit && p->cur == NONE_ID &&
	    s->now - p->idle_since >= s->cstate_residency)
		lat += s->cstate_exit;
	return lat;
}

/* Wakes a halted vCPU @p delay cycles from now (plus the host's wake
 * latency). */
static void vcpu_wake(struct sim *s, struct vcpu *v, simtime delay)
{
	if (v->hs != H_HALTED)
		return;
	v->hs = H_WAKING;
	/* arg: when the wake-up was asked for (read by tracing only) */
	ev_push(s, s->now + delay + wake_latency(s, v), EV_WAKE, v->gid,
		s->now);
}

static void task_enqueue(struct sim *s, struct vcpu *v, struct task *t)
{
	t->st = T_RUNNABLE;
	t->next = NONE_ID;
	if (v->rq_n)
		s->t[v->rq_tail].next = t->id;
	else
		v->rq_head = t->id;
	v->rq_tail = t->id;
	v->rq_n++;
	if (v->cur != NONE_ID)
		arm_tick(s, v);
}

static struct task *task_dequeue(struct sim *s, struct vcpu *v)
{
	if (!v->rq_n)
		return NULL;
	struct task *t = &s->t[v->rq_head];

	v->rq_head = t->next;
	v->rq_n--;
	return t;
}

/* Switches the vCPU's address space to @p t's mm (switch_mm_irqs_off). */
static simtime switch_mm(struct sim *s, struct vcpu *v, struct task *t)
{
	struct mm *m = &s->mm[t->mm];
	simtime h = 0;

	if (v->loaded_mm != t->mm) {
		if (v->loaded_mm != NONE_ID)
			hvtlb_cpumask_clear(&s->mm[v->loaded_mm].cpumask,
					    v->idx);
		/* Without PCID the CR3 write flushes; with it, the
		 * per-ASID generation is not tracked here, so a switch
		 * between address spaces flushes too (conservative).
		 * Either way global entries stay, as on a CR3 write. */
		if (v->loaded_mm != NONE_ID) {
			vcpu_flush_all(s, v, HVTLB_SIM_FLUSH_SWITCH_MM, false);
			h += flush_cost(s, true, 0);
		}
		v->loaded_mm = t->mm;
		v->mm_gen = m->tlb_gen;
	} else if (v->lazy && s->c->tlb_gen && v->mm_gen < m->tlb_gen) {
		/* Back from lazy mode with flushes missed: catch up. */
		vcpu_flush_all(s, v, HVTLB_SIM_FLUSH_SWITCH_MM, false);
		h += flush_cost(s, true, 0);
		v->mm_gen = m->tlb_gen;
	}
	v->lazy = false;
	hvtlb_cpumask_set(&m->cpumask, v->idx);
	return h;
}

/* The guest scheduler on a running vCPU with no current task. */
static void guest_schedule(struct sim *s, struct vcpu *v)
{
	struct task *t = task_dequeue(s, v);

	if (s->c->strategy.kind == HVTLB_STRATEGY_LAZY)
		lazy_apply(s, v); /* LATR: at every context switch */
	if (!t) {
		/* Idle: lazy TLB mode, then HLT. */
		v->cur = NONE_ID;
		v->lazy = v->loaded_mm != NONE_ID;
		v->act = ACT_IDLE;
		count_exit(s, v, HVTLB_SIM_EXIT_HLT, 1);
		vcpu_deschedule(s, v, false);
		return;
	}
	v->cur = t->id;
	t->st = T_RUNNING;
	v->cur_since = s->now;
	t->acct_since = s->now;
	t->acct_paused = false;
	acct_set(s, t, ACCT_SYS);
	v->act = ACT_WORK;
	v->work = cyc(s, SIM_COST_ctx_switch) + switch_mm(s, v, t);
	if (t->saved_work) {
		/* Resume preempted user work after the switch. */
		v->work += t->saved_work;
		t->saved_work = 0;
		acct_set(s, t, ACCT_USER);
		t->in_user_seg = true;
	}
	if (v->rq_n)
		arm_tick(s, v);
	vcpu_arm_run(s, v);
}

/* The current task's segment is over. */
static void vcpu_segment_done(struct sim *s, struct vcpu *v)
{
	v->act = ACT_NONE;
	if (v->cur == NONE_ID) {
		guest_schedule(s, v);
		return;
	}
	task_resume(s, &s->t[v->cur]);
}

/* --------------------------------------------------- task primitives */
static void task_yield(struct task *t)
{
	coro_switch(&t->ctx, &t->s->main_ctx);
}

/* Runs @p cycles on the task's vCPU, accounted as @p a. */
static void t_work(struct task *t, simtime cycles, enum acct a)
{
	struct sim *s = t->s;
	struct vcpu *v = &s->v[t->vcpu];

	cycles += t->debt;
	t->debt = 0;
	if (!cycles)
		return;
	acct_set(s, t, a);
	t->in_user_seg = a == ACCT_USER;
	v->act = ACT_WORK;
	v->work = cycles;
	task_yield(t);
	t->in_user_seg = false;
}

/* Spins (in sys) until the vCPU's pending acknowledgements are in. */
static void t_spin(struct task *t)
{
	struct sim *s = t->s;
	struct vcpu *v = &s->v[t->vcpu];

	if (t->debt)
		t_work(t, 0, ACCT_SYS);
	if (!v->ack_wait && !v->spin_hold)
		return;
	acct_set(s, t, ACCT_SYS);
	v->act = ACT_SPIN;
	task_yield(t);
}

/* Blocks until task_wake(). */
static void t_block(struct task *t)
{
	struct sim *s = t->s;

	/* No yield before T_BLOCKED: a wakeup in between would be lost.
	 * Any debt is paid by the next t_work. */
	acct_set(s, t, ACCT_NONE);
	t->st = T_BLOCKED;
	s->v[t->vcpu].act = ACT_NONE;
	task_yield(t);
}

/* Wakes a blocked task; @p waker is the waking vCPU or NULL (timer). */
static bool vcpu_idle(const struct vcpu *v)
{
	return v->cur == NONE_ID && !v->rq_n;
}

/* Wake-up placement (select_idle_sibling): the previous vCPU if idle,
 * else the next idle vCPU of the VM within 64, else the previous one. */
static struct vcpu *pick_vcpu(struct sim *s, struct task *t)
{
	struct vcpu *prev = &s->v[t->vcpu];
	uint32_t n = s->c->vcpus, lim = n < 64 ? n : 64;

	if (!s->c->migrate || vcpu_idle(prev))
		return prev;
	for (uint32_t k = 1; k < lim; k++) {
		struct vcpu *c = &s->v[t->vm * n + (prev->idx + k) % n];

		if (vcpu_idle(c))
			return c;
	}
	return prev;
}

static void task_wake(struct sim *s, struct task *t, struct task *waker)
{
	struct vcpu *v;

	if (t->st != T_BLOCKED)
		return;
	v = pick_vcpu(s, t);
	t->vcpu = v->gid;
	task_enqueue(s, v, t);
	if (v->cur != NONE_ID || v->hs == H_WAKING)
		return;
	if (v->hs == H_HALTED) {
		simtime at = 0;

		if (waker && waker->vcpu != t->vcpu) {
			/* A reschedule IPI from the waker's vCPU. */
			s->r->ipis_sent++;
			s->r->ipis_delivered++;
			if (!s->c->ipiv) {
				count_exit(s, &s->v[waker->vcpu],
					   HVTLB_SIM_EXIT_IPI_SEND, 1);
				waker->debt += cyc(s, SIM_COST_ipi_send);
			}
		}
		vcpu_wake(s, v, at);
	}
	/* H_READY with no current task: it schedules when it enters. */
}

static void sleep_timer(struct sim *s, struct task *t, simtime cycles)
{
	ev_push(s, s->now + cycles, EV_TIMER, t->id, ++t->wait_token);
	t_block(t);
}

/* ----------------------------------------------------- the mmap lock */
#define WQ_WRITER 0x80000000u

static void wq_push(struct mm *m, uint32_t tid)
{
	if (m->wq_n == m->wq_cap) {
		/* cap is the number of tasks: never full */
		return;
	}
	m->waiters[(m->wq_head + m->wq_n) % m->wq_cap] = tid;
	m->wq_n++;
}

/* A woken writer that lost the race keeps its place at the front. */
static void wq_push_head(struct mm *m, uint32_t tid)
{
	if (m->wq_n == m->wq_cap)
		return;
	m->wq_head = (m->wq_head + m->wq_cap - 1) % m->wq_cap;
	m->waiters[m->wq_head] = tid;
	m->wq_n++;
}

static void spin_release(struct sim *s, struct vcpu *v)
{
	if (!v->spin_hold)
		return;
	v->spin_hold = 0;
	v->spin_token++;
	if (!v->ack_wait && v->act == ACT_SPIN && v->hs == H_RUNNING) {
		v->act = ACT_WORK;
		v->work = 0;
		vcpu_arm_run(s, v);
	}
}

/*
 * Optimistic spinning (rwsem, Windows pushlocks): while the holder's
 * vCPU runs, a waiter spins in sys for up to guest.lock_spin_us before it
 * sleeps, at every attempt (a woken waiter that loses the race spins
 * again); a release ends every spin at once. Returns when the spin ended.
 */
static void lock_spin(struct task *t, simtime *budget)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	struct vcpu *v = &s->v[t->vcpu];
	simtime t0 = s->now;

	/* A writer that is not running will not release soon: sleep. Reader
	 * owners are not tracked; their lock is spun on. */
	if (!*budget || (m->writer != NONE_ID &&
			 s->v[s->t[m->writer].vcpu].hs != H_RUNNING))
		return;
	v->spin_hold = 1;
	m->spinners[m->nspin++] = v->gid;
	ev_push(s, s->now + *budget, EV_SPIN_END, v->gid, ++v->spin_token);
	t_spin(t);
	for (uint32_t i = 0; i < m->nspin; i++) {
		if (m->spinners[i] == v->gid) {
			m->spinners[i] = m->spinners[--m->nspin];
			break;
		}
	}
	*budget = s->now - t0 >= *budget ? 0 : *budget - (s->now - t0);
}

static void lock_write(struct task *t)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	simtime budget = s->lock_spin;
	bool queued = false;

	while (m->writer != NONE_ID || m->readers) {
		lock_spin(t, &budget);
		if (m->writer == NONE_ID && !m->readers)
			break;
		budget = s->lock_spin; /* spin again next time */
		if (queued) {
			/* Woken but beaten to the lock: back to the front. */
			wq_push_head(m, t->id | WQ_WRITER);
		} else {
			t->wait_since = s->now;
			m->wwait++;
			queued = true;
			wq_push(m, t->id | WQ_WRITER);
		}
		t_block(t);
		if (t->granted) {
			t->granted = false; /* handed over, wwait updated */
			return;
		}
	}
	/* A writer stays on the wait list until it owns the lock (Linux
	 * rwsem: the woken writer removes itself), so readers keep queueing
	 * behind it while it wakes up. */
	if (queued)
		m->wwait--;
	m->writer = t->id;
}

/* Readers queue behind a queued writer (no writer starvation). */
static void lock_read(struct task *t)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	simtime budget = s->lock_spin;

	while (m->writer != NONE_ID || m->wwait) {
		lock_spin(t, &budget);
		if (m->writer == NONE_ID && !m->wwait)
			break;
		budget = s->lock_spin; /* spin again next time */
		wq_push(m, t->id);
		t_block(t);
		if (t->granted) {
			t->granted = false;
			return;
		}
	}
	m->readers++;
}

/* rwsem's wake-up: the first waiter if it is a writer (it must then
 * compete: a running thread or a spinner may take the lock first, unless
 * it waited guest.lock_handoff_us: then it is handed the lock), or the
 * readers queued at the front, which are granted the lock at once. */
static void lock_wake_waiters(struct task *t)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	bool first = true;

	while (m->wq_n) {
		uint32_t w = m->waiters[m->wq_head];

		if (!first && (w & WQ_WRITER))
			break;
		m->wq_head = (m->wq_head + 1) % m->wq_cap;
		m->wq_n--;
		if (w & WQ_WRITER) {
			/* rwsem's handoff: a writer that waited long enough
			 * gets the lock; it can no longer be stolen. */
			if (s->lock_handoff &&
			    s->now - s->t[w & ~WQ_WRITER].wait_since >=
				    s->lock_handoff) {
				m->wwait--;
				m->writer = w & ~WQ_WRITER;
				s->t[w & ~WQ_WRITER].granted = true;
			}
		} else {
			m->readers++;
			s->t[w].granted = true;
		}
		t->debt += cyc(s, SIM_COST_lock_handoff);
		task_wake(s, &s->t[w & ~WQ_WRITER], t);
		if (w & WQ_WRITER)
			break;
		first = false;
	}
}

static void release_spinners(struct sim *s, struct mm *m)
{
	while (m->nspin)
		spin_release(s, &s->v[m->spinners[--m->nspin]]);
}

static void unlock_write(struct task *t)
{
	struct mm *m = &t->s->mm[t->mm];

	m->writer = NONE_ID;
	release_spinners(t->s, m);
	lock_wake_waiters(t);
}

static void unlock_read(struct task *t)
{
	struct mm *m = &t->s->mm[t->mm];

	if (--m->readers == 0) {
		release_spinners(t->s, m);
		lock_wake_waiters(t);
	}
}

/* ---------------------------------------------------- memory access */
/* Translates @p va for task @p t; adds the cost to *user / *sys. Returns
 * false, having done nothing, when the access faults and @p locked is
 * false: a fault runs under the mmap lock (read side). */
static bool t_access(struct task *t, uint64_t va, simtime *user, simtime *sys,
		     bool locked)
{
	struct sim *s = t->s;
	struct vcpu *v = &s->v[t->vcpu];
	struct mm *m = &s->mm[t->mm];
	uint64_t idx, key, vpn;
	uint32_t gen;
	int lv;

	if (!mm_pte_index(m, va, &idx))
		return true;
	vcpu_tlb_ready(s, v);
	if (!v->tlb_ready)
		return true;
	va &= ~((1ULL << m->shift) - 1);
	key = tlb_key(va, m->shift, m->id);
	vpn = va >> m->shift;
	*user += cyc(s, SIM_COST_touch);
	lv = tlb_lookup(&v->tlb, key, vpn, &gen);
	if (lv) {
		if (lv == 1)
			s->r->tlb_l1_hits++;
		else
			s->r->tlb_l2_hits++;
		*user += cyc(s, lv == 1 ? SIM_COST_l1_hit : SIM_COST_stlb_hit);
		/* The oracle: a translation through an entry older than the
		 * generation a completed flush covered. */
		if (gen < m->pte[idx].flushed)
			violation(s, v, va);
		return true;
	}
	if (!(m->pte[idx].gen & 1) && !locked)
		return false;
	s->r->tlb_misses++;
	*user += (simtime)(s->cost[SIM_COST_walk_ref] *
			   s->cost[SIM_COST_walk_refs]);
	if (!(m->pte[idx].gen & 1)) {
		/* Not present: a page fault maps it. */
		s->r->page_faults++;
		*sys += cyc(s, SIM_COST_page_fault);
		if (!s->c->wl_file_backed)
			*sys += (simtime)(s->cost[SIM_COST_zero_page] *
					  (double)(1ULL << (m->shift - 12)));
		m->pte[idx].gen++;
		mm_list_present(m, idx);
	}
	tlb_fill(&v->tlb, key, vpn, m->pte[idx].gen, false);
	return true;
}

/* An access from user space: takes the mmap lock for a fault. */
/* An access from user space. A fault runs under the mmap lock, read
 * side, for its own duration (the work before it is charged first). */
static void t_touch(struct task *t, uint64_t va, simtime *user, simtime *sys)
{
	simtime fu = 0, fs = 0;

	if (t_access(t, va, user, sys, false))
		return;
	t_work(t, *sys, ACCT_SYS);
	t_work(t, *user, ACCT_USER);
	*sys = *user = 0;
	if (t->s->c->fault_exclusive) {
		lock_write(t);
		t_access(t, va, &fu, &fs, true);
		t_work(t, fs, ACCT_SYS);
		unlock_write(t);
	} else {
		lock_read(t);
		t_access(t, va, &fu, &fs, true);
		t_work(t, fs, ACCT_SYS);
		unlock_read(t);
	}
	*user += fu;
}

static uint64_t slot_va(const struct mm *m, uint32_t slot)
{
	return GVA_BASE + (((uint64_t)slot * m->pages) << m->shift);
}

/* --------------------------------------------------- the backend */
static struct vcpu *vm_vcpu(struct sim *s, const struct vcpu *self,
			    uint32_t cpu)
{
	if (cpu >= s->c->vcpus)
		return NULL;
	return &s->v[self->vm * s->c->vcpus + cpu];
}

static struct task *cur_task(struct vcpu *v)
{
	return v->cur == NONE_ID ? NULL : &v->s->t[v->cur];
}

static void op_local_flush(void *user, uint32_t cpu,
			   const struct hvtlb_flush_range *r)
{
	struct vcpu *v = user;
	struct sim *s = v->s;
	struct task *t = cur_task(v);

	(void)cpu;
	if (!t)
		return;
	vcpu_flush_range(s, v, r, s->mm[t->mm].id, HVTLB_SIM_FLUSH_LOCAL);
	v->mm_gen = s->mm[t->mm].tlb_gen;
	t_work(t, flush_cost(s, r->all, hvtlb_range_pages(r)), ACCT_SYS);
}

/* The highest target, which the drop-target fault loses. */
static uint32_t last_cpu(const struct hvtlb_cpumask *m)
{
	uint32_t last = HVTLB_MAX_CPUS;

	for (uint32_t c = hvtlb_cpumask_next(m, 0); c < HVTLB_MAX_CPUS;
	     c = hvtlb_cpumask_next(m, c + 1))
		last = c;
	return last;
}

static void op_send_ipis(void *user, const struct hvtlb_cpumask *targets,
			 const struct hvtlb_ipi_flush *f)
{
	struct vcpu *v = user;
	struct sim *s = v->s;
	struct task *t = cur_task(v);
	uint32_t n = 0, drop = HVTLB_MAX_CPUS;
	simtime send = s->c->ipiv ? 0 : cyc(s, SIM_COST_ipi_send);
	simtime deliver;

	if (!t)
		return;
	if (s->c->fault == HVTLB_SIM_FAULT_DROP_TARGET)
		drop = last_cpu(targets);
	/* Round trip = sender exit + delivery + target handling. */
	deliver = cyc(s, SIM_COST_ipi_latency);
	deliver = deliver > send + cyc(s, SIM_COST_ipi_target)
			  ? deliver - send - cyc(s, SIM_COST_ipi_target)
			  : 0;
	v->ack_seq++;
	v->ack_wait = 0;
	for (uint32_t c = hvtlb_cpumask_next(targets, 0); c < HVTLB_MAX_CPUS;
	     c = hvtlb_cpumask_next(targets, c + 1)) {
		struct vcpu *tv = vm_vcpu(s, v, c);

		if (!tv || tv == v)
			continue;
		uint32_t exits = n / s->c->ipi_batch + 1;
		struct ipi_rec q = {
			.arrive = s->now + exits * send + deliver,
			.from = v->gid,
			.seq = v->ack_seq,
			.asid = s->mm[t->mm].id,
			.kind = IPI_FLUSH,
			.early = f->early_ack,
			.drop = c == drop,
			.r = f->range,
		};

		if (tv->npend == tv->cappend) {
			uint32_t nc = tv->cappend ? tv->cappend * 2 : 4;
			struct ipi_rec *p = realloc(tv->pend, nc * sizeof(*p));

			if (!p) {
				s->failed = true;
				return;
			}
			tv->pend = p;
			tv->cappend = nc;
		}
		tv->pend[tv->npend++] = q;
		ev_push(s, q.arrive, EV_IPI, tv->gid, 0);
		v->ack_wait++;
		n++;
	}
	s->r->ipis_sent += n;
	if (n && !s->c->ipiv) {
		uint64_t exits = (n + s->c->ipi_batch - 1) / s->c->ipi_batch;

		count_exit(s, v, HVTLB_SIM_EXIT_IPI_SEND, exits);
		t_work(t, exits * send, ACCT_SYS);
	}
}

static void op_wait_acks(void *user, const struct hvtlb_cpumask *targets)
{
	struct vcpu *v = user;
	struct task *t = cur_task(v);

	(void)targets;
	if (!t)
		return;
	if (v->s->c->fault == HVTLB_SIM_FAULT_NO_WAIT) {
		v->ack_seq++; /* late acks are ignored */
		v->ack_wait = 0;
		return;
	}
	t_spin(t);
}

static enum hvtlb_cpu_state op_cpu_state(void *user, uint32_t cpu)
{
	struct vcpu *v = user;
	struct vcpu *tv = vm_vcpu(v->s, v, cpu);

	if (!tv)
		return HVTLB_CPU_OFFLINE;
	if (tv->cur == NONE_ID && tv->lazy)
		return HVTLB_CPU_LAZY;
	if (tv->hs == H_READY)
		return HVTLB_CPU_PREEMPTED;
	return HVTLB_CPU_RUNNING;
}

/* Posts a flush of @p ranges (or all; @p global: global entries too) to
 * the targets, kicks the running ones and counts the acknowledgements to
 * wait for. */
static void hv_post(struct sim *s, struct vcpu *v, const uint8_t *vps,
		    const struct hvtlb_gva_range *ranges, size_t n, bool all,
		    bool global, simtime per_target, bool vmm)
{
	simtime kick = cyc(s, SIM_COST_kick), self = 0;
	uint32_t ntargets = 0;

	v->ack_seq++;
	v->ack_wait = 0;
	for (uint32_t i = 0; i < s->c->vcpus; i++) {
		if (!vps[i])
			continue;
		struct vcpu *tv = vm_vcpu(s, v, i);

		ntargets++;
		/* Ranges drop the global entries of their addresses; if the
		 * queue folds them into "everything", that must too. */
		tv->fq_global |= global || !all;
		if (all || hvtlb_flushq_push(&tv->fq, ranges, n) == 1) {
			if (!all)
				s->r->flushes[HVTLB_SIM_FLUSH_OVERFLOW]++;
			hvtlb_flushq_push_all(&tv->fq);
		}
		if (tv == v) {
			/* The caller's own TLB, before returning to it. */
			self = vcpu_service_fq(s, v);
			continue;
		}
		if (tv->hs == H_RUNNING) {
			ev_push(s, s->now + kick, EV_KICK, tv->gid,
				((uint64_t)v->gid << 32) | v->ack_seq |
					((uint64_t)vmm << 63));
			v->ack_wait++;
		}
		/* Not running: serviced before its next entry. */
	}
	t_work(cur_task(v), per_target * ntargets + self, ACCT_SYS);
	if (s->c->fault == HVTLB_SIM_FAULT_NO_WAIT) {
		v->ack_seq++;
		v->ack_wait = 0;
		return;
	}
	t_spin(cur_task(v));
}

static uint64_t op_hypercall(void *user, uint64_t control, const void *input,
			     size_t len)
{
	struct vcpu *v = user;
	struct sim *s = v->s;
	struct task *t = cur_task(v);
	struct hvtlb_host host = {
		.profile = s->c->decoder,
		.vp_count = s->c->vcpus,
		.va_bits = 48,
	};
	struct hvtlb_input in = {
		.data = input,
		.len = len,
		.gpa = 0x100000 + ((uint64_t)v->idx << 12),
	};
	struct hvtlb_decoded d;
	struct hvtlb_gva_range ranges[HVTLB_FLUSHQ_MAX_RANGES + 1];
	uint8_t vps[HVTLB_SIM_MAX_VCPUS];
	size_t n = 0;
	bool all, global;
	uint64_t res;

	if (!t)
		return hvtlb_result_pack(HVTLB_STATUS_INVALID_PARAMETER, 0);
	s->r->hypercalls++;
	count_exit(s, v, HVTLB_SIM_EXIT_HYPERCALL, 1);
	t_work(t, cyc(s, SIM_COST_hypercall), ACCT_SYS);
	res = hvtlb_decode(&host, control, &in, &d);
	if (hvtlb_result_status(res) != HVTLB_STATUS_SUCCESS ||
	    !hvtlb_call_is_flush(d.call))
		return res;
	all = d.flush_all_gvas;
	/* Space honours NON_GLOBAL_MAPPINGS_ONLY; a List (also one that
	 * overflows the queue) drops the globals of its addresses. */
	global = !all || !(d.flags & HVTLB_FLUSH_NON_GLOBAL_MAPPINGS_ONLY);
	if (!all) {
		struct hvtlb_gva_iter it;
		struct hvtlb_gva_range r;

		hvtlb_gva_iter_init(&it, &d);
		while (hvtlb_gva_iter_next(&it, &r)) {
			if (n == HVTLB_FLUSHQ_MAX_RANGES) {
				all = true; /* more than the queue holds */
				s->r->flushes[HVTLB_SIM_FLUSH_OVERFLOW]++;
				break;
			}
			ranges[n++] = r;
		}
	}
	memset(vps, 0, s->c->vcpus);
	struct hvtlb_vp_iter vi;
	uint32_t vp, last = NONE_ID;

	hvtlb_vp_iter_init(&vi, &d);
	while (hvtlb_vp_iter_next(&vi, &vp)) {
		if (vp < s->c->vcpus) { /* bounded: guest-supplied */
			vps[vp] = 1;
			if (vp != v->idx)
				last = vp;
		}
	}
	if (s->c->fault == HVTLB_SIM_FAULT_DROP_TARGET && last != NONE_ID)
		vps[last] = 0;
	hv_post(s, v, vps, ranges, n, all, global,
		cyc(s, SIM_COST_hv_per_target), false);
	return res;
}

static void op_get_hints(void *user, struct hvtlb_hints *h)
{
	struct vcpu *v = user;
	const struct hvtlb_sim_config *c = v->s->c;

	memset(h, 0, sizeof(*h));
	h->remote_flush_recommended = c->strategy.kind == HVTLB_STRATEGY_HYPERV;
	h->ex_available = c->offer_ex;
	h->xmm_input = c->offer_xmm;
	h->extended_ranges = false;
	h->broadcast = c->strategy.kind == HVTLB_STRATEGY_BROADCAST;
	h->kvm_pv_flush = c->strategy.kind == HVTLB_STRATEGY_KVM_PV;
	h->vmm_assist = c->strategy.kind == HVTLB_STRATEGY_VMM_ASSIST;
}

static uint8_t op_read_preempted(void *user, uint32_t cpu)
{
	struct vcpu *v = user;
	struct vcpu *tv = vm_vcpu(v->s, v, cpu);
	struct task *t = cur_task(v);

	if (t)
		t->debt += cyc(v->s, SIM_COST_kvm_pv_check);
	return tv ? tv->steal : 0;
}

static bool op_cmpxchg_preempted(void *user, uint32_t cpu, uint8_t *expected,
				 uint8_t desired)
{
	struct vcpu *v = user;
	struct vcpu *tv = vm_vcpu(v->s, v, cpu);

	if (!tv)
		return false;
	if (tv->steal != *expected) {
		*expected = tv->steal;
		return false;
	}
	tv->steal = desired;
	if (desired & HVTLB_KVM_VCPU_FLUSH_TLB)
		v->s->r->deferred_marked++;
	return true;
}

static void op_broadcast_invalidate(void *user,
				    const struct hvtlb_flush_range *r)
{
	struct vcpu *v = user;
	struct sim *s = v->s;
	struct task *t = cur_task(v);

	if (!t)
		return;
	/* INVLPGB reaches every vCPU of the VM (its ASID) in hardware. */
	for (uint32_t i = 0; i < s->c->vcpus; i++)
		vcpu_flush_range(s, vm_vcpu(s, v, i), r, s->mm[t->mm].id,
				 HVTLB_SIM_FLUSH_BROADCAST);
	t_work(t, cyc(s, SIM_COST_invlpgb), ACCT_SYS);
}

static void op_broadcast_sync(void *user)
{
	struct vcpu *v = user;
	struct task *t = cur_task(v);

	if (t)
		t_work(t, cyc(v->s, SIM_COST_tlbsync), ACCT_SYS);
}

static int op_vmm_flush(void *user, const struct hvtlb_cpumask *targets,
			const struct hvtlb_flush_range *r)
{
	struct vcpu *v = user;
	struct sim *s = v->s;
	struct task *t = cur_task(v);
	uint8_t vps[HVTLB_SIM_MAX_VCPUS];
	struct hvtlb_gva_range g = { 0 };
	uint32_t drop = HVTLB_MAX_CPUS;

	if (!t)
		return -EINVAL;
	s->r->hypercalls++;
	count_exit(s, v, HVTLB_SIM_EXIT_HYPERCALL, 1);
	t_work(t, cyc(s, SIM_COST_hypercall), ACCT_SYS);
	if (s->c->fault == HVTLB_SIM_FAULT_DROP_TARGET)
		drop = last_cpu(targets);
	memset(vps, 0, s->c->vcpus);
	for (uint32_t c = hvtlb_cpumask_next(targets, 0); c < s->c->vcpus;
	     c = hvtlb_cpumask_next(targets, c + 1))
		vps[c] = c != drop;
	if (!r->all) {
		g.gva = r->start;
		g.pages = hvtlb_range_pages(r);
		g.size = r->stride_shift == 30	 ? HVTLB_PAGE_1G
			 : r->stride_shift == 21 ? HVTLB_PAGE_2M
						 : HVTLB_PAGE_4K;
	}
	hv_post(s, v, vps, &g, 1, r->all, !r->all || r->include_global,
		cyc(s, SIM_COST_hv_per_target), true);
	return 0;
}

static uint64_t op_lazy_post(void *user, const struct hvtlb_cpumask *targets,
			     const struct hvtlb_flush_range *r)
{
	struct vcpu *v = user;
	struct sim *s = v->s;
	struct task *t = cur_task(v);
	uint64_t epoch = ++s->lazy_epoch;
	uint32_t slots = (uint32_t)s->cost[SIM_COST_lazy_slots], n = 0;

	if (!t)
		return epoch;
	for (uint32_t c = hvtlb_cpumask_next(targets, 0); c < s->c->vcpus;
	     c = hvtlb_cpumask_next(targets, c + 1)) {
		struct vcpu *tv = vm_vcpu(s, v, c);

		if (tv == v)
			continue;
		n++;
		/* A halted vCPU applies it in its context switch before it
		 * can translate again: it does not hold the epoch back. */
		if (tv->lz_min_epoch == UINT64_MAX && tv->hs != H_HALTED)
			tv->lz_min_epoch = epoch;
		tv->lz_max_epoch = epoch;
		if (r->all || tv->nlz >= slots || !tv->lz) {
			tv->lz_all = true;
			continue;
		}
		tv->lz[tv->nlz++] = (struct lazy_rec){
			.start = r->start,
			.end = r->end,
			.shift = r->stride_shift,
			.asid = s->mm[t->mm].id,
		};
	}
	t->debt += cyc(s, SIM_COST_lazy_post) * n;
	return epoch;
}

/* ------------------------------------------------------- workloads */
/* The slot is reusable when every vCPU applied the lazy epoch. */
static bool lazy_epoch_done(struct sim *s, uint32_t vm, uint64_t epoch)
{
	for (uint32_t i = 0; i < s->c->vcpus; i++) {
		const struct vcpu *v = &s->v[vm * s->c->vcpus + i];

		if (v->lz_min_epoch <= epoch)
			return false;
	}
	return true;
}

/* The flush of a slot's zap is complete (lazy strategy, at reuse):
 * entries older than the current generation are stale now. */
static void mark_slot_flushed(struct mm *m, uint32_t slot)
{
	uint64_t base = (uint64_t)slot * m->pages;

	for (uint32_t i = 0; i < m->pages; i++) {
		struct pte *p = &m->pte[base + i];

		if (p->gen > p->flushed)
			p->flushed = p->gen;
	}
}

/* The flush of @p t's last zap of @p slot is complete: entries older
 * than the generation it covered are stale now. */
static void mark_zapped_flushed(struct task *t, struct mm *m, uint32_t slot)
{
	uint64_t base = (uint64_t)slot * m->pages;

	for (uint32_t k = 0; k < t->nz; k++) {
		struct pte *p = &m->pte[base + t->zidx[k]];
		uint32_t g = t->covered[t->zidx[k]];

		if (g > p->flushed)
			p->flushed = g;
	}
}

static uint32_t alloc_slot(struct task *t)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];

	for (;;) {
		if (m->qn) {
			struct qslot *q = &m->quar[m->qhead];

			if (lazy_epoch_done(s, t->vm, q->epoch)) {
				/* The lazy flush is complete only now. */
				mark_slot_flushed(m, q->slot);
				m->free_stack[m->nfree++] = q->slot;
				m->qhead = (m->qhead + 1) % m->nslots;
				m->qn--;
				continue;
			}
		}
		if (m->nfree)
			return m->free_stack[--m->nfree];
		/* Everything waits for lazy invalidations: wait a tick. */
		unlock_write(t);
		sleep_timer(s, t, s->tick);
		lock_write(t);
	}
}

static void do_mmap(struct task *t, uint32_t *slot)
{
	struct sim *s = t->s;

	t->debt += cyc(s, SIM_COST_syscall);
	lock_write(t);
	*slot = alloc_slot(t);
	s->mm[t->mm].live[*slot] = 1;
	t_work(t, cyc(s, SIM_COST_mmap), ACCT_SYS);
	unlock_write(t);
}

static void touch(struct task *t, uint32_t slot, enum hvtlb_sim_touch how,
		  uint32_t count)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	uint64_t va = slot_va(m, slot);
	simtime user = 0, sys = 0;

	for (uint32_t rep = 0; rep < s->c->wl_touch_repeat; rep++) {
		switch (how) {
		case HVTLB_SIM_TOUCH_NONE:
			break;
		case HVTLB_SIM_TOUCH_FIRST:
			t_touch(t, va, &user, &sys);
			break;
		case HVTLB_SIM_TOUCH_ALL:
			for (uint32_t i = 0; i < m->pages; i++)
				t_touch(t, va + ((uint64_t)i << m->shift),
					&user, &sys);
			break;
		case HVTLB_SIM_TOUCH_RANDOM:
			for (uint32_t i = 0; i < count; i++) {
				uint64_t p = sim_rng_below(&t->rng, m->pages);

				t_touch(t, va + (p << m->shift), &user, &sys);
			}
			break;
		}
	}
	t_work(t, sys, ACCT_SYS);
	t_work(t, user, ACCT_USER);
}

/* Issues @p req from @p t's vCPU through its strategy and records the
 * shootdown: count, latency, trace. False (the run failed) if the
 * strategy failed. */
static bool shootdown(struct task *t, const struct hvtlb_flush_request *req,
		      struct hvtlb_flush_outcome *out)
{
	struct sim *s = t->s;
	simtime t0 = s->now;

	s->r->shootdowns++;
	if (hvtlb_flush(s->v[t->vcpu].fl, req, out)) {
		s->failed = true;
		return false;
	}
	if (t->debt)
		t_work(t, 0, ACCT_SYS);
	hist_add(s, s->now - t0);
	if (TRACING(s))
		trace_shootdown(s, t, t0, req, out);
	return true;
}

/* The lowest page of @p t's last zap (slot at @p va) that @p o still
 * translates through an entry older than the zap, or NONE_ID. */
static uint32_t stale_zapped_page(const struct task *t, const struct mm *m,
				  struct vcpu *o, uint64_t va)
{
	uint32_t low = NONE_ID;

	for (uint32_t k = 0; k < t->nz; k++) {
		uint32_t p = t->zidx[k];
		uint64_t a = va + ((uint64_t)p << m->shift);
		uint32_t g;

		if (p < low &&
		    tlb_probe(&o->tlb, tlb_key(a, m->shift, m->id),
			      a >> m->shift, &g) &&
		    g < t->covered[p])
			low = p;
	}
	return low;
}

/* Zaps the slot's PTEs and flushes; with @p free the slot is unmapped. */
static void zap_and_flush(struct task *t, uint32_t slot, bool free_slot)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	struct vcpu *v = &s->v[t->vcpu];
	uint64_t base = (uint64_t)slot * m->pages;
	uint64_t va = slot_va(m, slot);
	uint64_t bytes = (uint64_t)m->pages << m->shift;

	/* The pages made present since the slot's last zap (copied: with a
	 * read lock, others may fault the slot in again while this zap waits
	 * for its flush). covered[] is read only at these pages. */
	t->nz = m->pn[slot];
	m->pn[slot] = 0;
	for (uint32_t k = 0; k < t->nz; k++) {
		uint32_t i = m->plist[base + k];

		t->zidx[k] = i;
		t->covered[i] = ++m->pte[base + i].gen;
	}
	t_work(t,
	       cyc(s, free_slot ? SIM_COST_munmap : SIM_COST_madvise) +
		       (simtime)(s->cost[SIM_COST_unmap_per_page] *
				 (double)t->nz),
	       ACCT_SYS);
	if (t->nz) {
		struct hvtlb_flush_request req = {
			.ncpus = s->c->vcpus,
			.initiator = v->idx,
			.address_space = (uint64_t)m->id << 12,
			.range = { .start = va,
				   .end = va + bytes,
				   .stride_shift = m->shift },
			/* A whole page-table page goes away with >= 2 MiB. */
			.freed_tables = free_slot && bytes >= (2u << 20) &&
					m->shift == 12,
		};
		struct hvtlb_flush_outcome out;
		bool freed = req.freed_tables;

		m->tlb_gen++;
		req.targets = m->cpumask;
		hvtlb_cpumask_set(&req.targets, v->idx);
		if (s->c->fault == HVTLB_SIM_FAULT_SKIP_LAZY_FREED)
			req.freed_tables = false;
		if (!shootdown(t, &req, &out))
			return;
		if (s->c->strategy.kind == HVTLB_STRATEGY_LAZY &&
		    out.reuse_epoch && free_slot) {
			/* Complete when every CPU passed the epoch: the slot
			 * is quarantined until then (alloc_slot). */
			m->quar[(m->qhead + m->qn) % m->nslots] =
				(struct qslot){ slot, out.reuse_epoch };
			m->qn++;
			return;
		}
		if (s->c->strategy.kind == HVTLB_STRATEGY_LAZY &&
		    out.reuse_epoch) {
			/* madvise: the range is refaulted at once, so the
			 * call returns only when every CPU applied it. */
			while (!lazy_epoch_done(s, t->vm, out.reuse_epoch))
				sleep_timer(s, t, s->tick);
		}
		mark_zapped_flushed(t, m, slot);
		if (freed) {
			/* Freed page tables: a lazy CPU may walk them
			 * speculatively at any time, so it must not hold
			 * anything the flush covered. */
			for (uint32_t i = 0; i < s->c->vcpus; i++) {
				struct vcpu *o = vm_vcpu(s, v, i);

				if (o == v || !o->lazy || !o->tlb_ready ||
				    o->loaded_mm != t->mm ||
				    (o->steal & HVTLB_KVM_VCPU_FLUSH_TLB) ||
				    hvtlb_flushq_pending(&o->fq))
					continue;
				uint32_t p = stale_zapped_page(t, m, o, va);

				if (p != NONE_ID)
					violation(
						s, o,
						va + ((uint64_t)p << m->shift));
			}
		}
	}
	if (free_slot)
		m->free_stack[m->nfree++] = slot;
}

static void do_munmap(struct task *t, uint32_t slot)
{
	struct sim *s = t->s;

	t->debt += cyc(s, SIM_COST_syscall);
	lock_write(t);
	s->mm[t->mm].live[slot] = 0;
	zap_and_flush(t, slot, true);
	unlock_write(t);
}

static void do_madvise(struct task *t, uint32_t slot)
{
	struct sim *s = t->s;

	t->debt += cyc(s, SIM_COST_syscall);
	lock_read(t);
	zap_and_flush(t, slot, false);
	unlock_read(t);
}

static void maybe_sleep(struct task *t)
{
	struct sim *s = t->s;

	if (!s->c->wl_sleep_ns_max)
		return;
	uint64_t ns = sim_rng_below(&t->rng, s->c->wl_sleep_ns_max + 1);

	if (ns)
		sleep_timer(s, t, us_to_cyc(s, (double)ns / 1000.0));
}

static void user_work(struct task *t)
{
	struct sim *s = t->s;

	t_work(t,
	       cyc(s, SIM_COST_user_op) +
		       us_to_cyc(s, (double)s->c->wl_user_ns / 1000.0),
	       ACCT_USER);
}

static void op_trasher(struct task *t)
{
	struct sim *s = t->s;
	uint32_t slot;

	user_work(t);
	do_mmap(t, &slot);
	touch(t, slot, s->c->wl_touch, s->c->wl_search_pages);
	do_munmap(t, slot);
	maybe_sleep(t);
}

static void op_madvise(struct task *t, uint32_t slot)
{
	user_work(t);
	touch(t, slot, HVTLB_SIM_TOUCH_ALL, 0);
	do_madvise(t, slot);
	maybe_sleep(t);
}

/* Reads @p n random pages of random live chunks (own chunk if none). */
static void search(struct task *t, uint32_t own, uint32_t n)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	simtime user = 0, sys = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t slot = (uint32_t)sim_rng_below(&t->rng, m->nslots);
		uint64_t p = sim_rng_below(&t->rng, m->pages);

		if (!m->live[slot])
			slot = own;
		t_touch(t, slot_va(m, slot) + (p << m->shift), &user, &sys);
	}
	t_work(t, sys, ACCT_SYS);
	t_work(t, user, ACCT_USER);
}

static void op_ebizzy(struct task *t)
{
	struct sim *s = t->s;
	uint32_t slot;

	/* Allocate a record chunk and fill it, search records of every
	 * thread (ebizzy's records are shared), free the chunk. */
	user_work(t);
	do_mmap(t, &slot);
	touch(t, slot, HVTLB_SIM_TOUCH_ALL, 0);
	search(t, slot, s->c->wl_search_pages);
	do_munmap(t, slot);
	maybe_sleep(t);
}

/* ------------------------------------------------- kernel pages */
/* workload.kernel_pages: each thread now and then maps a kernel page
 * (vmalloc: a global PTE shared by every process of the VM), touches it
 * and random other mapped ones, and unmaps it after KERNEL_HOLD
 * operations, with a shootdown that includes global mappings (vfree).
 * Other vCPUs hold global entries of the page, so a flush that keeps
 * globals leaves them stale; the oracle catches their use once the page
 * is mapped again. */
static struct pte *kpte_of(struct sim *s, uint32_t vm, uint32_t p)
{
	return &s->kpte[(size_t)vm * s->c->wl_kernel_pages + p];
}

/* A kernel read of mapped kernel page @p p through the vCPU's TLB. */
static void k_access(struct task *t, uint32_t p, simtime *sys)
{
	struct sim *s = t->s;
	struct vcpu *v = &s->v[t->vcpu];
	const struct pte *pt = kpte_of(s, t->vm, p);
	uint64_t va = KVA_BASE + ((uint64_t)p << 12);
	/* Looked up from the current ASID: a global entry matches any. */
	uint64_t key = tlb_key(va, 12, s->mm[t->mm].id);
	uint32_t gen;
	int lv;

	vcpu_tlb_ready(s, v);
	if (!v->tlb_ready)
		return;
	*sys += cyc(s, SIM_COST_touch);
	lv = tlb_lookup(&v->tlb, key, va >> 12, &gen);
	if (lv) {
		if (lv == 1)
			s->r->tlb_l1_hits++;
		else
			s->r->tlb_l2_hits++;
		*sys += cyc(s, lv == 1 ? SIM_COST_l1_hit : SIM_COST_stlb_hit);
		if (gen < pt->flushed)
			violation(s, v, va);
		return;
	}
	s->r->tlb_misses++;
	*sys += (simtime)(s->cost[SIM_COST_walk_ref] *
			  s->cost[SIM_COST_walk_refs]);
	tlb_fill(&v->tlb, key, va >> 12, pt->gen, true);
}

/* vfree: unmaps the task's kernel page and shoots it down everywhere,
 * global mappings included, as flush_tlb_all after a vmap purge. */
static void kernel_free(struct task *t)
{
	struct sim *s = t->s;
	uint32_t p = t->kpage, covered;
	struct pte *pt = kpte_of(s, t->vm, p);
	struct hvtlb_flush_outcome out;
	struct vcpu *v;

	covered = ++pt->gen; /* even: not present */
	t->kpage = NONE_ID;
	t_work(t, cyc(s, SIM_COST_munmap), ACCT_SYS);
	v = &s->v[t->vcpu];
	struct hvtlb_flush_request req = {
		.ncpus = s->c->vcpus,
		.initiator = v->idx,
		.address_space = (uint64_t)s->mm[t->mm].id << 12,
		.range = { .stride_shift = 12,
			   .all = true,
			   .include_global = true },
		/* Every CPU, lazy ones included (on_each_cpu). */
		.freed_tables = true,
	};

	for (uint32_t c = 0; c < s->c->vcpus; c++)
		hvtlb_cpumask_set(&req.targets, c);
	if (!shootdown(t, &req, &out))
		return;
	if (covered > pt->flushed)
		pt->flushed = covered;
	s->kfree[(size_t)t->vm * s->c->wl_kernel_pages + s->knfree[t->vm]++] =
		p;
}

static void kernel_op(struct task *t)
{
	struct sim *s = t->s;
	uint32_t n = s->c->wl_kernel_pages, p;
	simtime sys = 0;

	if (t->kpage == NONE_ID && s->knfree[t->vm]) {
		/* vmalloc: a present, global PTE */
		t->kpage = s->kfree[(size_t)t->vm * n + --s->knfree[t->vm]];
		kpte_of(s, t->vm, t->kpage)->gen++;
		t->kage = 0;
		sys += cyc(s, SIM_COST_mmap);
	}
	if (t->kpage != NONE_ID)
		k_access(t, t->kpage, &sys);
	p = (uint32_t)sim_rng_below(&t->rng, n);
	if (kpte_of(s, t->vm, p)->gen & 1)
		k_access(t, p, &sys);
	t_work(t, sys, ACCT_SYS);
	if (t->kpage != NONE_ID && ++t->kage >= KERNEL_HOLD)
		kernel_free(t);
}

static void workload(struct task *t)
{
	struct sim *s = t->s;
	uint32_t own = NONE_ID;

	if (s->c->workload == HVTLB_SIM_WORKLOAD_MADVISE ||
	    s->c->workload == HVTLB_SIM_WORKLOAD_MIX) {
		if (s->c->wl_shared)
			own = 0; /* the process's shared mapping, slot 0 */
		else
			do_mmap(t, &own);
	}
	for (uint64_t i = 0; i < s->c->wl_iterations && !s->failed; i++) {
		if (s->c->wl_kernel_pages)
			kernel_op(t);
		switch (s->c->workload) {
		case HVTLB_SIM_WORKLOAD_TRASHER:
			op_trasher(t);
			break;
		case HVTLB_SIM_WORKLOAD_MADVISE:
			op_madvise(t, own);
			break;
		case HVTLB_SIM_WORKLOAD_EBIZZY:
			op_ebizzy(t);
			break;
		case HVTLB_SIM_WORKLOAD_MIX:
		default:
			switch (sim_rng_below(&t->rng, 3)) {
			case 0:
				op_trasher(t);
				break;
			case 1:
				op_madvise(t, own);
				break;
			default:
				op_ebizzy(t);
				break;
			}
			break;
		}
	}
	if (own != NONE_ID && !s->c->wl_shared)
		do_munmap(t, own);
	if (t->debt)
		t_work(t, 0, ACCT_SYS);
}

static void task_entry(void *arg)
{
	struct task *t = arg;

	workload(t);
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
	coro_switch(&s->main_ctx, &t->ctx);
	s->running = NULL;
	if (t->st == T_DONE) {
		acct_set(s, t, ACCT_NONE);
		t->done_at = s->now;
		s->tasks_left--;
		v->cur = NONE_ID;
		v->act = ACT_WORK;
		v->work = 0;
		vcpu_arm_run(s, v);
		return;
	}
	if (t->st == T_BLOCKED) {
		v->cur = NONE_ID;
		v->act = ACT_WORK;
		v->work = 0;
		vcpu_arm_run(s, v);
		return;
	}
	vcpu_continue(s, v);
}

/* ------------------------------------------------------ event loop */
static void on_event(struct sim *s, const struct event *e)
{
	switch ((enum ev_kind)e->kind) {
	case EV_RUN: {
		struct vcpu *v = &s->v[e->obj];

		if (e->arg != v->run_token || v->hs != H_RUNNING ||
		    v->act != ACT_WORK)
			return;
		v->armed = false;
		vcpu_segment_done(s, v);
		return;
	}
	case EV_SLICE: {
		struct pcpu *p = &s->p[e->obj];

		if (!slice_fired(s, p, e->arg))
			return;
		if (!p->rq_n) {
			slice_arm(s, p, s->now + host_slice(s, p));
			return;
		}
		count_exit(s, &s->v[p->cur], HVTLB_SIM_EXIT_PREEMPTION, 1);
		vcpu_deschedule(s, &s->v[p->cur], true);
		return;
	}
	case EV_IPI: {
		struct vcpu *v = &s->v[e->obj];

		if (v->hs == H_RUNNING)
			vcpu_take_ipis(s, v);
		else if (v->hs == H_HALTED)
			vcpu_wake(s, v, 0);
		return;
	}
	case EV_KICK: {
		struct vcpu *v = &s->v[e->obj];
		uint32_t from = (uint32_t)(e->arg >> 32) & 0x7fffffff;
		uint32_t seq = (uint32_t)e->arg;
		simtime at = s->now;

		TRACE(s, HVTLB_SIM_TRACE_KICK, v, TR_NONE, s->now,
		      s->v[from].idx, v->hs == H_RUNNING);
		if (v->hs == H_RUNNING) {
			simtime h = cyc(s, SIM_COST_vmexit);

			count_exit(s, v, HVTLB_SIM_EXIT_KICK, 1);
			h += e->arg >> 63 ? cyc(s, SIM_COST_vmm_target) : 0;
			h += vcpu_service_fq(s, v);
			at = vcpu_steal(s, v, h);
		}
		ev_push(s, at, EV_ACK, from, seq);
		return;
	}
	case EV_WAKE: {
		struct vcpu *v = &s->v[e->obj];
		struct pcpu *p = &s->p[v->pcpu];

		if (v->hs != H_WAKING)
			return;
		v->hs = H_READY;
		TRACE(s, HVTLB_SIM_TRACE_WAKE, v, TR_NONE, e->arg, 0, 0);
		if (s->c->cfs) {
			/* place_entity() with GENTLE_FAIR_SLEEPERS: a sleeper
			 * gets at most half a latency of credit; it preempts
			 * the running vCPU when that one is ahead by more
			 * than the wake-up granularity. */
			simtime floor =
				p->min_vruntime > s->cfs_latency / 2
					? p->min_vruntime - s->cfs_latency / 2
					: 0;

			if (v->vruntime < floor)
				v->vruntime = floor;
			pcpu_push(p, v->gid, false);
			if (p->cur != NONE_ID &&
			    vcpu_vruntime(s, &s->v[p->cur]) >
				    v->vruntime + s->cfs_wakeup_gran) {
				count_exit(s, &s->v[p->cur],
					   HVTLB_SIM_EXIT_PREEMPTION, 1);
				vcpu_deschedule(s, &s->v[p->cur], true);
				return;
			}
		} else {
			pcpu_push(p, v->gid, true); /* sleeper credit */
		}
		if (p->cur != NONE_ID)
			arm_ple(s, &s->v[p->cur]);
		pcpu_schedule(s, p);
		return;
	}
	case EV_TIMER: {
		struct task *t = &s->t[e->obj];

		if (e->arg != t->wait_token || t->st != T_BLOCKED)
			return;
		task_wake(s, t, NULL);
		return;
	}
	case EV_TICK: {
		struct vcpu *v = &s->v[e->obj];
		bool lazy = s->c->strategy.kind == HVTLB_STRATEGY_LAZY;

		v->tick_armed = false;
		if (v->hs != H_RUNNING)
			return;
		if (lazy)
			lazy_apply(s, v);
		if (v->cur != NONE_ID && v->rq_n && v->act == ACT_WORK &&
		    s->t[v->cur].in_user_seg &&
		    s->now - v->cur_since >= s->guest_slice) {
			/* Guest preemption of user work. */
			struct task *t = &s->t[v->cur];

			t->saved_work =
				v->seg_end > s->now ? v->seg_end - s->now : 0;
			v->run_token++;
			v->armed = false;
			acct_set(s, t, ACCT_NONE);
			v->cur = NONE_ID;
			task_enqueue(s, v, t);
			guest_schedule(s, v);
		}
		if (lazy || v->rq_n)
			arm_tick(s, v);
		return;
	}
	case EV_ACK: {
		struct vcpu *v = &s->v[e->obj];

		if ((uint32_t)e->arg != v->ack_seq || !v->ack_wait)
			return;
		if (--v->ack_wait == 0 && !v->spin_hold && v->act == ACT_SPIN &&
		    v->hs == H_RUNNING) {
			v->act = ACT_WORK;
			v->work = 0;
			vcpu_arm_run(s, v);
		}
		return;
	}
	case EV_SPIN_END: {
		struct vcpu *v = &s->v[e->obj];

		if (e->arg == v->spin_token)
			spin_release(s, v);
		return;
	}
	case EV_PLE: {
		struct vcpu *v = &s->v[e->obj];

		if (e->arg != v->ple_token)
			return;
		v->ple_armed = false;
		if (v->hs != H_RUNNING || v->act != ACT_SPIN ||
		    !s->p[v->pcpu].rq_n)
			return;
		count_exit(s, v, HVTLB_SIM_EXIT_PLE, 1);
		/* kvm_vcpu_on_spin: a directed yield needs a candidate of the
		 * VM; before KVM 5.2 only a vCPU preempted while running
		 * qualifies, not one woken from halt (vcpu->ready). The
		 * spinner then keeps its pCPU (no re-arm: no candidate can
		 * appear while it runs; a new wake-up re-arms). */
		if (!s->c->ple_boost_ready && !s->vm_preempted[v->vm]) {
			vcpu_steal(s, v, cyc(s, SIM_COST_vmexit));
			return;
		}
		s->p[v->pcpu].skip = v->gid; /* yield: another runs first */
		vcpu_deschedule(s, v, true);
		return;
	}
	}
}

/* ------------------------------------------------------------ setup */
static int setup(struct sim *s)
{
	const struct hvtlb_sim_config *c = s->c;
	uint32_t per_mm;

	s->nvcpus = c->vms * c->vcpus;
	s->npcpus = c->pcpus;
	s->ntasks = c->vms * c->wl_threads;
	s->nmms = c->vms * c->wl_processes;
	s->v = calloc(s->nvcpus, sizeof(*s->v));
	s->p = calloc(s->npcpus, sizeof(*s->p));
	s->t = calloc(s->ntasks, sizeof(*s->t));
	s->mm = calloc(s->nmms, sizeof(*s->mm));
	s->vm_preempted = calloc(c->vms, sizeof(*s->vm_preempted));
	if (!s->v || !s->p || !s->t || !s->mm || !s->vm_preempted)
		return -ENOMEM;
	if (c->wl_kernel_pages) {
		size_t nk = (size_t)c->vms * c->wl_kernel_pages;

		s->kpte = calloc(nk, sizeof(*s->kpte));
		s->kfree = calloc(nk, sizeof(*s->kfree));
		s->knfree = calloc(c->vms, sizeof(*s->knfree));
		if (!s->kpte || !s->kfree || !s->knfree)
			return -ENOMEM;
		for (uint32_t vm = 0; vm < c->vms; vm++) {
			for (uint32_t k = c->wl_kernel_pages; k-- > 0;)
				s->kfree[(size_t)vm * c->wl_kernel_pages +
					 s->knfree[vm]++] = k;
		}
	}
	s->host_slice = us_to_cyc(s, s->cost[SIM_COST_host_slice_us]);
	s->guest_slice = us_to_cyc(s, s->cost[SIM_COST_guest_slice_us]);
	s->tick = us_to_cyc(s, s->cost[SIM_COST_tick_us]);
	s->lock_spin = us_to_cyc(s, c->lock_spin_us);
	s->lock_handoff = us_to_cyc(s, c->lock_handoff_us);
	s->halt_poll = us_to_cyc(s, s->cost[SIM_COST_halt_poll_us]);
	{
		/* CFS scales its tunables by 1 + ilog2(min(CPUs, 8)). */
		uint32_t n = c->pcpus < 8 ? c->pcpus : 8, f = 1;

		while (n >>= 1)
			f++;
		s->cfs_latency = us_to_cyc(s, 6000.0 * f);
		s->cfs_min_gran = us_to_cyc(s, 750.0 * f);
		s->cfs_wakeup_gran = us_to_cyc(s, 1000.0 * f);
	}
	s->cstate_exit = us_to_cyc(s, s->cost[SIM_COST_cstate_exit_us]);
	s->cstate_residency =
		us_to_cyc(s, s->cost[SIM_COST_cstate_residency_us]);
	if (!s->host_slice)
		s->host_slice = 1;
	if (!s->tick)
		s->tick = 1;
	s->limit =
		(simtime)(c->max_virtual_s * s->cost[SIM_COST_cpu_mhz] * 1e6);

	s->ops = (struct hvtlb_backend_ops){
		.version = HVTLB_BACKEND_OPS_VERSION,
		.local_flush = op_local_flush,
		.send_ipis = op_send_ipis,
		.wait_acks = op_wait_acks,
		.cpu_state = op_cpu_state,
		.hypercall = op_hypercall,
		.get_hints = op_get_hints,
		.read_preempted = op_read_preempted,
		.cmpxchg_preempted = op_cmpxchg_preempted,
		.broadcast_invalidate = op_broadcast_invalidate,
		.broadcast_sync = op_broadcast_sync,
		.vmm_flush = op_vmm_flush,
		.lazy_post = op_lazy_post,
	};

	for (uint32_t i = 0; i < s->npcpus; i++) {
		struct pcpu *p = &s->p[i];

		p->cur = p->last = p->skip = NONE_ID;
		p->rq_cap = s->nvcpus / s->npcpus + 2;
		p->rq = calloc(p->rq_cap, sizeof(*p->rq));
		if (!p->rq)
			return -ENOMEM;
	}
	for (uint32_t i = 0; i < s->nvcpus; i++) {
		struct vcpu *v = &s->v[i];

		v->s = s;
		v->gid = i;
		v->vm = i / c->vcpus;
		v->idx = i % c->vcpus;
		v->pcpu = i % s->npcpus;
		v->hs = H_HALTED;
		v->act = ACT_IDLE;
		v->cur = NONE_ID;
		v->loaded_mm = NONE_ID;
		v->lz_min_epoch = UINT64_MAX;
		if (hvtlb_flushq_init(&v->fq))
			return -ENOMEM;
		v->fq_ready = true;
		v->fl = hvtlb_flusher_create(&c->strategy, &s->ops, v);
		if (!v->fl)
			return -EINVAL;
		if (c->strategy.kind == HVTLB_STRATEGY_LAZY) {
			v->lz = calloc((size_t)s->cost[SIM_COST_lazy_slots] + 1,
				       sizeof(*v->lz));
			if (!v->lz)
				return -ENOMEM;
		}
	}
	per_mm = (c->wl_threads + c->wl_processes - 1) / c->wl_processes;
	for (uint32_t i = 0; i < s->nmms; i++) {
		struct mm *m = &s->mm[i];
		/* Two slots per thread (the madvise slot and a trasher one),
		 * twice that for lazy quarantine. */
		uint32_t nslots = per_mm * 2 + 2;

		if (c->strategy.kind == HVTLB_STRATEGY_LAZY)
			nslots *= 2;
		m->id = i + 1;
		m->vm = i / c->wl_processes;
		m->shift = c->wl_page_shift;
		m->pages = c->wl_pages;
		m->nslots = nslots;
		m->writer = NONE_ID;
		m->pte = calloc((size_t)nslots * m->pages, sizeof(*m->pte));
		m->plist = calloc((size_t)nslots * m->pages, sizeof(*m->plist));
		m->pn = calloc(nslots, sizeof(*m->pn));
		m->free_stack = calloc(nslots, sizeof(*m->free_stack));
		m->quar = calloc(nslots, sizeof(*m->quar));
		m->live = calloc(nslots, sizeof(*m->live));
		m->spinners = calloc(per_mm + 1, sizeof(*m->spinners));
		m->wq_cap = per_mm + 1;
		m->waiters = calloc(m->wq_cap, sizeof(*m->waiters));
		if (!m->pte || !m->plist || !m->pn || !m->free_stack ||
		    !m->quar || !m->waiters || !m->live || !m->spinners)
			return -ENOMEM;
		m->nfree = 0;
		for (uint32_t k = nslots; k-- > (c->wl_shared ? 1u : 0u);)
			m->free_stack[m->nfree++] = k; /* lowest on top */
	}
	for (uint32_t i = 0; i < s->ntasks; i++) {
		struct task *t = &s->t[i];
		uint32_t vm = i / c->wl_threads, k = i % c->wl_threads;

		t->s = s;
		t->id = i;
		t->vm = vm;
		t->mm = vm * c->wl_processes + k % c->wl_processes;
		t->vcpu = vm * c->vcpus + k % c->vcpus;
		t->st = T_BLOCKED;
		t->kpage = NONE_ID;
		sim_rng_init(&t->rng, c->seed, 1 + s->stream_base + i);
		t->covered = calloc(c->wl_pages, sizeof(*t->covered));
		t->zidx = calloc(c->wl_pages, sizeof(*t->zidx));
		if (!t->covered || !t->zidx)
			return -ENOMEM;
		t->stack = mmap(
			NULL, STACK_GUARD + STACK_BYTES, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (t->stack == MAP_FAILED) {
			t->stack = NULL;
			return -ENOMEM;
		}
		if (mprotect(t->stack, STACK_GUARD, PROT_NONE))
			return -ENOMEM;
#ifdef HAVE_VALGRIND
		t->vg_stack = VALGRIND_STACK_REGISTER(
			(char *)t->stack + STACK_GUARD,
			(char *)t->stack + STACK_GUARD + STACK_BYTES);
#endif
		coro_make(&t->ctx, (char *)t->stack + STACK_GUARD, STACK_BYTES,
			  task_entry, t);
	}
	s->tasks_left = s->ntasks;
	return 0;
}

static void teardown(struct sim *s)
{
	if (s->v) {
		for (uint32_t i = 0; i < s->nvcpus; i++) {
			struct vcpu *v = &s->v[i];

			hvtlb_flusher_destroy(v->fl);
			if (v->fq_ready)
				hvtlb_flushq_finish(&v->fq);
			tlb_finish(&v->tlb);
			free(v->pend);
			free(v->lz);
		}
	}
	if (s->p)
		for (uint32_t i = 0; i < s->npcpus; i++)
			free(s->p[i].rq);
	if (s->t)
		for (uint32_t i = 0; i < s->ntasks; i++) {
			if (s->t[i].stack) {
				coro_finish(&s->t[i].ctx);
#ifdef HAVE_VALGRIND
				VALGRIND_STACK_DEREGISTER(s->t[i].vg_stack);
#endif
				munmap(s->t[i].stack,
				       STACK_GUARD + STACK_BYTES);
			}
			free(s->t[i].covered);
			free(s->t[i].zidx);
		}
	if (s->mm)
		for (uint32_t i = 0; i < s->nmms; i++) {
			free(s->mm[i].pte);
			free(s->mm[i].plist);
			free(s->mm[i].pn);
			free(s->mm[i].free_stack);
			free(s->mm[i].quar);
			free(s->mm[i].live);
			free(s->mm[i].spinners);
			free(s->mm[i].waiters);
		}
	free(s->v);
	free(s->p);
	free(s->t);
	free(s->mm);
	free(s->vm_preempted);
	free(s->kpte);
	free(s->kfree);
	free(s->knfree);
	free(s->heap);
}

/* What one part (the whole machine, or one VM on its own pCPUs) gives. */
struct part {
	const struct hvtlb_sim_config *c;
	uint32_t stream_base;
	uint32_t vm_base, pcpu_base; /* tracing: machine-wide numbering */
	int rc;
	struct hvtlb_sim_results *r;
	uint64_t hist[HIST_BUCKETS];
	simtime lat_max;
	simtime real, user, sys;
};

static void finish_part(struct sim *s, struct part *pt)
{
	for (uint32_t i = 0; i < s->ntasks; i++) {
		struct task *t = &s->t[i];

		if (t->done_at > pt->real)
			pt->real = t->done_at;
		pt->user += t->user;
		pt->sys += t->sys;
	}
	memcpy(pt->hist, s->hist, sizeof(pt->hist));
	pt->lat_max = s->lat_max;
}

static int run_part(struct part *pt)
{
	const struct hvtlb_sim_config *c = pt->c;
	struct sim *s;
	int rc;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->c = c;
	s->stream_base = pt->stream_base;
	s->vm_base = pt->vm_base;
	s->pcpu_base = pt->pcpu_base;
	for (size_t i = 0; i < SIM_COST_COUNT; i++)
		s->cost[i] = c->cost[i];
	s->r = calloc(1, sizeof(*s->r));
	if (!s->r) {
		free(s);
		return -ENOMEM;
	}
	s->r->violation =
		calloc(c->max_violations + 1, sizeof(*s->r->violation));
	if (!s->r->violation) {
		rc = -ENOMEM;
		goto out;
	}
	rc = setup(s);
	if (rc)
		goto out;
	/* Every task starts runnable on its vCPU; every vCPU with work
	 * wakes at time 0. */
	for (uint32_t i = 0; i < s->ntasks; i++) {
		struct task *t = &s->t[i];

		task_enqueue(s, &s->v[t->vcpu], t);
	}
	for (uint32_t i = 0; i < s->nvcpus; i++) {
		if (s->v[i].rq_n) {
			s->v[i].hs = H_WAKING;
			ev_push(s, 0, EV_WAKE, i, 0);
		}
	}
	while (ev_pending(s) && s->tasks_left && !s->failed) {
		struct event e = ev_pop(s);

		if (e.t > s->limit) {
			s->timed_out = true;
			break;
		}
		s->now = e.t;
		s->r->events++;
		on_event(s, &e);
	}
	/* Tracing: the vCPUs still on a pCPU close their VCPU_RUN. */
	for (uint32_t i = 0; TRACING(s) && i < s->nvcpus; i++)
		if (s->v[i].hs == H_RUNNING)
			trace_emit(s, HVTLB_SIM_TRACE_VCPU_RUN, &s->v[i],
				   TR_NONE, s->v[i].run_start, 2, 0);
	if (s->failed) {
		rc = -EPROTO;
		slog(s, HVTLB_SIM_LOG_ERROR, "simulation failed");
		goto out;
	}
	if (s->timed_out || s->tasks_left) {
		rc = -ETIME;
		slog(s, HVTLB_SIM_LOG_ERROR,
		     "stopped at %.6f s virtual with %u tasks left",
		     cyc_to_s(s, s->now), s->tasks_left);
		goto out;
	}
	finish_part(s, pt);
	pt->r = s->r;
	s->r = NULL;
out:
	teardown(s);
	hvtlb_sim_results_destroy(s->r);
	free(s);
	return rc;
}

struct pool {
	struct part *parts;
	uint32_t n;
	uint32_t next; /* atomic */
};

static void *pool_worker(void *arg)
{
	struct pool *p = arg;
	uint32_t i;

	while ((i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->n)
		p->parts[i].rc = run_part(&p->parts[i]);
	return NULL;
}

/* Runs the parts on up to @p threads host threads. Which thread runs
 * which part does not matter: parts share nothing. */
static void run_parts(struct part *parts, uint32_t n, uint32_t threads)
{
	struct pool p = { parts, n, 0 };
	pthread_t tid[HVTLB_SIM_MAX_THREADS];
	uint32_t started = 0;

	if (threads > n)
		threads = n;
	for (uint32_t i = 1; i < threads; i++) {
		if (pthread_create(&tid[started], NULL, pool_worker, &p))
			break;
		started++;
	}
	pool_worker(&p);
	for (uint32_t i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
}

/* Sums the parts in part order into one result. */
static struct hvtlb_sim_results *merge(const struct hvtlb_sim_config *c,
				       struct part *parts, uint32_t n)
{
	struct hvtlb_sim_results *r = parts[0].r;
	double mhz = c->cost[SIM_COST_cpu_mhz];
	simtime real = 0, user = 0, sys = 0, lat_max = 0;
	uint64_t *hist = calloc(HIST_BUCKETS, sizeof(*hist));

	if (!hist)
		return NULL;
	for (uint32_t k = 0; k < n; k++) {
		const struct part *pt = &parts[k];
		const struct hvtlb_sim_results *q = pt->r;

		for (unsigned b = 0; b < HIST_BUCKETS; b++)
			hist[b] += pt->hist[b];
		if (pt->lat_max > lat_max)
			lat_max = pt->lat_max;
		if (pt->real > real)
			real = pt->real;
		user += pt->user;
		sys += pt->sys;
		for (uint32_t i = 0; i < q->nrecorded && k; i++) {
			if (r->nrecorded < c->max_violations) {
				r->violation[r->nrecorded] = q->violation[i];
				r->violation[r->nrecorded++].vm = k;
			}
		}
		if (!k)
			continue;
		for (int i = 0; i < HVTLB_SIM_EXIT_COUNT_; i++)
			r->vm_exits[i] += q->vm_exits[i];
		for (int i = 0; i < HVTLB_SIM_FLUSH_COUNT_; i++)
			r->flushes[i] += q->flushes[i];
		r->vm_exits_total += q->vm_exits_total;
		r->ipis_sent += q->ipis_sent;
		r->ipis_delivered += q->ipis_delivered;
		r->hypercalls += q->hypercalls;
		r->shootdowns += q->shootdowns;
		r->pages_invalidated += q->pages_invalidated;
		r->deferred_marked += q->deferred_marked;
		r->tlb_l1_hits += q->tlb_l1_hits;
		r->tlb_l2_hits += q->tlb_l2_hits;
		r->tlb_misses += q->tlb_misses;
		r->page_faults += q->page_faults;
		r->violations += q->violations;
		r->events += q->events;
		r->target_flushes += q->target_flushes;
	}
	r->real_s = (double)real / (mhz * 1e6);
	r->user_s = (double)user / (mhz * 1e6);
	r->sys_s = (double)sys / (mhz * 1e6);
	r->latency_us_p50 = hist_pct(hist, lat_max, mhz, 0.50);
	r->latency_us_p99 = hist_pct(hist, lat_max, mhz, 0.99);
	r->latency_us_max = (double)lat_max / mhz;
	free(hist);
	size_t vb = sizeof(struct vcpu) + tlb_bytes(c) +
		    sizeof(struct hvtlb_encoded) + 64;

	if (c->strategy.kind == HVTLB_STRATEGY_LAZY)
		vb += ((size_t)c->cost[SIM_COST_lazy_slots] + 1) *
		      sizeof(struct lazy_rec);
	r->mem_per_vcpu_bytes = vb;
	r->seed = c->seed;
	r->threads = c->threads;
	r->strategy = c->strategy.kind;
	r->fault = c->fault;
	return r;
}

int hvtlb_sim_run(const struct hvtlb_sim_config *c,
		  struct hvtlb_sim_results **out)
{
	struct hvtlb_sim_config sub;
	struct part *parts;
	uint32_t n = 1;
	int rc;

	if (!c || !out)
		return -EINVAL;
	*out = NULL;
	rc = hvtlb_sim_config_validate(c, NULL);
	if (rc)
		return rc;
	sub = *c;
	if (c->partition && c->vms > 1) {
		/* Each VM alone on its share of the pCPUs: independent. */
		n = c->vms;
		sub.vms = 1;
		sub.pcpus = c->pcpus / c->vms;
	}
	parts = calloc(n, sizeof(*parts));
	if (!parts)
		return -ENOMEM;
	for (uint32_t k = 0; k < n; k++) {
		parts[k].c = &sub;
		parts[k].stream_base = k * c->wl_threads;
		parts[k].vm_base = k;
		parts[k].pcpu_base = k * sub.pcpus;
	}
	run_parts(parts, n, c->threads);
	for (uint32_t k = 0; k < n && !rc; k++)
		rc = parts[k].rc;
	if (!rc) {
		*out = merge(c, parts, n);
		if (*out)
			parts[0].r = NULL;
		else
			rc = -ENOMEM;
	}
	for (uint32_t k = 0; k < n; k++)
		hvtlb_sim_results_destroy(parts[k].r);
	free(parts);
	return rc;
}
