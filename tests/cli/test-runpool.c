// SPDX-License-Identifier: MIT
/* Unit tests for runpool_share() in tools/hvtlb/running/runpool.c: a run repeated
 * across validation cases is run once, and its copies get its results. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runpool.h"

static void config(struct run_job *j, uint64_t seed)
{
	struct hvtlb_sim_config *c = &j->cfg;

	memset(j, 0, sizeof(*j));
	hvtlb_sim_config_init(c);
	assert_int_equal(hvtlb_sim_config_set(c, "workload.iterations", "20"),
			 0);
	assert_int_equal(hvtlb_sim_config_set(c, "vm.vcpus", "4"), 0);
	assert_int_equal(hvtlb_sim_config_set(c, "machine.pcpus", "4"), 0);
	c->seed = seed;
	assert_int_equal(hvtlb_sim_config_validate(c, NULL), 0);
}

/* Jobs 0 and 3 alike, 1 and 4 alike, 2 alone; 5 differs from 0 in one
 * cost by one unit in the last place, so it is a configuration of its
 * own. */
static void test_share_repeats(void **state)
{
	struct run_job job[6];
	struct run_job *list[6], *run[6];
	long n;

	(void)state;
	config(&job[0], 1);
	config(&job[1], 2);
	config(&job[2], 3);
	config(&job[3], 1);
	config(&job[4], 2);
	config(&job[5], 1);
	job[5].cfg.cost[0] = nextafter(job[5].cfg.cost[0], 1e300);
	for (size_t i = 0; i < 6; i++)
		list[i] = &job[i];
	n = runpool_share(list, 6, run);
	assert_int_equal(n, 4);
	assert_ptr_equal(run[0], &job[0]);
	assert_ptr_equal(run[1], &job[1]);
	assert_ptr_equal(run[2], &job[2]);
	assert_ptr_equal(run[3], &job[5]);
	assert_null(job[0].same);
	assert_ptr_equal(job[3].same, &job[0]);
	assert_ptr_equal(job[4].same, &job[1]);
	assert_null(job[5].same);

	runpool_run(run, (size_t)n, 2);
	runpool_share_results(list, 6);
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(job[i].rc, 0);
		assert_non_null(job[i].res);
	}
	assert_ptr_equal(job[3].res, job[0].res);
	assert_ptr_equal(job[4].res, job[1].res);
	assert_ptr_not_equal(job[5].res, job[0].res);

	/* A repeated job run on its own gives what it borrowed. */
	{
		struct run_job alone;
		struct run_job *one = &alone;

		config(&alone, 2);
		runpool_run(&one, 1, 1);
		assert_int_equal(alone.rc, 0);
		assert_memory_equal(&alone.res->real_s, &job[4].res->real_s,
				    sizeof(alone.res->real_s));
		assert_true(alone.res->shootdowns == job[4].res->shootdowns);
		run_job_finish(&alone);
	}
	/* Borrowers first or owners first: nothing freed twice (valgrind and
	 * ASan builds run this test). */
	run_job_finish(&job[3]);
	for (size_t i = 0; i < 6; i++)
		run_job_finish(&job[i]);
	for (size_t i = 0; i < 6; i++)
		assert_null(job[i].res);
}

/* No job, or no repeat: everything runs. */
static void test_share_none(void **state)
{
	struct run_job job[2];
	struct run_job *list[2] = { NULL, NULL }, *run[2] = { NULL, NULL };

	(void)state;
	assert_int_equal(runpool_share(list, 0, run), 0);
	config(&job[0], 7);
	config(&job[1], 8);
	list[0] = &job[0];
	list[1] = &job[1];
	assert_int_equal(runpool_share(list, 2, run), 2);
	assert_null(job[0].same);
	assert_null(job[1].same);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_share_repeats),
		cmocka_unit_test(test_share_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
