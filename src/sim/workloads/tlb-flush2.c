// SPDX-License-Identifier: MIT
/*
 * will-it-scale's tlb_flush2 (tests/tlb_flush2.c, "TLB flush of anonymous
 * memory private mapping"), threads mode: every thread maps
 * workload.pages pages of private anonymous memory (256: 1 MiB) and, page
 * by page, in one loop iteration:
 *
 *   - writes the page: a fault that allocates and zeroes a page
 *     (do_anonymous_page), under the mmap lock's read side, or the
 *     mapping's own lock with guest.fault_vma_lock (Linux >= 6.4);
 *   - madvise(MADV_DONTNEED)s that one page: the mmap lock's read side,
 *     zap_page_range() (lru_add_drain(), the PTE cleared, a flush of one
 *     page to every CPU of mm_cpumask, the page freed after the flush);
 *   - reads it back (assert(*(addr + i) == 0)): a fault that maps the
 *     shared zero page, nothing allocated;
 *   - counts one.
 *
 * After the last page the thread unmaps the mapping (munmap: the mmap
 * lock's write side, a flush of the whole range, which maps only the zero
 * page by then, so nothing is freed) and maps a new one (mmap: write
 * side). All threads are one process: every flush goes to every CPU the
 * process runs on. With workload.shared the threads loop over the
 * process's one shared mapping and never remap it.
 */
#include "sim/guest.h"
#include "sim/machine.h"
#include "sim/mm.h"
#include "sim/workload.h"

static void tlb_flush2_op(struct task *t, uint32_t *own, uint64_t i)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	uint32_t p = (uint32_t)(i % m->pages);
	simtime user = 0, sys = 0;
	uint64_t va;

	if (!p && i && !s->c->wl_shared) {
		sim_do_munmap(t, *own);
		sim_do_mmap(t, own);
	}
	va = slot_va(m, *own) + ((uint64_t)p << m->shift);
	sim_user_work(t);
	sim_t_touch(t, va, &user, &sys);
	sim_t_work(t, sys, ACCT_SYS);
	sim_t_work(t, user, ACCT_USER);
	sim_do_madvise_range(t, *own, p, 1);
	user = sys = 0;
	sim_t_read_anon(t, va, &user, &sys);
	sim_t_work(t, sys, ACCT_SYS);
	sim_t_work(t, user, ACCT_USER);
	sim_maybe_sleep(t);
}

const struct sim_workload sim_workload_TLB_FLUSH2 = {
	.own_slot = true,
	.op = tlb_flush2_op,
};
