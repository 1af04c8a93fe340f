/* SPDX-License-Identifier: MIT */
/* A process's memory and the system calls on it (guest-mm.c). */
#ifndef HVTLB_SIM_MM_H
#define HVTLB_SIM_MM_H

#include "sim/machine.h"

/* What a process may map (mm-grow.c): Linux's default vm.max_map_count
 * (DEFAULT_MAX_MAP_COUNT), and the end of x86-64's 4-level user address
 * space (TASK_SIZE_MAX). */
#define MM_MAX_MAP_COUNT 65530u
#define MM_TASK_SIZE_MAX ((1ULL << 47) - 4096)

/* Guest-virtual address of the first page of slot @p slot. */
static inline uint64_t slot_va(const struct mm *m, uint32_t slot)
{
	return GVA_BASE + (((uint64_t)slot * m->pages) << m->shift);
}

/* An access from user space to @p va; adds its cost to *user / *sys. A
 * fault runs under the mmap lock, read side, for its own duration (the
 * work before it is charged first). */
void sim_t_touch(struct task *t, uint64_t va, simtime *user, simtime *sys);
/* The same for a read: a fault of an anonymous page maps the shared zero
 * page (no allocation, no zeroing). */
void sim_t_read_anon(struct task *t, uint64_t va, simtime *user, simtime *sys);
/* A write to page @p page of a private file mapping: a copy-on-write
 * fault when it is not mapped (do_cow_fault), or, when it is mapped
 * read-only, one that clears and flushes the old PTE first
 * (wp_page_copy). */
void sim_t_cow_write(struct task *t, uint32_t slot, uint32_t page);
/* A read of page @p page of a file mapping; a fault maps it and the other
 * unmapped pages of its aligned @p window (do_fault_around). */
void sim_t_read_around(struct task *t, uint32_t slot, uint32_t page,
		       uint32_t window);
/* mmap: a free slot of the task's process, in *slot. */
void sim_do_mmap(struct task *t, uint32_t *slot);
/* munmap / madvise(DONTNEED) of the slot, with its shootdown. */
void sim_do_munmap(struct task *t, uint32_t slot);
void sim_do_madvise(struct task *t, uint32_t slot);
/* Page reclaim unmaps the slot's pages with one batched flush of
 * everything (no tlb generation). */
void sim_do_reclaim(struct task *t, uint32_t slot);
/* madvise(DONTNEED) of pages [first, first + n) of the slot. */
void sim_do_madvise_range(struct task *t, uint32_t slot, uint32_t first,
			  uint32_t n);
struct oracle_flush;

/* The most slots process @p m may have (MM_MAX_MAP_COUNT, or fewer when
 * its slots would pass MM_TASK_SIZE_MAX). */
uint32_t sim_mm_max_slots(const struct mm *m);
/* Grows process @p mmi's slot pool (lazy strategy: mmap when every freed
 * slot still waits for its lazy flush) and everything indexed by slot;
 * the new slots go on its free stack. 0, -ENOSPC when it has
 * sim_mm_max_slots() already, or -ENOMEM (nothing lost: the run fails). */
int sim_mm_grow_slots(struct sim *s, uint32_t mmi);

/* Issues @p req from @p t's vCPU through its strategy (the built-in one,
 * or config.flush_fn) and records the shootdown: count, latency, trace.
 * When the flush is reported complete the oracle checks what @p of says
 * it covered (its initiator and shootdown number are filled in here).
 * False (the run failed) if the strategy failed. */
bool sim_shootdown(struct task *t, const struct hvtlb_flush_request *req,
		   struct hvtlb_flush_outcome *out, struct oracle_flush *of);

#endif
