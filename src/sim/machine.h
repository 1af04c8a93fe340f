/* SPDX-License-Identifier: MIT */
/*
 * The simulated machine's objects, shared by every part of the engine:
 * pCPUs (host run queues with time slices), vCPUs (guest run queues, a
 * TLB, pending interrupts, the hypervisor's flush queue, the KVM preempted
 * byte, one hvtlb_flusher each), tasks (the workload's guest threads, each
 * a coroutine that runs on one vCPU at a time and may move when it wakes)
 * and address spaces (an mm: page tables with generations, the mmap lock,
 * the cpumask). One run is one struct sim that owns every object in
 * arrays. Time is in guest cycles (simtime).
 *
 * Which file does what (src/sim/):
 *   config.c       scenario keys (sim-keys.h) and their checks
 *   cost.c         the cost table (cost.h) and its accessors
 *   event.c        the event queue: (time, sequence) order
 *   send-chain.c   one vCPU's send to many (flush IPIs, kicks), queued one
 *                  event at a time; its per-vCPU state, struct vcpu_send,
 *                  in send-chain.h
 *   host.h         struct vcpu_host: the host's per-vCPU state (CFS,
 *                  balance, PLE, directed yield); struct vcpu_seg: the
 *                  run segment; struct pcpu_slice, _cfs, _idle, _balance:
 *                  a pCPU's parts; struct vm_host: the host's view of a
 *                  VM; struct sim_host_idle, sim_cfs, sim_balance: the
 *                  run's times of those seams
 *   vcpu-state.h   the host state of a vCPU thread and its moves
 *   host-sched.c   pCPUs: entering and leaving vCPUs, slices, wake-ups;
 *   host-fifo.c,   the run-queue policies (FIFO, Linux CFS)
 *   host-cfs.c
 *   host-idle.c    halted vCPUs: wake latency, halt polling, idle states
 *   idle-menu.c    the menu idle governor (Linux 4.15) that picks them
 *   host-ple.c     pause-loop exits and directed yield
 *   long-spin.c    a Hyper-V guest's long-spin notification
 *   hypervisor.c   the hypervisor side of the guest's flush calls: decode,
 *                  flush queues, kicks, deferred flushes at entry; its
 *                  per-vCPU state, struct vcpu_hv, in hypervisor.h
 *   backend.c      the hvtlb_backend_ops the guest's strategies call
 *   flushq.c,      the per-vCPU flush queue and the KVM preempted byte;
 *   vcpu-sync.c    the request/kick/acknowledge protocol (public API)
 *   guest-os.c     the guest OS models by name: guest-os-linux.c,
 *                  guest-os-windows.c
 *   guest-sched.c  guest threads: scheduling, ticks, timers
 *   guest-vcpu.h   struct vcpu_guest: the guest's per-vCPU state (lazy TLB
 *                  mode, the lazy strategy's posts); struct vcpu_gsched:
 *                  its guest run queue; struct vcpu_ack: the
 *                  acknowledgements posted to an initiator; struct
 *                  vcpu_idle: guest.idle's polling
 *   guest-acct.c   their user and sys time, reported and consumed
 *   guest-irq.c    interrupts a vCPU takes: flush IPIs, acknowledgements,
 *                  lazy invalidations
 *   guest-lock.c   the address-space lock (mmap_lock, an rwsem)
 *   guest-spinlock.c  the zone and LRU locks as the guest's PV queued
 *                  spinlock (guest.pv_spinlock; spinlock.h)
 *   guest-mm.c     memory access, page faults, mmap/munmap/madvise and the
 *                  shootdown they issue
 *   tlb.c          a set-associative TLB of one or two levels
 *   vcpu-state.c   sim_vcpu_move(), every move of that state
 *   vcpu-tlb.c     flushing a vCPU's TLB (counted and traced)
 *   oracle.c       stale translations: used ones, and latent ones left
 *                  behind by a completed flush
 *   contention.c   cache lines and short locks many CPUs write
 *                  (machine.contention): transfers and queueing
 *   workloads/     one file per workload, and their common operations
 *   stats.c        VM-exit counters, the shootdown latency histogram
 *   hist.c         the histogram's log-linear buckets and quantiles
 *   trace.c        the trace hooks and names
 *   coro.c         the guest threads' coroutines
 *   rng.c          the seeded random streams
 *   results.c      results: freeing them, the JSON writer
 *   setup.c        building and freeing a machine from its config
 *   engine.c       the event loop, partitions, merging the results
 */
#ifndef HVTLB_SIM_MACHINE_H
#define HVTLB_SIM_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hvtlb/core.h>
#include <hvtlb/flushq.h>
#include <hvtlb/sim.h>

#include "sim/contention.h"
#include "sim/coro.h"
#include "sim/cost.h"
#include "sim/event.h"
#include "sim/guest-vcpu.h"
#include "sim/hist.h"
#include "sim/host.h"
#include "sim/hypervisor.h"
#include "sim/idle-menu.h"
#include "sim/lock.h"
#include "sim/rng.h"
#include "sim/send-chain.h"
#include "sim/spinlock.h"
#include "sim/tlb.h"
#include "sim/vcpu-state.h"

#define NONE_ID UINT32_MAX
#define GVA_BASE 0x00007f0000000000ULL
/* Kernel (global) pages of workload.kernel_pages: a vmalloc area. */
#define KVA_BASE 0xffffc90000000000ULL

/* ACT_PVWAIT: its task halts, or was woken, in the PV spinlock's
 * pv_wait() (guest-spinlock.c). */
enum act { ACT_NONE, ACT_WORK, ACT_SPIN, ACT_IDLE, ACT_PVWAIT };
enum acct { ACCT_NONE, ACCT_USER, ACCT_SYS };
enum tstate { T_RUNNABLE, T_RUNNING, T_BLOCKED, T_DONE };

struct pte {
	uint32_t gen;	  /* odd: present */
	uint32_t flushed; /* generation the last completed flush covered */
};

/* vCPU index @p idx in a set of fillers (struct mm, struct sim): bit 63
 * stands for every index from 63 on. */
static inline uint64_t filler_bit(uint32_t idx)
{
	return 1ULL << (idx < 63 ? idx : 63);
}

struct qslot {
	uint32_t slot;
	uint32_t initiator; /* for the oracle: the munmap's vCPU index, */
	uint64_t epoch;
	uint64_t zap;	    /* its oracle_zap(), */
	uint64_t shootdown; /* its shootdown number */
	uint64_t fillers;   /* and who may hold what it unmapped */
};

struct mm {
	uint32_t id; /* asid/pcid, 1-based */
	uint32_t vm;
	unsigned shift;
	uint32_t pages; /* per slot */
	/* slots of every per-slot array below; only the lazy strategy grows
	 * them (sim_mm_grow_slots()), appending after the reserved ones */
	uint32_t nslots;
	/* the workload's reserved slots: rbase .. rbase + reserved - 1, fixed
	 * at setup (a growth appends past them) */
	uint32_t rbase;
	struct pte *pte;
	/* per slot: the pages (0..pages-1) made present since its last zap,
	 * in plist[slot * pages ...], pn[slot] of them; a zap visits only
	 * these instead of every PTE of the slot */
	uint32_t *plist;
	uint32_t *pn;
	uint32_t *free_stack;
	uint8_t *live; /* slot mapped and not being unmapped */
	/* per slot, for the oracle: vCPUs that filled a TLB entry of it
	 * since its last zap (filler_bit()) */
	uint64_t *fillers;
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
	uint32_t wl_flags; /* the workload's per-process state */
};

struct task;
struct oracle_flush;
struct oracle_vcpu;

struct vcpu {
	struct sim *s;
	uint32_t gid, vm, idx, pcpu;
	enum hstate hs;
	enum act act;
	struct vcpu_seg seg;   /* host.h: the guest code it runs now */
	struct vcpu_host host; /* host.h */
	struct vcpu_gsched gs; /* guest-vcpu.h: its guest run queue */
	struct vcpu_irq irq;   /* guest-vcpu.h: IPIs posted, handlers */
	struct vcpu_send send; /* send-chain.h: its last send to many */
	struct vcpu_hv hv;     /* hypervisor.h: its flush queue */
	uint8_t steal;
	struct tlb tlb;
	bool tlb_ready;
	struct vcpu_guest guest; /* guest-vcpu.h */
	struct hvtlb_flusher *fl;
	struct vcpu_shootdown sd; /* guest-vcpu.h: its own, as initiator */
	struct vcpu_ack ack;	  /* guest-vcpu.h */
	struct vcpu_lock lock;	  /* lock.h: spinning on the mmap lock */
	struct vcpu_ct ct;	  /* contention.h: its last lock section */
	struct vcpu_pvl pvl;	  /* spinlock.h: the PV spinlock */
	struct vcpu_idle idle;	  /* guest-vcpu.h: guest.idle's polling */
};

struct pcpu {
	uint32_t cur;
	uint32_t last;
	uint32_t *rq; /* ring of vCPU ids */
	uint32_t rq_head, rq_n, rq_cap;
	struct pcpu_slice slice; /* host.h: host-sched.c's */
	struct pcpu_cfs cfs;	 /* host.h: hypervisor.cfs */
	struct pcpu_idle idle;	 /* host.h: host-idle.c's */
	struct pcpu_balance bal; /* host.h: hypervisor.balance */
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
	simtime user, sys; /* as the guest reports them (guest-acct.c) */
	/* guest kernel time its vCPU actually ran (from cons_since while
	 * the vCPU is on a pCPU, !off_cpu) */
	simtime sys_cons, cons_since;
	bool off_cpu;
	/* guest user time its vCPU ran, and the part of its time on a pCPU
	 * spent waiting for flush acknowledgements (in_ack_wait) */
	simtime user_cons, ackw_cons;
	bool in_ack_wait;
	struct sim_rng rng;
	simtime debt;
	simtime saved_work; /* preempted user work */
	bool granted;	    /* the mmap lock was handed over while asleep */
	/* guest.pv_spinlock: the zone and LRU lock sections (hold cycles)
	 * its fault allocated a page under, run after the fault's work
	 * (sim_ct_sections()) */
	simtime ct_pend[2];
	simtime wait_since; /* a writer's first queueing for the lock */
	bool in_user_seg;
	uint64_t wait_token;
	simtime done_at;
	unsigned vg_stack; /* valgrind stack id */
	uint32_t *covered; /* per page of a slot: generation a zap covers */
	uint32_t *zidx; /* pages of the last zap (covered[] is 0 elsewhere) */
	uint32_t nz;
	bool no_gen; /* its flush in progress carries no tlb generation */
	bool local_skipped; /* gen-zero-skip: its local flush was skipped */
	/* what its shootdown in progress covers, for the faults' accounting
	 * (sim_oracle_needs), or NULL */
	const struct oracle_flush *of;
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
	struct evq q;
	uint32_t nvcpus, npcpus, ntasks, nmms;
	struct vcpu *v;
	struct pcpu *p;
	struct task *t;
	struct mm *mm;
	struct coro main_ctx;
	struct task *running;
	uint32_t tasks_left;
	simtime host_slice, guest_slice, tick;
	struct sim_lock lock;	   /* lock.h: guest-lock.c's times */
	struct sim_host_idle idle; /* host.h: host-idle.c's times */
	simtime limit;
	bool timed_out;
	bool failed;
	uint64_t lazy_epoch;
	/* lazy strategy, for the log at the end of a run: ticks slept in
	 * mmap with no free slot, and in madvise for the lazy epoch */
	uint64_t slot_waits, epoch_waits;
	int fail_rc; /* why the run failed, when not -EPROTO */
	const struct host_policy
		*sched; /* hypervisor.host_policy (host-policy.c) */
	uint64_t hist[HIST_BUCKETS];
	simtime lat_max;
	/* per target state (results.targets), then the flush IPIs a guest
	 * handled in any state (SIM_TARGET_IPI, results.ipi_acks), then
	 * by their target's lock state (SIM_TARGET_LOCK, results.ipi_lock):
	 * acknowledgement latencies, HIST_BUCKETS each, and their largest */
	uint64_t *thist;
	simtime tmax[SIM_TARGET_ROWS];
	struct hvtlb_sim_results *r;
	uint32_t stream_base; /* first task's random stream - 1 */
	struct vm_host *vmh;  /* host.h: the host's view of each VM */
	/* workload.kernel_pages: per VM, pages shared by all its processes
	 * and mapped global; free stacks of page indexes */
	struct pte *kpte;	/* vms * kernel_pages */
	uint32_t *kfree;	/* vms * kernel_pages */
	uint64_t *kfill;	/* vms * kernel_pages: as struct mm's fillers */
	uint32_t *knfree;	/* per VM */
	struct sim_cfs cfs;	/* host.h: host-cfs.c's times */
	struct sim_balance bal; /* host.h: host-balance.c's */
	/* tracing: this part's first VM and first pCPU, machine-wide */
	uint32_t vm_base, pcpu_base;
	/* the oracle (oracle.c): per vCPU, and the zaps so far */
	struct oracle_vcpu *ov;
	uint64_t ozap;
	uint64_t oseq; /* orders flush requests and entries to lazy mode */
	/* machine.contention (contention.c), or NULL; the machine's pCPUs
	 * (all parts) */
	struct contention *ct;
	uint32_t pcpus_total;
};

/* ------------------------------------------------------------ helpers */
/* The fault switch just made the machine do what its protocol forbids
 * (results.fault_hits: the mutation tests ask the oracle to have fired
 * wherever this ran). */
static inline void fault_hit(struct sim *s)
{
	s->r->fault_hits++;
}

static inline simtime cyc(struct sim *s, enum sim_cost k)
{
	return (simtime)s->cost[k];
}

static inline simtime us_to_cyc(struct sim *s, double us)
{
	return (simtime)(us * s->cost[SIM_COST_cpu_mhz]);
}

static inline double cyc_to_s(const struct sim *s, simtime c)
{
	return (double)c / (s->cost[SIM_COST_cpu_mhz] * 1e6);
}

/* Cycles of a local flush of @p pages, or of everything. */
static inline simtime flush_cost(struct sim *s, bool all, uint64_t pages)
{
	if (all)
		return cyc(s, SIM_COST_flush_full);
	return cyc(s, SIM_COST_flush_base) +
	       (simtime)(s->cost[SIM_COST_flush_per_page] * (double)pages);
}

/* vCPU @p cpu of @p self's VM, or NULL when there is none. */
static inline struct vcpu *vm_vcpu(struct sim *s, const struct vcpu *self,
				   uint32_t cpu)
{
	if (cpu >= s->c->vcpus)
		return NULL;
	return &s->v[self->vm * s->c->vcpus + cpu];
}

static inline struct task *cur_task(struct vcpu *v)
{
	return v->gs.cur == NONE_ID ? NULL : &v->s->t[v->gs.cur];
}

/* Logs through config.log_fn (engine.c). */
void sim_slog(struct sim *s, enum hvtlb_sim_log_level lv, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Tracing (config.trace_fn): every hook is one predictable branch on
 * TRACING(); the hooks only read the simulation's state. sim_trace_emit()
 * emits one event of vCPU @p v: an instant when @p start is now, else a
 * complete event [start, now) (trace.c). */
#define TRACING(s) __builtin_expect((s)->c->trace_fn != NULL, 0)
#define TRACE(s, ...)                                                          \
	do {                                                                   \
		if (TRACING(s))                                                \
			sim_trace_emit((s), __VA_ARGS__);                      \
	} while (0)
#define TR_NONE HVTLB_SIM_TRACE_NONE
void sim_trace_emit(struct sim *s, enum hvtlb_sim_trace_kind k,
		    const struct vcpu *v, uint32_t thread, simtime start,
		    uint64_t a0, uint64_t a1);
/* The shootdown @p req of task @p t, requested at @p t0, is complete. */
void sim_trace_shootdown(struct sim *s, struct task *t, simtime t0,
			 const struct hvtlb_flush_request *req,
			 const struct hvtlb_flush_outcome *out);
/* The thread's mode in the trace becomes @p a. */
void sim_trace_mode(struct sim *s, struct task *t, enum acct a);

#endif
