/* SPDX-License-Identifier: MIT */
/**
 * @file
 * Flush requests, shootdown strategies and the pluggable backend.
 *
 * A strategy (struct hvtlb_strategy_config) turns a flush request into
 * actions on a backend (struct hvtlb_backend_ops + a user pointer). A
 * flusher binds the two. A flusher is not thread-safe: use one per CPU
 * (it holds a 4 KiB scratch input page). Backends decide their own thread
 * rules; the built-in recording backend is not thread-safe.
 *
 * Functions return 0 or a negative errno; constructors return NULL on
 * failure.
 */
#ifndef HVTLB_CORE_H
#define HVTLB_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <hvtlb/hypercall.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* ------------------------------------------------------------------ */
/* CPU masks                                                           */
/* ------------------------------------------------------------------ */
#define HVTLB_MAX_CPUS 4096u

/** A set of CPU numbers 0..4095 (guest CPU numbers, not VP indices). */
struct hvtlb_cpumask {
	uint64_t bits[HVTLB_MAX_CPUS / 64];
};

static inline void hvtlb_cpumask_set(struct hvtlb_cpumask *m, uint32_t cpu)
{
	if (cpu < HVTLB_MAX_CPUS)
		m->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

static inline void hvtlb_cpumask_clear(struct hvtlb_cpumask *m, uint32_t cpu)
{
	if (cpu < HVTLB_MAX_CPUS)
		m->bits[cpu / 64] &= ~(1ULL << (cpu % 64));
}

static inline bool hvtlb_cpumask_test(const struct hvtlb_cpumask *m,
				      uint32_t cpu)
{
	return cpu < HVTLB_MAX_CPUS && (m->bits[cpu / 64] >> (cpu % 64)) & 1;
}

/** Number of CPUs in @p m. */
uint32_t hvtlb_cpumask_weight(const struct hvtlb_cpumask *m);
/** First CPU >= @p from in @p m, or HVTLB_MAX_CPUS. */
uint32_t hvtlb_cpumask_next(const struct hvtlb_cpumask *m, uint32_t from);

/* ------------------------------------------------------------------ */
/* Requests                                                            */
/* ------------------------------------------------------------------ */

/** What one flush must cover. */
struct hvtlb_flush_range {
	uint64_t start;	       /**< inclusive, byte address */
	uint64_t end;	       /**< exclusive; ignored when all */
	unsigned stride_shift; /**< 12, 21 or 30 */
	bool all;	       /**< flush the whole address space */
	bool include_global;   /**< global mappings too */
};

/** A flush request, as the kernel's flush_tlb_info. */
struct hvtlb_flush_request {
	struct hvtlb_cpumask targets; /**< may include the initiator */
	uint32_t ncpus;		      /**< present CPUs, 1..4096 */
	uint32_t initiator;	      /**< < ncpus */
	uint64_t address_space;	      /**< CR3 of the mm */
	struct hvtlb_flush_range range;
	bool freed_tables; /**< page tables were freed */
};

/**
 * Checks a request: ncpus in 1..4096, initiator and every target < ncpus,
 * stride 12/21/30, and unless range.all: start <= end, with end rounded up
 * to the stride not wrapping past 2^64. An unaligned range is valid and is
 * rounded outwards by strategies; start == end is an empty range (valid,
 * nothing to flush). Pure; thread-safe. Returns 0 or -EINVAL (also for
 * NULL).
 */
int hvtlb_request_validate(const struct hvtlb_flush_request *req);

/** Pages of the request's stride covered by its range, rounded outwards
 *  (0 for all, an empty range, a bad stride or NULL). Pure; thread-safe. */
uint64_t hvtlb_range_pages(const struct hvtlb_flush_range *r);

/* ------------------------------------------------------------------ */
/* The backend                                                         */
/* ------------------------------------------------------------------ */
#define HVTLB_BACKEND_OPS_VERSION 1u

enum hvtlb_cpu_state {
	HVTLB_CPU_RUNNING = 0,
	HVTLB_CPU_PREEMPTED = 1, /**< vCPU not running on a pCPU */
	HVTLB_CPU_LAZY = 2,	 /**< in lazy TLB mode (kernel thread) */
	HVTLB_CPU_OFFLINE = 3,
};

/* KVM steal-time preempted byte (docs/wire-format.md, KVM's deferred
 * flush). */
#define HVTLB_KVM_VCPU_PREEMPTED 0x1u
#define HVTLB_KVM_VCPU_FLUSH_TLB 0x2u

/** Feature hints (CPUID 0x40000004 and friends). */
struct hvtlb_hints {
	bool remote_flush_recommended; /**< 0x40000004 EAX bit 2 */
	bool ex_available;	       /**< 0x40000004 EAX bit 11 */
	bool xmm_input;		       /**< 0x40000003 EDX bit 4 */
	bool extended_ranges;	       /**< extended GVA range format */
	bool broadcast;		       /**< INVLPGB/TLBSYNC */
	bool kvm_pv_flush;	       /**< KVM_FEATURE_PV_TLB_FLUSH */
	bool vmm_assist;	       /**< Shoot4U-style hypercall */
};

/** What the targets of an IPI must do. */
struct hvtlb_ipi_flush {
	struct hvtlb_flush_range range; /**< range.all for a full flush */
	bool early_ack; /**< acknowledge on handler entry, then flush */
};

/**
 * The backend: a versioned table of function pointers; @p user is the
 * pointer given to hvtlb_flusher_create(). Members marked optional may be
 * NULL: the strategy then falls back (documented per member).
 */
struct hvtlb_backend_ops {
	uint32_t version; /**< HVTLB_BACKEND_OPS_VERSION */

	/** Flushes @p cpu (the initiator) locally. Required. */
	void (*local_flush)(void *user, uint32_t cpu,
			    const struct hvtlb_flush_range *r);
	/** Sends flush IPIs to @p targets (never the initiator). Required. */
	void (*send_ipis)(void *user, const struct hvtlb_cpumask *targets,
			  const struct hvtlb_ipi_flush *f);
	/** Waits until every target of the last send_ipis acknowledged.
	 *  Required. */
	void (*wait_acks)(void *user, const struct hvtlb_cpumask *targets);

	/** State of @p cpu. Optional: NULL means every CPU runs. */
	enum hvtlb_cpu_state (*cpu_state)(void *user, uint32_t cpu);
	/** Issues one hypercall (no rep loop; the strategy runs it) and
	 *  returns the result word. For fast calls @p input is the register
	 *  image. Optional: NULL means no hypercalls (IPI fallback). */
	uint64_t (*hypercall)(void *user, uint64_t control, const void *input,
			      size_t len);
	/** Maps a CPU to its VP index. Optional: NULL means identity. A
	 *  result >= 4096 makes the hypercall path fall back to IPIs. */
	uint32_t (*vp_index)(void *user, uint32_t cpu);
	/** Fills the hints. Optional: NULL means none. */
	void (*get_hints)(void *user, struct hvtlb_hints *h);
	/** Reads @p cpu's KVM preempted byte. Optional (kvm-pv needs it). */
	uint8_t (*read_preempted)(void *user, uint32_t cpu);
	/** Compare-and-swap of @p cpu's preempted byte: if it equals
	 *  *expected, stores @p desired and returns true; otherwise stores the
	 *  current value in *expected and returns false. Optional. */
	bool (*cmpxchg_preempted)(void *user, uint32_t cpu, uint8_t *expected,
				  uint8_t desired);
	/** Broadcast invalidation of at most the backend's per-instruction
	 *  page limit (INVLPGB); asynchronous. Optional. */
	void (*broadcast_invalidate)(void *user,
				     const struct hvtlb_flush_range *r);
	/** Waits for this CPU's broadcast invalidations (TLBSYNC). Optional,
	 *  required when broadcast_invalidate is set. */
	void (*broadcast_sync)(void *user);
	/** VMM-assisted flush: one hypercall, the hypervisor flushes the
	 *  targets' TLBs itself and returns when they are done. Returns 0 or a
	 *  negative errno (then the strategy falls back to IPIs). Optional. */
	int (*vmm_flush)(void *user, const struct hvtlb_cpumask *targets,
			 const struct hvtlb_flush_range *r);
	/** Lazy coherence: records an invalidation that each target applies
	 *  at its next tick or context switch. Returns an epoch: the memory
	 *  may be reused once every target has passed it. Optional. */
	uint64_t (*lazy_post)(void *user, const struct hvtlb_cpumask *targets,
			      const struct hvtlb_flush_range *r);
};

/* ------------------------------------------------------------------ */
/* Strategies                                                          */
/* ------------------------------------------------------------------ */

/** X(NAME, short name) */
#define HVTLB_STRATEGY_MAP(X)                                                  \
	X(IPI, "ipi")                                                          \
	X(HYPERV, "hyperv")                                                    \
	X(KVM_PV, "kvm-pv")                                                    \
	X(VMM_ASSIST, "vmm-assist")                                            \
	X(BROADCAST, "broadcast")                                              \
	X(LAZY, "lazy")                                                        \
	X(XEN_PV, "xen-pv")

enum hvtlb_strategy_kind {
#define HVTLB_X_(n, s) HVTLB_STRATEGY_##n,
	HVTLB_STRATEGY_MAP(HVTLB_X_)
#undef HVTLB_X_
		HVTLB_STRATEGY_COUNT_
};

/*
 * What each strategy does with the remote targets (the targets without the
 * initiator, offline CPUs and, when lazy_skip is on and no page table was
 * freed, CPUs in lazy TLB mode). Cheapest choice first, one fallback path:
 * whenever a strategy is not offered (hint or op missing) it is the native
 * IPI shootdown; when it fails it IPIs exactly the remote targets.
 *  - ipi: local flush and IPIs, serial or concurrent, then wait.
 *  - hyperv: local flush, then one Flush{Space,List}[Ex] hypercall decided
 *    as Linux's hyperv_flush_tlb_multi (docs/wire-format.md).
 *  - kvm-pv: preempted targets are marked (CAS of FLUSH_TLB) instead of
 *    interrupted; a lost CAS keeps its IPI.
 *  - vmm-assist: local flush, one vmm_flush for the remote targets.
 *  - broadcast: INVLPGB chunks of broadcast_max_pages (covering every CPU,
 *    the initiator too), then one TLBSYNC; no IPIs.
 *  - lazy: lazy_post, local flush, no wait; the outcome's reuse_epoch says
 *    when the memory may be reused. Freed page tables are never lazy: a
 *    CPU that has not applied the invalidation could still walk the freed
 *    (and reused) table pages, so such requests take the IPI path.
 *  - xen-pv: local flush, one vmm_flush for the remote targets, of one
 *    4 KiB page or else a full flush (Linux's xen_flush_tlb_multi).
 * With no remote target, every strategy only flushes locally.
 */

/** Short name ("kvm-pv") of @p k, or NULL for an unknown kind. */
const char *hvtlb_strategy_name(enum hvtlb_strategy_kind k);
/** Parses a short name. Returns 0 and sets *k, or -EINVAL. */
int hvtlb_strategy_from_name(const char *name, enum hvtlb_strategy_kind *k);

/**
 * The host features strategy @p k uses, as the hints a host that offers
 * them reports (hyperv: remote flush recommended and Ex; kvm-pv:
 * KVM_FEATURE_PV_TLB_FLUSH; vmm-assist and xen-pv: the host's flush call;
 * broadcast: INVLPGB), all false for ipi and lazy, which need nothing of
 * a host. Without them the strategy falls back to the IPI shootdown.
 * Returns 0, or -EINVAL for an unknown kind or a NULL @p needs.
 */
int hvtlb_strategy_needs(enum hvtlb_strategy_kind k, struct hvtlb_hints *needs);

/** A strategy and its knobs. */
struct hvtlb_strategy_config {
	enum hvtlb_strategy_kind kind;
	/* native IPI (also the fallback of every other strategy) */
	bool concurrent;	     /**< send IPIs, flush locally, then wait */
	bool early_ack;		     /**< refused when page tables are freed */
	bool lazy_skip;		     /**< skip lazy CPUs unless tables freed */
	uint32_t full_flush_ceiling; /**< pages; default 33 */
	/* Hyper-V */
	bool xmm_fast;	      /**< fast input when it fits and is offered */
	bool compact_vpset;   /**< compact sparse sets (else Linux's) */
	bool extended_ranges; /**< large-page entries when offered */
	/* hardware broadcast */
	uint32_t broadcast_max_pages; /**< pages per INVLPGB; default 8 */
};

/**
 * Fills @p c with the defaults of @p kind, Linux's behaviour: concurrent
 * (since 5.13), no early acknowledgement, lazy skip, ceiling 33 pages,
 * memory-input hypercalls with Linux's 2^n-1 VP sets and simple GVA
 * entries, 8 pages per INVLPGB.
 */
void hvtlb_strategy_config_init(struct hvtlb_strategy_config *c,
				enum hvtlb_strategy_kind kind);
/**
 * Reads a boolean as every boolean key of the library does: true, on, yes
 * or 1 for true, false, off, no or 0 for false, in any case. Stores it in
 * @p out and returns 0, or returns -EINVAL (NULL or another word) and
 * leaves @p out alone. Thread-safe.
 */
int hvtlb_parse_bool(const char *s, bool *out);
/**
 * The @p i-th word hvtlb_parse_bool() takes, in lower case: even @p i
 * true, odd false; NULL past the last. For error messages. Thread-safe.
 */
const char *hvtlb_bool_word(size_t i);
/**
 * Sets one knob by name ("concurrent", "early_ack", "lazy_skip",
 * "full_flush_ceiling", "xmm_fast", "compact_vpset", "extended_ranges",
 * "broadcast_max_pages"). Booleans take the words of hvtlb_parse_bool().
 * Returns 0, -ENOENT
 * for an unknown key, -EINVAL for a bad value.
 */
int hvtlb_strategy_config_set(struct hvtlb_strategy_config *c, const char *key,
			      const char *value);

/**
 * Writes knob @p key of @p c as text ("true", "false" or a decimal count)
 * into @p buf of @p len bytes, NUL-terminated. Returns 0, -ENOENT for an
 * unknown knob, -ENOSPC if it does not fit, -EINVAL for NULL arguments.
 */
int hvtlb_strategy_config_get(const struct hvtlb_strategy_config *c,
			      const char *key, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* The flusher                                                         */
/* ------------------------------------------------------------------ */

/** What a flush did. */
struct hvtlb_flush_outcome {
	uint32_t hypercalls; /**< hypercalls issued (each rep round counts) */
	uint32_t ipis;	     /**< IPI targets */
	uint32_t deferred;   /**< targets marked for a deferred flush */
	/** An offered non-IPI path could not be used or failed (a VP the
	 *  call cannot name, Ex not offered, a failure status, a broken rep
	 *  protocol, a vmm_flush error): the remote targets got IPIs. */
	bool fell_back;
	/** The range became a full flush: over the ceiling, or a Hyper-V
	 *  List that did not fit its input page. */
	bool full_flush;
	uint64_t reuse_epoch; /**< lazy strategy: see lazy_post */
};

/** Trace events: one per request, then one per action. */
enum hvtlb_trace_kind {
	HVTLB_TRACE_REQUEST,
	HVTLB_TRACE_LOCAL_FLUSH,
	HVTLB_TRACE_IPI,
	HVTLB_TRACE_WAIT,
	HVTLB_TRACE_HYPERCALL,
	HVTLB_TRACE_MARK_DEFERRED,
	HVTLB_TRACE_BROADCAST,
	HVTLB_TRACE_VMM_FLUSH,
	HVTLB_TRACE_LAZY_POST,
	HVTLB_TRACE_BROADCAST_SYNC,
};

struct hvtlb_trace_event {
	enum hvtlb_trace_kind kind;
	/* REQUEST: as Linux's hyperv_mmu_flush_tlb_multi tracepoint */
	uint32_t ncpus;
	uint64_t address_space;
	uint64_t start;
	uint64_t end; /**< UINT64_MAX for a full flush */
	/* HYPERCALL */
	uint64_t control;
	uint64_t result;
	/* MARK_DEFERRED, LOCAL_FLUSH */
	uint32_t cpu;
	/** IPI, WAIT, VMM_FLUSH, LAZY_POST: the targets; NULL otherwise.
	 *  Valid only during the callback. */
	const struct hvtlb_cpumask *targets;
	/** LOCAL_FLUSH, IPI, BROADCAST, VMM_FLUSH, LAZY_POST: the range;
	 *  NULL otherwise. Valid only during the callback. */
	const struct hvtlb_flush_range *range;
};

typedef void (*hvtlb_trace_fn)(void *data, const struct hvtlb_trace_event *e);

struct hvtlb_flusher;

/**
 * Binds a strategy to a backend. @p ops must outlive the flusher and have
 * version HVTLB_BACKEND_OPS_VERSION and the required members. Returns NULL
 * on a bad config, bad ops or no memory.
 */
struct hvtlb_flusher *
hvtlb_flusher_create(const struct hvtlb_strategy_config *cfg,
		     const struct hvtlb_backend_ops *ops, void *user);
/** Frees @p f. Accepts NULL. */
void hvtlb_flusher_destroy(struct hvtlb_flusher *f);
/** Sets (or clears, with NULL) the trace callback. It is called on the
 *  thread running hvtlb_flush(), synchronously, after each action. */
void hvtlb_flusher_set_trace(struct hvtlb_flusher *f, hvtlb_trace_fn fn,
			     void *data);

/**
 * Runs @p req through the strategy. When it returns 0 every target's TLB
 * no longer holds the range (or, for the lazy strategy, will not before the
 * reuse epoch). Returns -EINVAL for an invalid request or a NULL flusher,
 * with no backend call at all and @p out zeroed. Otherwise returns 0 and
 * fills @p out (may be NULL). The range is rounded outwards to its stride
 * and becomes a full flush above cfg->full_flush_ceiling pages; an empty
 * range does nothing. Allocates nothing; not thread-safe per flusher.
 */
int hvtlb_flush(struct hvtlb_flusher *f, const struct hvtlb_flush_request *req,
		struct hvtlb_flush_outcome *out);

/* ------------------------------------------------------------------ */
/* Built-in backends                                                   */
/* ------------------------------------------------------------------ */

/**
 * The null backend: every action is a no-op, every CPU runs, hypercalls
 * return HV_STATUS_SUCCESS with every rep completed, no hints. Its user
 * pointer is ignored (pass NULL). The table is static and thread-safe.
 */
const struct hvtlb_backend_ops *hvtlb_null_backend_ops(void);
/** True if @p ops is the null backend's table. */
bool hvtlb_backend_is_null(const struct hvtlb_backend_ops *ops);

/** One action the recording backend received. */
enum hvtlb_action_kind {
	HVTLB_ACTION_LOCAL_FLUSH,
	HVTLB_ACTION_IPI,
	HVTLB_ACTION_WAIT,
	HVTLB_ACTION_HYPERCALL,
	HVTLB_ACTION_MARK_DEFERRED, /**< a compare-and-swap, won or lost */
	HVTLB_ACTION_BROADCAST,
	HVTLB_ACTION_BROADCAST_SYNC,
	HVTLB_ACTION_VMM_FLUSH,
	HVTLB_ACTION_LAZY_POST,
};

struct hvtlb_action {
	enum hvtlb_action_kind kind;
	/** LOCAL_FLUSH: the CPU flushed; MARK_DEFERRED: the target. */
	uint32_t cpu;
	/** IPI, WAIT, VMM_FLUSH, LAZY_POST. */
	struct hvtlb_cpumask targets;
	/** LOCAL_FLUSH, IPI, BROADCAST, VMM_FLUSH, LAZY_POST. */
	struct hvtlb_flush_range range;
	bool early_ack; /**< IPI */
	bool cas_won;	/**< MARK_DEFERRED: true if the flag was set */
	/** HYPERCALL: the control word, the result returned, and a copy of
	 *  the input (owned by the recorder, len bytes). */
	uint64_t control;
	uint64_t result;
	const uint8_t *input;
	size_t len;
	int vmm_result; /**< VMM_FLUSH: what the backend returned */
	uint64_t epoch; /**< LAZY_POST: the epoch returned */
};

/**
 * The recording backend. It keeps every action in order and answers
 * queries from state the caller sets. Defaults: every CPU RUNNING with
 * preempted byte 0 and VP index equal to its number, no hints, hypercalls
 * succeed completing every rep, vmm_flush returns 0, lazy_post returns
 * epochs 1, 2, 3, ... Not thread-safe: use it from one thread.
 */
struct hvtlb_recorder;

/** Returns a new recorder, or NULL when out of memory. */
struct hvtlb_recorder *hvtlb_recorder_create(void);
/** Frees @p r and every recorded input copy. Accepts NULL. */
void hvtlb_recorder_destroy(struct hvtlb_recorder *r);
/** The recorder's ops table; pass the recorder as the user pointer. */
const struct hvtlb_backend_ops *hvtlb_recorder_ops(void);
/** True if @p ops is the recording backend's table. */
bool hvtlb_backend_is_recorder(const struct hvtlb_backend_ops *ops);

/** Forgets the recorded actions (the settings stay). */
void hvtlb_recorder_clear(struct hvtlb_recorder *r);
/** Number of recorded actions. */
size_t hvtlb_recorder_count(const struct hvtlb_recorder *r);
/** Action @p i (< count), or NULL. Valid until the next clear, destroy or
 *  recorded action. */
const struct hvtlb_action *hvtlb_recorder_action(const struct hvtlb_recorder *r,
						 size_t i);

/** Sets @p cpu's state. Returns 0, or -EINVAL for cpu >= 4096 or a bad
 *  state. */
int hvtlb_recorder_set_cpu_state(struct hvtlb_recorder *r, uint32_t cpu,
				 enum hvtlb_cpu_state state);
/** Sets @p cpu's KVM preempted byte. Returns 0 or -EINVAL. */
int hvtlb_recorder_set_preempted(struct hvtlb_recorder *r, uint32_t cpu,
				 uint8_t value);
/**
 * Makes the next compare-and-swap on @p cpu's preempted byte lose: the
 * target starts running between the read and the CAS, so the byte becomes
 * 0, the CPU RUNNING and the CAS fails. Returns 0 or -EINVAL.
 */
int hvtlb_recorder_set_cas_lose(struct hvtlb_recorder *r, uint32_t cpu,
				bool lose);
/** Maps @p cpu to VP index @p vp (any value; >= 4096 tests the
 *  fallback). Returns 0 or -EINVAL. */
int hvtlb_recorder_set_vp(struct hvtlb_recorder *r, uint32_t cpu, uint32_t vp);
/** Sets the hints the backend reports. */
void hvtlb_recorder_set_hints(struct hvtlb_recorder *r,
			      const struct hvtlb_hints *h);
/** Status every hypercall returns (HV_STATUS_SUCCESS by default). A
 *  failure completes no rep. */
void hvtlb_recorder_set_hypercall_status(struct hvtlb_recorder *r,
					 hvtlb_status status);
/** Completes at most @p n reps per rep-call round (0: all), to exercise
 *  the rep loop. */
void hvtlb_recorder_set_reps_per_call(struct hvtlb_recorder *r, uint32_t n);
/** What vmm_flush returns (0 or a negative errno). */
void hvtlb_recorder_set_vmm_result(struct hvtlb_recorder *r, int result);

enum hvtlb_render_format {
	HVTLB_RENDER_TEXT, /**< one line per action (hypercalls: several) */
	HVTLB_RENDER_JSON, /**< {"actions":[...]} and a newline */
};

/**
 * Renders the recorded actions into @p buf (NUL-terminated when @p size >
 * 0). Hypercalls show the control word, the input words and the result,
 * and the call decoded by hvtlb_decode() with the strict profile. Sets
 * *@p len (if not NULL) to the length of the full rendering without the
 * NUL. Returns 0, or -ENOSPC when it was truncated.
 */
int hvtlb_recorder_render(const struct hvtlb_recorder *r,
			  enum hvtlb_render_format fmt, char *buf, size_t size,
			  size_t *len);
/** Writes the same rendering to @p out. Returns 0 or -EIO. */
int hvtlb_recorder_write(const struct hvtlb_recorder *r,
			 enum hvtlb_render_format fmt, FILE *out);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* HVTLB_CORE_H */
