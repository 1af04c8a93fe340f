// SPDX-License-Identifier: MIT
/*
 * The lazy strategy's slot pool (src/sim/mm-grow.c): an mmap that finds
 * every freed slot still waiting for its lazy flush gets a new slot, it
 * does not sleep; everything indexed by slot follows, the quarantine ring
 * keeps its order, the workload's reserved slots keep their content, the
 * oracle stays clean, and a pool past what a process may map fails the
 * run with -ENOSPC.
 *
 * Broken variants these catch (each tried by hand, see the notes of the
 * change that added them): sleeping a tick instead of growing, a growth
 * that forgets live[], a ring grown by realloc without unwrapping it,
 * ebizzy's source chunk computed from the (moving) end of the pool.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hvtlb/sim.h>

#include "sim/machine.h"
#include "sim/mm.h"

#include "sim-test.h"

/* The run's DEBUG and ERROR lines, concatenated. */
struct log {
	char text[4096];
	size_t len;
};

static void log_fn(void *data, enum hvtlb_sim_log_level level, const char *msg)
{
	struct log *l = data;
	int n;

	(void)level;
	n = snprintf(l->text + l->len, sizeof(l->text) - l->len, "%s\n", msg);
	if (n > 0 && (size_t)n < sizeof(l->text) - l->len)
		l->len += (size_t)n;
}

/* Runs @p kv with @p strategy; the log in *@p l (may be NULL). Returns
 * hvtlb_sim_run()'s code, the results in *@p out. */
static int run(const char *const *kv, const char *strategy, struct log *l,
	       struct hvtlb_sim_results **out)
{
	struct hvtlb_sim_config c;

	cfg_apply(&c, kv);
	assert_int_equal(hvtlb_sim_config_set(&c, "strategy", strategy), 0);
	if (l) {
		memset(l, 0, sizeof(*l));
		c.log_fn = log_fn;
		c.log_data = l;
	}
	*out = NULL;
	return hvtlb_sim_run(&c, out);
}

/* Two threads on two vCPUs that spin for the mmap lock instead of
 * sleeping (no context switch): a lazy flush completes only at the
 * other vCPU's tick, and each thread unmaps many slots per tick. */
#define SPINNING_PAIR                                                          \
	"machine.pcpus=2", "vm.vcpus=2", "workload.threads=2",                 \
		"guest.fault_vma_lock=1", "guest.lock_spin_us=1000"

static void test_grows_instead_of_sleeping(void **state)
{
	const char *kv[] = { SPINNING_PAIR,
			     "workload.kind=trasher",
			     "workload.iterations=200",
			     "workload.pages=1",
			     "workload.touch=first",
			     NULL };
	struct hvtlb_sim_results *ipi, *lazy;
	struct log l;

	(void)state;
	assert_int_equal(run(kv, "ipi", NULL, &ipi), 0);
	assert_int_equal(run(kv, "lazy", &l, &lazy), 0);
	/* it grew, and never slept for a slot */
	if (!strstr(l.text, "lazy: 0 ticks waited for a free slot") ||
	    !strstr(l.text, "grew from 12 to"))
		fail_msg("log:\n%s", l.text);
	assert_int_equal(lazy->ops, ipi->ops);
	assert_int_equal(lazy->violations, 0);
	/* No IPI to wait for: not slower than IPIs (sleeping a tick per
	 * empty pool made it 11x slower). */
	if (lazy->real_s > ipi->real_s)
		fail_msg("lazy %.6f s, ipi %.6f s", lazy->real_s, ipi->real_s);
	hvtlb_sim_results_destroy(ipi);
	hvtlb_sim_results_destroy(lazy);
}

/* ebizzy mapping each copy (mmap, munmap per operation) from its two
 * reserved source chunks, with the contention model's per-slot lines:
 * the pool grows, the oracle finds nothing, and the sources are still
 * present (no fault more than under IPIs: a source lost or moved by the
 * growth would be faulted in again). */
static void test_reserved_survive_growth(void **state)
{
	const char *kv[] = { SPINNING_PAIR,
			     "machine.contention=1",
			     "workload.kind=ebizzy",
			     "workload.iterations=200",
			     "workload.pages=4",
			     "workload.ebizzy_chunks=2",
			     "workload.ebizzy_always_mmap=1",
			     NULL };
	struct hvtlb_sim_results *ipi, *lazy;
	struct log l;

	(void)state;
	assert_int_equal(run(kv, "ipi", NULL, &ipi), 0);
	assert_int_equal(run(kv, "lazy", &l, &lazy), 0);
	if (!strstr(l.text, "grew from"))
		fail_msg("log:\n%s", l.text);
	assert_int_equal(lazy->violations, 0);
	assert_int_equal(lazy->ops, ipi->ops);
	assert_int_equal(lazy->page_faults, ipi->page_faults);
	hvtlb_sim_results_destroy(ipi);
	hvtlb_sim_results_destroy(lazy);
}

/* Slots of 8 GiB (4096 pages of 2 MiB): 127 fit in the terabyte of user
 * address space above the mappings' base (GVA_BASE); the pool needs
 * more. */
static void test_cap(void **state)
{
	const char *kv[] = { SPINNING_PAIR,
			     "workload.kind=trasher",
			     "workload.iterations=200",
			     "workload.page_size=2m",
			     "workload.pages=4096",
			     "workload.touch=first",
			     NULL };
	struct hvtlb_sim_results *r;
	struct log l;

	(void)state;
	assert_int_equal(run(kv, "lazy", &l, &r), -ENOSPC);
	assert_null(r);
	if (!strstr(l.text, "mmap needs a mapping beyond the 127"))
		fail_msg("log:\n%s", l.text);
	/* IPIs free a slot at munmap: no growth, no failure */
	assert_int_equal(run(kv, "ipi", NULL, &r), 0);
	hvtlb_sim_results_destroy(r);
}

/* sim_mm_grow_slots() on a process built by hand: 3 slots that come and go,
 * then one reserved; a quarantine ring that wraps. */
static void test_grow_by_hand(void **state)
{
	struct hvtlb_sim_config c;
	struct sim s = { 0 };
	struct mm m = { .pages = 2, .shift = 12, .nslots = 4, .rbase = 3 };

	(void)state;
	hvtlb_sim_config_init(&c);
	assert_int_equal(hvtlb_sim_config_set(&c, "workload.kind", "ebizzy"),
			 0);
	assert_int_equal(
		hvtlb_sim_config_set(&c, "workload.ebizzy_chunks", "1"), 0);
	s.c = &c;
	s.mm = &m;
	s.nmms = 1;
	m.pte = calloc(8, sizeof(*m.pte));
	m.plist = calloc(8, sizeof(*m.plist));
	m.pn = calloc(4, sizeof(*m.pn));
	m.free_stack = calloc(4, sizeof(*m.free_stack));
	m.live = calloc(4, sizeof(*m.live));
	m.fillers = calloc(4, sizeof(*m.fillers));
	m.quar = calloc(4, sizeof(*m.quar));
	assert_non_null(m.pte && m.plist && m.pn && m.free_stack && m.live &&
			m.fillers && m.quar);
	/* slot 3 reserved and present; slots 0, 1 live; slot 2 and a stale
	 * entry of an earlier round in the quarantine, which wraps: the
	 * oldest (2) at index 3, then slot 1's earlier round at index 0 */
	m.pte[6].gen = m.pte[7].gen = 1;
	m.live[0] = m.live[1] = m.live[3] = 1;
	m.fillers[3] = 5;
	m.quar[3] = (struct qslot){ .slot = 2, .epoch = 10 };
	m.quar[0] = (struct qslot){ .slot = 1, .epoch = 11 };
	m.qhead = 3;
	m.qn = 2;

	assert_int_equal(sim_mm_grow_slots(&s, 0), 0);
	/* the 3 slots that come and go doubled; appended after the reserved
	 * one, which did not move */
	assert_int_equal(m.nslots, 7);
	assert_int_equal(m.rbase, 3);
	assert_int_equal(m.pte[6].gen, 1);
	assert_int_equal(m.pte[7].gen, 1);
	assert_int_equal(m.live[3], 1);
	assert_int_equal(m.fillers[3], 5);
	for (uint32_t i = 8; i < 14; i++)
		assert_int_equal(m.pte[i].gen, 0);
	for (uint32_t k = 4; k < 7; k++) {
		assert_int_equal(m.live[k], 0);
		assert_int_equal(m.pn[k], 0);
		assert_int_equal(m.fillers[k], 0);
	}
	/* the new slots free, lowest on top */
	assert_int_equal(m.nfree, 3);
	assert_int_equal(m.free_stack[2], 4);
	assert_int_equal(m.free_stack[0], 6);
	/* the ring in order from its head, with room for every slot */
	assert_int_equal(m.qhead, 0);
	assert_int_equal(m.qn, 2);
	assert_int_equal(m.quar[0].slot, 2);
	assert_int_equal(m.quar[0].epoch, 10);
	assert_int_equal(m.quar[1].slot, 1);
	assert_int_equal(m.quar[1].epoch, 11);
	/* the cap: what the address space holds past GVA_BASE */
	m.pages = 1u << 18; /* 1 GiB slots */
	assert_int_equal(sim_mm_max_slots(&m),
			 (uint32_t)((MM_TASK_SIZE_MAX - GVA_BASE) >> 30));
	m.nslots = sim_mm_max_slots(&m);
	assert_int_equal(sim_mm_grow_slots(&s, 0), -ENOSPC);
	free(m.pte);
	free(m.plist);
	free(m.pn);
	free(m.free_stack);
	free(m.live);
	free(m.fillers);
	free(m.quar);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grows_instead_of_sleeping),
		cmocka_unit_test(test_reserved_survive_growth),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_grow_by_hand),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
