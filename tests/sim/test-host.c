// SPDX-License-Identifier: MIT
/*
 * The host side of the simulator, each mechanism in isolation on a
 * machine built by sim_setup() and put into a chosen state by hand: the
 * CFS slice checked at host ticks (check_preempt_tick) and its buddies,
 * the menu idle governor, and KVM's directed-yield candidate filter.
 *
 * Each test is selectable by name (argv[1] is a cmocka filter).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hvtlb/sim.h>

#include "sim/engine.h"
#include "sim/host.h"
#include "sim/machine.h"

#include "sim-test.h"

/* A machine from @p kv, set up but not started: every vCPU halted,
 * every pCPU idle, time 0. */
struct rig {
	struct hvtlb_sim_config c;
	struct sim s;
};

static struct rig *rig_new(const char *const *kv)
{
	struct rig *g = calloc(1, sizeof(*g));

	assert_non_null(g);
	cfg_apply(&g->c, kv);
	g->s.c = &g->c;
	for (size_t i = 0; i < SIM_COST_COUNT; i++)
		g->s.cost[i] = g->c.cost[i];
	g->s.r = calloc(1, sizeof(*g->s.r));
	assert_non_null(g->s.r);
	assert_int_equal(sim_setup(&g->s), 0);
	return g;
}

static void rig_free(struct rig *g)
{
	sim_teardown(&g->s);
	free(g->s.r);
	free(g);
}

static simtime ms(const struct sim *s, double x)
{
	return (simtime)(x * 1000.0 * s->cost[SIM_COST_cpu_mhz]);
}

/* vCPU @p vid runs on its pCPU since @p since with virtual runtime
 * @p vr there. */
static void put_running(struct sim *s, uint32_t vid, simtime since, simtime vr)
{
	struct vcpu *v = &s->v[vid];

	v->hs = H_RUNNING;
	v->run_start = since;
	v->vruntime = vr;
	s->p[v->pcpu].cur = vid;
}

/* vCPU @p vid waits in its pCPU's run queue with virtual runtime @p vr. */
static void put_queued(struct sim *s, uint32_t vid, simtime vr)
{
	struct vcpu *v = &s->v[vid];

	v->hs = H_READY;
	v->vruntime = vr;
	pcpu_push(&s->p[v->pcpu], vid, false);
}

/* --------------------------------------------------------------- CFS */
/* One pCPU of a 12-pCPU host: CFS's tunables scale by 4 (latency 24 ms,
 * min_granularity 3 ms, wakeup_granularity 4 ms); a 1 ms host tick. */
#define CFS_RIG                                                                \
	"machine.pcpus=12", "vm.vcpus=120", "hypervisor.cfs=true",             \
		"workload.threads=1", "cost.host_tick_us=1000",                \
		"cost.cpu_mhz=2400"

/*
 * check_preempt_tick: a vCPU that entered alone at 0 would keep the pCPU
 * for a whole latency (24 ms) if its slice were fixed at entry; with one
 * waiter its slice is 12 ms, so the first tick past 12 ms preempts it
 * (13 ms). With 9 runnable the period is 9 x 3 ms and the slice 3 ms: the
 * tick at 4 ms. A waiter far behind in virtual runtime preempts at the
 * first tick once min_granularity has run (3 ms).
 */
static void test_cfs_tick(void **state)
{
	const char *kv[] = { CFS_RIG, NULL };
	struct rig *g = rig_new(kv);
	struct sim *s = &g->s;
	struct pcpu *p = &s->p[0];

	(void)state;
	/* vCPUs 0, 12, 24, ... are pCPU 0's */
	put_running(s, 0, 0, ms(s, 10));
	s->now = ms(s, 1);
	put_queued(s, 12, ms(s, 10));
	assert_int_equal(s->sched->slice_end(s, p), ms(s, 13));
	/* the entry model keeps 24 ms (latency over one runnable) */
	s->now = 0;
	p->rq_n = 0;
	assert_int_equal(host_cfs_entry.slice_end(s, p), ms(s, 24));

	/* nine runnable: the slice is 27 ms / 9 */
	s->now = ms(s, 1);
	for (uint32_t k = 2; k <= 8; k++)
		put_queued(s, 12 * k, ms(s, 10));
	assert_int_equal(s->sched->slice_end(s, p), ms(s, 4));

	/* one waiter 10 ms behind: ahead by more than the slice (12 ms)
	 * once min_granularity has run */
	p->rq_n = 0;
	put_queued(s, 12, ms(s, 0));
	assert_int_equal(s->sched->slice_end(s, p), ms(s, 3));
	/* nobody waiting: never */
	p->rq_n = 0;
	assert_true(s->sched->slice_end(s, p) == SIM_NEVER);
	rig_free(g);
}

/*
 * pick_next_entity's buddies: the leftmost runs unless a buddy is within
 * the wake-up granularity (4 ms) of it. A vCPU that yielded (skip buddy)
 * is passed over for the second only if that is within 4 ms; the next
 * buddy (a directed-yield target) is taken when within 4 ms.
 */
static void test_cfs_buddies(void **state)
{
	const char *kv[] = { CFS_RIG, NULL };
	struct rig *g = rig_new(kv);
	struct sim *s = &g->s;
	struct pcpu *p = &s->p[0];

	(void)state;
	s->now = ms(s, 50);
	put_queued(s, 0, ms(s, 10));
	put_queued(s, 12, ms(s, 13));
	put_queued(s, 24, ms(s, 20));
	/* plain: the leftmost (10 ms) */
	p->skip = 0;
	assert_int_equal(s->sched->pop(s, p), 12); /* 13 - 10 <= 4: skip */
	put_queued(s, 12, ms(s, 13));
	p->skip = 24;
	p->next_buddy = 24; /* 20 - 10 > 4: unfair, not taken */
	assert_int_equal(s->sched->pop(s, p), 0);
	assert_int_equal(p->next_buddy, 24); /* not cleared: not picked */
	put_queued(s, 0, ms(s, 10));
	p->next_buddy = 12; /* 13 - 10 <= 4 */
	assert_int_equal(s->sched->pop(s, p), 12);
	assert_int_equal(p->next_buddy, NONE_ID);
	/* skip with the second too far: the skipped one runs anyway */
	put_queued(s, 12, ms(s, 30));
	p->skip = 0;
	p->next_buddy = NONE_ID;
	assert_int_equal(s->sched->pop(s, p), 0);
	rig_free(g);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfs_tick),
		cmocka_unit_test(test_cfs_buddies),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
