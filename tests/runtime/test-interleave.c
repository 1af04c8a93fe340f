// SPDX-License-Identifier: MIT
/*
 * Exhaustive interleaving test of the real src/runtime/flushq.c and
 * vcpu-sync.c, compiled into this program with HVTLB_RT_CHECK: each
 * atomic operation, lock, unlock and wait-loop yield of theirs is a
 * scheduling point of the explorer (interleave.c), which runs every
 * schedule of a scenario's threads up to a preemption bound. The
 * properties are those of proofs/vcpu-sync.pml and proofs/kvm-pv.pml:
 *
 *   - safety: guest code never uses a translation older than a flush that
 *     returned to its poster (tlb >= done at each guest step), and a vCPU
 *     that is in the guest when a post returns has flushed;
 *   - no deadlock: every schedule ends (a thread spinning in the wait
 *     runs again only after another thread wrote something);
 *   - every posted flush is serviced: at the end nothing is pending,
 *     acked == posted and each target flushed the last generation.
 *
 * The page: pt is its page table's generation, a vCPU's tlb the
 * generation it cached, done the newest generation whose flush returned.
 *
 * Usage: test-interleave [--bound N] [--fault no-wait|drop-overflow|
 *        overwrite] [--expect-violation] [--quiet] SCENARIO
 * Scenarios: one, two-posters, outside, overflow, poll, pv (their setup_
 * functions below).
 * Exit 0 when the result is the expected one (no violation, or with
 * --expect-violation at least one), 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvtlb/flushq.h>

#include "interleave.h"

#if defined(__SANITIZE_THREAD__)
#define HVTLB_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HVTLB_TSAN 1
#endif
#endif

#define PAGE_GVA 0x1000u
#define MAX_VCPUS 2

struct vcpu {
	int id;
	struct hvtlb_vcpu_sync *vs;
	unsigned tlb;	 /* the generation its TLB caches */
	bool in_guest;	 /* between enter_guest's return and exit_guest */
	bool kick_sent;	 /* ops->kick since it last entered */
	unsigned rounds; /* KVM_RUN entries before the last one */
};

struct poster {
	int id;
	unsigned posts;
	unsigned ntargets;
	struct vcpu *targets[MAX_VCPUS];
};

static struct {
	unsigned pt, done;
	unsigned flags;	  /* HVTLB_FLUSH_FAULT_* or HVTLB_KVM_STEAL_FAULT_* */
	unsigned nranges; /* ranges per post */
	bool poll;	  /* no kick: the guest polls (scenario poll) */
	unsigned posters_left;
	struct vcpu vcpu[MAX_VCPUS];
	unsigned nvcpus;
	struct poster poster[2];
	unsigned nposters;
	/* the KVM preempted byte scenario */
	struct hvtlb_kvm_steal_byte steal;
	bool ipi_pending, ipi_acked, initiator_done;
} W;

/* ------------------------------------------------------------------ */
/* What the VMM supplies: kick and flush                               */
/* ------------------------------------------------------------------ */
static void op_kick(void *user, struct hvtlb_vcpu_sync *vs)
{
	struct vcpu *v = user;

	(void)vs;
	v->kick_sent = true;
}

static bool covers(const struct hvtlb_flushq_batch *b, uint64_t gva)
{
	size_t i;

	if (b->all)
		return true;
	for (i = 0; i < b->n; i++) {
		uint64_t len = b->ranges[i].pages << 12;

		if (b->ranges[i].gva <= gva && gva - b->ranges[i].gva < len)
			return true;
	}
	return false;
}

static void op_flush(void *user, const struct hvtlb_flushq_batch *b)
{
	struct vcpu *v = user;

	if (covers(b, PAGE_GVA)) {
		v->tlb = W.pt;
		ilv_note("ops->flush: vCPU%d's TLB now caches generation %u",
			 v->id, v->tlb);
	}
}

static const struct hvtlb_vcpu_ops ops = {
	.version = HVTLB_VCPU_OPS_VERSION,
	.kick = op_kick,
	.flush = op_flush,
};

/* No kick: the vCPU polls hvtlb_vcpu_sync_kicked() in the guest. */
static const struct hvtlb_vcpu_ops ops_poll = {
	.version = HVTLB_VCPU_OPS_VERSION,
	.flush = op_flush,
};

/* ------------------------------------------------------------------ */
/* Threads                                                             */
/* ------------------------------------------------------------------ */
static void guest_use(struct vcpu *v)
{
	ilv_step("guest code uses the page (TLB: generation %u)", v->tlb);
	if (v->tlb < W.done)
		ilv_fail("vCPU%d runs guest code with generation %u after the "
			 "flush of generation %u returned",
			 v->id, v->tlb, W.done);
}

static bool posters_done(void *arg)
{
	(void)arg;
	return W.posters_left == 0;
}

/* The explorer evaluates this between two steps, so the two loads of
 * hvtlb_vcpu_sync_kicked() are one poll here, not scheduling points. */
static bool kicked_or_over(void *arg)
{
	struct vcpu *v = arg;

	if (W.poll)
		return hvtlb_vcpu_sync_kicked(v->vs) || W.posters_left == 0;
	return v->kick_sent || W.posters_left == 0;
}

/*
 * One KVM_RUN: enter (servicing what is pending), guest code, exit. Not
 * the last: the vCPU either exits on its own after one guest step (an
 * MMIO exit, a halt) or stays in the guest until the kick, which lands
 * after one more guest step. The last entry comes after the posters
 * finished and runs one guest step.
 */
static void kvm_run(struct vcpu *v, bool last)
{
	hvtlb_vcpu_sync_enter_guest(v->vs);
	v->in_guest = true;
	guest_use(v);
	if (!last && ilv_choose(2, "{exit on its own, run until kicked}")) {
		ilv_wait_until(kicked_or_over, v,
			       "in the guest until the kick lands");
		guest_use(v);
	}
	v->in_guest = false;
	v->kick_sent = false;
	hvtlb_vcpu_sync_exit_guest(v->vs);
}

static void vcpu_thread(void *arg)
{
	struct vcpu *v = arg;
	unsigned r;

	for (r = 0; r < v->rounds; r++)
		kvm_run(v, false);
	ilv_wait_until(posters_done, NULL,
		       "outside KVM_RUN until the posters finished");
	kvm_run(v, true);
}

static void poster_thread(void *arg)
{
	struct poster *p = arg;
	struct hvtlb_vcpu_sync *targets[MAX_VCPUS];
	struct hvtlb_gva_range ranges[HVTLB_FLUSHQ_SLOTS];
	unsigned i, k, gen;
	int ret;

	for (i = 0; i < W.nranges; i++) {
		ranges[i] =
			(struct hvtlb_gva_range){ .gva = PAGE_GVA + i * 0x1000u,
						  .pages = 1,
						  .size = HVTLB_PAGE_4K };
	}
	for (i = 0; i < p->ntargets; i++)
		targets[i] = p->targets[i]->vs;
	for (k = 0; k < p->posts; k++) {
		ilv_step("changes the PTE: generation %u", W.pt + 1);
		gen = ++W.pt;
		ret = hvtlb_vcpu_flush_post(targets, p->ntargets, ranges,
					    W.nranges, false, UINT64_MAX,
					    W.flags);
		if (ret != 0)
			ilv_fail("hvtlb_vcpu_flush_post returned %d", ret);
		if (gen > W.done)
			W.done = gen;
		ilv_note("the flush of generation %u returned", gen);
		for (i = 0; i < p->ntargets; i++) {
			struct vcpu *v = p->targets[i];

			if (v->in_guest && v->tlb < gen)
				ilv_fail("the post returned while vCPU%d is in "
					 "the guest with generation %u < %u",
					 v->id, v->tlb, gen);
		}
	}
	W.posters_left--;
}

/* ------------------------------------------------------------------ */
/* Scenarios of the flush queue and vCPU sync                          */
/* ------------------------------------------------------------------ */
static const char *const vcpu_names[] = { "vCPU0", "vCPU1" };
static const char *const poster_names[] = { "poster0", "poster1" };

static void world_reset(void)
{
	unsigned flags = W.flags, nranges = W.nranges;
	bool poll = W.poll;

	memset(&W, 0, sizeof(W));
	W.flags = flags;
	W.nranges = nranges;
	W.poll = poll;
}

static void add_vcpu(unsigned rounds)
{
	struct vcpu *v = &W.vcpu[W.nvcpus];

	v->id = (int)W.nvcpus;
	v->rounds = rounds;
	v->vs = hvtlb_vcpu_sync_create(W.poll ? &ops_poll : &ops, v);
	if (!v->vs)
		abort();
	ilv_name(v->vs, vcpu_names[W.nvcpus]);
	W.nvcpus++;
}

static void add_poster(unsigned posts, unsigned ntargets)
{
	struct poster *p = &W.poster[W.nposters];
	unsigned i;

	p->id = (int)W.nposters;
	p->posts = posts;
	p->ntargets = ntargets;
	for (i = 0; i < ntargets; i++)
		p->targets[i] = &W.vcpu[i];
	W.nposters++;
	W.posters_left++;
}

static void spawn_all(void)
{
	unsigned i;

	for (i = 0; i < W.nposters; i++)
		ilv_spawn(poster_names[i], poster_thread, &W.poster[i]);
	for (i = 0; i < W.nvcpus; i++)
		ilv_spawn(vcpu_names[i], vcpu_thread, &W.vcpu[i]);
}

/* one: 1 poster, 2 posts, 1 vCPU that enters twice before its last.
 * overflow: the same with 16 ranges a post. poll: the same with no kick
 * callback: in the guest, the vCPU waits for hvtlb_vcpu_sync_kicked(). */
static void setup_one(void)
{
	world_reset();
	add_vcpu(2);
	add_poster(2, 1);
	spawn_all();
}

/* two-posters: 2 posters, 1 post each, 1 vCPU (vcpu-sync.pml's bound). */
static void setup_two_posters(void)
{
	world_reset();
	add_vcpu(2);
	add_poster(1, 1);
	add_poster(1, 1);
	spawn_all();
}

/* outside: 1 poster, 1 post to 2 vCPUs: vCPU0 enters and exits, vCPU1
 * stays outside KVM_RUN until the poster finished (a VMM thread in an
 * I/O exit): the post must not wait for it. */
static void setup_outside(void)
{
	world_reset();
	add_vcpu(2);
	add_vcpu(0);
	add_poster(1, 2);
	spawn_all();
}

static void check_end_sync(void)
{
	unsigned i;

	for (i = 0; i < W.nvcpus; i++) {
		struct vcpu *v = &W.vcpu[i];
		uint64_t posted, acked;

		hvtlb_vcpu_sync_seqs(v->vs, &posted, &acked);
		if (hvtlb_vcpu_sync_requests(v->vs) ||
		    hvtlb_flushq_pending(hvtlb_vcpu_sync_queue(v->vs)))
			ilv_fail("vCPU%u ends with a request pending", i);
		else if (acked != posted)
			ilv_fail("vCPU%u ends with acked %llu != posted %llu",
				 i, (unsigned long long)acked,
				 (unsigned long long)posted);
		else if (v->tlb != W.pt)
			ilv_fail("vCPU%u ends with generation %u, the page "
				 "table is at %u",
				 i, v->tlb, W.pt);
	}
}

static void teardown_sync(void)
{
	unsigned i;

	for (i = 0; i < W.nvcpus; i++)
		hvtlb_vcpu_sync_destroy(W.vcpu[i].vs);
}

/* ------------------------------------------------------------------ */
/* The KVM preempted byte (flushq.c:hvtlb_kvm_steal_*)                 */
/* ------------------------------------------------------------------ */
/* vCPU1 as the host runs it; vCPU0's flush either defers to the byte or
 * sends an IPI that vCPU1 takes when it runs. */
static void pv_run(struct vcpu *v)
{
	if (W.ipi_pending) {
		ilv_step("takes the flush IPI");
		W.ipi_pending = false;
		v->tlb = W.pt;
		W.ipi_acked = true;
	}
	guest_use(v);
}

static bool initiator_done_or_ipi(void *arg)
{
	(void)arg;
	return W.initiator_done || W.ipi_pending;
}

static void pv_host_thread(void *arg)
{
	struct vcpu *v = arg;
	unsigned r, old;

	pv_run(v);
	for (r = 0; r < 2; r++) {
		hvtlb_kvm_steal_host_preempt(&W.steal, W.flags);
		if (ilv_choose(2, "{enter, put again before the entry}"))
			hvtlb_kvm_steal_host_preempt(&W.steal, W.flags);
		old = hvtlb_kvm_steal_host_enter(&W.steal);
		if (old & HVTLB_KVM_VCPU_FLUSH_TLB) {
			v->tlb = W.pt;
			ilv_note("FLUSH_TLB set: the host flushes vCPU1's TLB "
				 "(generation %u)",
				 v->tlb);
		}
		pv_run(v);
	}
	ilv_wait_until(initiator_done_or_ipi, NULL,
		       "runs until the initiator finished");
	pv_run(v);
}

static bool ipi_acked(void *arg)
{
	(void)arg;
	return W.ipi_acked;
}

static void pv_initiator_thread(void *arg)
{
	unsigned gen;

	(void)arg;
	ilv_step("changes the PTE: generation %u", W.pt + 1);
	gen = ++W.pt;
	if (hvtlb_kvm_steal_guest_defer_flush(&W.steal)) {
		ilv_note("vCPU1 is preempted: FLUSH_TLB set, no IPI");
	} else {
		ilv_step("sends the flush IPI to vCPU1");
		W.ipi_pending = true;
		ilv_wait_until(ipi_acked, NULL,
			       "waits for the acknowledgement");
	}
	W.done = gen;
	ilv_note("the flush of generation %u returned", gen);
	W.initiator_done = true;
}

static void setup_pv(void)
{
	world_reset();
	W.nvcpus = 2;
	W.vcpu[1].id = 1;
	hvtlb_kvm_steal_init(&W.steal);
	ilv_name(&W.steal, "steal[vCPU1]");
	ilv_spawn("vCPU0", pv_initiator_thread, NULL);
	ilv_spawn("host", pv_host_thread, &W.vcpu[1]);
}

static void check_end_pv(void)
{
	if (W.vcpu[1].tlb != W.pt)
		ilv_fail("vCPU1 ends with generation %u, the page table is at "
			 "%u",
			 W.vcpu[1].tlb, W.pt);
}

static void teardown_pv(void)
{
}

/* ------------------------------------------------------------------ */
static const struct ilv_scenario scenarios[] = {
	{ "one", setup_one, check_end_sync, teardown_sync },
	{ "two-posters", setup_two_posters, check_end_sync, teardown_sync },
	{ "outside", setup_outside, check_end_sync, teardown_sync },
	{ "overflow", setup_one, check_end_sync, teardown_sync },
	{ "poll", setup_one, check_end_sync, teardown_sync },
	{ "pv", setup_pv, check_end_pv, teardown_pv },
};

static int usage(void)
{
	fprintf(stderr,
		"usage: test-interleave [--bound N] [--fault no-wait|"
		"drop-overflow|overwrite] [--expect-violation] [--quiet] "
		"one|two-posters|outside|overflow|poll|pv\n");
	return 2;
}

int main(int argc, char **argv)
{
	const struct ilv_scenario *sc = NULL;
	struct ilv_result res;
	unsigned bound = 2, i;
	bool expect = false, quiet = false;
	int a;

	W.nranges = 1;
	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--bound") && a + 1 < argc) {
			bound = (unsigned)strtoul(argv[++a], NULL, 10);
		} else if (!strcmp(argv[a], "--fault") && a + 1 < argc) {
			const char *f = argv[++a];

			if (!strcmp(f, "no-wait"))
				W.flags = HVTLB_FLUSH_FAULT_NO_WAIT;
			else if (!strcmp(f, "drop-overflow"))
				W.flags = HVTLB_FLUSH_FAULT_DROP_OVERFLOW;
			else if (!strcmp(f, "overwrite"))
				W.flags = HVTLB_KVM_STEAL_FAULT_OVERWRITE;
			else
				return usage();
		} else if (!strcmp(argv[a], "--expect-violation")) {
			expect = true;
		} else if (!strcmp(argv[a], "--quiet")) {
			quiet = true;
		} else if (argv[a][0] == '-' || sc) {
			return usage();
		} else {
			for (i = 0;
			     i < sizeof(scenarios) / sizeof(scenarios[0]);
			     i++) {
				if (!strcmp(argv[a], scenarios[i].name))
					sc = &scenarios[i];
			}
			if (!sc)
				return usage();
		}
	}
	if (!sc)
		return usage();
	/* overflow: 16 ranges, one more than a queue holds. */
	if (!strcmp(sc->name, "overflow"))
		W.nranges = HVTLB_FLUSHQ_SLOTS;
	/* poll: as one, with no kick callback. */
	W.poll = !strcmp(sc->name, "poll");

#ifdef HVTLB_TSAN
	/* Each coroutine is a TSan fiber, made anew for each schedule, and
	 * each switch synchronizes: TSan can report nothing here, and makes
	 * a schedule 50 to 100 times slower. Bound 1 still reaches every
	 * broken variant. */
	if (bound > 1) {
		printf("TSan build: preemption bound %u lowered to 1\n", bound);
		bound = 1;
	}
#endif
	ilv_explore(sc, bound, &res, !quiet);
	printf("%s: preemption bound %u: %llu schedules%s, longest %u steps, "
	       "%llu violating",
	       sc->name, bound, (unsigned long long)res.schedules,
	       res.complete ? " (all: the bound was never reached)" : "",
	       res.max_steps, (unsigned long long)res.violations);
	if (res.violations)
		printf(" (shortest %u steps with %u preemptions; fewest "
		       "preemptions %u)",
		       res.shortest, res.shortest_preempt, res.min_preempt);
	printf("\n");
	if (expect && !res.violations) {
		printf("FAIL: expected a violation, found none\n");
		return 1;
	}
	if (!expect && res.violations) {
		printf("FAIL: %s\n", res.message);
		return 1;
	}
	return 0;
}
