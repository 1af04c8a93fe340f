// SPDX-License-Identifier: MIT
/*
 * The built-in backends: the recording backend's exact ordered action list
 * through real strategies, its settable state, its text and JSON
 * rendering; the null backend.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hvtlb/core.h>

#define AS 0x5000ULL

struct fixture {
	struct hvtlb_recorder *rec;
	struct hvtlb_strategy_config cfg;
	struct hvtlb_flush_request req;
	struct hvtlb_flush_outcome out;
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->rec = hvtlb_recorder_create();
	assert_non_null(fx->rec);
	hvtlb_strategy_config_init(&fx->cfg, HVTLB_STRATEGY_IPI);
	fx->req.ncpus = 8;
	fx->req.address_space = AS;
	fx->req.range.start = 0x1000;
	fx->req.range.end = 0x3000;
	fx->req.range.stride_shift = 12;
	for (uint32_t i = 0; i < 4; i++)
		hvtlb_cpumask_set(&fx->req.targets, i);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	hvtlb_recorder_destroy(fx->rec);
	free(fx);
	return 0;
}

static int flush_with(struct fixture *fx, enum hvtlb_strategy_kind kind)
{
	struct hvtlb_flusher *f;
	int rc;

	fx->cfg.kind = kind;
	f = hvtlb_flusher_create(&fx->cfg, hvtlb_recorder_ops(), fx->rec);
	assert_non_null(f);
	rc = hvtlb_flush(f, &fx->req, &fx->out);
	hvtlb_flusher_destroy(f);
	return rc;
}

static const struct hvtlb_action *act(struct fixture *fx, size_t i)
{
	const struct hvtlb_action *a = hvtlb_recorder_action(fx->rec, i);

	assert_non_null(a);
	return a;
}

static char *render(struct fixture *fx, enum hvtlb_render_format fmt)
{
	static char buf[65536];

	assert_int_equal(
		hvtlb_recorder_render(fx->rec, fmt, buf, sizeof(buf), NULL), 0);
	return buf;
}

static const struct hvtlb_hints hv_hints = {
	.remote_flush_recommended = true,
	.ex_available = true,
};

static void hyperv_list_exact(void **state)
{
	struct fixture *fx = *state;
	const struct hvtlb_action *a;

	hvtlb_recorder_set_hints(fx->rec, &hv_hints);
	assert_int_equal(flush_with(fx, HVTLB_STRATEGY_HYPERV), 0);
	assert_int_equal(hvtlb_recorder_count(fx->rec), 2);
	a = act(fx, 0);
	assert_int_equal(a->kind, HVTLB_ACTION_LOCAL_FLUSH);
	assert_int_equal(a->cpu, 0);
	assert_int_equal(a->range.start, 0x1000);
	assert_int_equal(a->range.end, 0x3000);
	assert_false(a->range.all);
	a = act(fx, 1);
	assert_int_equal(a->kind, HVTLB_ACTION_HYPERCALL);
	assert_int_equal(a->control, 0x0000000100000003ULL);
	assert_int_equal(a->result, 0x0000000100000000ULL);
	assert_int_equal(a->len, 32);
	assert_int_equal(a->input[16], 0xe);
	assert_null(hvtlb_recorder_action(fx->rec, 2));

	assert_string_equal(
		render(fx, HVTLB_RENDER_TEXT),
		"local_flush cpu=0 range=0x1000-0x3000 stride=4k pages=2\n"
		"hypercall control=0x0000000100000003 call=list fast=0 "
		"rep_count=1 rep_start=0 result=0x0000000100000000 "
		"status=HV_STATUS_SUCCESS\n"
		"  input 0x0000000000005000 0x0000000000000000 "
		"0x000000000000000e 0x0000000000001001\n"
		"  decoded flags=none vps=1-3 ranges=0x1000+2/4k\n");
	assert_string_equal(
		render(fx, HVTLB_RENDER_JSON),
		"{\"actions\":[{\"op\":\"local_flush\",\"cpu\":0,"
		"\"start\":\"0x1000\",\"end\":\"0x3000\",\"stride\":\"4k\","
		"\"pages\":2},{\"op\":\"hypercall\","
		"\"control\":\"0x0000000100000003\",\"call\":\"list\","
		"\"fast\":false,\"rep_count\":1,\"rep_start\":0,"
		"\"input\":[\"0x0000000000005000\",\"0x0000000000000000\","
		"\"0x000000000000000e\",\"0x0000000000001001\"],"
		"\"result\":\"0x0000000100000000\","
		"\"status\":\"HV_STATUS_SUCCESS\",\"flags\":[],"
		"\"vps\":[1,2,3],\"ranges\":[{\"gva\":\"0x1000\",\"pages\":2,"
		"\"size\":\"4k\"}]}]}\n");
}

static void hyperv_space_all_processors(void **state)
{
	struct fixture *fx = *state;

	fx->req.ncpus = 4;
	fx->req.range.all = true;
	hvtlb_recorder_set_hints(fx->rec, &hv_hints);
	assert_int_equal(flush_with(fx, HVTLB_STRATEGY_HYPERV), 0);
	assert_string_equal(
		render(fx, HVTLB_RENDER_TEXT),
		"local_flush cpu=0 range=all\n"
		"hypercall control=0x0000000000000002 call=space fast=0 "
		"rep_count=0 rep_start=0 result=0x0000000000000000 "
		"status=HV_STATUS_SUCCESS\n"
		"  input 0x0000000000005000 0x0000000000000005 "
		"0x0000000000000000\n"
		"  decoded flags=all-processors|non-global-mappings-only "
		"vps=all ranges=all\n");
}

static void hyperv_fast_and_bad_calls(void **state)
{
	struct fixture *fx = *state;
	const struct hvtlb_backend_ops *ops = hvtlb_recorder_ops();
	struct hvtlb_hints h = hv_hints;
	uint8_t junk[8] = { 0 };

	/* XMM fast input: decoded from the register image. */
	h.xmm_input = true;
	fx->cfg.xmm_fast = true;
	hvtlb_recorder_set_hints(fx->rec, &h);
	assert_int_equal(flush_with(fx, HVTLB_STRATEGY_HYPERV), 0);
	assert_int_equal(act(fx, 1)->control, 0x0000000100010003ULL);
	assert_non_null(strstr(render(fx, HVTLB_RENDER_TEXT),
			       "call=list fast=1 rep_count=1"));
	assert_non_null(strstr(render(fx, HVTLB_RENDER_TEXT),
			       "  decoded flags=none vps=1-3 "
			       "ranges=0x1000+2/4k\n"));

	/* A call no strategy would make: shown with the strict status. */
	hvtlb_recorder_clear(fx->rec);
	ops->hypercall(fx->rec, 0x0000000100000003ULL, junk, sizeof(junk));
	assert_string_equal(
		render(fx, HVTLB_RENDER_JSON),
		"{\"actions\":[{\"op\":\"hypercall\","
		"\"control\":\"0x0000000100000003\",\"call\":\"list\","
		"\"fast\":false,\"rep_count\":1,\"rep_start\":0,"
		"\"input\":[\"0x0000000000000000\"],"
		"\"result\":\"0x0000000100000000\","
		"\"status\":\"HV_STATUS_SUCCESS\","
		"\"decode_status\":\"HV_STATUS_INVALID_HYPERCALL_INPUT\"}]}\n");
	hvtlb_flusher_set_trace(NULL, NULL, NULL); /* accepted */
}

static void hyperv_failure_fallback(void **state)
{
	struct fixture *fx = *state;
	const struct hvtlb_action *a;

	hvtlb_recorder_set_hints(fx->rec, &hv_hints);
	hvtlb_recorder_set_hypercall_status(fx->rec,
					    HVTLB_STATUS_INVALID_PARAMETER);
	assert_int_equal(flush_with(fx, HVTLB_STRATEGY_HYPERV), 0);
	assert_true(fx->out.fell_back);
	assert_int_equal(hvtlb_recorder_count(fx->rec), 4);
	assert_int_equal(act(fx, 0)->kind, HVTLB_ACTION_LOCAL_FLUSH);
	a = act(fx, 1);
	assert_int_equal(a->kind, HVTLB_ACTION_HYPERCALL);
	assert_int_equal(a->result, HVTLB_STATUS_INVALID_PARAMETER);
	a = act(fx, 2);
	assert_int_equal(a->kind, HVTLB_ACTION_IPI);
	assert_int_equal(a->targets.bits[0], 0xe);
	assert_int_equal(act(fx, 3)->kind, HVTLB_ACTION_WAIT);
	assert_int_equal(act(fx, 3)->targets.bits[0], 0xe);
}

static void hyperv_partial_reps(void **state)
{
	struct fixture *fx = *state;

	fx->cfg.full_flush_ceiling = 1u << 20;
	fx->req.range.start = 0;
	fx->req.range.end = 5ULL << 24; /* 5 entries of 16 MiB */
	hvtlb_recorder_set_hints(fx->rec, &hv_hints);
	hvtlb_recorder_set_reps_per_call(fx->rec, 2);
	assert_int_equal(flush_with(fx, HVTLB_STRATEGY_HYPERV), 0);
	assert_int_equal(fx->out.hypercalls, 3);
	assert_int_equal(hvtlb_recorder_count(fx->rec), 4);
	assert_int_equal(act(fx, 1)->control, 0x0000000500000003ULL);
	assert_int_equal(act(fx, 1)->result, 0x0000000200000000ULL);
	assert_int_equal(act(fx, 2)->control, 0x0002000500000003ULL);
	assert_int_equal(act(fx, 2)->result, 0x0000000400000000ULL);
	assert_int_equal(act(fx, 3)->control, 0x0004000500000003ULL);
	assert_int_equal(act(fx, 3)->result, 0x0000000500000000ULL);
	assert_false(fx->out.fell_back);
	/* The third round decodes from rep start 4: one entry. */
	assert_non_null(strstr(render(fx, HVTLB_RENDER_TEXT),
			       "rep_start=4 result=0x0000000500000000 "
			       "status=HV_STATUS_SUCCESS\n"
			       "  input"));
}

static void hyperv_vp_map(void **state)
{
	struct fixture *fx = *state;

	hvtlb_recorder_set_hints(fx->rec, &hv_hints);
	assert_int_equal(hvtlb_recorder_set_vp(fx->rec, 1, 100), 0);
	assert_int_equal(flush_with(fx, HVTLB_STRATEGY_HYPERV), 0);
	assert_int_equal(act(fx, 1)->control & 0xffff,
			 HVTLB_CALL_FLUSH_LIST_EX);
	assert_non_null(
		strstr(render(fx, HVTLB_RENDER_JSON), "\"vps\":[2,3,100]"));
	assert_non_null(
		strstr(render(fx, HVTLB_RENDER_TEXT), " vps=2-3,100 ranges="));

	hvtlb_recorder_clear(fx->rec);
	assert_int_equal(hvtlb_recorder_count(fx->rec), 0);
	assert_int_equal(hvtlb_recorder_set_vp(fx->rec, 1, 4096), 0);
	assert_int_equal(flush_with(fx, HVTLB_STRATEGY_HYPERV), 0);
	assert_true(fx->out.fell_back);
	assert_int_equal(hvtlb_recorder_count(fx->rec), 3);
	assert_int_equal(act(fx, 1)->kind, HVTLB_ACTION_IPI);
}

static void kvm_cas_lose(void **state)
{
	struct fixture *fx = *state;
	const struct hvtlb_backend_ops *ops = hvtlb_recorder_ops();
	struct hvtlb_hints h = { .kvm_pv_flush = true };

	hvtlb_recorder_set_hints(fx->rec, &h);
	for (uint32_t cpu = 2; cpu <= 3; cpu++) {
		hvtlb_recorder_set_cpu_state(fx->rec, cpu, HVTLB_CPU_PREEMPTED);
		hvtlb_recorder_set_preempted(fx->rec, cpu,
					     HVTLB_KVM_VCPU_PREEMPTED);
	}
	hvtlb_recorder_set_cas_lose(fx->rec, 3, true);
	assert_int_equal(flush_with(fx, HVTLB_STRATEGY_KVM_PV), 0);
	assert_int_equal(fx->out.deferred, 1);
	assert_string_equal(
		render(fx, HVTLB_RENDER_TEXT),
		"mark_deferred cpu=2 won=1\n"
		"mark_deferred cpu=3 won=0\n"
		"ipi targets=1,3 range=0x1000-0x3000 stride=4k pages=2 "
		"early_ack=0\n"
		"local_flush cpu=0 range=0x1000-0x3000 stride=4k pages=2\n"
		"wait targets=1,3\n");
	/* CPU 2 carries the flag for the host; CPU 3 runs again. */
	assert_int_equal(ops->read_preempted(fx->rec, 2),
			 HVTLB_KVM_VCPU_PREEMPTED | HVTLB_KVM_VCPU_FLUSH_TLB);
	assert_int_equal(ops->read_preempted(fx->rec, 3), 0);
	assert_int_equal(ops->cpu_state(fx->rec, 3), HVTLB_CPU_RUNNING);
	assert_int_equal(ops->cpu_state(fx->rec, 4096), HVTLB_CPU_OFFLINE);
}

static void other_strategies_render(void **state)
{
	struct fixture *fx = *state;
	struct hvtlb_hints h = { .broadcast = true, .vmm_assist = true };

	hvtlb_recorder_set_hints(fx->rec, &h);
	fx->cfg.broadcast_max_pages = 1;
	assert_int_equal(flush_with(fx, HVTLB_STRATEGY_BROADCAST), 0);
	assert_string_equal(render(fx, HVTLB_RENDER_JSON),
			    "{\"actions\":[{\"op\":\"broadcast\","
			    "\"start\":\"0x1000\",\"end\":\"0x2000\","
			    "\"stride\":\"4k\",\"pages\":1},"
			    "{\"op\":\"broadcast\",\"start\":\"0x2000\","
			    "\"end\":\"0x3000\",\"stride\":\"4k\",\"pages\":1},"
			    "{\"op\":\"broadcast_sync\"}]}\n");

	hvtlb_recorder_clear(fx->rec);
	hvtlb_recorder_set_vmm_result(fx->rec, -EIO);
	fx->req.range.all = true;
	fx->req.range.include_global = true;
	assert_int_equal(flush_with(fx, HVTLB_STRATEGY_VMM_ASSIST), 0);
	assert_true(fx->out.fell_back);
	assert_string_equal(render(fx, HVTLB_RENDER_TEXT),
			    "local_flush cpu=0 range=all global=1\n"
			    "vmm_flush targets=1-3 range=all global=1 "
			    "result=-5\n"
			    "ipi targets=1-3 range=all global=1 early_ack=0\n"
			    "wait targets=1-3\n");

	hvtlb_recorder_clear(fx->rec);
	fx->req.range.all = false;
	fx->req.range.include_global = false;
	assert_int_equal(flush_with(fx, HVTLB_STRATEGY_LAZY), 0);
	assert_int_equal(fx->out.reuse_epoch, 1);
	assert_int_equal(flush_with(fx, HVTLB_STRATEGY_LAZY), 0);
	assert_int_equal(fx->out.reuse_epoch, 2);
	assert_string_equal(render(fx, HVTLB_RENDER_JSON),
			    "{\"actions\":[{\"op\":\"lazy_post\","
			    "\"targets\":[1,2,3],\"start\":\"0x1000\","
			    "\"end\":\"0x3000\",\"stride\":\"4k\",\"pages\":2,"
			    "\"epoch\":1},{\"op\":\"local_flush\",\"cpu\":0,"
			    "\"start\":\"0x1000\",\"end\":\"0x3000\","
			    "\"stride\":\"4k\",\"pages\":2},"
			    "{\"op\":\"lazy_post\",\"targets\":[1,2,3],"
			    "\"start\":\"0x1000\",\"end\":\"0x3000\","
			    "\"stride\":\"4k\",\"pages\":2,\"epoch\":2},"
			    "{\"op\":\"local_flush\",\"cpu\":0,"
			    "\"start\":\"0x1000\",\"end\":\"0x3000\","
			    "\"stride\":\"4k\",\"pages\":2}]}\n");
}

static void render_buffer_and_file(void **state)
{
	struct fixture *fx = *state;
	char small[16], *full, *mem = NULL;
	size_t len = 0, need, memlen = 0;
	FILE *f;

	hvtlb_recorder_set_hints(fx->rec, &hv_hints);
	assert_int_equal(flush_with(fx, HVTLB_STRATEGY_HYPERV), 0);
	full = render(fx, HVTLB_RENDER_TEXT);

	assert_int_equal(hvtlb_recorder_render(fx->rec, HVTLB_RENDER_TEXT,
					       small, sizeof(small), &need),
			 -ENOSPC);
	assert_int_equal(need, strlen(full));
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_memory_equal(small, full, sizeof(small) - 1);
	/* A NULL buffer only measures. */
	assert_int_equal(hvtlb_recorder_render(fx->rec, HVTLB_RENDER_TEXT, NULL,
					       0, &len),
			 -ENOSPC);
	assert_int_equal(len, need);
	/* Exactly enough room. */
	{
		char *exact = malloc(need + 1);

		assert_non_null(exact);
		assert_int_equal(hvtlb_recorder_render(fx->rec,
						       HVTLB_RENDER_TEXT, exact,
						       need + 1, NULL),
				 0);
		assert_string_equal(exact, full);
		assert_int_equal(hvtlb_recorder_render(fx->rec,
						       HVTLB_RENDER_TEXT, exact,
						       need, NULL),
				 -ENOSPC);
		free(exact);
	}
	assert_int_equal(
		hvtlb_recorder_render(fx->rec, 7, small, sizeof(small), NULL),
		-EINVAL);

	f = open_memstream(&mem, &memlen);
	assert_non_null(f);
	assert_int_equal(hvtlb_recorder_write(fx->rec, HVTLB_RENDER_TEXT, f),
			 0);
	fclose(f);
	assert_string_equal(mem, full);
	free(mem);
	assert_int_equal(hvtlb_recorder_write(fx->rec, HVTLB_RENDER_JSON, NULL),
			 -EINVAL);
}

static void recorder_setters(void **state)
{
	struct fixture *fx = *state;
	const struct hvtlb_backend_ops *ops = hvtlb_recorder_ops();
	struct hvtlb_hints h;

	assert_int_equal(
		hvtlb_recorder_set_cpu_state(fx->rec, 4096, HVTLB_CPU_LAZY),
		-EINVAL);
	assert_int_equal(hvtlb_recorder_set_cpu_state(fx->rec, 1, 9), -EINVAL);
	assert_int_equal(hvtlb_recorder_set_preempted(fx->rec, 4096, 1),
			 -EINVAL);
	assert_int_equal(hvtlb_recorder_set_cas_lose(fx->rec, 4096, true),
			 -EINVAL);
	assert_int_equal(hvtlb_recorder_set_vp(fx->rec, 4096, 1), -EINVAL);
	assert_int_equal(ops->vp_index(fx->rec, 7), 7);
	assert_int_equal(ops->vp_index(fx->rec, 4096), UINT32_MAX);
	ops->get_hints(fx->rec, &h);
	assert_false(h.remote_flush_recommended || h.broadcast);
	assert_true(hvtlb_backend_is_recorder(ops));
	assert_false(hvtlb_backend_is_null(ops));
	assert_int_equal(ops->version, HVTLB_BACKEND_OPS_VERSION);
	hvtlb_recorder_destroy(NULL);
}

static void lazy_targets_through_recorder(void **state)
{
	struct fixture *fx = *state;

	/* Lazy CPU 2: skipped unless page tables were freed. */
	hvtlb_recorder_set_cpu_state(fx->rec, 2, HVTLB_CPU_LAZY);
	assert_int_equal(flush_with(fx, HVTLB_STRATEGY_IPI), 0);
	assert_int_equal(act(fx, 0)->targets.bits[0], 0xa);
	hvtlb_recorder_clear(fx->rec);
	fx->req.freed_tables = true;
	assert_int_equal(flush_with(fx, HVTLB_STRATEGY_IPI), 0);
	assert_int_equal(act(fx, 0)->targets.bits[0], 0xe);
}

static void null_backend(void **state)
{
	struct fixture *fx = *state;
	const struct hvtlb_backend_ops *ops = hvtlb_null_backend_ops();

	assert_true(hvtlb_backend_is_null(ops));
	assert_false(hvtlb_backend_is_recorder(ops));
	assert_false(hvtlb_backend_is_null(NULL));
	for (int k = 0; k < HVTLB_STRATEGY_COUNT_; k++) {
		struct hvtlb_strategy_config c;
		struct hvtlb_flusher *f;

		hvtlb_strategy_config_init(&c, k);
		f = hvtlb_flusher_create(&c, ops, NULL);
		assert_non_null(f);
		assert_int_equal(hvtlb_flush(f, &fx->req, &fx->out), 0);
		/* No hints: every strategy takes the IPI path. */
		assert_int_equal(fx->out.ipis, 3);
		assert_int_equal(fx->out.hypercalls, 0);
		hvtlb_flusher_destroy(f);
	}
	/* Its hypercall completes every rep. */
	assert_int_equal(ops->hypercall(NULL, 0x0000000500000003ULL, NULL, 0),
			 hvtlb_result_pack(HVTLB_STATUS_SUCCESS, 5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(hyperv_list_exact),
		T(hyperv_space_all_processors),
		T(hyperv_fast_and_bad_calls),
		T(hyperv_failure_fallback),
		T(hyperv_partial_reps),
		T(hyperv_vp_map),
		T(kvm_cas_lose),
		T(other_strategies_render),
		T(render_buffer_and_file),
		T(recorder_setters),
		T(lazy_targets_through_recorder),
		T(null_backend),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
