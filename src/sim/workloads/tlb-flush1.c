// SPDX-License-Identifier: MIT
/*
 * will-it-scale's tlb_flush1 (tests/tlb_flush1.c, "TLB flush of separate
 * file private mapping"), threads mode: every thread creates a file of its
 * own (128 MiB, workload.pages pages), maps it MAP_PRIVATE and, page by
 * page, in one loop iteration:
 *
 *   - writes the page: a copy-on-write fault under the mmap lock's read
 *     side (file mappings take no per-VMA lock before Linux 6.x's
 *     extension to them). Where the page is not mapped it is
 *     do_cow_fault(): a new anonymous page with a copy of the page-cache
 *     page. Where an earlier read mapped it read-only (fault-around, next
 *     point), wp_page_copy() also clears the old PTE and flushes it from
 *     every CPU of the process first (ptep_clear_flush): a shootdown of
 *     one page inside the fault;
 *   - madvise(MADV_DONTNEED)s it: the mmap lock's read side, a flush of
 *     one page, the anonymous copy freed;
 *   - reads it back (assert(*(addr + i) == 0)): a read fault that maps
 *     the page-cache page, and with it every other unmapped page of its
 *     aligned 64 KiB window (do_fault_around(), fault_around_bytes 65536:
 *     16 pages) that is in the page cache;
 *   - counts one.
 *
 * After the last page: munmap and mmap of the same file (the lock's write
 * side). The file's pages stay in the page cache across passes, and
 * will-it-scale reports a rate after a warm-up of several seconds, so the
 * page cache is taken as full (the first pass, which fills it, is not
 * modelled): in a 16-page window the first write faults in a page that is
 * not mapped, the next fifteen find the page mapped read-only by
 * fault-around and flush it.
 */
#include "sim/guest.h"
#include "sim/machine.h"
#include "sim/mm.h"
#include "sim/workload.h"

/* fault_around_bytes (64 KiB) in 4 KiB pages */
#define FAULT_AROUND_PAGES 16u

static void tlb_flush1_op(struct task *t, uint32_t *own, uint64_t i)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	uint32_t p = (uint32_t)(i % m->pages);
	uint32_t window = m->shift == 12 ? FAULT_AROUND_PAGES : 1;

	if (!p && i && !s->c->wl_shared) {
		sim_do_munmap(t, *own);
		sim_do_mmap(t, own);
	}
	sim_user_work(t);
	sim_t_cow_write(t, *own, p);
	sim_do_madvise_range(t, *own, p, 1);
	sim_t_read_around(t, *own, p, window);
	sim_maybe_sleep(t);
}

const struct sim_workload sim_workload_TLB_FLUSH1 = {
	.own_slot = true,
	.op = tlb_flush1_op,
};
