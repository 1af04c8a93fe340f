// SPDX-License-Identifier: MIT
/*
 * The hypervisor side of the guest's flush calls: it decodes a flush
 * hypercall with hvtlb_decode() under the scenario's host profile, posts
 * the ranges to each target's flush queue (hvtlb_flushq, "flush
 * everything" on overflow), kicks the targets that are running and waits
 * for their acknowledgements; a target that is not running flushes before
 * its next entry, where KVM's deferred flush (the preempted byte) is
 * honoured too.
 */
#include <errno.h>
#include <string.h>

#include <hvtlb/hypercall.h>

#include "sim/backend.h"
#include "sim/guest.h"
#include "sim/host.h"
#include "sim/hypervisor.h"
#include "sim/machine.h"
#include "sim/oracle.h"
#include "sim/stats.h"
#include "sim/vcpu-tlb.h"

int sim_hv_vcpu_init(struct vcpu *v)
{
	if (hvtlb_flushq_init(&v->hv.fq))
		return -ENOMEM;
	v->hv.fq_ready = true;
	return 0;
}

void sim_hv_vcpu_finish(struct vcpu *v)
{
	if (v->hv.fq_ready)
		hvtlb_flushq_finish(&v->hv.fq);
	v->hv.fq_ready = false;
}

/* The hypervisor's flush requests for @p v, before entry or on a kick. */
static simtime vcpu_service_fq(struct sim *s, struct vcpu *v)
{
	struct hvtlb_flushq_batch b;
	simtime h = 0;
	bool global;

	if (!hvtlb_flushq_pending(&v->hv.fq))
		return 0;
	hvtlb_flushq_drain(&v->hv.fq, &b);
	global = v->hv.fq_global;
	v->hv.fq_global = false;
	if (b.all) {
		sim_vcpu_flush_all(s, v, HVTLB_SIM_FLUSH_HYPERVISOR, global);
		return flush_cost(s, true, 0);
	}
	for (size_t i = 0; i < b.n; i++) {
		unsigned sh = hvtlb_page_shift(b.ranges[i].size);
		struct hvtlb_flush_range r = {
			.start = b.ranges[i].gva,
			.end = b.ranges[i].gva + (b.ranges[i].pages << sh),
			.stride_shift = sh,
		};

		sim_vcpu_flush_range(s, v, &r, ~0u, HVTLB_SIM_FLUSH_HYPERVISOR);
		h += flush_cost(s, false, b.ranges[i].pages);
	}
	return h;
}

/* Work the hypervisor does for @p v before it enters: KVM exchanges the
 * preempted byte with 0 and flushes if asked to, then the flush queue.
 * Returns its cycles. */
simtime sim_hv_vcpu_entry(struct sim *s, struct vcpu *v)
{
	simtime h = 0;
	unsigned old = v->steal;
	bool lost = false;

	v->steal = 0;
	if (old & HVTLB_KVM_VCPU_FLUSH_TLB) {
		if (s->c->fault != HVTLB_SIM_FAULT_LOSE_DEFERRED) {
			/* KVM flushes the whole guest context. */
			sim_vcpu_flush_all(s, v, HVTLB_SIM_FLUSH_DEFERRED,
					   true);
			h += flush_cost(s, true, 0);
		} else {
			lost = true;
		}
	}
	h += vcpu_service_fq(s, v);
	/* Still holds what a completed flush covered: the lost one was
	 * needed. */
	if (lost && sim_oracle_holds_stale(s, v))
		fault_hit(s);
	return h;
}

/* Some target of @p vps still runs guest code with its queue pending and
 * holds what the guest's flush must drop: returning now leaves it in
 * guest mode with a stale translation. */
static bool kicks_unserviced(struct sim *s, struct vcpu *v, const uint8_t *vps)
{
	const struct task *t = cur_task(v);

	for (uint32_t i = 0; i < s->c->vcpus; i++) {
		struct vcpu *tv = vm_vcpu(s, v, i);

		if (vps[i] && tv != v && tv->hs == H_RUNNING &&
		    hvtlb_flushq_pending(&tv->hv.fq) &&
		    sim_oracle_needs(s, tv, t->of))
			return true;
	}
	return false;
}

/* An EV_KICK's argument: the initiator's vCPU (bits 32-61), its ack_seq
 * (bits 0-31), whether the target was in an exit when the flush was
 * posted, and whether the VMM flushes for it (vmm-assist). */
#define KICK_FROM_MASK 0x3fffffffu
#define KICK_EXIT 62
#define KICK_VMM 63

/* Posts a flush of @p ranges (or all; @p global: global entries too) to
 * the targets, kicks the running ones and counts the acknowledgements to
 * wait for. */
static void hv_post(struct sim *s, struct vcpu *v, const uint8_t *vps,
		    const struct hvtlb_gva_range *ranges, size_t n, bool all,
		    bool global, simtime per_target, bool vmm)
{
	simtime kick = cyc(s, SIM_COST_kick), self = 0;
	uint32_t ntargets = 0;
	enum hvtlb_sim_target_state st;
	bool chain = sim_send_begin(v);

	v->sd.ack_seq++;
	v->sd.ack_wait = 0;
	for (uint32_t i = 0; i < s->c->vcpus; i++) {
		if (!vps[i])
			continue;
		struct vcpu *tv = vm_vcpu(s, v, i);

		ntargets++;
		/* Ranges drop the global entries of their addresses; if the
		 * queue folds them into "everything", that must too. */
		tv->hv.fq_global |= global || !all;
		if (all || hvtlb_flushq_push(&tv->hv.fq, ranges, n) == 1) {
			if (!all)
				s->r->flushes[HVTLB_SIM_FLUSH_OVERFLOW]++;
			hvtlb_flushq_push_all(&tv->hv.fq);
		}
		if (tv == v) {
			/* The caller's own TLB, before returning to it. */
			self = vcpu_service_fq(s, v);
			continue;
		}
		st = sim_target_posted(s, tv);
		if (tv->hs == H_RUNNING) {
			sim_send_queue(
				s, v, chain, s->now + kick, EV_KICK, tv->gid,
				((uint64_t)v->gid << 32) | v->sd.ack_seq |
					((uint64_t)vmm << KICK_VMM) |
					((uint64_t)(st == HVTLB_SIM_TARGET_EXIT)
					 << KICK_EXIT));
			v->sd.ack_wait++;
		} else {
			/* Not running: serviced before its next entry. */
			sim_target_acked(s, st, 0);
		}
	}
	sim_send_end(s, v, chain);
	sim_t_work(cur_task(v), per_target * ntargets + self, ACCT_SYS);
	if (s->c->fault == HVTLB_SIM_FAULT_NO_WAIT ||
	    (s->c->fault == HVTLB_SIM_FAULT_HOST_NO_WAIT && !vmm)) {
		if (kicks_unserviced(s, v, vps))
			fault_hit(s);
		v->sd.ack_seq++;
		v->sd.ack_wait = 0;
		return;
	}
	sim_acct_ack_wait(s, cur_task(v), true);
	sim_t_spin(cur_task(v));
	sim_acct_ack_wait(s, cur_task(v), false);
}

/*
 * Marks in @p vps the vCPUs that the VPs of @p d name (VP indices below
 * the VM's count; hypervisor.vp_index_offset shifts them round) and
 * returns the last one other than @p self, or NONE_ID. One step per
 * target, from the decoder's mask (the guest's input is bounded there).
 */
static uint32_t vps_of(const struct sim *s, const struct hvtlb_decoded *d,
		       uint32_t self, uint8_t *vps)
{
	uint32_t n = s->c->vcpus, shift = n - s->c->vp_index_offset % n;
	uint32_t last = NONE_ID;
	struct hvtlb_vpmask mask;

	memset(vps, 0, n);
	hvtlb_decoded_vpmask(d, &mask); /* only VPs below n */
	for (uint32_t w = 0; w < (n + 63) / 64; w++) {
		for (uint64_t b = mask.bits[w]; b; b &= b - 1) {
			/* (vp + n - offset % n) % n: vp < n, shift in 1..n */
			uint32_t cpu =
				w * 64 + (uint32_t)__builtin_ctzll(b) + shift;

			if (cpu >= n)
				cpu -= n;
			vps[cpu] = 1;
			if (cpu != self)
				last = cpu;
		}
	}
	return last;
}

/* vp-as-cpu: the guest meant CPU numbers; a CPU it named (as a VP) that
 * the VP set does not reach and that needed the flush is a hit. */
static void count_vp_confusion(struct sim *s, struct vcpu *v,
			       const struct hvtlb_decoded *d,
			       const uint8_t *vps)
{
	struct hvtlb_vp_iter vi;
	uint32_t meant;

	hvtlb_vp_iter_init(&vi, d);
	while (hvtlb_vp_iter_next(&vi, &meant)) {
		if (meant < s->c->vcpus && meant != v->idx && !vps[meant] &&
		    sim_oracle_needs(s, vm_vcpu(s, v, meant),
				     cur_task(v)->of)) {
			fault_hit(s);
			return;
		}
	}
}

/* The scenario's decoder host reads a call of vCPU @p v, its input in the
 * vCPU's own page of guest memory. */
static uint64_t host_decode(const struct sim *s, const struct vcpu *v,
			    uint64_t control, const void *input, size_t len,
			    struct hvtlb_decoded *d)
{
	struct hvtlb_host host = {
		.profile = s->c->decoder,
		.vp_count = s->c->vcpus,
		.va_bits = 48,
		.caller_vp = v->idx,
	};
	struct hvtlb_input in = {
		.data = input,
		.len = len,
		.gpa = 0x100000 + ((uint64_t)v->idx << 12),
	};

	return hvtlb_decode(&host, control, &in, d);
}

uint64_t sim_op_hypercall(void *user, uint64_t control, const void *input,
			  size_t len)
{
	struct vcpu *v = user;
	struct sim *s = v->s;
	struct task *t = cur_task(v);
	struct hvtlb_decoded d;
	struct hvtlb_gva_range ranges[HVTLB_FLUSHQ_MAX_RANGES + 1];
	uint8_t vps[HVTLB_SIM_MAX_VCPUS];
	size_t n = 0;
	bool all, global;
	uint64_t res;

	if (!t)
		return hvtlb_result_pack(HVTLB_STATUS_INVALID_PARAMETER, 0);
	s->r->hypercalls++;
	sim_count_exit(s, v, HVTLB_SIM_EXIT_HYPERCALL, 1);
	sim_t_work(t, cyc(s, SIM_COST_hypercall), ACCT_SYS);
	res = host_decode(s, v, control, input, len, &d);
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
	uint32_t last = vps_of(s, &d, v->idx, vps);

	if (s->c->fault == HVTLB_SIM_FAULT_VP_AS_CPU)
		count_vp_confusion(s, v, &d, vps);
	if (s->c->fault == HVTLB_SIM_FAULT_DROP_TARGET && last != NONE_ID) {
		vps[last] = 0;
		if (sim_oracle_needs(s, vm_vcpu(s, v, last), t->of))
			fault_hit(s);
	}
	hv_post(s, v, vps, ranges, n, all, global,
		cyc(s, SIM_COST_hv_per_target), false);
	return res;
}

hvtlb_status sim_hv_ipi_call(struct sim *s, struct vcpu *v, uint64_t control,
			     const void *input, size_t len,
			     struct hvtlb_cpumask *to)
{
	struct hvtlb_decoded d;
	struct hvtlb_vpmask mask;
	uint32_t n = s->c->vcpus, shift = n - s->c->vp_index_offset % n;
	uint64_t res = host_decode(s, v, control, input, len, &d);

	if (hvtlb_result_status(res) != HVTLB_STATUS_SUCCESS)
		return hvtlb_result_status(res);
	if (d.call != HVTLB_CALL_SEND_IPI && d.call != HVTLB_CALL_SEND_IPI_EX)
		return HVTLB_STATUS_INVALID_HYPERCALL_CODE;
	memset(to, 0, sizeof(*to));
	hvtlb_decoded_vpmask(&d, &mask); /* only VPs below n */
	for (uint32_t w = 0; w < (n + 63) / 64; w++) {
		for (uint64_t b = mask.bits[w]; b; b &= b - 1) {
			/* as vps_of(): the CPU of VP vp < n, shift in 1..n */
			uint32_t cpu =
				w * 64 + (uint32_t)__builtin_ctzll(b) + shift;

			hvtlb_cpumask_set(to, cpu >= n ? cpu - n : cpu);
		}
	}
	return HVTLB_STATUS_SUCCESS;
}

int sim_op_vmm_flush(void *user, const struct hvtlb_cpumask *targets,
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
	sim_count_exit(s, v, HVTLB_SIM_EXIT_HYPERCALL, 1);
	sim_t_work(t, cyc(s, SIM_COST_hypercall), ACCT_SYS);
	if (s->c->fault == HVTLB_SIM_FAULT_DROP_TARGET) {
		drop = last_cpu(targets);
		if (drop < s->c->vcpus &&
		    sim_oracle_needs(s, vm_vcpu(s, v, drop), t->of))
			fault_hit(s);
	}
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

/* EV_KICK: the hypervisor's kick reaches a vCPU: if it runs, it exits
 * and flushes what its queue holds; either way it acknowledges. */
void sim_hv_on_kick(struct sim *s, const struct event *e)
{
	struct vcpu *v = &s->v[e->obj];
	uint32_t from = (uint32_t)(e->arg >> 32) & KICK_FROM_MASK;
	uint32_t seq = (uint32_t)e->arg;
	simtime at = s->now;
	enum hvtlb_sim_target_state st = (e->arg >> KICK_EXIT) & 1
						 ? HVTLB_SIM_TARGET_EXIT
						 : HVTLB_SIM_TARGET_RUNNING;

	TRACE(s, HVTLB_SIM_TRACE_KICK, v, TR_NONE, s->now, s->v[from].idx,
	      v->hs == H_RUNNING);
	if (v->hs == H_RUNNING) {
		simtime h = cyc(s, SIM_COST_vmexit);

		sim_count_exit(s, v, HVTLB_SIM_EXIT_KICK, 1);
		h += (e->arg >> KICK_VMM) & 1 ? cyc(s, SIM_COST_vmm_target) : 0;
		h += vcpu_service_fq(s, v);
		at = sim_vcpu_steal(s, v, h);
	}
	sim_target_acked(s, st, at - (s->now - cyc(s, SIM_COST_kick)));
	sim_ack_post(s, from, seq, at);
}
