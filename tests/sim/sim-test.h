/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the simulator's cmocka tests. Include after <cmocka.h>
 * and <hvtlb/sim.h>; main thread only (they assert).
 */
#ifndef HVTLB_TESTS_SIM_TEST_H
#define HVTLB_TESTS_SIM_TEST_H

#include <stdio.h>
#include <string.h>

/* Applies "key=value" pairs (NULL-terminated) to a default config. */
static inline void cfg_apply(struct hvtlb_sim_config *c, const char *const *kv)
{
	hvtlb_sim_config_init(c);
	for (; *kv; kv++) {
		char key[128];
		const char *eq = strchr(*kv, '=');
		int rc;

		assert_non_null(eq);
		assert_true((size_t)(eq - *kv) < sizeof(key));
		memcpy(key, *kv, (size_t)(eq - *kv));
		key[eq - *kv] = 0;
		rc = hvtlb_sim_config_set(c, key, eq + 1);
		if (rc)
			fail_msg("set %s: %d", *kv, rc);
	}
}

/* Runs @p c; fails the test on an error. */
static inline struct hvtlb_sim_results *
run_cfg(const struct hvtlb_sim_config *c)
{
	struct hvtlb_sim_results *r = NULL;
	int rc = hvtlb_sim_run(c, &r);

	if (rc)
		fail_msg("hvtlb_sim_run: %d", rc);
	assert_non_null(r);
	return r;
}

/* Runs a default config with "key=value" pairs applied (cfg_apply()). */
static inline struct hvtlb_sim_results *run_kv(const char *const *kv)
{
	struct hvtlb_sim_config c;

	cfg_apply(&c, kv);
	return run_cfg(&c);
}

/* The JSON of @p r, in a malloc'ed string. */
static inline char *to_json(const struct hvtlb_sim_results *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(hvtlb_sim_results_write_json(r, f), 0);
	fclose(f);
	return buf;
}

#endif
