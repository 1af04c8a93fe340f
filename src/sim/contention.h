/* SPDX-License-Identifier: MIT */
/*
 * Contention on cache lines many CPUs write (contention.c), with
 * machine.contention: a line is a resource that serves one writer at a
 * time. An access by a CPU that does not hold the line waits for the
 * writes queued before it and pays a line transfer; a lock section holds
 * the line for its critical section. The hooks below are what the rest of
 * the engine calls; each is a no-op without machine.contention.
 *
 * What the per-operation costs (cost.h) already contain is not charged
 * again: they were measured on one thread, so they include the
 * uncontended atomic and the critical section itself. The hooks add the
 * waiting and the transfers only.
 */
#ifndef HVTLB_SIM_CONTENTION_H
#define HVTLB_SIM_CONTENTION_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/event.h"
#include "sim/vcpu-state.h"

struct sim;
struct task;
struct vcpu;

/* One cache line (or a spinlock's line and the data it guards). */
struct cline {
	simtime free_at;     /* the last queued write or section lets go */
	uint32_t owner;	     /* gid of the vCPU that wrote it last, or none */
	uint32_t owner_pcpu; /* the pCPU it wrote it from */
	uint64_t *readers;   /* vCPUs (VM index) holding a copy since the
			      * last write, or NULL: not read, only written */
};

/*
 * What the model leaves out, counted: a vCPU's last lock section (zone or
 * LRU lock) runs from its request to got + hold, fixed when it starts as
 * if the vCPU kept running. When the host preempts the vCPU inside that
 * window, a real spinlock would have stayed with it (held, or queued to
 * it) until it ran again; the hooks record the window and
 * sim_ct_on_vcpu_move() counts such preemptions and how long the vCPU
 * stayed off its pCPU (results: lock_sections, lock_waiters_preempted,
 * lock_holders_preempted, lock_preempted_off_ns). With guest.pv_spinlock
 * the window is the real one: from the request (sect_got and sect_end
 * SIM_NEVER) to the grant (sect_got) and the release (sect_end).
 */
struct vcpu_ct {
	simtime sect_got; /* the last section's start (its wait ends) */
	simtime sect_end; /* its modelled release */
	simtime off_since;
	bool off; /* preempted inside a section, not yet run again */
};

/* Sets up s->ct when machine.contention is on (0 or -ENOMEM). */
int sim_contention_setup(struct sim *s);
void sim_contention_teardown(struct sim *s);
/* Process @p mm now has @p nslots slots: its per-slot lines and per-PTE
 * bits follow (0 or -ENOMEM, the old arrays left intact). */
int sim_ct_mm_grow(struct sim *s, uint32_t mm, uint32_t nslots);

/* The primitives: the cycles the access costs @p v beyond an uncontended
 * one, from now. A write (an atomic read-modify-write): waits for the
 * queued writes, pays a transfer unless @p v wrote it last and nobody
 * read it since. A read: waits for the queued writes, pays a transfer
 * unless @p v holds a copy. A section (a spinlock taken, held @p hold
 * cycles, released): a write that keeps the line @p hold cycles more. */
simtime sim_cl_write(struct sim *s, struct cline *l, const struct vcpu *v);
simtime sim_cl_read(struct sim *s, struct cline *l, const struct vcpu *v);
simtime sim_cl_section(struct sim *s, struct cline *l, const struct vcpu *v,
		       simtime hold);

/* The hooks. Those that take a task charge the wait to it (sys) before
 * they return; the others return it for the caller to add. */
/* The mmap lock word (rwsem count): one atomic per lock or unlock. */
void sim_ct_mmap_lock(struct task *t);
/* The per-VMA lock of slot @p slot (guest.fault_vma_lock): one atomic. */
void sim_ct_vma_lock(struct task *t, uint32_t slot);
/* flush_tlb_mm_range() of the task's mm: the tlb_gen increment and the
 * read of mm_cpumask. */
void sim_ct_flush_begin(struct task *t);
/* A CPU reads mm @p mm's tlb_gen (flush handler, switch_mm). */
simtime sim_ct_tlb_gen_read(struct sim *s, const struct vcpu *v, uint32_t mm);
/* A CPU sets or clears its bit of mm @p mm's cpumask. */
simtime sim_ct_cpumask_write(struct sim *s, const struct vcpu *v, uint32_t mm);
/* An anonymous page allocated in a fault (PTE @p idx of mm @p mm): the
 * per-CPU free list (zone lock when empty) and the LRU add batch (LRU lock
 * when full). */
simtime sim_ct_page_alloc(struct sim *s, struct vcpu *v, uint32_t mm,
			  uint64_t idx);
/* guest.pv_spinlock: the task runs the sections its fault's page
 * allocations owe (struct task's ct_pend), before it drops the fault's
 * lock. */
void sim_ct_sections(struct task *t);
/* Of the @p n pages @p zidx of the slot at PTE @p base of mm @p mm just
 * zapped, how many were anonymous pages of the process (to be freed). */
uint32_t sim_ct_zap_anon(struct sim *s, uint32_t mm, uint64_t base,
			 const uint32_t *zidx, uint32_t n);
/* lru_add_drain() at the start of a zap. */
void sim_ct_lru_drain(struct task *t);
/* @p n anonymous pages freed after a zap's flush (release_pages, then
 * the per-CPU free list). */
void sim_ct_pages_free(struct task *t, uint32_t n);
/* The host moves @p v from its state to @p to (vcpu-state.c, before the
 * move): counts a preemption inside a lock section and the time until
 * the vCPU runs again. */
void sim_ct_on_vcpu_move(struct sim *s, struct vcpu *v, enum hstate to);

#endif
