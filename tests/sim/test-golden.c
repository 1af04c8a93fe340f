// SPDX-License-Identifier: MIT
/*
 * Golden figures: the JSON of two small seeded runs (tests/sim/golden),
 * byte for byte. HVTLB_GOLDEN_UPDATE=1 rewrites them first; argv[2] is
 * the folder that holds them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include <hvtlb/sim.h>

#include "sim-test.h"

static const char *golden_dir = ".";

static void golden(const char *name, const char *const *kv)
{
	char path[1024];
	struct hvtlb_sim_results *r = run_kv(kv);
	char *j = to_json(r);
	FILE *f;
	char want[8192];
	size_t n;

	snprintf(path, sizeof(path), "%s/%s.json", golden_dir, name);
	if (getenv("HVTLB_GOLDEN_UPDATE")) {
		f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "%s\n", j);
		fclose(f);
	}
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	n = fread(want, 1, sizeof(want) - 1, f);
	fclose(f);
	want[n] = 0;
	if (n && want[n - 1] == '\n')
		want[n - 1] = 0;
	assert_string_equal(j, want);
	free(j);
	hvtlb_sim_results_destroy(r);
}

static void test_golden(void **state)
{
	static const char *const ipi[] = { "strategy=ipi",
					   "workload.threads=8",
					   "vm.vcpus=4",
					   "machine.pcpus=4",
					   "workload.iterations=50",
					   "workload.pages=4",
					   "seed=7",
					   NULL };
	static const char *const hv[] = { "strategy=hyperv",
					  "workload.threads=8",
					  "vm.vcpus=4",
					  "machine.pcpus=2",
					  "workload.iterations=50",
					  "workload.pages=4",
					  "workload.sleep_ns_max=10000",
					  "seed=7",
					  NULL };

	(void)state;
	golden("golden-ipi", ipi);
	golden("golden-hyperv-overcommit", hv);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	if (argc > 2)
		golden_dir = argv[2];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
