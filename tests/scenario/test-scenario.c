// SPDX-License-Identifier: MIT
/* The INI scenario parser of tools/hvtlb: syntax, key mapping, profiles,
 * overrides, error positions, and the shipped profile files. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "scenario.h"

static const char *const sections[] = { "machine", "vm", "workload", "cost",
					NULL };
static char tmpdir[PATH_MAX];

static void write_file(const char *rel, const char *text)
{
	char path[PATH_MAX * 2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *tmp_path(const char *rel)
{
	static char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	return path;
}

static int setup(void **state)
{
	char sub[PATH_MAX * 2];

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/hvtlb-scenario-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(sub, sizeof(sub), "%s/scenarios", tmpdir);
	mkdir(sub, 0700);
	snprintf(sub, sizeof(sub), "%s/profiles", tmpdir);
	mkdir(sub, 0700);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Loads @p text as scenarios/t.ini; returns scenario_load's result. */
static int load_text(struct scenario *s, const char *text)
{
	write_file("scenarios/t.ini", text);
	scenario_init(s, sections);
	return scenario_load(s, tmp_path("scenarios/t.ini"));
}

/* Asserts that s->err is "<tmpdir>/scenarios/t.ini:<line>: ..." and
 * contains @p what. */
static void assert_err(const struct scenario *s, unsigned line,
		       const char *what)
{
	char prefix[PATH_MAX * 2 + 32];

	snprintf(prefix, sizeof(prefix), "%s:%u: ", tmp_path("scenarios/t.ini"),
		 line);
	if (strncmp(s->err, prefix, strlen(prefix)) || !strstr(s->err, what))
		fail_msg("error '%s' is not '%s...%s'", s->err, prefix, what);
}

struct recorder {
	char keys[32][64];
	char values[32][64];
	size_t n;
	const char *reject; /* key to reject with -EINVAL */
};

static int record(void *ctx, const char *key, const char *value)
{
	struct recorder *r = ctx;

	if (r->reject && !strcmp(key, r->reject))
		return -EINVAL;
	if (r->n == 32)
		return -ENOSPC;
	snprintf(r->keys[r->n], sizeof(r->keys[0]), "%s", key);
	snprintf(r->values[r->n], sizeof(r->values[0]), "%s", value);
	r->n++;
	return 0;
}

static void test_keys_and_sections(void **state)
{
	struct scenario s;
	struct recorder r = { .n = 0 };

	(void)state;
	assert_int_equal(load_text(&s, "# a comment\n"
				       "; another\n"
				       "strategy = hyperv   # trailing\n"
				       "title = two strategies\n"
				       "compare = ipi, hyperv\n"
				       "\n"
				       "[machine]\n"
				       "pcpus=12\r\n"
				       "  [ vm ]  ; spaced header\n"
				       "vcpus = 128\n"
				       "[workload]\n"
				       "threads = 64 ; c\n"),
			 0);
	assert_int_equal(scenario_apply(&s, record, &r, NULL), 0);
	assert_int_equal(r.n, 4);
	assert_string_equal(r.keys[0], "strategy");
	assert_string_equal(r.values[0], "hyperv");
	assert_string_equal(r.keys[1], "machine.pcpus");
	assert_string_equal(r.values[1], "12");
	assert_string_equal(r.keys[2], "vm.vcpus");
	assert_string_equal(r.keys[3], "workload.threads");
	assert_string_equal(r.values[3], "64");
	assert_string_equal(s.title, "two strategies");
	assert_int_equal(s.ncompare, 2);
	assert_string_equal(s.compare[0], "ipi");
	assert_string_equal(s.compare[1], "hyperv");
	assert_int_equal(scenario_find(&s, "vm.vcpus")->line, 10);
	assert_null(scenario_find(&s, "vm.nope"));
	scenario_finish(&s);
}

static void test_syntax_errors(void **state)
{
	static const struct {
		const char *text;
		unsigned line;
		const char *what;
		int rc;
	} cases[] = {
		{ "[machine]\npcpus 12\n", 2, "missing '='", -EINVAL },
		{ "[machine]\n= 12\n", 2, "bad key", -EINVAL },
		{ "[machine]\npcpus =\n", 2, "has no value", -EINVAL },
		{ "[machine]\npcpus = # nothing\n", 2, "has no value",
		  -EINVAL },
		{ "\n\n[bogus]\n", 3, "unknown section [bogus]", -EINVAL },
		{ "[machine\n", 1, "without ']'", -EINVAL },
		{ "[]\n", 1, "bad section name", -EINVAL },
		{ "[a b]\n", 1, "bad section name", -EINVAL },
		{ "ke y = 1\n", 1, "bad key", -EINVAL },
		{ "compare = ipi,,\n", 1, "bad strategy name", -EINVAL },
		{ "profile = does-not-exist\n", 1, "not found", -ENOENT },
		/* a directory (or device) of that name is no profile */
		{ "profile = /\n", 1, "not found", -ENOENT },
		{ "profile = ../profiles\n", 1, "not found", -ENOENT },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct scenario s;

		assert_int_equal(load_text(&s, cases[i].text), cases[i].rc);
		assert_err(&s, cases[i].line, cases[i].what);
		scenario_finish(&s);
	}
}

static void test_long_line(void **state)
{
	char text[SCENARIO_LINE_MAX + 64];
	struct scenario s;

	(void)state;
	memset(text, 'a', sizeof(text));
	memcpy(text, "x = 1\nk = ", 10);
	text[sizeof(text) - 2] = '\n';
	text[sizeof(text) - 1] = '\0';
	assert_int_equal(load_text(&s, text), -E2BIG);
	assert_err(&s, 2, "longer than");
	scenario_finish(&s);
}

/* What a reader built on a distribution's inih would get wrong (README,
 * Dependencies): a line longer than 200 characters keeps its range and
 * source and the line numbers after it stay right; an indented line is a
 * line of its own, not a continuation; a line of exactly
 * SCENARIO_LINE_MAX characters is accepted. */
static void test_long_and_indented_lines(void **state)
{
	char text[2 * SCENARIO_LINE_MAX + 256], source[301];
	const struct scenario_setting *e;
	struct scenario s;
	int n;

	(void)state;
	memset(source, 's', sizeof(source) - 1);
	source[sizeof(source) - 1] = '\0';
	n = snprintf(text, sizeof(text),
		     "[workload]\n"
		     "sleep_ns_max = 1000 ; range 0..20000 ; source: %s\n"
		     "    threads = 4\n"
		     "\tpages = 2\n"
		     "iterations 9\n",
		     source);
	assert_true(n > 0 && (size_t)n < sizeof(text));
	assert_int_equal(load_text(&s, text), -EINVAL);
	assert_err(&s, 5, "missing '='");
	scenario_finish(&s);

	text[n - strlen("iterations 9\n")] = '\0';
	assert_int_equal(load_text(&s, text), 0);
	e = scenario_find(&s, "workload.sleep_ns_max");
	assert_true(e->ranged && e->lo == 0 && e->hi == 20000);
	assert_string_equal(e->source, source);
	assert_int_equal(e->line, 2);
	assert_string_equal(scenario_find(&s, "workload.threads")->value, "4");
	assert_int_equal(scenario_find(&s, "workload.threads")->line, 3);
	assert_string_equal(scenario_find(&s, "workload.pages")->value, "2");
	scenario_finish(&s);

	/* "k = " and the value fill exactly SCENARIO_LINE_MAX characters */
	memset(text, 'v', sizeof(text));
	memcpy(text, "k = ", 4);
	text[SCENARIO_LINE_MAX] = '\n';
	text[SCENARIO_LINE_MAX + 1] = '\0';
	assert_int_equal(load_text(&s, text), 0);
	assert_int_equal(strlen(scenario_find(&s, "k")->value),
			 SCENARIO_LINE_MAX - 4);
	scenario_finish(&s);
}

static void test_unreadable(void **state)
{
	struct scenario s;

	(void)state;
	scenario_init(&s, sections);
	assert_int_equal(scenario_load(&s, tmp_path("scenarios/none.ini")),
			 -ENOENT);
	assert_non_null(strstr(s.err, "none.ini: cannot read scenario"));
	scenario_finish(&s);
	/* A directory opens, but is no scenario. */
	scenario_init(&s, sections);
	assert_int_equal(scenario_load(&s, tmp_path("scenarios")), -EISDIR);
	assert_non_null(strstr(s.err, "scenarios: cannot read scenario: "));
	scenario_finish(&s);
}

static void test_profile(void **state)
{
	struct scenario s;
	struct recorder r = { .n = 0 };

	(void)state;
	write_file("profiles/p.ini", "# header\n"
				     "vmcall = 1540 ; source: somewhere\n"
				     "ipi = 4338;source:x\n");
	assert_int_equal(load_text(&s, "profile = p\n[cost]\nipi = 7\n"), 0);
	assert_string_equal(s.profile_name, "p");
	assert_non_null(strstr(s.profile_path, "profiles/p.ini"));
	assert_int_equal(scenario_apply(&s, record, &r, NULL), 0);
	/* profile first, then the scenario's own [cost] line wins */
	assert_int_equal(r.n, 3);
	assert_string_equal(r.keys[0], "cost.vmcall");
	assert_string_equal(r.values[0], "1540");
	assert_string_equal(r.keys[1], "cost.ipi");
	assert_string_equal(r.keys[2], "cost.ipi");
	assert_string_equal(r.values[2], "7");
	assert_string_equal(scenario_find(&s, "cost.ipi")->value, "7");
	assert_int_equal(scenario_find(&s, "cost.vmcall")->line, 2);
	scenario_finish(&s);

	/* a path relative to the scenario file */
	assert_int_equal(load_text(&s, "profile = ../profiles/p.ini\n"), 0);
	scenario_finish(&s);
}

static void test_profile_errors(void **state)
{
	static const struct {
		const char *text;
		unsigned line;
		const char *what;
	} cases[] = {
		{ "a = 1\n", 1, "has no '; source: ...'" },
		{ "a = 1 # source: x\n", 1, "has no '; source: ...'" },
		{ "a = 1\t; source:   \n", 1, "empty source" },
		{ "# ok\na = 1 ; source: s\nb = 2 ; from: s\n", 3,
		  "has no '; source" },
		{ "[cost]\n", 1, "no sections" },
		{ "a.b = 1 ; source: s\n", 1, "must not contain '.'" },
		{ "a = default ; source: s\n", 1, "nothing may follow it" },
		{ "a = 1 ; range 0..2\n", 1, "a range needs '; source" },
		{ "a = 3 ; range 0..2 ; source: s\n", 1, "outside its range" },
		{ "a 1 ; source: s\n", 1, "missing '='" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct scenario s;
		char want[PATH_MAX * 2 + 32];

		write_file("profiles/bad.ini", cases[i].text);
		assert_int_equal(load_text(&s, "profile = bad\n"), -EINVAL);
		snprintf(want, sizeof(want),
			 "profiles/bad.ini:%u: ", cases[i].line);
		if (!strstr(s.err, want) || !strstr(s.err, cases[i].what))
			fail_msg("case %zu: '%s' lacks '%s' or '%s'", i, s.err,
				 want, cases[i].what);
		scenario_finish(&s);
	}
}

/* "; source: ..." and "; range LO..HI [log] ; source: ..." on scenario
 * lines; other text after ';' stays a comment. */
static void test_annotations(void **state)
{
	static const struct {
		const char *text;
		unsigned line;
		const char *what;
	} bad[] = {
		{ "[workload]\nthreads = 4 ; range 1..x ; source: s\n", 2,
		  "'workload.threads': bad range" },
		{ "[workload]\nthreads = 4 ; range 1..8 lin ; source: s\n", 2,
		  "bad range" },
		{ "[workload]\nthreads = 4 ; range 8..1 ; source: s\n", 2,
		  "empty or reversed" },
		{ "[workload]\nthreads = 4 ; range 4..4 ; source: s\n", 2,
		  "empty or reversed" },
		{ "[workload]\nthreads = 4 ; range 0..8 log ; source: s\n", 2,
		  "a log range needs LO > 0" },
		{ "[workload]\nthreads = 9 ; range 1..8 ; source: s\n", 2,
		  "value '9' outside its range 1..8" },
		{ "[workload]\nkind = mix ; range 1..8 ; source: s\n", 2,
		  "value 'mix' outside its range" },
		{ "[workload]\nthreads = 4 ; range 1..8\n", 2,
		  "a range needs '; source: ...'" },
		{ "[workload]\nthreads = 4 ; range 1..8 ; sauce: s\n", 2,
		  "a range needs '; source: ...'" },
		{ "[workload]\nthreads = 4 ; range 1..8 ; source:\n", 2,
		  "empty source" },
		{ "[validation]\ntitle\n", 2, "missing '='" },
		{ "[validation]\nti/tle = x\n", 2, "bad key 'ti/tle'" },
		{ "[validation]\ntitle =   \n", 2, "has no value" },
	};
	struct scenario s;
	const struct scenario_setting *e;

	(void)state;
	assert_int_equal(
		load_text(
			&s,
			"[workload]\n"
			"threads = 4 ; range 1..8 ; source: a guess\n"
			"pages = 16 ;range 1 .. 64 log;source:  b; c # d\n"
			"iterations = 3 ; source: exact: the seed\n"
			"user_ns = 7 ; just a comment\n"
			"[validation]\n"
			"a = strategy=ipi; hypervisor.ipiv=1 # not a comment\n"
			"; a comment line\n"
			"  # another\n"
			"source = https://example.org/x#y ; z\n"
			"observable.1.metric = ack_wait_share\n"
			"[vm]\n"
			"vcpus = 2\n"),
		0);
	e = scenario_find(&s, "workload.threads");
	assert_true(e->ranged && !e->log);
	assert_true(e->lo == 1 && e->hi == 8);
	assert_string_equal(e->source, "a guess");
	e = scenario_find(&s, "workload.pages");
	assert_true(e->ranged && e->log && e->lo == 1 && e->hi == 64);
	assert_string_equal(e->source, "b; c # d");
	assert_string_equal(e->value, "16");
	e = scenario_find(&s, "workload.iterations");
	assert_false(e->ranged);
	assert_string_equal(e->source, "exact: the seed");
	e = scenario_find(&s, "workload.user_ns");
	assert_false(e->ranged);
	assert_null(e->source);
	assert_string_equal(e->value, "7");
	/* [validation] lines are kept raw and never applied; a key may
	 * have dots (observable.N.FIELD, checked by validation.c) */
	assert_int_equal(s.validation.n, 3);
	assert_string_equal(s.validation.v[0].key, "a");
	assert_string_equal(s.validation.v[0].value,
			    "strategy=ipi; hypervisor.ipiv=1 # not a comment");
	assert_int_equal(s.validation.v[0].line, 7);
	assert_string_equal(s.validation.v[1].value,
			    "https://example.org/x#y ; z");
	assert_string_equal(s.validation.v[2].key, "observable.1.metric");
	assert_string_equal(s.validation.v[2].value, "ack_wait_share");
	assert_null(scenario_find(&s, "validation.a"));
	assert_string_equal(scenario_find(&s, "vm.vcpus")->value, "2");
	scenario_finish(&s);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(load_text(&s, bad[i].text), -EINVAL);
		assert_err(&s, bad[i].line, bad[i].what);
		scenario_finish(&s);
	}
}

static void test_overrides(void **state)
{
	struct scenario s;
	struct recorder r = { .n = 0 };
	const struct scenario_setting *bad = NULL;

	(void)state;
	write_file("profiles/q.ini", "vmcall = 9 ; source: q\n");
	assert_int_equal(load_text(&s, "[vm]\nvcpus = 4\n"), 0);
	assert_int_equal(scenario_add_override(&s, "vm.vcpus=8"), 0);
	assert_int_equal(scenario_add_override(&s, " seed = 3 "), 0);
	assert_int_equal(scenario_add_override(&s, "profile=q"), 0);
	assert_int_equal(scenario_add_override(&s, "compare=ipi"), 0);
	assert_int_equal(s.ncompare, 1);
	assert_int_equal(scenario_apply(&s, record, &r, NULL), 0);
	assert_int_equal(r.n, 4);
	assert_string_equal(r.keys[0], "cost.vmcall");
	assert_string_equal(r.keys[1], "vm.vcpus");
	assert_string_equal(r.values[1], "4");
	assert_string_equal(r.keys[2], "vm.vcpus");
	assert_string_equal(r.values[2], "8");
	assert_string_equal(r.keys[3], "seed");
	assert_int_equal(scenario_find(&s, "vm.vcpus")->line, 0);

	assert_int_equal(scenario_add_override(&s, "vm.vcpus"), -EINVAL);
	assert_string_equal(
		s.err, "--set 'vm.vcpus': missing '=' (expected KEY=VALUE)");
	assert_int_equal(scenario_add_override(&s, "=3"), -EINVAL);
	assert_non_null(strstr(s.err, "--set '=3': bad key"));
	assert_int_equal(scenario_add_override(&s, "vm.vcpus= "), -EINVAL);
	assert_non_null(strstr(s.err, "--set 'vm.vcpus= ': key"));
	assert_int_equal(scenario_add_override(&s, "profile=nope"), -ENOENT);
	assert_non_null(strstr(s.err, "--set 'profile=nope': profile"));

	/* apply stops at the first rejected key and points at it */
	r.n = 0;
	r.reject = "vm.vcpus";
	assert_int_equal(scenario_apply(&s, record, &r, &bad), -EINVAL);
	assert_non_null(bad);
	assert_string_equal(bad->key, "vm.vcpus");
	assert_int_equal(bad->line, 2);
	scenario_error_at(&s, bad, "bad value '%s'", bad->value);
	assert_err(&s, 2, "bad value '4'");
	scenario_error_at(&s, scenario_find(&s, "vm.vcpus"), "too many");
	assert_string_equal(s.err, "--set 'vm.vcpus=8': too many");
	scenario_finish(&s);
}

/* Every line of every shipped profile either inherits the library's value
 * (`name = default`) or names its source: checked on the raw text,
 * independently of the parser, then through it. */
static void test_shipped_profiles(void **state)
{
	const char *root = getenv("HVTLB_SOURCE_ROOT");
	char dir[PATH_MAX];
	struct dirent *de;
	size_t nfiles = 0;
	DIR *d;

	(void)state;
	if (!root)
		skip();
	snprintf(dir, sizeof(dir), "%s/profiles", root);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d))) {
		char path[PATH_MAX * 2], line[2048];
		size_t n = strlen(de->d_name), nkeys = 0;
		unsigned ln = 0;
		struct scenario s;
		FILE *f;

		if (n < 5 || strcmp(de->d_name + n - 4, ".ini"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		assert_non_null(f);
		while (fgets(line, sizeof(line), f)) {
			const char *p = line, *src;

			ln++;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p == '#' || *p == ';' || *p == '\n' || !*p)
				continue;
			nkeys++;
			src = strchr(p, '=');
			if (src) {
				src++;
				while (*src == ' ')
					src++;
				if (!strncmp(src, "default", 7) &&
				    strspn(src + 7, " \t\n") == strlen(src + 7))
					continue;
			}
			src = strstr(p, "; source:");
			if (!src || !strchr(p, '=') || src < strchr(p, '='))
				fail_msg("%s:%u: no '; source:'", path, ln);
			src += strlen("; source:");
			while (*src == ' ')
				src++;
			if (*src == '\n' || !*src)
				fail_msg("%s:%u: empty source", path, ln);
		}
		fclose(f);
		if (nkeys < 5)
			fail_msg("%s: only %zu cost lines", path, nkeys);
		scenario_init(&s, NULL);
		write_file("scenarios/t.ini", "");
		assert_int_equal(scenario_load(&s, tmp_path("scenarios/t.ini")),
				 0);
		if (scenario_add_override(&s, "profile=x") != -ENOENT)
			fail_msg("profile x should not resolve");
		{
			char arg[PATH_MAX * 2 + 16];

			snprintf(arg, sizeof(arg), "profile=%s", path);
			if (scenario_add_override(&s, arg))
				fail_msg("%s", s.err);
		}
		assert_int_equal(s.profile.n, nkeys);
		scenario_finish(&s);
		nfiles++;
	}
	closedir(d);
	assert_true(nfiles >= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_and_sections),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_long_and_indented_lines),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_profile_errors),
		cmocka_unit_test(test_annotations),
		cmocka_unit_test(test_overrides),
		cmocka_unit_test(test_shipped_profiles),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
