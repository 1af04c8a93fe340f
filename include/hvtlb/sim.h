/* SPDX-License-Identifier: MIT */
/**
 * @file
 * The simulated hypervisor: a machine of pCPUs running one or more VMs whose
 * vCPUs run a parameterized workload; the guest flushes TLBs through the
 * real strategies of core.h and the simulated hypervisor decodes and
 * executes what they issue. Time is virtual (cycles from a cost profile);
 * an oracle checks that no vCPU translates through a stale entry after a
 * flush was reported complete (used violations), and that when a flush is
 * reported complete no vCPU it had to reach still holds one (latent
 * violations; docs/oracle.md in the source tree).
 *
 * Use: hvtlb_sim_config_init(), hvtlb_sim_config_set() for each key,
 * hvtlb_sim_config_validate(), hvtlb_sim_run(), read the results or write
 * them with hvtlb_sim_results_write_json(), hvtlb_sim_results_destroy().
 *
 * Thread rules: a config is plain caller memory (not thread-safe, copy
 * it freely). The name, count and default functions are pure and
 * thread-safe. hvtlb_sim_run() is reentrant: distinct runs may go on in
 * distinct threads at once; one run uses up to `threads` host threads of
 * its own. Results are immutable once returned.
 *
 * Keys for hvtlb_sim_config_set(): HVTLB_SIM_KEY_MAP in <hvtlb/sim-keys.h>
 * lists every one with its type, default, range, unit and meaning (also
 * at run time: hvtlb_sim_key_at(), and `hvtlb keys`), plus "cost.<name>"
 * for every cost parameter (hvtlb_sim_cost_name()).
 */
#ifndef HVTLB_SIM_H
#define HVTLB_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <hvtlb/core.h>
#include <hvtlb/hypercall.h>
#include <hvtlb/sim-keys.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/** Fault switches: X(NAME, name). Each must make the oracle fire. */
#define HVTLB_SIM_FAULT_MAP(X)                                                 \
	X(NONE, "none")                                                        \
	X(NO_WAIT, "no-wait")                                                  \
	X(LOSE_DEFERRED, "lose-deferred")                                      \
	X(SKIP_LAZY_FREED, "skip-lazy-freed")                                  \
	X(DROP_TARGET, "drop-target")                                          \
	X(GLOBAL_SURVIVES, "global-survives")                                  \
	X(HOST_NO_WAIT, "host-no-wait")                                        \
	X(VP_AS_CPU, "vp-as-cpu")                                              \
	X(GEN_ZERO_SKIP, "gen-zero-skip")

enum hvtlb_sim_fault {
#define HVTLB_X_(n, s) HVTLB_SIM_FAULT_##n,
	HVTLB_SIM_FAULT_MAP(HVTLB_X_)
#undef HVTLB_X_
		HVTLB_SIM_FAULT_COUNT_
};

/** Workloads: X(NAME, name). */
#define HVTLB_SIM_WORKLOAD_MAP(X)                                              \
	X(TRASHER, "trasher")                                                  \
	X(MADVISE, "madvise")                                                  \
	X(EBIZZY, "ebizzy")                                                    \
	X(MIX, "mix")                                                          \
	X(ORACLE_STRESS, "oracle-stress")                                      \
	X(TLB_FLUSH1, "tlb-flush1")                                            \
	X(TLB_FLUSH2, "tlb-flush2")                                            \
	X(MMAP_SEARCH, "mmap-search")                                          \
	X(TRACE, "trace")

enum hvtlb_sim_workload {
#define HVTLB_X_(n, s) HVTLB_SIM_WORKLOAD_##n,
	HVTLB_SIM_WORKLOAD_MAP(HVTLB_X_)
#undef HVTLB_X_
		HVTLB_SIM_WORKLOAD_COUNT_
};

/** What one step of a replayed thread does (workload.kind = trace). */
enum hvtlb_sim_step_kind {
	HVTLB_SIM_STEP_COMPUTE,	 /**< ns of work on the CPU */
	HVTLB_SIM_STEP_SLEEP,	 /**< ns asleep (off the CPU by choice) */
	HVTLB_SIM_STEP_MUNMAP,	 /**< a munmap() that flushed: pages */
	HVTLB_SIM_STEP_MADVISE,	 /**< a madvise() that flushed: pages */
	HVTLB_SIM_STEP_MPROTECT, /**< an mprotect() that flushed: pages */
	HVTLB_SIM_STEP_FLUSH,	 /**< a flush outside those calls: pages */
	HVTLB_SIM_STEP_KIND_COUNT_
};

/** One step: its kind, the time of a COMPUTE or SLEEP, the pages of a
 *  flush (0: the whole mapping). */
struct hvtlb_sim_step {
	enum hvtlb_sim_step_kind kind;
	uint32_t pages;
	uint64_t ns;
};

/** The steps of one replayed thread, in order. */
struct hvtlb_sim_script_thread {
	const struct hvtlb_sim_step *steps;
	uint64_t nsteps;
	/** Its address space: 0 .. workload.processes - 1. The guest threads
	 *  that replay it run in that process of their VM. */
	uint32_t process;
};

/**
 * What the threads of workload.kind = trace do: a plain list of steps per
 * thread (the tool makes it from a recorded kernel trace). Guest thread k
 * runs threads[k % nthreads]; its mapping is `workload.pages` pages, and
 * a flush of more pages than that flushes the whole mapping. The caller
 * keeps it alive for as long as the config is used.
 */
struct hvtlb_sim_script {
	const struct hvtlb_sim_script_thread *threads;
	uint32_t nthreads;
};

/** Guest OS models (guest.os): X(NAME, name). */
#define HVTLB_SIM_GUEST_OS_MAP(X)                                              \
	X(LINUX, "linux")                                                      \
	X(WINDOWS, "windows")

enum hvtlb_sim_guest_os {
#define HVTLB_X_(n, s) HVTLB_SIM_GUEST_OS_##n,
	HVTLB_SIM_GUEST_OS_MAP(HVTLB_X_)
#undef HVTLB_X_
		HVTLB_SIM_GUEST_OS_COUNT_
};

/**
 * Host scheduler policies (hypervisor.host_policy): X(NAME, name). Each
 * row's implementation is sim_host_<NAME> (src/sim/host-*.c).
 * - fifo: a FIFO run queue, a woken vCPU runs next, a fixed slice
 *   (cost.host_slice_us).
 * - cfs-tick: Linux CFS with the running vCPU's slice checked at every
 *   host tick and the next, last and skip buddies honoured.
 * - cfs-entry: Linux CFS with the slice fixed when a vCPU enters (the
 *   engine's older CFS model).
 */
#define HVTLB_SIM_HOST_POLICY_MAP(X)                                           \
	X(FIFO, "fifo")                                                        \
	X(CFS_TICK, "cfs-tick")                                                \
	X(CFS_ENTRY, "cfs-entry")

enum hvtlb_sim_host_policy {
#define HVTLB_X_(n, s) HVTLB_SIM_HOST_POLICY_##n,
	HVTLB_SIM_HOST_POLICY_MAP(HVTLB_X_)
#undef HVTLB_X_
		HVTLB_SIM_HOST_POLICY_COUNT_
};

enum hvtlb_sim_touch {
	HVTLB_SIM_TOUCH_NONE,
	HVTLB_SIM_TOUCH_FIRST,
	HVTLB_SIM_TOUCH_ALL,
	HVTLB_SIM_TOUCH_RANDOM,
};

/** The host's idle governor (hypervisor.idle_governor). */
enum hvtlb_sim_idle_governor {
	HVTLB_SIM_IDLE_GOVERNOR_MENU,	   /**< Linux's menu governor */
	HVTLB_SIM_IDLE_GOVERNOR_RESIDENCY, /**< deepest state after its residency */
};

/** What an idle guest vCPU does (guest.idle). */
enum hvtlb_sim_guest_idle {
	HVTLB_SIM_GUEST_IDLE_HALT,     /**< HLT: a VM exit, the vCPU blocks */
	HVTLB_SIM_GUEST_IDLE_POLL,     /**< idle=poll: it never halts */
	HVTLB_SIM_GUEST_IDLE_HALTPOLL, /**< cpuidle-haltpoll: poll, then HLT */
};

/**
 * How a guest sends an IPI to a set of vCPUs (hypervisor.ipi_delivery):
 * X(NAME, name). docs/model.md, "IPI delivery", gives the sources.
 * - ICR: one x2APIC ICR write per target (physical mode), each a VM exit
 *   unless hypervisor.ipiv; hypervisor.ipi_batch groups destinations.
 * - CLUSTER: x2APIC logical cluster mode: one write per cluster of 16
 *   APIC IDs that holds a target (Linux's x2apic_cluster.c).
 * - KVM_PV: KVM_HC_SEND_IPI: one hypercall per 128-APIC-ID window that
 *   starts at the lowest target left (Linux's kvm.c, 4.19); one target
 *   alone still takes an ICR write (Linux replaces send_IPI_mask only).
 * - HYPERV: HvCallSendSyntheticClusterIpi when every target VP is below
 *   64, its Ex form with a sparse VP set otherwise (Linux's hv_apic.c,
 *   4.18), encoded by hvtlb_encode() and decoded by the host profile.
 */
#define HVTLB_SIM_IPI_DELIVERY_MAP(X)                                          \
	X(ICR, "icr")                                                          \
	X(CLUSTER, "cluster")                                                  \
	X(KVM_PV, "kvm-pv")                                                    \
	X(HYPERV, "hyperv")

enum hvtlb_sim_ipi_delivery {
#define HVTLB_X_(n, s) HVTLB_SIM_IPI_DELIVERY_##n,
	HVTLB_SIM_IPI_DELIVERY_MAP(HVTLB_X_)
#undef HVTLB_X_
		HVTLB_SIM_IPI_DELIVERY_COUNT_
};

/**
 * The platform a VM runs on (machine.backing): X(NAME, name).
 * docs/model.md, "Version gates and backings", gives the sources.
 * - PLAIN: an ordinary VM; nothing is refused.
 * - TDX: an Intel TDX guest: no KVM PV TLB flush (the VMMs leave out
 *   steal time, which Linux's PV flush needs); no INVLPGB (AMD only).
 * - SNP: an AMD SEV-SNP guest: one ASID per VM, so INVLPGB is possible.
 * - SNP_SAVIC: SEV-SNP with Secure AVIC: the host no longer recommends
 *   the synthetic cluster IPI; the flush hypercalls stay.
 */
#define HVTLB_SIM_BACKING_MAP(X)                                               \
	X(PLAIN, "plain")                                                      \
	X(TDX, "tdx")                                                          \
	X(SNP, "snp")                                                          \
	X(SNP_SAVIC, "snp-savic")

enum hvtlb_sim_backing {
#define HVTLB_X_(n, s) HVTLB_SIM_BACKING_##n,
	HVTLB_SIM_BACKING_MAP(HVTLB_X_)
#undef HVTLB_X_
		HVTLB_SIM_BACKING_COUNT_
};

/** Where a run's effective IPI delivery came from (results). */
enum hvtlb_sim_origin {
	/** hypervisor.ipi_delivery's default, no guest.kernel */
	HVTLB_SIM_ORIGIN_DEFAULT,
	/** hypervisor.ipi_delivery given by hvtlb_sim_config_set() */
	HVTLB_SIM_ORIGIN_GIVEN,
	/** chosen as the guest of guest.kernel would on that host */
	HVTLB_SIM_ORIGIN_DERIVED,
};

/** guest.kernel's value for Linux MAJOR.MINOR; 0: no version. */
#define HVTLB_SIM_KVER(major, minor) ((major)*100u + (minor))

/** Name of an IPI delivery ("kvm-pv"), or NULL past the end.
 *  Thread-safe. */
const char *hvtlb_sim_ipi_delivery_name(enum hvtlb_sim_ipi_delivery d);

/** Slots for cost parameters (the private list is shorter). */
#define HVTLB_SIM_COST_SLOTS 64u

#define HVTLB_SIM_MAX_VCPUS 4096u
#define HVTLB_SIM_MAX_THREADS 64u

/** Log levels of the log callback. */
enum hvtlb_sim_log_level {
	HVTLB_SIM_LOG_ERROR,
	HVTLB_SIM_LOG_INFO,
	HVTLB_SIM_LOG_DEBUG,
};

/** Receives the library's messages (it never prints itself). */
typedef void (*hvtlb_sim_log_fn)(void *data, enum hvtlb_sim_log_level level,
				 const char *msg);

/* ------------------------------------------------------------------ */
/* Trace events                                                        */
/* ------------------------------------------------------------------ */

/**
 * Kinds of trace event: X(NAME, name, complete). A "complete" kind spans
 * [start, start + dur); the others are instants (dur 0).
 *
 * - VCPU_RUN (complete): the vCPU ran on host CPU pcpu. arg0: why it left:
 *   0 halted, 1 descheduled while runnable (host preemption, PLE yield),
 *   2 still running when the run ended.
 * - USER, KERNEL (complete): a guest thread ran in user / kernel mode as
 *   the guest accounts it (with guest.steal_accounting false this includes
 *   time its vCPU was preempted by the host); back-to-back segments of one
 *   mode are one event. vcpu: the vCPU it ended on.
 * - EXIT (instant): VM exits of the vCPU. arg0: enum hvtlb_sim_exit;
 *   arg1: how many (several IPI sends of one call are one event).
 * - SHOOTDOWN (complete, on the initiator): from the guest's request
 *   (hvtlb_flush()) to its reported completion. arg0: remote target vCPUs
 *   requested; arg1: HVTLB_SIM_TRACE_SD_* bits of what the strategy did.
 *   One with dur > 0 nests in a KERNEL event of the same thread (virtual
 *   time passes only in kernel work from the request on).
 * - FLUSH (instant): a TLB invalidation executed on the vCPU. arg0: enum
 *   hvtlb_sim_flush_kind (how it got there); arg1: pages invalidated, 0
 *   for a full flush.
 * - IPI (instant): a flush IPI handled by the vCPU. arg0: the sender's
 *   vCPU index; arg1: the enum hvtlb_sim_ipi_delivery that carried it.
 * - KICK (instant): the hypervisor's kick for queued flushes reached the
 *   vCPU. arg0: the initiator's vCPU index; arg1: 1 if the vCPU was
 *   running (it exited and flushed), 0 if not (it flushes at its next
 *   entry).
 * - HALT (instant): the vCPU halted (idle, HLT exit); it leaves its pCPU.
 * - WAKE (complete): from the wake-up request of a halted vCPU (an
 *   interrupt, a woken guest thread) to the moment it is runnable on its
 *   pCPU (the host's wake-up latency; halt polling makes it short).
 * - VIOLATION (instant): the oracle counted a violation on the vCPU: a
 *   translation through a stale entry, or a stale entry left behind by a
 *   completed flush. arg0: the guest virtual address; arg1: why (enum
 *   hvtlb_sim_stale; HVTLB_SIM_STALE_USED for a used one).
 */
#define HVTLB_SIM_TRACE_MAP(X)                                                 \
	X(VCPU_RUN, "vcpu_run", 1)                                             \
	X(USER, "user", 1)                                                     \
	X(KERNEL, "kernel", 1)                                                 \
	X(EXIT, "exit", 0)                                                     \
	X(SHOOTDOWN, "shootdown", 1)                                           \
	X(FLUSH, "flush", 0)                                                   \
	X(IPI, "ipi", 0)                                                       \
	X(KICK, "kick", 0)                                                     \
	X(HALT, "halt", 0)                                                     \
	X(WAKE, "wake", 1)                                                     \
	X(VIOLATION, "violation", 0)

enum hvtlb_sim_trace_kind {
#define HVTLB_X_(n, s, c) HVTLB_SIM_TRACE_##n,
	HVTLB_SIM_TRACE_MAP(HVTLB_X_)
#undef HVTLB_X_
		HVTLB_SIM_TRACE_COUNT_
};

/** SHOOTDOWN arg1 bits: what the strategy did for the request. */
#define HVTLB_SIM_TRACE_SD_IPI 0x1u	  /**< sent flush IPIs */
#define HVTLB_SIM_TRACE_SD_HYPERCALL 0x2u /**< issued a flush hypercall */
#define HVTLB_SIM_TRACE_SD_DEFERRED 0x4u  /**< marked preempted targets */
#define HVTLB_SIM_TRACE_SD_FELL_BACK 0x8u /**< the PV path fell back */
#define HVTLB_SIM_TRACE_SD_FULL 0x10u	  /**< the range became a full flush */
#define HVTLB_SIM_TRACE_SD_LAZY 0x20u	  /**< posted lazily (lazy strategy) */

/** The vcpu / pcpu / thread field of an event that has none. */
#define HVTLB_SIM_TRACE_NONE UINT32_MAX

/**
 * One trace event. Times are virtual, in guest cycles: divide by the
 * config's cost.cpu_mhz (cycles per microsecond) for microseconds. The
 * event is only valid during the callback (copy what you keep).
 */
struct hvtlb_sim_trace_event {
	enum hvtlb_sim_trace_kind kind;
	/** VM index, 0 .. machine.vms - 1. */
	uint32_t vm;
	/** vCPU index within the VM (0 .. vm.vcpus - 1). */
	uint32_t vcpu;
	/** Host CPU the vCPU runs on (machine-wide, 0 .. pcpus - 1): always
	 *  set for VCPU_RUN; for the other kinds HVTLB_SIM_TRACE_NONE when
	 *  the vCPU is not on a pCPU at that moment. */
	uint32_t pcpu;
	/** Guest thread index within the VM (0 .. workload.threads - 1) for
	 *  USER, KERNEL and SHOOTDOWN; HVTLB_SIM_TRACE_NONE otherwise. */
	uint32_t thread;
	/** 0 (no padding: events compare with memcmp). */
	uint32_t reserved;
	/** Virtual start time, guest cycles from the start of the run. */
	uint64_t start;
	/** Duration in cycles; 0 for the instant kinds. */
	uint64_t dur;
	/** First argument, per kind (see HVTLB_SIM_TRACE_MAP). */
	uint64_t arg0;
	/** Second argument, per kind (see HVTLB_SIM_TRACE_MAP). */
	uint64_t arg1;
};

/**
 * Receives trace events of a run (see hvtlb_sim_config.trace_fn).
 *
 * Order and threads: all events of one VM come from one host thread, in
 * the order the engine reaches them; the emission time is non-decreasing
 * per VM. An instant is emitted at its start; a complete event is emitted
 * at its end (start + dur), so complete events arrive sorted by end time,
 * not by start time. Events of one VM never interleave with themselves.
 * With machine.partition and threads > 1, different VMs run on different
 * host threads and calls for different VMs may be concurrent; without
 * partition one thread emits everything. Within each VM the sequence of
 * events is the same whatever `threads` is.
 *
 * The callback runs inside the engine's loop, between simulated events:
 * keep it short, and do not touch the run's config from it. It cannot
 * change the simulation (results are byte-identical with and without).
 */
typedef void (*hvtlb_sim_trace_fn)(void *data,
				   const struct hvtlb_sim_trace_event *e);

/**
 * A flush strategy of the caller's own (see hvtlb_sim_config.flush_fn):
 * called for every shootdown of the run where the built-in strategy's
 * hvtlb_flush() would be, on the initiating vCPU. It carries out @p req
 * through @p ops with @p user: the simulator's backend, the ops and user
 * pointer a built-in strategy gets (every op charges virtual time; the
 * hints get_hints reports follow the config's strategy). It returns 0 once
 * the flush is complete as far as the initiator is concerned: the oracle
 * checks every vCPU of the VM at that moment. A negative errno fails the
 * run (-EPROTO). @p out starts zeroed; fill in what applies (reuse_epoch
 * counts only with the lazy strategy's hints).
 *
 * Thread rules: as trace_fn, called from the run's threads, for different
 * VMs at once with machine.partition and threads > 1.
 */
typedef int (*hvtlb_sim_flush_fn)(void *data,
				  const struct hvtlb_backend_ops *ops,
				  void *user,
				  const struct hvtlb_flush_request *req,
				  struct hvtlb_flush_outcome *out);

/** Name of a trace kind ("vcpu_run"), or NULL past the end. Thread-safe. */
const char *hvtlb_sim_trace_kind_name(enum hvtlb_sim_trace_kind k);

/** True for the complete kinds (events with a duration). Thread-safe. */
bool hvtlb_sim_trace_kind_is_complete(enum hvtlb_sim_trace_kind k);

/**
 * A simulation's configuration. Plain caller memory: fill it with
 * hvtlb_sim_config_init() and change it with hvtlb_sim_config_set()
 * (fields may also be written directly; validate afterwards).
 */
struct hvtlb_sim_config {
	uint64_t seed;
	uint32_t threads;
	enum hvtlb_sim_fault fault;

	struct hvtlb_strategy_config strategy;

	uint32_t pcpus;
	uint32_t vms;
	bool partition;
	uint32_t sockets;
	bool contention;
	bool bare_metal;
	enum hvtlb_sim_backing backing;
	uint32_t vcpus;

	enum hvtlb_profile decoder;
	bool ipiv;
	bool ple;
	bool ple_boost_ready;
	bool ple_boost_irq;
	bool kick_yield;
	bool directed_yield;
	uint32_t ple_window_grow;
	uint32_t ple_window_shrink;
	uint64_t ple_window_max;
	bool cfs;      /**< mapped onto host_policy (hypervisor.cfs) */
	bool cfs_tick; /**< mapped onto host_policy (hypervisor.cfs_tick) */
	enum hvtlb_sim_host_policy host_policy;
	bool balance;
	enum hvtlb_sim_idle_governor idle_governor;
	uint32_t ipi_batch;
	enum hvtlb_sim_ipi_delivery ipi_delivery;
	bool pv_send_ipi;      /**< KVM_FEATURE_PV_SEND_IPI offered */
	bool cluster_ipi;      /**< HV_X64_CLUSTER_IPI_RECOMMENDED offered */
	uint32_t hv_spinlocks; /**< CPUID 0x40000004 EBX */
	bool offer_xmm;
	bool offer_ex;
	uint32_t vp_index_offset;

	uint32_t tlb_levels;
	uint32_t l1_sets, l1_ways;
	uint32_t l2_sets, l2_ways;
	bool pcid;

	enum hvtlb_sim_guest_os guest_os;
	/** Linux version, HVTLB_SIM_KVER(major, minor); 0: none (no gate). */
	uint32_t guest_kernel;
	bool lazy_leave;
	bool steal_accounting;
	bool tick_accounting;
	bool idle_leaves_mm;
	uint32_t early_ack_pages; /**< 0: the strategy's early_ack */
	bool ipi_mailbox;
	bool long_spin_notify;
	uint32_t group_size; /**< 0: no processor groups */
	bool migrate;
	bool tlb_gen;
	double lock_spin_us;
	uint64_t lock_spin_cycles;
	bool lock_spin_owner;
	bool pv_spinlock;
	bool pv_wait_early;
	double lock_handoff_us;
	bool fault_exclusive;
	enum hvtlb_sim_guest_idle guest_idle;
	double guest_halt_poll_us;
	bool fault_vma_lock;

	enum hvtlb_sim_workload workload;
	uint32_t wl_threads;
	uint32_t wl_processes;
	uint64_t wl_iterations;
	uint32_t wl_pages;
	unsigned wl_page_shift; /**< 12, 21 or 30 */
	enum hvtlb_sim_touch wl_touch;
	uint32_t wl_touch_repeat;
	uint64_t wl_sleep_ns_max;
	bool wl_file_backed;
	bool wl_shared;
	uint32_t wl_search_pages;
	uint64_t wl_user_ns;
	uint32_t wl_kernel_pages; /**< 0: no kernel (global) pages */
	double wl_duration_s;	  /**< 0: wl_iterations operations */
	uint32_t wl_ebizzy_chunks;
	bool wl_ebizzy_always_mmap;
	bool wl_ebizzy_never_mmap;
	bool wl_glibc_trim_all;

	double max_virtual_s;
	uint32_t max_violations;
	bool latent_check;

	/** Indexed like hvtlb_sim_cost_name(). */
	double cost[HVTLB_SIM_COST_SLOTS];

	/** The keys hvtlb_sim_config_set() was given, a bit per key in
	 *  HVTLB_SIM_KEY_MAP order: the bundles (`strategy`, `guest.os`)
	 *  leave them alone, so they may come before or after them. */
	uint64_t set_keys[4];

	/** Optional message sink (NULL: messages are dropped). With
	 *  machine.partition and threads > 1 it may be called from several
	 *  of the run's threads at once. */
	hvtlb_sim_log_fn log_fn;
	void *log_data;

	/** Optional trace sink (NULL: no tracing; the engine then pays one
	 *  predictable branch per trace point). Receives every event of the
	 *  run, see hvtlb_sim_trace_fn for order and thread rules. Tracing
	 *  never changes the results. */
	hvtlb_sim_trace_fn trace_fn;
	/** Passed to trace_fn as is. */
	void *trace_data;

	/** Optional: a strategy of the caller's own, in place of the
	 *  built-in one (the hints still follow `strategy`). NULL: the
	 *  built-in strategy. */
	hvtlb_sim_flush_fn flush_fn;
	/** Passed to flush_fn as is. */
	void *flush_data;

	/** The threads of workload.kind = trace (required by it, unused by
	 *  every other workload). Not copied: it must outlive the runs. */
	const struct hvtlb_sim_script *wl_script;
};

/** Fills @p c with the defaults of HVTLB_SIM_KEY_MAP and of the costs.
 *  Never fails. */
void hvtlb_sim_config_init(struct hvtlb_sim_config *c);

/**
 * Sets one key (HVTLB_SIM_KEY_MAP, or "cost.<name>") from its text value;
 * "cost.<name>" takes "default" for hvtlb_sim_cost_default(). "strategy"
 * also sets the strategy.* knobs and "guest.os" every key of that OS
 * model, except the keys given here, before or after: order is free. Not thread-safe on the
 * same @p c. Returns 0; -ENOENT for an unknown key;
 * -EINVAL for a value that does not parse (or an unknown name);
 * -ERANGE for a value that parses but is out of the key's range.
 */
int hvtlb_sim_config_set(struct hvtlb_sim_config *c, const char *key,
			 const char *value);

/**
 * Checks that @p c describes a machine that can exist and be simulated:
 * pcpus, vcpus, threads and workload threads non-zero and within the
 * limits above, TLB geometry powers of two, costs finite and >= 0 (and
 * cpu_mhz > 0); bare metal with one VM of pcpus vCPUs and a strategy that
 * needs no hypervisor. Returns 0 or -ERANGE; then, if @p bad_key is not NULL,
 * stores there the (static) name of the first offending key.
 */
int hvtlb_sim_config_validate(const struct hvtlb_sim_config *c,
			      const char **bad_key);

/**
 * hvtlb_sim_config_validate(), and why: on -ERANGE, *@p reason (if not
 * NULL) is a one-line static explanation when the key is refused by a
 * rule between keys that has one (guest.kernel and machine.backing gates,
 * docs/model.md), NULL otherwise.
 */
int hvtlb_sim_config_check(const struct hvtlb_sim_config *c,
			   const char **bad_key, const char **reason);

/** Name of a backing ("snp-savic"), or NULL past the end. Thread-safe. */
const char *hvtlb_sim_backing_name(enum hvtlb_sim_backing b);

/** Name of an origin ("derived"), or NULL past the end. Thread-safe. */
const char *hvtlb_sim_origin_name(enum hvtlb_sim_origin o);

/** What hvtlb_sim_config_warnings() reports: legal, rarely meant. */
enum hvtlb_sim_warning {
	/** strategy.lazy_skip with guest.tlb_gen false: the strategy skips
	 *  lazy CPUs and the guest never catches them up (Linux before 4.14
	 *  flushed them), so the oracle reports "no-catch-up" violations. */
	HVTLB_SIM_WARN_NO_CATCH_UP = 1u << 0,
};

/**
 * The warnings of @p c, a valid config (hvtlb_sim_config_validate()): a
 * mask of enum hvtlb_sim_warning, 0 for none or NULL. Thread-safe on a
 * config no one writes.
 */
unsigned hvtlb_sim_config_warnings(const struct hvtlb_sim_config *c);

/**
 * Name of the @p i-th settable key (from 0), strategy knobs and
 * "cost.<name>" keys included, or NULL past the end. Static strings.
 */
const char *hvtlb_sim_config_key_name(size_t i);

/**
 * Writes the value of @p key in @p c as text that hvtlb_sim_config_set()
 * reads back to the same value, into @p buf of @p len bytes. Returns 0,
 * -ENOENT for an unknown key, -ENOSPC if it does not fit, -EINVAL for
 * NULL arguments.
 */
int hvtlb_sim_config_get(const struct hvtlb_sim_config *c, const char *key,
			 char *buf, size_t len);

/** One key of HVTLB_SIM_KEY_MAP. Static data: never freed. */
struct hvtlb_sim_key {
	/** "section.key" as in a scenario file, or a top-level key. */
	const char *name;
	/** The TYPE column: "U64", "U32", "POW2", "BOOL", "DOUBLE", "KNOB",
	 *  or the kind of name ("FAULT", "STRATEGY", "PROFILE", "WORKLOAD",
	 *  "TOUCH", "PAGE_SIZE", "GOVERNOR", "IDLE", "IPI_DELIVERY",
	 *  "BACKING"), or "KVER" (a Linux version, "any" for none). */
	const char *type;
	/** The default as text; "" for a KNOB (the strategy's default). */
	const char *def;
	/** Range of U64, U32, POW2 and DOUBLE keys. */
	double min, max;
	/** Unit ("" if none). */
	const char *unit;
	/** What the key does, one paragraph. */
	const char *meaning;
};

/** Number of keys in HVTLB_SIM_KEY_MAP (cost keys not included). */
size_t hvtlb_sim_key_count(void);
/** Key @p i of HVTLB_SIM_KEY_MAP, or NULL past the end. Thread-safe. */
const struct hvtlb_sim_key *hvtlb_sim_key_at(size_t i);
/** The key named @p name (e.g. "vm.vcpus"), or NULL. Thread-safe. */
const struct hvtlb_sim_key *hvtlb_sim_key_find(const char *name);
/**
 * The @p i-th value a key of a name type, BOOL or boolean KNOB takes
 * (from 0), or NULL past the end and for other types. Thread-safe.
 */
const char *hvtlb_sim_key_value(const struct hvtlb_sim_key *k, size_t i);

/** Number of cost parameters. */
size_t hvtlb_sim_cost_count(void);
/** Name (without "cost."), unit, default and source of cost @p i, or NULL /
 *  0 past the end. Static strings. The source says where the default and
 *  its range (hvtlb_sim_cost_range()) come from. Thread-safe. */
const char *hvtlb_sim_cost_name(size_t i);
const char *hvtlb_sim_cost_unit(size_t i);
const char *hvtlb_sim_cost_source(size_t i);
double hvtlb_sim_cost_default(size_t i);

/**
 * What is known about cost @p i's default: it lies in [*@p lo, *@p hi]
 * (lo <= default <= hi), to be drawn log-uniformly if *@p log_uniform,
 * else uniformly. An exact value (a documented constant) has
 * lo == hi == default. Any output pointer may be NULL. Thread-safe.
 * Returns 0, or -ENOENT past the end (outputs untouched).
 */
int hvtlb_sim_cost_range(size_t i, double *lo, double *hi, bool *log_uniform);

/**
 * Whether cost @p i can change the results of a run of @p c: false for the
 * costs of a mechanism @p c leaves off (machine.contention's line and lock
 * costs without it, copy_page for a workload that copies nothing), so that
 * an uncertainty plan need not draw them. True for every other cost; false
 * past the end or for a NULL @p c. Thread-safe.
 */
bool hvtlb_sim_cost_used(const struct hvtlb_sim_config *c, size_t i);

/** Name of a fault ("no-wait"), or NULL. */
const char *hvtlb_sim_fault_name(enum hvtlb_sim_fault f);
/** Name of a workload ("trasher"), or NULL. */
const char *hvtlb_sim_workload_name(enum hvtlb_sim_workload w);
/** Name of a guest OS model ("windows"), or NULL. */
const char *hvtlb_sim_guest_os_name(enum hvtlb_sim_guest_os os);
/** The name of a host policy (hypervisor.host_policy), NULL if none. */
const char *hvtlb_sim_host_policy_name(enum hvtlb_sim_host_policy p);

/* ------------------------------------------------------------------ */
/* Results                                                             */
/* ------------------------------------------------------------------ */

/** VM exit reasons: X(NAME, name). */
#define HVTLB_SIM_EXIT_MAP(X)                                                  \
	X(HYPERCALL, "hypercall")                                              \
	X(IPI_SEND, "ipi_send")                                                \
	X(INTERRUPT, "interrupt")                                              \
	X(HLT, "hlt")                                                          \
	X(KICK, "kick")                                                        \
	X(PREEMPTION, "preemption")                                            \
	X(PLE, "ple")

enum hvtlb_sim_exit {
#define HVTLB_X_(n, s) HVTLB_SIM_EXIT_##n,
	HVTLB_SIM_EXIT_MAP(HVTLB_X_)
#undef HVTLB_X_
		HVTLB_SIM_EXIT_COUNT_
};

/** Kinds of TLB invalidation performed on a vCPU: X(NAME, name). */
#define HVTLB_SIM_FLUSH_MAP(X)                                                 \
	X(LOCAL, "local")                                                      \
	X(IPI, "ipi")                                                          \
	X(HYPERVISOR, "hypervisor")                                            \
	X(DEFERRED, "deferred")                                                \
	X(VMM, "vmm")                                                          \
	X(BROADCAST, "broadcast")                                              \
	X(LAZY, "lazy")                                                        \
	X(SWITCH_MM, "switch_mm")                                              \
	X(FULL, "full")                                                        \
	X(OVERFLOW, "overflow")                                                \
	X(MIGRATE, "migrate")

enum hvtlb_sim_flush_kind {
#define HVTLB_X_(n, s) HVTLB_SIM_FLUSH_##n,
	HVTLB_SIM_FLUSH_MAP(HVTLB_X_)
#undef HVTLB_X_
		HVTLB_SIM_FLUSH_COUNT_
};

/**
 * Purposes of the IPIs guest vCPUs send each other: X(NAME, name).
 * - FLUSH: a TLB shootdown's request to a target (the ipi strategy).
 * - RESCHED: waking a halted vCPU to run a thread the sender made
 *   runnable (Linux's reschedule IPI; Windows' dispatcher IPI).
 * - OTHER: any other purpose. The engine sends none today; the slot keeps
 *   the three adding up to ipis_sent when a workload gains one.
 */
#define HVTLB_SIM_IPI_MAP(X)                                                   \
	X(FLUSH, "flush")                                                      \
	X(RESCHED, "resched")                                                  \
	X(OTHER, "other")

enum hvtlb_sim_ipi_purpose {
#define HVTLB_X_(n, s) HVTLB_SIM_IPI_##n,
	HVTLB_SIM_IPI_MAP(HVTLB_X_)
#undef HVTLB_X_
		HVTLB_SIM_IPI_COUNT_
};

/** Name of a VM exit reason ("hlt"), or NULL past the end. Thread-safe. */
const char *hvtlb_sim_exit_name(enum hvtlb_sim_exit e);
/** Name of a flush kind ("switch_mm"), or NULL past the end. Thread-safe. */
const char *hvtlb_sim_flush_name(enum hvtlb_sim_flush_kind k);
/** Name of an IPI purpose ("resched"), or NULL past the end. Thread-safe. */
const char *hvtlb_sim_ipi_name(enum hvtlb_sim_ipi_purpose p);

/**
 * Why the oracle counted a violation: X(NAME, name). USED is a used
 * violation (a translation through a stale entry); every other reason is
 * a latent one (a stale entry the protocol left behind, whether or not
 * anything uses it). docs/oracle.md explains how to read them.
 *
 * - USED: the vCPU translated through an entry older than the generation
 *   a completed flush covered.
 * - RUNNING: when the flush was reported complete, the vCPU was in guest
 *   mode and still held the entry.
 * - NOT_PENDING: the vCPU was out of guest mode and held the entry, and
 *   no flush covering it was pending (deferred flag, hypervisor flush
 *   queue, delivered IPI, lazy invalidation).
 * - LAZY_FREED: a vCPU in lazy TLB mode held the entry although the flush
 *   freed page tables (its page walker may reach the freed tables).
 * - NO_CATCH_UP: a vCPU in lazy TLB mode, legally skipped, held the entry
 *   but will not flush when it switches back to the address space (the
 *   guest has no tlb_gen check, or its generation is already current).
 * - FLUSH_LOST: the vCPU was excused at completion (a flush was pending
 *   for it, or it was lazy and would catch up) but still held the entry
 *   when it next ran a guest thread.
 */
#define HVTLB_SIM_STALE_MAP(X)                                                 \
	X(USED, "used")                                                        \
	X(RUNNING, "running")                                                  \
	X(NOT_PENDING, "not-pending")                                          \
	X(LAZY_FREED, "lazy-freed-tables")                                     \
	X(NO_CATCH_UP, "no-catch-up")                                          \
	X(FLUSH_LOST, "flush-lost")

enum hvtlb_sim_stale {
#define HVTLB_X_(n, s) HVTLB_SIM_STALE_##n,
	HVTLB_SIM_STALE_MAP(HVTLB_X_)
#undef HVTLB_X_
		HVTLB_SIM_STALE_COUNT_
};

/** Name of a violation reason ("flush-lost"), or NULL past the end.
 *  Thread-safe. */
const char *hvtlb_sim_stale_name(enum hvtlb_sim_stale w);

/** One oracle violation. */
struct hvtlb_sim_violation {
	uint32_t vm;
	uint32_t vcpu;
	uint64_t address;
	double time_s; /**< virtual time */
	/** Why it counts; HVTLB_SIM_STALE_USED: used, any other: latent. */
	enum hvtlb_sim_stale why;
	/** Page-table generation the stale entry was filled from. */
	uint32_t generation;
	/** Generation the flush covered (the entry must not be older). */
	uint32_t covered;
	/** vCPU index that issued the flush; HVTLB_SIM_TRACE_NONE for a used
	 *  violation (the latent one before it names the flush). */
	uint32_t initiator;
	/** The flush: its shootdown number in the run (1 = the first
	 *  hvtlb_flush() call; with machine.partition, of its VM); 0 for a
	 *  used violation. */
	uint64_t shootdown;
};

/**
 * What a run measured. Times are virtual. "flushes" counts invalidations
 * executed on vCPUs by how they got there (FULL also counts every full
 * flush of any origin; OVERFLOW counts flush queues that collapsed to
 * flush-all).
 */
/**
 * What a flush target was doing when a flush was posted to it (a flush
 * IPI sent, a hypervisor's flush queued, a deferred flush marked):
 * X(NAME, name).
 * - RUNNING: in guest mode on a pCPU.
 * - EXIT: on a pCPU, but handling a VM exit or an interrupt.
 * - PREEMPTED: runnable, waiting for a pCPU (descheduled by the host).
 * - HALTED: halted, or woken and not yet running.
 */
#define HVTLB_SIM_TARGET_MAP(X)                                                \
	X(RUNNING, "running")                                                  \
	X(EXIT, "exit")                                                        \
	X(PREEMPTED, "preempted")                                              \
	X(HALTED, "halted")

enum hvtlb_sim_target_state {
#define HVTLB_X_(n, s) HVTLB_SIM_TARGET_##n,
	HVTLB_SIM_TARGET_MAP(HVTLB_X_)
#undef HVTLB_X_
		HVTLB_SIM_TARGET_COUNT_
};

/** Name of a target state ("preempted"), or NULL past the end.
 *  Thread-safe. */
const char *hvtlb_sim_target_name(enum hvtlb_sim_target_state st);

/**
 * Where a flush IPI's target stood with the guest's PV spinlock when the
 * IPI was sent (guest.pv_spinlock: the zone and LRU locks, taken with
 * interrupts disabled, so the IPI waits until the target enables them
 * again): X(NAME, name).
 * - NONE: in no lock section (every target without guest.pv_spinlock).
 * - HOLDING: holds the lock.
 * - SPINNING: waits for it spinning, queued or stealing, on a pCPU or
 *   preempted.
 * - HALTED: waits for it halted in pv_wait(), or kicked and not yet
 *   running.
 */
#define HVTLB_SIM_TARGET_LOCK_MAP(X)                                           \
	X(NONE, "none")                                                        \
	X(HOLDING, "holding")                                                  \
	X(SPINNING, "spinning")                                                \
	X(HALTED, "halted")

enum hvtlb_sim_target_lock {
#define HVTLB_X_(n, s) HVTLB_SIM_TARGET_LOCK_##n,
	HVTLB_SIM_TARGET_LOCK_MAP(HVTLB_X_)
#undef HVTLB_X_
		HVTLB_SIM_TARGET_LOCK_COUNT_
};

/** Name of a target lock state ("halted"), or NULL past the end.
 *  Thread-safe. */
const char *hvtlb_sim_target_lock_name(enum hvtlb_sim_target_lock st);

/**
 * Flushes posted to targets in one state, and how long the targets took
 * to acknowledge: from the post to the moment the acknowledgement was
 * written (the flush IPI's handler acknowledging, the kicked vCPU having
 * flushed). A target the initiator does not wait for (a deferred flush
 * marked by kvm-pv; a target the hypervisor flushes at its next entry)
 * acknowledges in 0.
 */
struct hvtlb_sim_target_stats {
	uint64_t posted;
	double ack_us_p50;
	double ack_us_p99;
};

/**
 * How much of a VM ran at once: the shares of the run's virtual time (from
 * 0 to the run's end) during which none, some but not all, and all of the
 * VM's vCPUs were on a pCPU. They add up to 1.
 */
struct hvtlb_sim_vm_corun {
	double none;
	double some;
	double all;
};

struct hvtlb_sim_results {
	uint64_t seed;
	uint32_t threads;
	enum hvtlb_strategy_kind strategy;
	enum hvtlb_sim_fault fault;
	double real_s; /**< until the last workload thread finished */
	double user_s; /**< summed over guest threads */
	/** Summed over guest threads as the guest reports it (see
	 *  guest.steal_accounting); includes spinning for acknowledgements. */
	double sys_s;
	/** Guest kernel time the threads' vCPUs actually ran on host CPUs
	 *  (time descheduled by the host never counts). */
	double sys_consumed_s;
	uint64_t vm_exits[HVTLB_SIM_EXIT_COUNT_];
	uint64_t vm_exits_total;
	uint64_t ipis_sent;
	uint64_t ipis_delivered;
	/** IPIs sent, by purpose; they add up to ipis_sent. */
	uint64_t ipis[HVTLB_SIM_IPI_COUNT_];
	uint64_t hypercalls;
	uint64_t shootdowns; /**< hvtlb_flush() calls */
	uint64_t flushes[HVTLB_SIM_FLUSH_COUNT_];
	uint64_t pages_invalidated;
	uint64_t deferred_marked; /**< kvm-pv: targets marked, not IPI'd */
	uint64_t tlb_l1_hits;
	uint64_t tlb_l2_hits;
	uint64_t tlb_misses;
	uint64_t page_faults;
	double latency_us_p50; /**< shootdown latency at the initiator */
	double latency_us_p99;
	double latency_us_max;
	uint64_t violations; /**< latent_violations + used_violations */
	uint32_t nrecorded;  /**< entries of violation[] */
	struct hvtlb_sim_violation *violation;
	uint64_t mem_per_vcpu_bytes; /**< simulator memory per vCPU */
	uint64_t events;	     /**< engine events processed */
	uint64_t target_flushes;     /**< target invalidations (all kinds) */
	/** Stale entries found when a flush was reported complete, or when an
	 *  excused vCPU next ran (engine.latent_check). */
	uint64_t latent_violations;
	/** Translations through a stale entry. */
	uint64_t used_violations;
	/** Times the fault switch changed what the machine did in a way its
	 *  protocol forbids (a wait skipped with acknowledgements missing, a
	 *  target dropped, a deferred flush lost...); 0 without a fault. */
	uint64_t fault_hits;
	/** Workload operations completed, over every thread (with
	 *  workload.duration_s the count the run reached). */
	uint64_t ops;
	/** vCPU threads the host moved to another pCPU (hypervisor.balance):
	 *  placed on an idle pCPU at wake-up, or pulled by a balance. */
	uint64_t vcpu_migrations;
	/** Per VM (nvms entries, VM 0 first): how much of it ran at once. */
	uint32_t nvms;
	struct hvtlb_sim_vm_corun *corun;
	/** Flush targets by what they did when the flush was posted. */
	struct hvtlb_sim_target_stats targets[HVTLB_SIM_TARGET_COUNT_];
	/** Flush IPIs by where their target stood with the guest's PV
	 *  spinlock when they were sent, and how long until its handler
	 *  acknowledged. */
	struct hvtlb_sim_target_stats ipi_lock[HVTLB_SIM_TARGET_LOCK_COUNT_];
	/** The share of the guest threads' time on pCPUs (user and kernel)
	 *  spent waiting for flush acknowledgements (0 with none). */
	double ack_wait_share;
	/** Directed yields that succeeded (hypervisor.ple with
	 *  hypervisor.directed_yield): at a pause-loop exit, the spinning
	 *  vCPU yielded its pCPU's turn to another vCPU of its VM, as KVM's
	 *  kvm_vcpu_on_spin() does; 0 without PLE or directed yield. */
	uint64_t directed_yields;
	/** IPIs sent, by the delivery that carried them (a hyperv hypercall
	 *  the host refused falls back to ICR writes); they add up to
	 *  ipis_sent. */
	uint64_t ipis_by_delivery[HVTLB_SIM_IPI_DELIVERY_COUNT_];
	/** Sender VM exits to send IPIs (ICR writes, cluster writes,
	 *  send-IPI hypercalls), by delivery; they add up to
	 *  vm_exits[HVTLB_SIM_EXIT_IPI_SEND]. */
	uint64_t ipi_exits[HVTLB_SIM_IPI_DELIVERY_COUNT_];
	/** The delivery the run's guest used (hypervisor.ipi_delivery, or
	 *  what guest.kernel and the host made of it), where it came from,
	 *  and why when derived (a static string, "" otherwise). */
	enum hvtlb_sim_ipi_delivery ipi_delivery;
	enum hvtlb_sim_origin ipi_delivery_origin;
	const char *ipi_delivery_why;
	/** Pause-loop exits (hypervisor.ple) taken by a vCPU whose guest
	 *  spun for flush IPI acknowledgements (the native shootdown's wait,
	 *  Linux smp_call_function_many_cond() with wait set); the rest of
	 *  vm_exits.ple were lock spins. At most vm_exits.ple. */
	uint64_t ple_exits_ack_wait;
	/** Flush IPIs a guest handled (a native shootdown's targets: ipi,
	 *  kvm-pv's running ones, a refused hypercall's fallback), over every
	 *  target state: how many, and the time from the send to the end of
	 *  the target's handler (us), what a kernel trace measures from
	 *  csd_queue_cpu to csd_function_exit of flush_tlb_func. */
	struct hvtlb_sim_ipi_acks {
		uint64_t targets;
		double us_p50;
		double us_p99;
		double us_max;
	} ipi_acks;
	/** Zone and LRU lock sections the contention model ran
	 *  (machine.contention; 0 without). The model fixes a section's
	 *  wait and release when it starts, as if its vCPU kept running. */
	uint64_t lock_sections;
	/** Host preemptions of a vCPU inside the window of its last lock
	 *  section: before its turn came (a lock waiter preempted) or
	 *  between its turn and its release (a lock holder preempted). A
	 *  real spinlock would have stayed with that vCPU until it ran
	 *  again; the model lets the section end on time. */
	uint64_t lock_waiters_preempted;
	uint64_t lock_holders_preempted;
	/** The time those vCPUs stayed off their pCPUs until they ran
	 *  again (ns, summed): how long the lock would have waited for
	 *  them. */
	uint64_t lock_preempted_off_ns;
	/** guest.pv_spinlock: waiters that halted in pv_wait(), the
	 *  kicks (KVM_HC_KICK_CPU) releases sent to halted heads, and the
	 *  times a CPU outside the queue took the lock while the queue had
	 *  waiters (pv_hybrid_queued_unfair_trylock). */
	uint64_t pv_halts;
	uint64_t pv_kicks;
	uint64_t pv_steals;
	/** hypervisor.kick_yield: the kicks after which KVM yielded the
	 *  releaser's pCPU to the kicked waiter (kvm_sched_yield()). */
	uint64_t kick_yields;
};

/**
 * The counters of struct hvtlb_sim_results that a run adds up over its
 * parts, in the order of hvtlb_sim_results_write_json(), with the members
 * that are no such counter in between:
 * - C(field, group, key, label, metric): a uint64_t field, written as
 *   "key" in the JSON object "group" ("" for the result itself), shown by
 *   the hvtlb tool as label (NULL: not shown) and as metric (NULL: none);
 * - S(step): members of another kind, which the writer writes itself.
 * A new counter is a field above and a C row here.
 */
#define HVTLB_SIM_COUNTER_MAP(C, S)                                            \
	S(head)                                                                \
	S(exit_reasons)                                                        \
	C(vm_exits_total, "vm_exits", "total", "VM exits", "vm_exits")         \
	C(ipis_sent, "ipis", "sent", "IPIs sent", "ipis_sent")                 \
	C(ipis_delivered, "ipis", "delivered", "IPIs delivered",               \
	  "ipis_delivered")                                                    \
	S(ipi_purposes)                                                        \
	S(ipi_deliveries)                                                      \
	C(hypercalls, "", "hypercalls", "hypercalls", "hypercalls")            \
	C(shootdowns, "", "shootdowns", "shootdowns", "shootdowns")            \
	S(flush_kinds)                                                         \
	C(target_flushes, "", "target_flushes", NULL, NULL)                    \
	C(pages_invalidated, "", "pages_invalidated", "pages invalidated",     \
	  "pages_invalidated")                                                 \
	C(deferred_marked, "", "deferred_marked", "deferred (kvm-pv marked)",  \
	  NULL)                                                                \
	C(tlb_l1_hits, "tlb", "l1_hits", "TLB L1 hits", NULL)                  \
	C(tlb_l2_hits, "tlb", "l2_hits", "TLB L2 hits", NULL)                  \
	C(tlb_misses, "tlb", "misses", "TLB misses", "tlb_misses")             \
	C(page_faults, "", "page_faults", "page faults", "page_faults")        \
	C(ops, "", "ops", NULL, NULL)                                          \
	S(latency)                                                             \
	S(ipi_acks)                                                            \
	C(latent_violations, "violations", "latent",                           \
	  "oracle violations, latent", "latent_violations")                    \
	C(used_violations, "violations", "used", "oracle violations, used",    \
	  "used_violations")                                                   \
	C(violations, "violations", "total", "oracle violations",              \
	  "violations")                                                        \
	S(violation_list)                                                      \
	C(vcpu_migrations, "", "vcpu_migrations", "vCPU migrations",           \
	  "vcpu_migrations")                                                   \
	C(directed_yields, "", "directed_yields", "PLE directed yields",       \
	  "directed_yields")                                                   \
	S(corun)                                                               \
	S(flush_targets)                                                       \
	S(ipi_lock)                                                            \
	S(ack_wait_share)                                                      \
	C(fault_hits, "", "fault_hits", NULL, NULL)                            \
	S(mem_per_vcpu)                                                        \
	C(events, "", "events", NULL, NULL)                                    \
	C(ple_exits_ack_wait, "", "ple_exits_ack_wait",                        \
	  "PLE exits, waiting for flush acks", "ple_exits_ack_wait")           \
	C(lock_sections, "lock_sections", "taken", "lock sections",            \
	  "lock_sections")                                                     \
	C(lock_waiters_preempted, "lock_sections", "waiter_preempted",         \
	  "lock sections, waiter preempted", "lock_waiters_preempted")         \
	C(lock_holders_preempted, "lock_sections", "holder_preempted",         \
	  "lock sections, holder preempted", "lock_holders_preempted")         \
	C(lock_preempted_off_ns, "lock_sections", "preempted_off_ns", NULL,    \
	  "lock_preempted_off_ns")                                             \
	C(pv_halts, "lock_sections", "pv_halts", "PV spinlock halts",          \
	  "pv_halts")                                                          \
	C(pv_kicks, "lock_sections", "pv_kicks", "PV spinlock kicks",          \
	  "pv_kicks")                                                          \
	C(pv_steals, "lock_sections", "pv_steals", "PV spinlock steals",       \
	  "pv_steals")                                                         \
	C(kick_yields, "lock_sections", "kick_yields",                         \
	  "PV kicks that yielded", "kick_yields")

/**
 * Runs the simulation @p c describes (validated first). On success stores a
 * new result object in *@p out (free with hvtlb_sim_results_destroy()).
 * Deterministic: the same config (seed included) gives byte-identical
 * results whatever c->threads. Reentrant. Returns 0; -ERANGE for an invalid
 * config; -ENOMEM; -ETIME when virtual time passed engine.max_virtual_s;
 * -ENOSPC when a process needed more mappings than one may hold (the lazy
 * strategy, whose freed ranges wait for their flush: vm.max_map_count's
 * default, 65530, or the 47-bit user address space); -EPROTO when a
 * strategy failed (a bug).
 */
int hvtlb_sim_run(const struct hvtlb_sim_config *c,
		  struct hvtlb_sim_results **out);

/** Frees @p r. Accepts NULL. */
void hvtlb_sim_results_destroy(struct hvtlb_sim_results *r);

/**
 * Writes @p r as one JSON object (no trailing newline) to @p f, its
 * members in the order of HVTLB_SIM_COUNTER_MAP (docs/json.md says what
 * each means; violation_list entries are {kind ("latent" or "used"), why,
 * vm, vcpu, address, generation, covered, initiator (null for used),
 * shootdown (null for used), time_s}). Numbers print with "%.9g"
 * (deterministic for equal results). Not r->threads, which never changes
 * the rest: the object is the same whatever machine and thread count ran
 * it. Returns 0 or -EIO.
 */
int hvtlb_sim_results_write_json(const struct hvtlb_sim_results *r, FILE *f);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* HVTLB_SIM_H */
