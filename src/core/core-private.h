/* SPDX-License-Identifier: MIT */
/*
 * Private to src/core: the flusher, the per-request work set and the
 * strategy table every strategy-*.c file defines once.
 */
#ifndef HVTLB_CORE_PRIVATE_H
#define HVTLB_CORE_PRIVATE_H

#include <hvtlb/core.h>

struct hvtlb_flusher {
	struct hvtlb_strategy_config cfg;
	const struct hvtlb_backend_ops *ops;
	void *user;
	const struct core_strategy *strategy;
	hvtlb_trace_fn trace;
	void *trace_data;
	struct hvtlb_flush_outcome *out; /* of the flush in progress */
	struct hvtlb_encoded scratch;	 /* the hypercall input page */
};

/* One request, prepared once by hvtlb_flush() for every strategy. */
struct core_work {
	const struct hvtlb_flush_request *req;
	/* Rounded outwards to the stride, or all (asked for or over the
	 * full-flush ceiling). */
	struct hvtlb_flush_range range;
	uint64_t pages;		     /* stride pages of range; 0 when all */
	bool local;		     /* the initiator is a target */
	struct hvtlb_cpumask remote; /* targets to reach: see flusher.c */
};

/* A strategy: a type tag and its flush. The flush is only called with a
 * non-empty remote set; the local flush is its job too. */
struct core_strategy {
	enum hvtlb_strategy_kind kind;
	int (*flush)(struct hvtlb_flusher *f, const struct core_work *w);
	/* The host features it uses (hvtlb_strategy_needs()): what a host
	 * that offers it sets in its hints; none for ipi and lazy. */
	struct hvtlb_hints needs;
};

/* Each strategy's file defines core_strategy_<NAME>, NAME as in
 * HVTLB_STRATEGY_MAP, whose rows make the table flusher.c dispatches
 * through: a row without its definition does not link. */
#define CORE_STRATEGY_X_(n, s)                                                 \
	extern const struct core_strategy core_strategy_##n;
HVTLB_STRATEGY_MAP(CORE_STRATEGY_X_)
#undef CORE_STRATEGY_X_

/* CPU masks bounded by a CPU count (a validated request has no bit at or
 * beyond ncpus, so scanning stops there). next_n returns HVTLB_MAX_CPUS
 * when no CPU below n is left. */
uint32_t core_cpumask_weight_n(const struct hvtlb_cpumask *m, uint32_t n);
uint32_t core_cpumask_next_n(const struct hvtlb_cpumask *m, uint32_t from,
			     uint32_t n);
#define core_for_each_cpu(cpu, m, n)                                           \
	for (uint32_t cpu = core_cpumask_next_n((m), 0, (n)); cpu < (n);       \
	     cpu = core_cpumask_next_n((m), cpu + 1, (n)))

/* Backend actions, each traced; see flusher.c. */
void core_local_flush(struct hvtlb_flusher *f, const struct core_work *w);
enum hvtlb_cpu_state core_cpu_state(struct hvtlb_flusher *f, uint32_t cpu);
void core_get_hints(struct hvtlb_flusher *f, struct hvtlb_hints *h);
void core_trace(struct hvtlb_flusher *f, struct hvtlb_trace_event *e);

/*
 * The native IPI shootdown of @p targets (never the initiator), serial or
 * concurrent with the local flush when @p with_local. Every strategy's
 * fallback. Returns 0.
 */
int core_ipi_shootdown(struct hvtlb_flusher *f, const struct core_work *w,
		       const struct hvtlb_cpumask *targets, bool with_local);

/* Marks the flush as a fallback and IPIs the remote set (no local flush:
 * the strategy did it already). */
int core_fall_back(struct hvtlb_flusher *f, const struct core_work *w);

/*
 * The host flushes the remote set's TLBs for @p range (the vmm_flush op,
 * offered by the vmm_assist hint), after the local flush: vmm-assist and
 * xen-pv, which differ only in the range they ask for. Without the hint
 * or the op, IPIs; when the call fails, the fallback. Returns 0.
 */
int core_vmm_flush(struct hvtlb_flusher *f, const struct core_work *w,
		   const struct hvtlb_flush_range *range);

#endif
