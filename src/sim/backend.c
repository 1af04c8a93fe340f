// SPDX-License-Identifier: MIT
/*
 * The backend the guest's strategies (src/core, one hvtlb_flusher per
 * vCPU) flush through: local flushes, flush IPIs through the virtual
 * APIC, CPU states as the guest sees them, the KVM preempted byte,
 * hardware broadcast invalidation and lazy invalidation records. Every op
 * charges virtual time by yielding the calling task; the hypercall and
 * VMM-assisted ops are the hypervisor's (hypervisor.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/backend.h"
#include "sim/guest.h"
#include "sim/hypervisor.h"
#include "sim/ipi-send.h"
#include "sim/machine.h"
#include "sim/oracle.h"
#include "sim/stats.h"
#include "sim/vcpu-tlb.h"

static void op_local_flush(void *user, uint32_t cpu,
			   const struct hvtlb_flush_range *r)
{
	struct vcpu *v = user;
	struct sim *s = v->s;
	struct task *t = cur_task(v);

	(void)cpu;
	if (!t)
		return;
	if (t->no_gen && s->c->fault == HVTLB_SIM_FAULT_GEN_ZERO_SKIP) {
		/* flush_tlb_func() took it for an old flush (whether that
		 * did harm is known when the shootdown returns) */
		t->local_skipped = true;
		return;
	}
	sim_vcpu_flush_range(s, v, r, s->mm[t->mm].id, HVTLB_SIM_FLUSH_LOCAL);
	v->guest.mm_gen = s->mm[t->mm].tlb_gen;
	sim_t_work(t, flush_cost(s, r->all, hvtlb_range_pages(r)), ACCT_SYS);
}

/*
 * Whether the targets of @p f acknowledge before they flush. With
 * guest.early_ack_pages the guest decides by the kind of request, as
 * Windows' KiIpiProcessRequests does: a flush of everything (process or
 * all) or of up to that many pages (a single page, or the up to seven
 * addresses KiIpiSendRequest copies into the target's mailbox) signals
 * done first; a longer list, read from the sender's memory, is flushed
 * first. Otherwise the strategy's early_ack knob decides.
 */
static bool ack_early(const struct sim *s, const struct hvtlb_ipi_flush *f)
{
	uint32_t n = s->c->early_ack_pages;

	if (!n)
		return f->early_ack;
	return f->range.all || hvtlb_range_pages(&f->range) <= n;
}

static void op_send_ipis(void *user, const struct hvtlb_cpumask *targets,
			 const struct hvtlb_ipi_flush *f)
{
	struct vcpu *v = user;
	struct sim *s = v->s;
	struct task *t = cur_task(v);
	uint32_t drop = HVTLB_MAX_CPUS;
	simtime send = s->c->ipiv ? 0 : cyc(s, SIM_COST_ipi_send);
	simtime deliver, spent, spin = 0;
	bool early = ack_early(s, f), chain;
	struct ipi_send ip;

	if (!t)
		return;
	if (s->c->fault == HVTLB_SIM_FAULT_DROP_TARGET)
		drop = last_cpu(targets);
	/* Round trip = sender exit + delivery + target handling. */
	deliver = cyc(s, SIM_COST_ipi_latency);
	deliver = deliver > send + cyc(s, SIM_COST_ipi_target)
			  ? deliver - send - cyc(s, SIM_COST_ipi_target)
			  : 0;
	v->sd.ack_seq++;
	v->sd.ack_wait = 0;
	sim_ipi_send_begin(&ip, v, targets, IPI_VECTOR_CALL_FUNCTION);
	chain = sim_send_begin(v);
	/* What the host delivers: the targets, or the set it decoded. */
	for (uint32_t c = hvtlb_cpumask_next(&ip.to, 0); c < s->c->vcpus;
	     c = hvtlb_cpumask_next(&ip.to, c + 1)) {
		struct vcpu *tv = vm_vcpu(s, v, c);

		if (c == drop && sim_oracle_needs(s, tv, t->of))
			fault_hit(s);
		if (s->c->ipi_mailbox) {
			/* The sender spins until its slot at tv is free. */
			simtime free_at =
				sim_ipi_mailbox_free_at(s, tv, v->gid);

			if (free_at - s->now > spin)
				spin = free_at - s->now;
		}
		simtime sent = sim_ipi_send_next(&ip, c);
		struct ipi_rec q = {
			.arrive = s->now + spin + sent + deliver,
			.from = v->gid,
			.seq = v->sd.ack_seq,
			.asid = s->mm[t->mm].id,
			.kind = IPI_FLUSH,
			.state = (uint8_t)sim_target_posted(s, tv),
			.lock = (uint8_t)sim_target_lock(s, tv),
			.posted = s->now,
			.early = early,
			.drop = c == drop,
			.no_gen = t->no_gen,
			.how = (uint8_t)ip.how,
			.r = f->range,
		};

		if (!sim_ipi_post(s, tv, &q))
			return;
		sim_send_queue(s, v, chain, q.arrive, EV_IPI, tv->gid, 0);
		v->sd.ack_wait++;
	}
	sim_send_end(s, v, chain);
	s->r->ipis_sent += ip.n;
	s->r->ipis[HVTLB_SIM_IPI_FLUSH] += ip.n;
	spent = sim_ipi_send_end(&ip);
	if (ip.nexits || spin)
		sim_t_work(t, spin + spent, ACCT_SYS);
}

/* A target of @p v's last flush IPIs may run guest code before it takes
 * its IPI (one in guest mode, or one the IPI has not reached yet) and
 * holds what the IPI flushes. */
static bool ipis_unhandled(struct vcpu *v, const struct hvtlb_cpumask *targets)
{
	struct sim *s = v->s;

	for (uint32_t c = hvtlb_cpumask_next(targets, 0); c < s->c->vcpus;
	     c = hvtlb_cpumask_next(targets, c + 1)) {
		struct vcpu *tv = vm_vcpu(s, v, c);

		for (uint32_t i = 0; tv != v && i < tv->irq.npend; i++) {
			const struct ipi_rec *q = &tv->irq.pend[i];

			if (q->from == v->gid && q->seq == v->sd.ack_seq &&
			    q->kind == IPI_FLUSH && !q->drop &&
			    (tv->hs == H_RUNNING || q->arrive > s->now) &&
			    sim_oracle_needs(s, tv, cur_task(v)->of))
				return true;
		}
	}
	return false;
}

static void op_wait_acks(void *user, const struct hvtlb_cpumask *targets)
{
	struct vcpu *v = user;
	struct task *t = cur_task(v);

	(void)targets;
	if (!t)
		return;
	if (v->s->c->fault == HVTLB_SIM_FAULT_NO_WAIT) {
		if (ipis_unhandled(v, targets))
			fault_hit(v->s);
		v->sd.ack_seq++; /* late acks are ignored */
		v->sd.ack_wait = 0;
		return;
	}
	v->sd.ipi_wait = true;
	sim_acct_ack_wait(v->s, t, true);
	sim_t_spin(t);
	sim_acct_ack_wait(v->s, t, false);
	v->sd.ipi_wait = false;
}

enum hvtlb_cpu_state sim_cpu_state(const struct vcpu *v, uint32_t cpu)
{
	const struct vcpu *tv = vm_vcpu(v->s, v, cpu);

	if (!tv)
		return HVTLB_CPU_OFFLINE;
	if (tv->gs.cur == NONE_ID && tv->guest.lazy)
		return HVTLB_CPU_LAZY;
	if (tv->hs == H_READY)
		return HVTLB_CPU_PREEMPTED;
	return HVTLB_CPU_RUNNING;
}

static enum hvtlb_cpu_state op_cpu_state(void *user, uint32_t cpu)
{
	return sim_cpu_state(user, cpu);
}

/* The VP index of @p cpu: hypervisor.vp_index_offset further, or the CPU
 * number itself with the vp-as-cpu fault. */
uint32_t sim_vp_index(const struct vcpu *v, uint32_t cpu)
{
	const struct hvtlb_sim_config *c = v->s->c;

	if (c->fault == HVTLB_SIM_FAULT_VP_AS_CPU || cpu >= c->vcpus)
		return cpu;
	return (uint32_t)(((uint64_t)cpu + c->vp_index_offset) % c->vcpus);
}

static uint32_t op_vp_index(void *user, uint32_t cpu)
{
	return sim_vp_index(user, cpu);
}

static void op_get_hints(void *user, struct hvtlb_hints *h)
{
	struct vcpu *v = user;
	const struct hvtlb_sim_config *c = v->s->c;

	/* the simulated host offers what the run's strategy uses; Ex and
	 * XMM input as the profile says */
	if (hvtlb_strategy_needs(c->strategy.kind, h))
		memset(h, 0, sizeof(*h));
	h->ex_available = c->offer_ex;
	h->xmm_input = c->offer_xmm;
	h->extended_ranges = false;
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
	if (desired & HVTLB_KVM_VCPU_FLUSH_TLB) {
		v->s->r->deferred_marked++;
		/* nobody waits for it: it flushes when it next enters */
		sim_target_acked(v->s, sim_target_posted(v->s, tv), 0);
	}
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
		sim_vcpu_flush_range(s, vm_vcpu(s, v, i), r, s->mm[t->mm].id,
				     HVTLB_SIM_FLUSH_BROADCAST);
	sim_t_work(t, cyc(s, SIM_COST_invlpgb), ACCT_SYS);
}

static void op_broadcast_sync(void *user)
{
	struct vcpu *v = user;
	struct task *t = cur_task(v);

	if (t)
		sim_t_work(t, cyc(v->s, SIM_COST_tlbsync), ACCT_SYS);
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
		if (tv->guest.lz_min_epoch == UINT64_MAX && tv->hs != H_HALTED)
			tv->guest.lz_min_epoch = epoch;
		tv->guest.lz_max_epoch = epoch;
		if (r->all || tv->guest.nlz >= slots || !tv->guest.lz) {
			tv->guest.lz_all = true;
			continue;
		}
		tv->guest.lz[tv->guest.nlz++] = (struct lazy_rec){
			.start = r->start,
			.end = r->end,
			.shift = r->stride_shift,
			.asid = s->mm[t->mm].id,
		};
	}
	t->debt += cyc(s, SIM_COST_lazy_post) * n;
	return epoch;
}

const struct hvtlb_backend_ops sim_backend_ops = {
	.version = HVTLB_BACKEND_OPS_VERSION,
	.local_flush = op_local_flush,
	.send_ipis = op_send_ipis,
	.wait_acks = op_wait_acks,
	.cpu_state = op_cpu_state,
	.hypercall = sim_op_hypercall,
	.vp_index = op_vp_index,
	.get_hints = op_get_hints,
	.read_preempted = op_read_preempted,
	.cmpxchg_preempted = op_cmpxchg_preempted,
	.broadcast_invalidate = op_broadcast_invalidate,
	.broadcast_sync = op_broadcast_sync,
	.vmm_flush = sim_op_vmm_flush,
	.lazy_post = op_lazy_post,
};
