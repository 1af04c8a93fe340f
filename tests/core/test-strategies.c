// SPDX-License-Identifier: MIT
/*
 * Every decision branch of every strategy, against cmocka mocks in the ops
 * table. Each test asserts the exact ordered action log and the outcome.
 */
#include <errno.h>

#include "mock-backend.h"

#define AS 0x5000ULL /* the mm's CR3 */
#define ST_R HVTLB_CPU_RUNNING
#define ST_P HVTLB_CPU_PREEMPTED
#define ST_L HVTLB_CPU_LAZY
#define ST_O HVTLB_CPU_OFFLINE

static int setup(void **state)
{
	mock_reset();
	return 0;
}

static struct hvtlb_flush_request req_of(uint32_t ncpus, const char *targets,
					 uint64_t start, uint64_t end)
{
	struct hvtlb_flush_request r = {
		.targets = mask_of(targets),
		.ncpus = ncpus,
		.initiator = 0,
		.address_space = AS,
		.range = { .start = start, .end = end, .stride_shift = 12 },
	};
	return r;
}

static struct hvtlb_strategy_config cfg_of(enum hvtlb_strategy_kind k)
{
	struct hvtlb_strategy_config c;

	hvtlb_strategy_config_init(&c, k);
	return c;
}

/* Queues the states of the remote targets, in ascending CPU order:
 * 'r' running, 'p' preempted, 'l' lazy, 'o' offline. */
static void states(const char *s)
{
	for (; *s; s++)
		will_return(mock_cpu_state, *s == 'p'	? ST_P
					    : *s == 'l' ? ST_L
					    : *s == 'o' ? ST_O
							: ST_R);
}

static void hints_are(const struct hvtlb_hints *h)
{
	will_return(mock_get_hints, h);
}

static int run_ops(const struct hvtlb_strategy_config *c,
		   const struct hvtlb_backend_ops *ops,
		   const struct hvtlb_flush_request *r,
		   struct hvtlb_flush_outcome *out)
{
	struct hvtlb_flusher *f = hvtlb_flusher_create(c, ops, NULL);
	int rc;

	assert_non_null(f);
	rc = hvtlb_flush(f, r, out);
	hvtlb_flusher_destroy(f);
	return rc;
}

static int run(const struct hvtlb_strategy_config *c,
	       const struct hvtlb_flush_request *r,
	       struct hvtlb_flush_outcome *out)
{
	return run_ops(c, &mock_ops, r, out);
}

static uint64_t word(unsigned call, unsigned i)
{
	uint64_t w;

	memcpy(&w, mock.input[call] + 8 * i, 8); /* the tests run on LE */
	return w;
}

static const struct hvtlb_hints hv_hints = {
	.remote_flush_recommended = true,
	.ex_available = true,
};

/* ------------------------------------------------------------------ */
/* Native IPIs                                                         */
/* ------------------------------------------------------------------ */

static void ipi_serial_order(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_IPI);
	struct hvtlb_flush_request r = req_of(4, "0-3", 0x1000, 0x5000);
	struct hvtlb_flush_outcome o;

	c.concurrent = false;
	states("rrr");
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "local 0 0x1000+4|ipi 1-3 0x1000+4|"
				      "wait 1-3|");
	assert_int_equal(o.ipis, 3);
	assert_false(o.fell_back);
	assert_false(o.full_flush);
}

static void ipi_concurrent_order(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_IPI);
	struct hvtlb_flush_request r = req_of(4, "0-3", 0x1000, 0x5000);
	struct hvtlb_flush_outcome o;

	assert_true(c.concurrent); /* Linux's default since 5.13 */
	states("rrr");
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "ipi 1-3 0x1000+4|local 0 0x1000+4|"
				      "wait 1-3|");
}

static void ipi_early_ack(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_IPI);
	struct hvtlb_flush_request r = req_of(2, "1", 0x1000, 0x2000);

	c.early_ack = true;
	states("r");
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "ipi 1 0x1000+1 ack|wait 1|");
}

static void ipi_early_ack_refused_with_freed_tables(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_IPI);
	struct hvtlb_flush_request r = req_of(2, "1", 0x1000, 0x2000);

	c.early_ack = true;
	r.freed_tables = true;
	states("r");
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "ipi 1 0x1000+1|wait 1|");
}

static void ipi_lazy_skipped(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_IPI);
	struct hvtlb_flush_request r = req_of(4, "0-3", 0x1000, 0x2000);
	struct hvtlb_flush_outcome o;

	states("rlr");
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "ipi 1,3 0x1000+1|local 0 0x1000+1|"
				      "wait 1,3|");
	assert_int_equal(o.ipis, 2);
}

static void ipi_lazy_kept_with_freed_tables(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_IPI);
	struct hvtlb_flush_request r = req_of(4, "0-3", 0x1000, 0x2000);

	r.freed_tables = true;
	states("rlr");
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "ipi 1-3 0x1000+1|local 0 0x1000+1|"
				      "wait 1-3|");
}

static void ipi_lazy_skip_off(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_IPI);
	struct hvtlb_flush_request r = req_of(4, "0-3", 0x1000, 0x2000);

	c.lazy_skip = false;
	states("rlr");
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "ipi 1-3 0x1000+1|local 0 0x1000+1|"
				      "wait 1-3|");
}

static void ipi_preempted_and_offline(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_IPI);
	struct hvtlb_flush_request r = req_of(4, "0-3", 0x1000, 0x2000);

	/* Preempted targets still get IPIs; offline ones cannot. */
	states("pop");
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "ipi 1,3 0x1000+1|local 0 0x1000+1|"
				      "wait 1,3|");
}

static void ipi_ceiling_boundary(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_IPI);
	struct hvtlb_flush_request r =
		req_of(2, "1", 0x1000, 0x1000 + 33 * 4096);
	struct hvtlb_flush_outcome o;

	states("r");
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "ipi 1 0x1000+33|wait 1|");
	assert_false(o.full_flush);

	mock_reset();
	r.range.end += 4096; /* 34 pages */
	states("r");
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "ipi 1 all|wait 1|");
	assert_true(o.full_flush);

	/* The knob moves the boundary. */
	mock_reset();
	c.full_flush_ceiling = 34;
	states("r");
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "ipi 1 0x1000+34|wait 1|");
}

static void ipi_unaligned_range_rounds_out(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_IPI);
	struct hvtlb_flush_request r = req_of(2, "0", 0x1800, 0x2001);

	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "local 0 0x1000+2|");
}

static void only_initiator_or_nothing(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(4, "0", 0x1000, 0x2000);

	/* No remote target: a local flush, no hints, no hypercall. */
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "local 0 0x1000+1|");

	/* Every remote target lazy: the same. */
	mock_reset();
	r.targets = mask_of("0-2");
	states("ll");
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "local 0 0x1000+1|");

	/* An empty range: nothing at all. */
	mock_reset();
	r.range.end = r.range.start;
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "");

	/* Initiator not a target: no local flush. */
	mock_reset();
	c = cfg_of(HVTLB_STRATEGY_IPI);
	r = req_of(4, "2", 0x1000, 0x2000);
	states("r");
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "ipi 2 0x1000+1|wait 2|");
}

/* ------------------------------------------------------------------ */
/* Hyper-V                                                             */
/* ------------------------------------------------------------------ */

static void hv_not_recommended(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(4, "0-3", 0x1000, 0x2000);
	struct hvtlb_hints h = { .ex_available = true };
	struct hvtlb_flush_outcome o;

	states("rrr");
	hints_are(&h);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "ipi 1-3 0x1000+1|local 0 0x1000+1|"
				      "wait 1-3|");
	assert_int_equal(o.hypercalls, 0);
	assert_false(o.fell_back);
}

static void hv_no_hypercall_op(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(4, "0-3", 0x1000, 0x2000);
	struct hvtlb_backend_ops ops = mock_ops;

	ops.hypercall = NULL;
	states("rrr");
	hints_are(&hv_hints);
	assert_int_equal(run_ops(&c, &ops, &r, NULL), 0);
	assert_string_equal(mock.log, "ipi 1-3 0x1000+1|local 0 0x1000+1|"
				      "wait 1-3|");
}

static void hv_list_vp_below_64(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(8, "0-3", 0x1000, 0x5000);
	struct hvtlb_flush_outcome o;

	states("rrr");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return(mock_vp_index, 2);
	will_return(mock_vp_index, 3);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, &o), 0);
	/* Local flush first; the call names only the remote targets. */
	assert_string_equal(mock.log, "local 0 0x1000+4|hc list|");
	assert_int_equal(mock.control[0], 0x0000000100000003ULL);
	assert_int_equal(mock.len[0], 32);
	assert_int_equal(word(0, 0), AS);
	assert_int_equal(word(0, 1), 0);
	assert_int_equal(word(0, 2), 0xe);
	assert_int_equal(word(0, 3), 0x1003); /* page 1 + 3 more */
	assert_int_equal(o.hypercalls, 1);
	assert_int_equal(o.ipis, 0);
	assert_false(o.fell_back);
}

static void hv_vp_map_used(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(8, "0,5", 0x1000, 0x2000);

	states("r");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 40);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_int_equal(word(0, 2), 1ULL << 40);
}

static void hv_all_processors(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(4, "0-3", 0x1000, 0x3000);
	struct hvtlb_flush_outcome o;

	/* Targets = every present CPU: ALL_PROCESSORS, no VP lookups. */
	states("rrr");
	hints_are(&hv_hints);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "local 0 0x1000+2|hc list|");
	assert_int_equal(word(0, 1), HVTLB_FLUSH_ALL_PROCESSORS);
	assert_int_equal(word(0, 3), 0x1001);
	assert_false(o.fell_back);

	/* One present CPU not a target: a processor mask, not ALL. */
	mock_reset();
	r.targets = mask_of("0-2");
	states("rr");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return(mock_vp_index, 2);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_int_equal(word(0, 1), 0);
	assert_int_equal(word(0, 2), 0x6);
}

static void hv_all_processors_beyond_64(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(100, "0-99", 0, 0);
	char st[100] = { 0 };

	/* Even with VPs >= 64 and no Ex: the non-Ex ALL_PROCESSORS call. */
	r.range.all = true;
	memset(st, 'r', 99);
	states(st);
	hints_are(&(struct hvtlb_hints){ .remote_flush_recommended = true });
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "local 0 all|hc space|");
	assert_int_equal(word(0, 1),
			 HVTLB_FLUSH_ALL_PROCESSORS |
				 HVTLB_FLUSH_NON_GLOBAL_MAPPINGS_ONLY);
}

static void hv_ex_above_64(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(128, "0,1,70", 0x1000, 0x2000);
	struct hvtlb_flush_outcome o;

	states("rr");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return(mock_vp_index, 70);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "local 0 0x1000+1|hc list-ex|");
	/* Linux's VP set: mask 2^2-1, banks {bit 1}, {bit 6}. */
	assert_int_equal(mock.control[0],
			 0x0000000100000014ULL |
				 2ULL << HVTLB_CTL_VARHEAD_SHIFT);
	assert_int_equal(word(0, 2), HVTLB_VPSET_SPARSE_4K);
	assert_int_equal(word(0, 3), 0x3);
	assert_int_equal(word(0, 4), 0x2);
	assert_int_equal(word(0, 5), 0x40);
	assert_int_equal(word(0, 6), 0x1000);
	assert_int_equal(o.hypercalls, 1);
}

static void hv_compact_vpset(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(256, "0,1,130", 0x1000, 0x2000);

	/* Linux: mask 0x7 and an empty middle bank. */
	states("rr");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return(mock_vp_index, 130);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_int_equal(word(0, 3), 0x7);
	assert_int_equal(word(0, 4), 0x2);
	assert_int_equal(word(0, 5), 0x0);
	assert_int_equal(word(0, 6), 0x4);

	/* Compact: mask 0x5, two banks. */
	mock_reset();
	c.compact_vpset = true;
	states("rr");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return(mock_vp_index, 130);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_int_equal((mock.control[0] & HVTLB_CTL_VARHEAD_MASK) >>
				 HVTLB_CTL_VARHEAD_SHIFT,
			 2);
	assert_int_equal(word(0, 3), 0x5);
	assert_int_equal(word(0, 4), 0x2);
	assert_int_equal(word(0, 5), 0x4);
	assert_int_equal(word(0, 6), 0x1000);
}

static void hv_ex_unavailable(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(128, "0,1,70", 0x1000, 0x2000);
	struct hvtlb_hints h = { .remote_flush_recommended = true };
	struct hvtlb_flush_outcome o;

	states("rr");
	hints_are(&h);
	will_return(mock_vp_index, 1);
	will_return(mock_vp_index, 70);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "local 0 0x1000+1|ipi 1,70 0x1000+1|"
				      "wait 1,70|");
	assert_true(o.fell_back);
	assert_int_equal(o.hypercalls, 0);
	assert_int_equal(o.ipis, 2);
}

static void hv_vp_4096_falls_back(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(8, "0-2", 0x1000, 0x2000);
	struct hvtlb_flush_outcome o;

	states("rr");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 4096);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "local 0 0x1000+1|ipi 1-2 0x1000+1|"
				      "wait 1-2|");
	assert_true(o.fell_back);
}

static void hv_failure_falls_back_to_exact_targets(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(8, "0-4", 0x1000, 0x2000);
	struct hvtlb_flush_outcome o;

	/* CPU 3 is lazy and skipped: the fallback must skip it too, and
	 * must not flush the initiator twice. */
	states("rrlr");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return(mock_vp_index, 2);
	will_return(mock_vp_index, 4);
	will_return(mock_hypercall,
		    hvtlb_result_pack(HVTLB_STATUS_INVALID_PARAMETER, 0));
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "local 0 0x1000+1|hc list|"
				      "ipi 1-2,4 0x1000+1|wait 1-2,4|");
	assert_int_equal(word(0, 2), 0x16);
	assert_true(o.fell_back);
	assert_int_equal(o.hypercalls, 1);
	assert_int_equal(o.ipis, 3);
}

static void hv_lazy_with_freed_tables(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(8, "0-3", 0x1000, 0x2000);

	r.freed_tables = true;
	states("rlr");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return(mock_vp_index, 2);
	will_return(mock_vp_index, 3);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_int_equal(word(0, 2), 0xe);
}

static void hv_rep_loop_partial(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	/* 5 entries of 16 MiB: raise the ceiling so it stays a list. */
	struct hvtlb_flush_request r = req_of(8, "0-1", 0, 5ULL << 24);
	struct hvtlb_flush_outcome o;

	c.full_flush_ceiling = 1u << 20;
	states("r");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return(mock_hypercall, hvtlb_result_pack(HVTLB_STATUS_SUCCESS, 2));
	will_return(mock_hypercall, hvtlb_result_pack(HVTLB_STATUS_SUCCESS, 5));
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "local 0 0x0+20480|hc list|hc list|");
	assert_int_equal(mock.control[0], 0x0000000500000003ULL);
	assert_int_equal(mock.control[1], 0x0002000500000003ULL);
	assert_int_equal(word(0, 3), 0xfff);
	assert_int_equal(word(0, 7), 0x4000fff);
	assert_int_equal(o.hypercalls, 2);
	assert_false(o.fell_back);
}

static void hv_rep_loop_no_progress(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(8, "0-1", 0x1000, 0x2000);
	struct hvtlb_flush_outcome o;

	/* A host that never progresses: -EPROTO, then IPIs. */
	states("r");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return_count(mock_hypercall,
			  hvtlb_result_pack(HVTLB_STATUS_SUCCESS, 0),
			  HVTLB_REP_MAX_STALLS);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_int_equal(o.hypercalls, HVTLB_REP_MAX_STALLS);
	assert_true(o.fell_back);
	assert_non_null(strstr(mock.log, "hc list|ipi 1 0x1000+1|wait 1|"));
}

static void hv_everything(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(8, "0-1", 0, 0);
	struct hvtlb_flush_outcome o;

	r.range.all = true;
	states("r");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "local 0 all|hc space|");
	assert_int_equal(mock.control[0], 0x2);
	assert_int_equal(word(0, 1), HVTLB_FLUSH_NON_GLOBAL_MAPPINGS_ONLY);
	assert_int_equal(word(0, 2), 0x2);

	/* Global mappings included: no NON_GLOBAL. */
	mock_reset();
	r.range.include_global = true;
	states("r");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_int_equal(word(0, 1), 0);
}

static void hv_over_ceiling_is_space(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(8, "0-1", 0x1000, 0x23000);
	struct hvtlb_flush_outcome o;

	states("r");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "local 0 all|hc space|");
	assert_int_equal(word(0, 1), HVTLB_FLUSH_NON_GLOBAL_MAPPINGS_ONLY);
	assert_true(o.full_flush);
}

static void hv_range_over_capacity(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	/* 33 pages of 1 GiB: under the ceiling, but 33 * 64 = 2112 entries
	 * of 16 MiB do not fit 509. */
	struct hvtlb_flush_request r =
		req_of(8, "0-1", 1ULL << 30, 34ULL << 30);
	struct hvtlb_flush_outcome o;

	r.range.stride_shift = 30;
	states("r");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "local 0 0x40000000+33|hc space|");
	assert_int_equal(word(0, 1), 0); /* no NON_GLOBAL */
	assert_true(o.full_flush);

	/* 509 entries fit, 510 do not (4 KiB stride, ceiling raised). */
	mock_reset();
	c.full_flush_ceiling = 1u << 30;
	r = req_of(8, "0-1", 0, 509ULL << 24);
	states("r");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "local 0 0x0+2084864|hc list|");
	assert_int_equal(mock.len[0], 4096);
	assert_false(o.full_flush);

	mock_reset();
	r.range.end += 4096;
	states("r");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "local 0 0x0+2084865|hc space|");
	assert_true(o.full_flush);
}

static void hv_xmm_fast(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(8, "0-1", 0x1000, 0x3000);
	struct hvtlb_hints h = hv_hints;

	h.xmm_input = true;
	c.xmm_fast = true;
	states("r");
	hints_are(&h);
	will_return(mock_vp_index, 1);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "local 0 0x1000+2|hc list fast|");
	assert_true(mock.len[0] <= HVTLB_FAST_BYTES);
	assert_int_equal(word(0, 0), AS);
	assert_int_equal(word(0, 2), 0x2);
	assert_int_equal(word(0, 3), 0x1001); /* XMM0 high */

	/* 12 entries do not fit 11: the memory form. */
	mock_reset();
	c.full_flush_ceiling = 1u << 20;
	r = req_of(8, "0-1", 0, 12ULL << 24);
	states("r");
	hints_are(&h);
	will_return(mock_vp_index, 1);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "local 0 0x0+49152|hc list|");

	/* Knob on but not offered: memory. */
	mock_reset();
	r = req_of(8, "0-1", 0x1000, 0x3000);
	states("r");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "local 0 0x1000+2|hc list|");
}

static void hv_extended_ranges(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r =
		req_of(8, "0-1", 2ULL << 20, 10ULL << 20);
	struct hvtlb_hints h = hv_hints;

	r.range.stride_shift = 21;
	h.extended_ranges = true;
	c.extended_ranges = true;
	states("r");
	hints_are(&h);
	will_return(mock_vp_index, 1);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_int_equal(word(0, 1), HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT);
	/* One large-page entry: 2 MiB page 1, 3 more. */
	assert_int_equal(word(0, 3), (2ULL << 20) | HVTLB_GVA_EXT_LARGE | 3);
	assert_int_equal(mock.len[0], 32);

	/* Not offered: simple 4 KiB entries (2048 pages in one entry). */
	mock_reset();
	states("r");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return(mock_hypercall, MOCK_ALL_REPS);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_int_equal(word(0, 1), 0);
	assert_int_equal(word(0, 3), (2ULL << 20) | 2047);
}

/* ------------------------------------------------------------------ */
/* KVM PV                                                              */
/* ------------------------------------------------------------------ */

static const struct hvtlb_hints kvm_hints = { .kvm_pv_flush = true };

static void kvm_preempted_deferred(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_KVM_PV);
	struct hvtlb_flush_request r = req_of(4, "0-3", 0x1000, 0x2000);
	struct hvtlb_flush_outcome o;

	states("rpp");
	hints_are(&kvm_hints);
	will_return(mock_read_preempted, 0);
	will_return(mock_read_preempted, HVTLB_KVM_VCPU_PREEMPTED);
	will_return(mock_read_preempted, HVTLB_KVM_VCPU_PREEMPTED);
	will_return(mock_cmpxchg, true);
	will_return(mock_cmpxchg, false); /* CPU 3 runs again meanwhile */
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "cas 2 0x1->0x3|cas 3 0x1->0x3 lost|"
				      "ipi 1,3 0x1000+1|local 0 0x1000+1|"
				      "wait 1,3|");
	assert_int_equal(o.deferred, 1);
	assert_int_equal(o.ipis, 2);
}

static void kvm_all_deferred(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_KVM_PV);
	struct hvtlb_flush_request r = req_of(3, "0-2", 0x1000, 0x2000);
	struct hvtlb_flush_outcome o;

	/* Every target preempted and marked: no IPI, no wait. */
	states("pp");
	hints_are(&kvm_hints);
	will_return_count(mock_read_preempted, HVTLB_KVM_VCPU_PREEMPTED, 2);
	will_return_count(mock_cmpxchg, true, 2);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "cas 1 0x1->0x3|cas 2 0x1->0x3|"
				      "local 0 0x1000+1|");
	assert_int_equal(o.deferred, 2);
	assert_int_equal(o.ipis, 0);
}

static void kvm_lazy_targets(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_KVM_PV);
	struct hvtlb_flush_request r = req_of(3, "0-2", 0x1000, 0x2000);

	/* CPU 1 lazy: skipped before the preempted check. */
	states("lr");
	hints_are(&kvm_hints);
	will_return(mock_read_preempted, 0);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "ipi 2 0x1000+1|local 0 0x1000+1|"
				      "wait 2|");

	/* With freed tables it is reached. */
	mock_reset();
	r.freed_tables = true;
	states("lr");
	hints_are(&kvm_hints);
	will_return_count(mock_read_preempted, 0, 2);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "ipi 1-2 0x1000+1|local 0 0x1000+1|"
				      "wait 1-2|");
}

static void kvm_no_hint_or_op(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_KVM_PV);
	struct hvtlb_flush_request r = req_of(2, "0-1", 0x1000, 0x2000);
	struct hvtlb_backend_ops ops = mock_ops;
	struct hvtlb_hints none = { 0 };

	states("p");
	hints_are(&none);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "ipi 1 0x1000+1|local 0 0x1000+1|"
				      "wait 1|");

	mock_reset();
	ops.cmpxchg_preempted = NULL;
	states("p");
	hints_are(&kvm_hints);
	assert_int_equal(run_ops(&c, &ops, &r, NULL), 0);
	assert_string_equal(mock.log, "ipi 1 0x1000+1|local 0 0x1000+1|"
				      "wait 1|");
}

/* ------------------------------------------------------------------ */
/* VMM-assisted                                                        */
/* ------------------------------------------------------------------ */

static const struct hvtlb_hints vmm_hints = { .vmm_assist = true };

/* One 4 KiB page through the host's flush call (vmm-assist, and xen-pv's
 * MMUEXT_INVLPG_MULTI): the page itself on the targets, preempted ones
 * cost nothing, no IPI. */
static void host_call_one_page(enum hvtlb_strategy_kind k)
{
	struct hvtlb_strategy_config c = cfg_of(k);
	struct hvtlb_flush_request r = req_of(4, "0-3", 0x1000, 0x2000);
	struct hvtlb_flush_outcome o;

	states("rpr");
	hints_are(&vmm_hints);
	will_return(mock_vmm_flush, 0);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "local 0 0x1000+1|vmm 1-3 0x1000+1|");
	assert_int_equal(o.ipis, 0);
	assert_false(o.fell_back);
}

static void vmm_assist(void **state)
{
	host_call_one_page(HVTLB_STRATEGY_VMM_ASSIST);
}

static void vmm_assist_error(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_VMM_ASSIST);
	struct hvtlb_flush_request r = req_of(4, "0-3", 0x1000, 0x2000);
	struct hvtlb_flush_outcome o;

	states("rrr");
	hints_are(&vmm_hints);
	will_return(mock_vmm_flush, -EBUSY);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "local 0 0x1000+1|vmm 1-3 0x1000+1|"
				      "ipi 1-3 0x1000+1|wait 1-3|");
	assert_true(o.fell_back);
	assert_int_equal(o.ipis, 3);
}

static void vmm_assist_not_offered(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_VMM_ASSIST);
	struct hvtlb_flush_request r = req_of(2, "0-1", 0x1000, 0x2000);
	struct hvtlb_hints none = { 0 };

	states("r");
	hints_are(&none);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "ipi 1 0x1000+1|local 0 0x1000+1|"
				      "wait 1|");
}

/* ------------------------------------------------------------------ */
/* Xen PV                                                              */
/* ------------------------------------------------------------------ */

/* One 4 KiB page: MMUEXT_INVLPG_MULTI, as vmm-assist's call. */
static void xen_pv_single_page(void **state)
{
	host_call_one_page(HVTLB_STRATEGY_XEN_PV);
}

/* Two pages, or one 2 MiB page: MMUEXT_TLB_FLUSH_MULTI, a full flush of
 * the targets; the initiator still flushes only the range. */
static void xen_pv_widens(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_XEN_PV);
	struct hvtlb_flush_request r = req_of(4, "0-3", 0x1000, 0x3000);

	states("rrr");
	hints_are(&vmm_hints);
	will_return(mock_vmm_flush, 0);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "local 0 0x1000+2|vmm 1-3 all|");

	r = req_of(2, "0-1", 0x200000, 0x400000);
	r.range.stride_shift = 21;
	mock_reset();
	states("r");
	hints_are(&vmm_hints);
	will_return(mock_vmm_flush, 0);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "local 0 0x200000+1|vmm 1 all|");
}

/* A failed call falls back to IPIs of the request's own range; no hint:
 * the native shootdown. */
static void xen_pv_fallback(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_XEN_PV);
	struct hvtlb_flush_request r = req_of(3, "0-2", 0x1000, 0x3000);
	struct hvtlb_hints none = { 0 };
	struct hvtlb_flush_outcome o;

	states("rr");
	hints_are(&vmm_hints);
	will_return(mock_vmm_flush, -EBUSY);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "local 0 0x1000+2|vmm 1-2 all|"
				      "ipi 1-2 0x1000+2|wait 1-2|");
	assert_true(o.fell_back);

	mock_reset();
	states("rr");
	hints_are(&none);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "ipi 1-2 0x1000+2|local 0 0x1000+2|"
				      "wait 1-2|");
}

/* ------------------------------------------------------------------ */
/* Hardware broadcast                                                  */
/* ------------------------------------------------------------------ */

static const struct hvtlb_hints bc_hints = { .broadcast = true };

static void broadcast_chunks(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_BROADCAST);
	struct hvtlb_flush_request r = req_of(4, "0-3", 0x1000, 0x15000);
	struct hvtlb_flush_outcome o;

	assert_int_equal(c.broadcast_max_pages, 8);
	states("rpr");
	hints_are(&bc_hints);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "bcast 0x1000+8|bcast 0x9000+8|"
				      "bcast 0x11000+4|sync|");
	assert_int_equal(o.ipis, 0);

	/* Exactly a multiple: no empty chunk. */
	mock_reset();
	c.broadcast_max_pages = 10;
	states("rpr");
	hints_are(&bc_hints);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "bcast 0x1000+10|bcast 0xb000+10|sync|");

	/* One page over a chunk: a chunk of one. */
	mock_reset();
	c.broadcast_max_pages = 19;
	states("rpr");
	hints_are(&bc_hints);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "bcast 0x1000+19|bcast 0x14000+1|sync|");
}

static void broadcast_over_ceiling(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_BROADCAST);
	struct hvtlb_flush_request r = req_of(4, "0-3", 0, 34 * 4096);
	struct hvtlb_flush_outcome o;

	states("rrr");
	hints_are(&bc_hints);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "bcast all|sync|");
	assert_true(o.full_flush);
}

static void broadcast_not_offered(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_BROADCAST);
	struct hvtlb_flush_request r = req_of(2, "0-1", 0x1000, 0x2000);
	struct hvtlb_backend_ops ops = mock_ops;
	struct hvtlb_hints none = { 0 };

	states("r");
	hints_are(&none);
	assert_int_equal(run(&c, &r, NULL), 0);
	assert_string_equal(mock.log, "ipi 1 0x1000+1|local 0 0x1000+1|"
				      "wait 1|");

	mock_reset();
	ops.broadcast_invalidate = NULL;
	ops.broadcast_sync = NULL;
	states("r");
	hints_are(&bc_hints);
	assert_int_equal(run_ops(&c, &ops, &r, NULL), 0);
	assert_string_equal(mock.log, "ipi 1 0x1000+1|local 0 0x1000+1|"
				      "wait 1|");
}

/* ------------------------------------------------------------------ */
/* Lazy (LATR)                                                         */
/* ------------------------------------------------------------------ */

static void lazy_posts_without_waiting(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_LAZY);
	struct hvtlb_flush_request r = req_of(3, "0-2", 0x1000, 0x5000);
	struct hvtlb_flush_outcome o;

	states("rr");
	will_return(mock_lazy_post, 7);
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "lazy 1-2 0x1000+4|local 0 0x1000+4|");
	assert_int_equal(o.reuse_epoch, 7);
	assert_int_equal(o.ipis, 0);
}

static void lazy_never_with_freed_tables(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_LAZY);
	struct hvtlb_flush_request r = req_of(3, "0-2", 0x1000, 0x5000);
	struct hvtlb_flush_outcome o;

	/* Freed page tables must be flushed synchronously: IPIs + wait. */
	r.freed_tables = true;
	states("rr");
	assert_int_equal(run(&c, &r, &o), 0);
	assert_string_equal(mock.log, "ipi 1-2 0x1000+4|local 0 0x1000+4|"
				      "wait 1-2|");
	assert_int_equal(o.reuse_epoch, 0);
	assert_int_equal(o.ipis, 2);
}

static void lazy_no_op(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_LAZY);
	struct hvtlb_flush_request r = req_of(2, "0-1", 0x1000, 0x2000);
	struct hvtlb_backend_ops ops = mock_ops;

	ops.lazy_post = NULL;
	states("r");
	assert_int_equal(run_ops(&c, &ops, &r, NULL), 0);
	assert_string_equal(mock.log, "ipi 1 0x1000+1|local 0 0x1000+1|"
				      "wait 1|");
}

/* ------------------------------------------------------------------ */
/* Requests, config, flusher, trace                                    */
/* ------------------------------------------------------------------ */

static void invalid_requests_do_nothing(void **state)
{
	struct hvtlb_flush_request bad[8];
	unsigned n = 0;

	bad[n] = req_of(4, "0-3", 0x1000, 0x2000);
	bad[n++].ncpus = 0;
	bad[n] = req_of(4, "0-3", 0x1000, 0x2000);
	bad[n++].ncpus = 4097;
	bad[n] = req_of(4, "0-3", 0x1000, 0x2000);
	bad[n++].initiator = 4;
	bad[n++] = req_of(4, "0-4", 0x1000, 0x2000);
	bad[n++] = req_of(4, "0,4095", 0x1000, 0x2000);
	bad[n++] = req_of(4, "0-3", 0x2000, 0x1000);
	bad[n] = req_of(4, "0-3", 0x1000, 0x2000);
	bad[n++].range.stride_shift = 13;
	bad[n++] = req_of(4, "0-3", 0x1000, UINT64_MAX);

	for (int k = 0; k < HVTLB_STRATEGY_COUNT_; k++) {
		struct hvtlb_strategy_config c = cfg_of(k);

		for (unsigned i = 0; i < n; i++) {
			struct hvtlb_flush_outcome o;

			memset(&o, 0xff, sizeof(o));
			assert_int_equal(hvtlb_request_validate(&bad[i]),
					 -EINVAL);
			assert_int_equal(run(&c, &bad[i], &o), -EINVAL);
			assert_int_equal(o.hypercalls + o.ipis + o.deferred, 0);
			assert_false(o.fell_back || o.full_flush);
		}
	}
	/* No mock was called: no log, and no will_return was consumed. */
	assert_string_equal(mock.log, "");
	assert_int_equal(hvtlb_request_validate(NULL), -EINVAL);
	assert_int_equal(hvtlb_flush(NULL, &bad[0], NULL), -EINVAL);

	/* The edges that are valid. */
	bad[0] = req_of(4096, "0,4095", 0, 0);
	assert_int_equal(hvtlb_request_validate(&bad[0]), 0);
	bad[0].range.all = true;
	bad[0].range.end = 0;
	bad[0].range.start = 5; /* ignored when all */
	assert_int_equal(hvtlb_request_validate(&bad[0]), 0);
	bad[0] = req_of(4, "0", 0, 0xfffffffffffff000ULL);
	assert_int_equal(hvtlb_request_validate(&bad[0]), 0);
	bad[0].range.end++;
	assert_int_equal(hvtlb_request_validate(&bad[0]), -EINVAL);
}

static void range_pages(void **state)
{
	struct hvtlb_flush_range r = { .start = 0x1800,
				       .end = 0x2001,
				       .stride_shift = 12 };

	assert_int_equal(hvtlb_range_pages(&r), 2);
	r.stride_shift = 21;
	assert_int_equal(hvtlb_range_pages(&r), 1);
	r.end = r.start;
	assert_int_equal(hvtlb_range_pages(&r), 0);
	r.all = true;
	assert_int_equal(hvtlb_range_pages(&r), 0);
	r.all = false;
	r.stride_shift = 64;
	r.end = 0x10000;
	assert_int_equal(hvtlb_range_pages(&r), 0);
	r.stride_shift = 12;
	r.start = 0;
	r.end = UINT64_MAX;
	assert_int_equal(hvtlb_range_pages(&r), 1ULL << 52);
	assert_int_equal(hvtlb_range_pages(NULL), 0);
}

static void cpumask_ops(void **state)
{
	struct hvtlb_cpumask m = mask_of("0,63-64,4095");

	assert_int_equal(hvtlb_cpumask_weight(&m), 4);
	assert_int_equal(hvtlb_cpumask_next(&m, 0), 0);
	assert_int_equal(hvtlb_cpumask_next(&m, 1), 63);
	assert_int_equal(hvtlb_cpumask_next(&m, 64), 64);
	assert_int_equal(hvtlb_cpumask_next(&m, 65), 4095);
	assert_int_equal(hvtlb_cpumask_next(&m, 4096), HVTLB_MAX_CPUS);
	hvtlb_cpumask_clear(&m, 4095);
	assert_int_equal(hvtlb_cpumask_next(&m, 65), HVTLB_MAX_CPUS);
	hvtlb_cpumask_set(&m, 4096); /* out of range: ignored */
	assert_false(hvtlb_cpumask_test(&m, 4096));
	assert_int_equal(hvtlb_cpumask_weight(&m), 3);
}

/*
 * hvtlb_cpumask_next() against the answer read off the bits one by one,
 * for every start, on seeded masks of 0 to 12 CPUs: scattered, in runs
 * around word and four-word boundaries (the scan skips empty words four
 * at a time), and at both ends.
 */
static void cpumask_next_property(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	(void)state;
	for (unsigned seed = 0; seed < 300; seed++) {
		struct hvtlb_cpumask m = { 0 };
		uint32_t next[HVTLB_MAX_CPUS + 1];
		unsigned k = seed % 13;

		for (unsigned j = 0; j < k; j++) {
			uint32_t cpu;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if (seed % 3 == 0) /* near a boundary of 4 words */
				cpu = (uint32_t)((x >> 8) % 16) * 256 +
				      (uint32_t)(x % 3) * 63 - (x & 4 ? 1 : 0);
			else
				cpu = (uint32_t)(x % HVTLB_MAX_CPUS);
			hvtlb_cpumask_set(&m, cpu % HVTLB_MAX_CPUS);
		}
		if (seed % 7 == 1)
			hvtlb_cpumask_set(&m, HVTLB_MAX_CPUS - 1);
		next[HVTLB_MAX_CPUS] = HVTLB_MAX_CPUS;
		for (uint32_t c = HVTLB_MAX_CPUS; c-- > 0;)
			next[c] = hvtlb_cpumask_test(&m, c) ? c : next[c + 1];
		for (uint32_t from = 0; from <= HVTLB_MAX_CPUS; from++)
			assert_int_equal(hvtlb_cpumask_next(&m, from),
					 next[from]);
	}
}

static void bool_words(void **state)
{
	static const char *const yes[] = { "1", "true", "TRUE", "yes", "On" };
	static const char *const no[] = { "0", "false", "No", "off", "OFF" };
	static const char *const bad[] = { "",	    "2",     "y",     "n",
					   "truee", " true", "true ", "01" };
	bool b;

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		b = false;
		assert_int_equal(hvtlb_parse_bool(yes[i], &b), 0);
		assert_true(b);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		b = true;
		assert_int_equal(hvtlb_parse_bool(no[i], &b), 0);
		assert_false(b);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = true;
		assert_int_equal(hvtlb_parse_bool(bad[i], &b), -EINVAL);
		assert_true(b);
	}
	assert_int_equal(hvtlb_parse_bool(NULL, &b), -EINVAL);
	/* The words listed are the words taken, true then false. */
	for (size_t i = 0; hvtlb_bool_word(i); i++) {
		b = i & 1;
		assert_int_equal(hvtlb_parse_bool(hvtlb_bool_word(i), &b), 0);
		assert_int_equal(b, !(i & 1));
	}
	assert_null(hvtlb_bool_word(8));
}

static void config_knobs(void **state)
{
	struct hvtlb_strategy_config c;
	enum hvtlb_strategy_kind k;

	hvtlb_strategy_config_init(&c, HVTLB_STRATEGY_HYPERV);
	assert_int_equal(c.kind, HVTLB_STRATEGY_HYPERV);
	assert_true(c.concurrent);
	assert_false(c.early_ack);
	assert_true(c.lazy_skip);
	assert_int_equal(c.full_flush_ceiling, 33);
	assert_false(c.xmm_fast || c.compact_vpset || c.extended_ranges);

	assert_int_equal(hvtlb_strategy_config_set(&c, "concurrent", "0"), 0);
	assert_false(c.concurrent);
	assert_int_equal(hvtlb_strategy_config_set(&c, "early_ack", "true"), 0);
	assert_true(c.early_ack);
	assert_int_equal(hvtlb_strategy_config_set(&c, "lazy_skip", "false"),
			 0);
	assert_false(c.lazy_skip);
	assert_int_equal(hvtlb_strategy_config_set(&c, "xmm_fast", "1"), 0);
	assert_int_equal(hvtlb_strategy_config_set(&c, "compact_vpset", "1"),
			 0);
	assert_int_equal(hvtlb_strategy_config_set(&c, "extended_ranges", "1"),
			 0);
	assert_true(c.xmm_fast && c.compact_vpset && c.extended_ranges);
	assert_int_equal(
		hvtlb_strategy_config_set(&c, "full_flush_ceiling", "128"), 0);
	assert_int_equal(c.full_flush_ceiling, 128);
	assert_int_equal(hvtlb_strategy_config_set(&c, "broadcast_max_pages",
						   "4294967295"),
			 0);
	assert_int_equal(c.broadcast_max_pages, UINT32_MAX);

	assert_int_equal(hvtlb_strategy_config_set(&c, "nope", "1"), -ENOENT);
	assert_int_equal(hvtlb_strategy_config_set(&c, "early_ack", "2"),
			 -EINVAL);
	assert_int_equal(hvtlb_strategy_config_set(&c, "early_ack", ""),
			 -EINVAL);
	assert_int_equal(
		hvtlb_strategy_config_set(&c, "full_flush_ceiling", "0"),
		-EINVAL);
	assert_int_equal(hvtlb_strategy_config_set(&c, "full_flush_ceiling",
						   "4294967296"),
			 -EINVAL);
	assert_int_equal(
		hvtlb_strategy_config_set(&c, "full_flush_ceiling", "-1"),
		-EINVAL);
	assert_int_equal(
		hvtlb_strategy_config_set(&c, "full_flush_ceiling", ""),
		-EINVAL);
	assert_int_equal(c.full_flush_ceiling, 128); /* unchanged */
	assert_int_equal(hvtlb_strategy_config_set(NULL, "a", "b"), -EINVAL);

	for (int i = 0; i < HVTLB_STRATEGY_COUNT_; i++) {
		const char *name = hvtlb_strategy_name(i);

		assert_non_null(name);
		assert_int_equal(hvtlb_strategy_from_name(name, &k), 0);
		assert_int_equal(k, i);
	}
	assert_string_equal(hvtlb_strategy_name(HVTLB_STRATEGY_KVM_PV),
			    "kvm-pv");
	assert_null(hvtlb_strategy_name(HVTLB_STRATEGY_COUNT_));
	assert_int_equal(hvtlb_strategy_from_name("IPI", &k), -EINVAL);
	assert_int_equal(hvtlb_strategy_from_name(NULL, &k), -EINVAL);
}

static void flusher_create_checks(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_IPI);
	struct hvtlb_backend_ops ops = mock_ops;

	assert_null(hvtlb_flusher_create(NULL, &mock_ops, NULL));
	assert_null(hvtlb_flusher_create(&c, NULL, NULL));
	ops.version = 2;
	assert_null(hvtlb_flusher_create(&c, &ops, NULL));
	ops = mock_ops;
	ops.wait_acks = NULL;
	assert_null(hvtlb_flusher_create(&c, &ops, NULL));
	ops = mock_ops;
	ops.broadcast_sync = NULL;
	assert_null(hvtlb_flusher_create(&c, &ops, NULL));
	c.full_flush_ceiling = 0;
	assert_null(hvtlb_flusher_create(&c, &mock_ops, NULL));
	c = cfg_of(HVTLB_STRATEGY_IPI);
	c.broadcast_max_pages = 0;
	assert_null(hvtlb_flusher_create(&c, &mock_ops, NULL));
	c = cfg_of(HVTLB_STRATEGY_IPI);
	c.kind = HVTLB_STRATEGY_COUNT_;
	assert_null(hvtlb_flusher_create(&c, &mock_ops, NULL));
	hvtlb_flusher_destroy(NULL);
}

struct trace_log {
	unsigned n;
	struct hvtlb_trace_event ev[16];
	char targets[16][64];
};

static void trace_cb(void *data, const struct hvtlb_trace_event *e)
{
	struct trace_log *t = data;

	assert_true(t->n < 16);
	if (e->targets)
		snprintf(t->targets[t->n], 64, "%s", cpus_str(e->targets));
	t->ev[t->n++] = *e;
}

static void trace_events(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(8, "0-2", 0x1000, 0x23000);
	struct hvtlb_flusher *f = hvtlb_flusher_create(&c, &mock_ops, NULL);
	struct trace_log t = { 0 };

	hvtlb_flusher_set_trace(f, trace_cb, &t);
	states("rr");
	hints_are(&hv_hints);
	will_return(mock_vp_index, 1);
	will_return(mock_vp_index, 2);
	will_return(mock_hypercall,
		    hvtlb_result_pack(HVTLB_STATUS_ACCESS_DENIED, 0));
	assert_int_equal(hvtlb_flush(f, &r, NULL), 0);
	assert_int_equal(t.n, 5);
	/* As Linux's hyperv_mmu_flush_tlb_multi: ncpus, mm, addr, end. */
	assert_int_equal(t.ev[0].kind, HVTLB_TRACE_REQUEST);
	assert_int_equal(t.ev[0].ncpus, 3);
	assert_int_equal(t.ev[0].address_space, AS);
	assert_int_equal(t.ev[0].start, 0);
	assert_int_equal(t.ev[0].end, UINT64_MAX); /* 34 pages: full */
	assert_int_equal(t.ev[1].kind, HVTLB_TRACE_LOCAL_FLUSH);
	assert_int_equal(t.ev[1].cpu, 0);
	assert_int_equal(t.ev[2].kind, HVTLB_TRACE_HYPERCALL);
	assert_int_equal(t.ev[2].control, 0x2);
	assert_int_equal(t.ev[2].result, HVTLB_STATUS_ACCESS_DENIED);
	assert_int_equal(t.ev[3].kind, HVTLB_TRACE_IPI);
	assert_string_equal(t.targets[3], "1-2");
	assert_int_equal(t.ev[4].kind, HVTLB_TRACE_WAIT);

	/* Cleared: no more events. */
	hvtlb_flusher_set_trace(f, NULL, &t);
	r.targets = mask_of("0");
	assert_int_equal(hvtlb_flush(f, &r, NULL), 0);
	assert_int_equal(t.n, 5);
	hvtlb_flusher_destroy(f);
}

static void trace_other_kinds(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_KVM_PV);
	struct hvtlb_flush_request r = req_of(3, "0-2", 0x1000, 0x2000);
	struct hvtlb_flusher *f = hvtlb_flusher_create(&c, &mock_ops, NULL);
	struct trace_log t = { 0 };

	hvtlb_flusher_set_trace(f, trace_cb, &t);
	states("pp");
	hints_are(&kvm_hints);
	will_return_count(mock_read_preempted, HVTLB_KVM_VCPU_PREEMPTED, 2);
	will_return_count(mock_cmpxchg, true, 2);
	assert_int_equal(hvtlb_flush(f, &r, NULL), 0);
	assert_int_equal(t.n, 4);
	assert_int_equal(t.ev[1].kind, HVTLB_TRACE_MARK_DEFERRED);
	assert_int_equal(t.ev[1].cpu, 1);
	assert_int_equal(t.ev[2].kind, HVTLB_TRACE_MARK_DEFERRED);
	assert_int_equal(t.ev[2].cpu, 2);
	assert_int_equal(t.ev[3].kind, HVTLB_TRACE_LOCAL_FLUSH);
	hvtlb_flusher_destroy(f);

	c = cfg_of(HVTLB_STRATEGY_BROADCAST);
	f = hvtlb_flusher_create(&c, &mock_ops, NULL);
	t.n = 0;
	hvtlb_flusher_set_trace(f, trace_cb, &t);
	states("rr");
	hints_are(&bc_hints);
	assert_int_equal(hvtlb_flush(f, &r, NULL), 0);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.ev[1].kind, HVTLB_TRACE_BROADCAST);
	assert_int_equal(t.ev[2].kind, HVTLB_TRACE_BROADCAST_SYNC);
	hvtlb_flusher_destroy(f);

	c = cfg_of(HVTLB_STRATEGY_VMM_ASSIST);
	f = hvtlb_flusher_create(&c, &mock_ops, NULL);
	t.n = 0;
	hvtlb_flusher_set_trace(f, trace_cb, &t);
	states("rr");
	hints_are(&vmm_hints);
	will_return(mock_vmm_flush, 0);
	assert_int_equal(hvtlb_flush(f, &r, NULL), 0);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.ev[2].kind, HVTLB_TRACE_VMM_FLUSH);
	assert_string_equal(t.targets[2], "1-2");
	hvtlb_flusher_destroy(f);

	c = cfg_of(HVTLB_STRATEGY_LAZY);
	f = hvtlb_flusher_create(&c, &mock_ops, NULL);
	t.n = 0;
	hvtlb_flusher_set_trace(f, trace_cb, &t);
	states("rr");
	will_return(mock_lazy_post, 3);
	assert_int_equal(hvtlb_flush(f, &r, NULL), 0);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.ev[1].kind, HVTLB_TRACE_LAZY_POST);
	hvtlb_flusher_destroy(f);
}

static void optional_queries_absent(void **state)
{
	struct hvtlb_strategy_config c = cfg_of(HVTLB_STRATEGY_HYPERV);
	struct hvtlb_flush_request r = req_of(8, "0-2", 0x1000, 0x2000);
	struct hvtlb_backend_ops ops = mock_ops;
	struct hvtlb_flush_outcome o;

	/* No cpu_state: all running. No vp_index: identity. No hints: none
	 * (so IPIs). */
	ops.cpu_state = NULL;
	ops.vp_index = NULL;
	ops.get_hints = NULL;
	assert_int_equal(run_ops(&c, &ops, &r, &o), 0);
	assert_string_equal(mock.log, "ipi 1-2 0x1000+1|local 0 0x1000+1|"
				      "wait 1-2|");
}

/* What each strategy needs of its host (hvtlb_strategy_needs()) is the
 * set of hints its own tests above run it with: with them it takes its
 * own path (hv_list_vp_below_64, kvm_preempted_deferred, vmm_assist,
 * xen_pv_widens, broadcast_chunks), without them it falls back. */
static void strategy_needs(void **state)
{
	static const struct {
		enum hvtlb_strategy_kind k;
		const struct hvtlb_hints *h;
	} want[] = {
		{ HVTLB_STRATEGY_HYPERV, &hv_hints },
		{ HVTLB_STRATEGY_KVM_PV, &kvm_hints },
		{ HVTLB_STRATEGY_VMM_ASSIST, &vmm_hints },
		{ HVTLB_STRATEGY_XEN_PV, &vmm_hints },
		{ HVTLB_STRATEGY_BROADCAST, &bc_hints },
	};
	struct hvtlb_hints n, none = { 0 };

	(void)state;
	for (int k = 0; k < HVTLB_STRATEGY_COUNT_; k++) {
		const struct hvtlb_hints *w = &none;

		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			if (want[i].k == (enum hvtlb_strategy_kind)k)
				w = want[i].h;
		memset(&n, 0xa5, sizeof(n));
		assert_int_equal(
			hvtlb_strategy_needs((enum hvtlb_strategy_kind)k, &n),
			0);
		assert_int_equal(n.remote_flush_recommended,
				 w->remote_flush_recommended);
		assert_int_equal(n.ex_available, w->ex_available);
		assert_int_equal(n.xmm_input, w->xmm_input);
		assert_int_equal(n.extended_ranges, w->extended_ranges);
		assert_int_equal(n.broadcast, w->broadcast);
		assert_int_equal(n.kvm_pv_flush, w->kvm_pv_flush);
		assert_int_equal(n.vmm_assist, w->vmm_assist);
	}
	assert_int_equal(hvtlb_strategy_needs(HVTLB_STRATEGY_COUNT_, &n),
			 -EINVAL);
	assert_int_equal(hvtlb_strategy_needs(HVTLB_STRATEGY_IPI, NULL),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup(fn, setup)
		T(ipi_serial_order),
		T(ipi_concurrent_order),
		T(ipi_early_ack),
		T(ipi_early_ack_refused_with_freed_tables),
		T(ipi_lazy_skipped),
		T(ipi_lazy_kept_with_freed_tables),
		T(ipi_lazy_skip_off),
		T(ipi_preempted_and_offline),
		T(ipi_ceiling_boundary),
		T(ipi_unaligned_range_rounds_out),
		T(only_initiator_or_nothing),
		T(hv_not_recommended),
		T(hv_no_hypercall_op),
		T(hv_list_vp_below_64),
		T(hv_vp_map_used),
		T(hv_all_processors),
		T(hv_all_processors_beyond_64),
		T(hv_ex_above_64),
		T(hv_compact_vpset),
		T(hv_ex_unavailable),
		T(hv_vp_4096_falls_back),
		T(hv_failure_falls_back_to_exact_targets),
		T(hv_lazy_with_freed_tables),
		T(hv_rep_loop_partial),
		T(hv_rep_loop_no_progress),
		T(hv_everything),
		T(hv_over_ceiling_is_space),
		T(hv_range_over_capacity),
		T(hv_xmm_fast),
		T(hv_extended_ranges),
		T(kvm_preempted_deferred),
		T(kvm_all_deferred),
		T(kvm_lazy_targets),
		T(kvm_no_hint_or_op),
		T(vmm_assist),
		T(vmm_assist_error),
		T(vmm_assist_not_offered),
		T(xen_pv_single_page),
		T(xen_pv_widens),
		T(xen_pv_fallback),
		T(broadcast_chunks),
		T(broadcast_over_ceiling),
		T(broadcast_not_offered),
		T(lazy_posts_without_waiting),
		T(lazy_never_with_freed_tables),
		T(lazy_no_op),
		T(invalid_requests_do_nothing),
		T(range_pages),
		T(cpumask_ops),
		T(cpumask_next_property),
		T(bool_words),
		T(config_knobs),
		T(flusher_create_checks),
		T(strategy_needs),
		T(trace_events),
		T(trace_other_kinds),
		T(optional_queries_absent),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
