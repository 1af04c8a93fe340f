// SPDX-License-Identifier: MIT
/*
 * The flusher: validates a request, prepares the work set once for every
 * strategy, and holds the traced backend actions shared by all of them,
 * the native IPI shootdown (every strategy's one fallback path) included.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/core-private.h"

/* The strategies, by kind (core-private.h). */
static const struct core_strategy *const strategies[] = {
#define CORE_STRATEGY_X_(n, s) [HVTLB_STRATEGY_##n] = &core_strategy_##n,
	HVTLB_STRATEGY_MAP(CORE_STRATEGY_X_)
#undef CORE_STRATEGY_X_
};

static const struct core_strategy *strategy_of(enum hvtlb_strategy_kind k)
{
	return (unsigned)k < HVTLB_STRATEGY_COUNT_ ? strategies[k] : NULL;
}

int hvtlb_strategy_needs(enum hvtlb_strategy_kind k, struct hvtlb_hints *needs)
{
	const struct core_strategy *s = strategy_of(k);

	if (!s || !needs)
		return -EINVAL;
	*needs = s->needs;
	return 0;
}

static bool ops_valid(const struct hvtlb_backend_ops *ops)
{
	if (!ops || ops->version != HVTLB_BACKEND_OPS_VERSION)
		return false;
	if (!ops->local_flush || !ops->send_ipis || !ops->wait_acks)
		return false;
	/* An INVLPGB without its TLBSYNC could never be waited for. */
	if (ops->broadcast_invalidate && !ops->broadcast_sync)
		return false;
	return true;
}

struct hvtlb_flusher *
hvtlb_flusher_create(const struct hvtlb_strategy_config *cfg,
		     const struct hvtlb_backend_ops *ops, void *user)
{
	struct hvtlb_flusher *f;
	const struct core_strategy *s;

	if (!cfg || !ops_valid(ops))
		return NULL;
	s = strategy_of(cfg->kind);
	if (!s || cfg->full_flush_ceiling == 0 || cfg->broadcast_max_pages == 0)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->cfg = *cfg;
	f->ops = ops;
	f->user = user;
	f->strategy = s;
	return f;
}

void hvtlb_flusher_destroy(struct hvtlb_flusher *f)
{
	free(f);
}

void hvtlb_flusher_set_trace(struct hvtlb_flusher *f, hvtlb_trace_fn fn,
			     void *data)
{
	if (!f)
		return;
	f->trace = fn;
	f->trace_data = fn ? data : NULL;
}

void core_trace(struct hvtlb_flusher *f, struct hvtlb_trace_event *e)
{
	if (f->trace)
		f->trace(f->trace_data, e);
}

void core_local_flush(struct hvtlb_flusher *f, const struct core_work *w)
{
	struct hvtlb_trace_event e = {
		.kind = HVTLB_TRACE_LOCAL_FLUSH,
		.cpu = w->req->initiator,
		.range = &w->range,
	};

	f->ops->local_flush(f->user, w->req->initiator, &w->range);
	core_trace(f, &e);
}

enum hvtlb_cpu_state core_cpu_state(struct hvtlb_flusher *f, uint32_t cpu)
{
	if (!f->ops->cpu_state)
		return HVTLB_CPU_RUNNING;
	return f->ops->cpu_state(f->user, cpu);
}

void core_get_hints(struct hvtlb_flusher *f, struct hvtlb_hints *h)
{
	memset(h, 0, sizeof(*h));
	if (f->ops->get_hints)
		f->ops->get_hints(f->user, h);
}

int core_ipi_shootdown(struct hvtlb_flusher *f, const struct core_work *w,
		       const struct hvtlb_cpumask *targets, bool with_local)
{
	bool local = with_local && w->local;
	uint32_t n = core_cpumask_weight_n(targets, w->req->ncpus);
	struct hvtlb_ipi_flush ipi = {
		.range = w->range,
		/* A target that acknowledges before it flushes may still walk
		 * freed page tables: never acknowledge early then. */
		.early_ack = f->cfg.early_ack && !w->req->freed_tables,
	};
	struct hvtlb_trace_event e = { .targets = targets };

	if (local && !f->cfg.concurrent)
		core_local_flush(f, w);
	if (n) {
		f->ops->send_ipis(f->user, targets, &ipi);
		e.kind = HVTLB_TRACE_IPI;
		e.range = &ipi.range;
		core_trace(f, &e);
		f->out->ipis += n;
	}
	if (local && f->cfg.concurrent)
		core_local_flush(f, w);
	if (n) {
		f->ops->wait_acks(f->user, targets);
		e.kind = HVTLB_TRACE_WAIT;
		e.range = NULL;
		core_trace(f, &e);
	}
	return 0;
}

int core_fall_back(struct hvtlb_flusher *f, const struct core_work *w)
{
	f->out->fell_back = true;
	return core_ipi_shootdown(f, w, &w->remote, false);
}

int core_vmm_flush(struct hvtlb_flusher *f, const struct core_work *w,
		   const struct hvtlb_flush_range *range)
{
	struct hvtlb_hints hints;
	struct hvtlb_trace_event e = {
		.kind = HVTLB_TRACE_VMM_FLUSH,
		.targets = &w->remote,
		.range = range,
	};
	int rc;

	core_get_hints(f, &hints);
	if (!f->ops->vmm_flush || !hints.vmm_assist)
		return core_ipi_shootdown(f, w, &w->remote, true);
	if (w->local)
		core_local_flush(f, w);
	rc = f->ops->vmm_flush(f->user, &w->remote, range);
	core_trace(f, &e);
	if (rc < 0)
		return core_fall_back(f, w);
	return 0;
}

/*
 * The remote set: the targets without the initiator, without offline CPUs,
 * and without CPUs in lazy TLB mode when lazy_skip is on and no page table
 * was freed (a lazy CPU catches up when it next switches to the mm; a freed
 * page table must not stay reachable by its page walker).
 */
static void prepare_remote(struct hvtlb_flusher *f, struct core_work *w)
{
	const struct hvtlb_flush_request *req = w->req;
	bool skip_lazy = f->cfg.lazy_skip && !req->freed_tables;

	w->remote = req->targets;
	hvtlb_cpumask_clear(&w->remote, req->initiator);
	core_for_each_cpu(cpu, &w->remote, req->ncpus)
	{
		enum hvtlb_cpu_state st = core_cpu_state(f, cpu);

		if (st == HVTLB_CPU_OFFLINE ||
		    (skip_lazy && st == HVTLB_CPU_LAZY))
			hvtlb_cpumask_clear(&w->remote, cpu);
	}
}

int hvtlb_flush(struct hvtlb_flusher *f, const struct hvtlb_flush_request *req,
		struct hvtlb_flush_outcome *out)
{
	struct hvtlb_flush_outcome o = { 0 };
	struct core_work w = { .req = req };
	struct hvtlb_trace_event e = { .kind = HVTLB_TRACE_REQUEST };
	uint64_t mask;
	int rc = 0;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!f || hvtlb_request_validate(req))
		return -EINVAL;
	f->out = &o;

	w.range = req->range;
	if (!w.range.all) {
		w.pages = hvtlb_range_pages(&req->range);
		mask = (1ULL << w.range.stride_shift) - 1;
		w.range.start &= ~mask;
		w.range.end = w.range.start + (w.pages << w.range.stride_shift);
		if (w.pages > f->cfg.full_flush_ceiling) {
			w.range.all = true;
			w.pages = 0;
			o.full_flush = true;
		}
	}
	if (w.range.all) {
		w.range.start = 0;
		w.range.end = UINT64_MAX;
	}
	e.ncpus = core_cpumask_weight_n(&req->targets, req->ncpus);
	e.address_space = req->address_space;
	e.start = w.range.start;
	e.end = w.range.end;
	core_trace(f, &e);

	/* An empty range needs no flush at all. */
	if (!w.range.all && w.pages == 0)
		goto done;
	w.local = hvtlb_cpumask_test(&req->targets, req->initiator);
	prepare_remote(f, &w);
	if (core_cpumask_next_n(&w.remote, 0, req->ncpus) == HVTLB_MAX_CPUS) {
		/* Nobody else to reach: the cheapest choice is obvious. */
		if (w.local)
			core_local_flush(f, &w);
		goto done;
	}
	rc = f->strategy->flush(f, &w);
done:
	f->out = NULL;
	if (out)
		*out = o;
	return rc;
}
