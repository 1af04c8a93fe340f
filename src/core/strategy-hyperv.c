// SPDX-License-Identifier: MIT
/*
 * Hyper-V hypercall flush, decided as Linux's hyperv_flush_tlb_multi
 * decides (docs/wire-format.md, "What the guest chooses"): one hypercall
 * instead of one IPI per target.
 *
 * Not recommended by the hints, or no hypercall op: native IPIs. Else the
 * initiator flushes locally first and the call names the remote targets:
 * ALL_PROCESSORS (non-Ex) when the targets are every present CPU, non-Ex
 * when every target VP is below 64, Ex otherwise. Space + NON_GLOBAL for a
 * full flush, Space when the range does not fit the input page, List
 * otherwise. Anything that cannot be expressed (a VP >= 4096, Ex not
 * offered) or fails (a status other than success, a host breaking the rep
 * protocol) falls back to IPIs for exactly the remote targets.
 *
 * Beyond Linux (knobs): XMM fast input when offered and it fits, compact
 * VP sets, extended large-page GVA entries when offered.
 */
#include "core/core-private.h"

static uint64_t hv_call(void *data, uint64_t control, const void *input,
			size_t len)
{
	struct hvtlb_flusher *f = data;
	struct hvtlb_trace_event e = {
		.kind = HVTLB_TRACE_HYPERCALL,
		.control = control,
	};

	e.result = f->ops->hypercall(f->user, control, input, len);
	f->out->hypercalls++;
	core_trace(f, &e);
	return e.result;
}

static bool all_present(const struct hvtlb_flush_request *req)
{
	return core_cpumask_weight_n(&req->targets, req->ncpus) == req->ncpus;
}

/* Maps the remote targets to VPs. Returns the highest VP, or
 * HVTLB_MAX_VPS when one cannot be named in a VP set. */
static uint32_t map_vps(struct hvtlb_flusher *f, const struct core_work *w,
			struct hvtlb_vpmask *vps)
{
	uint32_t max = 0;

	core_for_each_cpu(cpu, &w->remote, w->req->ncpus)
	{
		uint32_t vp =
			f->ops->vp_index ? f->ops->vp_index(f->user, cpu) : cpu;

		if (vp >= HVTLB_MAX_VPS)
			return HVTLB_MAX_VPS;
		hvtlb_vpmask_set(vps, vp);
		if (vp > max)
			max = vp;
	}
	return max;
}

/* The fast form when offered and it fits, else the memory form. */
static int encode(struct hvtlb_flusher *f, struct hvtlb_call_desc *d,
		  bool fast_offered)
{
	d->fast = fast_offered;
	if (fast_offered && !hvtlb_encode(d, &f->scratch))
		return 0;
	d->fast = false;
	return hvtlb_encode(d, &f->scratch);
}

static int hyperv_flush(struct hvtlb_flusher *f, const struct core_work *w)
{
	const struct hvtlb_flush_request *req = w->req;
	const struct hvtlb_flush_range *r = &w->range;
	struct hvtlb_hints hints;
	struct hvtlb_vpmask vps = { { 0 } };
	struct hvtlb_gva_range gva;
	struct hvtlb_call_desc d = {
		.address_space = req->address_space,
		.vps = &vps,
		.vpset_style = f->cfg.compact_vpset ? HVTLB_VPSET_COMPACT
						    : HVTLB_VPSET_LINUX,
	};
	bool ex = false;
	uint64_t result;

	core_get_hints(f, &hints);
	if (!hints.remote_flush_recommended || !f->ops->hypercall)
		return core_ipi_shootdown(f, w, &w->remote, true);

	if (w->local)
		core_local_flush(f, w);

	if (all_present(req)) {
		d.flags |= HVTLB_FLUSH_ALL_PROCESSORS;
		d.vps = NULL;
	} else {
		uint32_t max = map_vps(f, w, &vps);

		if (max >= HVTLB_MAX_VPS)
			return core_fall_back(f, w);
		ex = max >= 64;
		if (ex && !hints.ex_available)
			return core_fall_back(f, w);
	}

	if (r->all) {
		d.call =
			ex ? HVTLB_CALL_FLUSH_SPACE_EX : HVTLB_CALL_FLUSH_SPACE;
		if (!r->include_global)
			d.flags |= HVTLB_FLUSH_NON_GLOBAL_MAPPINGS_ONLY;
	} else {
		gva.gva = r->start;
		gva.pages = w->pages << (r->stride_shift - 12);
		gva.size = HVTLB_PAGE_4K;
		if (r->stride_shift > 12 && f->cfg.extended_ranges &&
		    hints.extended_ranges) {
			d.flags |= HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT;
			gva.pages = w->pages;
			gva.size = r->stride_shift == 30 ? HVTLB_PAGE_1G
							 : HVTLB_PAGE_2M;
		}
		d.call = ex ? HVTLB_CALL_FLUSH_LIST_EX : HVTLB_CALL_FLUSH_LIST;
		d.ranges = &gva;
		d.nranges = 1;
		/* A range that does not fit the input page: the whole space,
		 * global mappings included (they may be in the range). */
		if (hvtlb_encode_suggest(&d) != d.call) {
			d.call = ex ? HVTLB_CALL_FLUSH_SPACE_EX
				    : HVTLB_CALL_FLUSH_SPACE;
			d.flags &= ~(
				uint64_t)HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT;
			d.ranges = NULL;
			d.nranges = 0;
			f->out->full_flush = true;
		}
	}

	if (encode(f, &d, f->cfg.xmm_fast && hints.xmm_input))
		return core_fall_back(f, w);
	if (hvtlb_rep_call(f->scratch.control, f->scratch.input, f->scratch.len,
			   hv_call, f, &result) ||
	    hvtlb_result_status(result) != HVTLB_STATUS_SUCCESS)
		return core_fall_back(f, w);
	return 0;
}

const struct core_strategy core_strategy_HYPERV = {
	.kind = HVTLB_STRATEGY_HYPERV,
	.flush = hyperv_flush,
	.needs = { .remote_flush_recommended = true, .ex_available = true },
};
