// SPDX-License-Identifier: MIT
/* Every shipped profile sets every cost parameter the library has (so a new
 * cost cannot silently fall back to its default in a published experiment)
 * and nothing else, each once; every shipped scenario loads and validates
 * against the library's keys. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hvtlb/sim.h>

#include "scenario.h"
#include "sim-run.h"

static const char *root(void)
{
	const char *r = getenv("HVTLB_SOURCE_ROOT");

	if (!r)
		skip();
	return r;
}

/* Calls @p fn for every *.ini file in ROOT/@p sub; returns the count. */
static size_t for_each_ini(const char *sub, void (*fn)(const char *path))
{
	char dir[PATH_MAX], path[PATH_MAX * 2];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s", root(), sub);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 5 || strcmp(de->d_name + len - 4, ".ini"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fn(path);
		n++;
	}
	closedir(d);
	return n;
}

static void check_profile(const char *path)
{
	size_t ncost = hvtlb_sim_cost_count();
	unsigned *seen = calloc(ncost, sizeof(*seen));
	struct scenario s;
	char arg[PATH_MAX * 2 + 16];

	assert_non_null(seen);
	scenario_init(&s, NULL);
	snprintf(arg, sizeof(arg), "profile=%s", path);
	if (scenario_add_override(&s, arg))
		fail_msg("%s", s.err);
	for (size_t i = 0; i < s.profile.n; i++) {
		const char *key = s.profile.v[i].key + strlen("cost.");
		size_t c;

		for (c = 0; c < ncost; c++) {
			if (!strcmp(hvtlb_sim_cost_name(c), key))
				break;
		}
		if (c == ncost)
			fail_msg("%s:%u: '%s' is not a cost of the library",
				 path, s.profile.v[i].line, key);
		if (seen[c]++)
			fail_msg("%s:%u: '%s' set twice", path,
				 s.profile.v[i].line, key);
	}
	for (size_t c = 0; c < ncost; c++) {
		if (!seen[c])
			fail_msg("%s: cost '%s' (%s) missing", path,
				 hvtlb_sim_cost_name(c),
				 hvtlb_sim_cost_unit(c));
	}
	scenario_finish(&s);
	free(seen);
}

static void test_profiles_complete(void **state)
{
	(void)state;
	assert_true(for_each_ini("profiles", check_profile) >= 4);
}

static void check_scenario(const char *path)
{
	struct sim_batch b;

	sim_batch_init(&b);
	if (scenario_load(&b.sc, path) || sim_batch_configure(&b, 1))
		fail_msg("%s", b.sc.err);
	assert_true(b.nruns >= 1);
	sim_batch_finish(&b);
}

static void test_scenarios_configure(void **state)
{
	(void)state;
	assert_true(for_each_ini("scenarios", check_scenario) >= 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profiles_complete),
		cmocka_unit_test(test_scenarios_configure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
