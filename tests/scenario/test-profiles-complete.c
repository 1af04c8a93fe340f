// SPDX-License-Identifier: MIT
/*
 * The cost sources are complete and say what they know:
 *
 * - the library's list (src/sim/cost.h): every cost has a source, a
 *   default inside its range, LO > 0 for a log range, and a range whenever
 *   its source says "no primary figure" or "chosen";
 * - every shipped profile names every cost of the library exactly once,
 *   either `name = default` (inherit the library's value, range and
 *   source) or with a value and its own source, so that a new cost cannot
 *   silently fall back to a default in a published experiment; a line with
 *   "no primary figure" or "chosen" has a range; a line that restates the
 *   library's value and range must say `default` instead (one place
 *   defines each default). The test prints which costs each profile
 *   inherits and which it sets;
 * - every shipped scenario loads and configures, and its ranged lines
 *   follow the same rules;
 * - deliberately broken profiles (a line without a source, a range without
 *   a source, "chosen" without a range, a restated default, a missing
 *   cost) fail the same checks.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* A source that admits to a choice must come with a range. */
static bool admits_choice(const char *source)
{
	return strstr(source, "no primary figure") ||
	       strstr(source, "chosen") || strstr(source, "Chosen");
}

static void __attribute__((format(printf, 3, 4)))
problem(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err[0])
		return; /* keep the first */
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* The rules of a ranged or sourced line (profile or scenario). */
static void check_line(const struct scenario_setting *e, char *err, size_t len)
{
	if (e->ranged && !e->source)
		problem(err, len, "%s:%u: '%s' has a range but no source",
			e->file, e->line, e->key);
	if (e->source && admits_choice(e->source) && !e->ranged)
		problem(err, len,
			"%s:%u: '%s' says 'no primary figure' or 'chosen' but "
			"gives no range",
			e->file, e->line, e->key);
}

/*
 * Checks the profile at @p path; the first problem goes to @p err (empty
 * when there is none). With @p report, prints what the profile inherits
 * and what it sets.
 */
static void check_profile_file(const char *path, char *err, size_t len,
			       bool report)
{
	size_t ncost = hvtlb_sim_cost_count(), own = 0;
	unsigned *seen = calloc(ncost, sizeof(*seen));
	char owned[2048] = "";
	char arg[PATH_MAX * 2 + 16];
	struct scenario s;

	assert_non_null(seen);
	err[0] = '\0';
	scenario_init(&s, NULL);
	snprintf(arg, sizeof(arg), "profile=%s", path);
	if (scenario_add_override(&s, arg)) {
		problem(err, len, "%s", s.err);
		goto out;
	}
	for (size_t i = 0; i < s.profile.n; i++) {
		const struct scenario_setting *e = &s.profile.v[i];
		double lo, hi, v;
		bool lg;
		size_t c;

		if (sim_cost_index(e->key, &c)) {
			problem(err, len,
				"%s:%u: '%s' is not a cost of the "
				"library",
				path, e->line, e->key + 5);
			continue;
		}
		if (seen[c]++)
			problem(err, len, "%s:%u: '%s' set twice", path,
				e->line, e->key + 5);
		if (!strcmp(e->value, "default"))
			continue;
		check_line(e, err, len);
		hvtlb_sim_cost_range(c, &lo, &hi, &lg);
		v = strtod(e->value, NULL);
		if (v == hvtlb_sim_cost_default(c) &&
		    (e->ranged ? e->lo == lo && e->hi == hi && e->log == lg
			       : lo == hi))
			problem(err, len,
				"%s:%u: '%s' restates the library's value and "
				"range: say '%s = default'",
				path, e->line, e->key + 5, e->key + 5);
		own++;
		snprintf(owned + strlen(owned), sizeof(owned) - strlen(owned),
			 "%s%s", own > 1 ? ", " : "", e->key + 5);
	}
	for (size_t c = 0; c < ncost; c++) {
		if (!seen[c])
			problem(err, len,
				"%s: cost '%s' (%s) missing: set it or say "
				"'%s = default'",
				path, hvtlb_sim_cost_name(c),
				hvtlb_sim_cost_unit(c), hvtlb_sim_cost_name(c));
	}
	if (report && !err[0])
		printf("%s: %zu costs inherit the library's; %zu set here: "
		       "%s\n",
		       path, s.profile.n - own, own, own ? owned : "none");
out:
	scenario_finish(&s);
	free(seen);
}

static void check_shipped_profile(const char *path)
{
	char err[1024];

	check_profile_file(path, err, sizeof(err), true);
	if (err[0])
		fail_msg("%s", err);
}

static void test_profiles_complete(void **state)
{
	(void)state;
	assert_true(for_each_ini("profiles", check_shipped_profile) >= 4);
}

static void test_library_costs(void **state)
{
	(void)state;
	for (size_t c = 0; c < hvtlb_sim_cost_count(); c++) {
		const char *name = hvtlb_sim_cost_name(c);
		const char *src = hvtlb_sim_cost_source(c);
		double d = hvtlb_sim_cost_default(c), lo, hi;
		bool lg;

		assert_int_equal(hvtlb_sim_cost_range(c, &lo, &hi, &lg), 0);
		if (!src || strlen(src) < 10)
			fail_msg("cost.h: '%s' has no source", name);
		if (!(lo <= d && d <= hi))
			fail_msg("cost.h: '%s' default %g outside %g..%g", name,
				 d, lo, hi);
		if (lg && !(lo > 0 && lo < hi))
			fail_msg("cost.h: '%s' log range %g..%g", name, lo, hi);
		if (admits_choice(src) && lo == hi)
			fail_msg("cost.h: '%s' says 'no primary figure' or "
				 "'chosen' but gives no range",
				 name);
		if (lo == hi && !strstr(src, "exact"))
			fail_msg(
				"cost.h: '%s' is exact but its source does not "
				"say why ('exact: ...')",
				name);
	}
	assert_int_equal(
		hvtlb_sim_cost_range(hvtlb_sim_cost_count(), NULL, NULL, NULL),
		-ENOENT);
}

static void check_scenario(const char *path)
{
	char err[1024] = "";
	struct sim_batch b;

	sim_batch_init(&b);
	if (scenario_load(&b.sc, path) || sim_batch_configure(&b, 1))
		fail_msg("%s", b.sc.err);
	assert_true(b.nruns >= 1);
	for (size_t i = 0; i < b.sc.file.n; i++)
		check_line(&b.sc.file.v[i], err, sizeof(err));
	if (err[0])
		fail_msg("%s", err);
	sim_batch_finish(&b);
}

static void test_scenarios_configure(void **state)
{
	(void)state;
	assert_true(for_each_ini("scenarios", check_scenario) >= 7);
}

/* Each kind of broken line (or profile) makes the check fail, at its line. */
static void test_broken_profiles(void **state)
{
	static const struct {
		const char *line; /* replaces the flush_base line */
		const char *what;
	} cases[] = {
		{ "flush_base = 1050\n", ":3: cost 'flush_base' has no '; "
					 "source" },
		{ "flush_base = 1050 ; range 800..1300\n",
		  ":3: 'flush_base': a range needs '; source: ...'" },
		{ "flush_base = 1050 ; source: no primary figure; chosen "
		  "1050\n",
		  ":3: 'cost.flush_base' says 'no primary figure' or 'chosen' "
		  "but gives no range" },
		{ "flush_base = 1050 ; range 800..1300 ; source: Hansen\n",
		  ":3: 'flush_base' restates the library's value and range" },
		{ "flush_base = 1050 ; range 1100..1300 ; source: x\n",
		  ":3: 'flush_base': value '1050' outside its range" },
		{ "flush_base = default ; source: x\n",
		  ":3: cost 'flush_base' = default takes the library's" },
		{ "# flush_base is gone\n",
		  ": cost 'flush_base' (cycles) missing" },
	};
	char dir[] = "/tmp/hvtlb-profiles-XXXXXX", path[64], err[1024];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/broken.ini", dir);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fputs("# a profile with one broken line\n", f);
		for (size_t c = 0; c < hvtlb_sim_cost_count(); c++) {
			const char *name = hvtlb_sim_cost_name(c);

			if (!strcmp(name, "flush_base"))
				fputs(cases[k].line, f);
			else
				fprintf(f, "%s = default\n", name);
		}
		fclose(f);
		check_profile_file(path, err, sizeof(err), false);
		if (!strstr(err, path) || !strstr(err, cases[k].what))
			fail_msg("case %zu: '%s' lacks '%s'", k, err,
				 cases[k].what);
		printf("broken profile line %zu caught: %s\n", k, err);
	}
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_library_costs),
		cmocka_unit_test(test_profiles_complete),
		cmocka_unit_test(test_scenarios_configure),
		cmocka_unit_test(test_broken_profiles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
