// SPDX-License-Identifier: MIT
/*
 * oracle-stress: a workload built to expose a broken flush protocol fast.
 * Before and after each operation a thread touches every page of its
 * process's two shared mappings (slots 0 and 1), so every vCPU that runs
 * one of the process's threads holds every translation of them nearly all
 * the time, an initiator too while it waits for its own flush (it zaps
 * one of the two); the operation
 *  - zaps one shared mapping with madvise(DONTNEED) (half the time): under
 *    the read side of the mmap lock, so other threads keep touching and
 *    refaulting it while the flush is in flight;
 *  - or has the page-reclaim path unmap one (a quarter): the same zap
 *    batched into one flush of everything, which carries no tlb
 *    generation (Linux's arch_tlbbatch_flush);
 *  - or does an mmap-search operation (a quarter): maps a chunk, fills it,
 *    reads random pages of the other threads' live chunks and unmaps it,
 *    freeing page tables when the chunk spans 2 MiB of 4 KiB pages, so
 *    remote and lazy vCPUs hold translations of mappings that go away
 *    (it sleeps up to workload.sleep_ns_max itself);
 * then the thread sleeps up to workload.sleep_ns_max (idle vCPUs enter
 * lazy TLB mode). workload.kernel_pages, page_size, overcommit and the
 * guest and strategy switches combine with it as with any workload.
 */
#include "sim/machine.h"
#include "sim/mm.h"
#include "sim/workload.h"

/* Touches every page of both shared mappings. */
static void touch_shared(struct task *t)
{
	sim_touch(t, 0, HVTLB_SIM_TOUCH_ALL, 0);
	sim_touch(t, 1, HVTLB_SIM_TOUCH_ALL, 0);
}

static void stress_op(struct task *t, uint32_t *own, uint64_t i)
{
	uint32_t shared = *own;
	/* The one it zaps: the initiator keeps holding the other's
	 * translations while it waits for its flush. */
	uint32_t zap = shared + (uint32_t)sim_rng_below(&t->rng, 2);

	touch_shared(t);
	switch (sim_rng_below(&t->rng, 4)) {
	case 0:
	case 1:
		sim_do_madvise(t, zap);
		break;
	case 2:
		sim_do_reclaim(t, zap);
		break;
	default:
		sim_mmap_search_op(t, own, i);
		break;
	}
	/* Hold the translations again while sleeping or preempted. */
	touch_shared(t);
	sim_maybe_sleep(t);
}

const struct sim_workload sim_workload_ORACLE_STRESS = {
	.own_slot = true,
	.shared_slots = 2,
	.op = stress_op,
};
