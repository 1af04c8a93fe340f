// SPDX-License-Identifier: MIT
/*
 * The uncertainty plan of tools/hvtlb (uncertain.c) and the bands
 * (band.c): which keys vary, the Latin hypercube's properties on seeded
 * random ranges, determinism, and the percentile estimator.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <hvtlb/sim.h>

#include "band.h"
#include "sim-run.h"
#include "uncertain.h"

static char dir[] = "/tmp/hvtlb-unc-XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Loads @p text as DIR/NAME into @p b (and its profile, if any). */
static void load(struct sim_batch *b, const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	sim_batch_init(b);
	if (scenario_load(&b->sc, path))
		fail_msg("%s", b->sc.err);
}

static const struct unc_param *param(const struct unc_plan *u, const char *k)
{
	for (size_t j = 0; j < u->n; j++)
		if (!strcmp(u->p[j].key, k))
			return &u->p[j];
	return NULL;
}

/* Which keys vary: library ranges, `default` lines, ranged lines; an exact
 * line or a later --set pins a key. */
static void test_collect(void **state)
{
	struct sim_batch b;
	struct unc_plan u;
	const struct unc_param *p;
	size_t ncost = hvtlb_sim_cost_count(), exact = 0;
	struct hvtlb_sim_config dc;
	double lo, hi;

	(void)state;
	load(&b, "p.ini",
	     "# no profile: every cost at the library's default\n"
	     "[machine]\n"
	     "contention = false\n"
	     "[cost]\n"
	     "kick = 3000 ; source: exact: measured here\n"
	     "ipi_target = 900 ; range 800..1000 log ; source: t\n"
	     "[workload]\n"
	     "sleep_ns_max = 1000 ; range 0..5000 ; source: a guess\n"
	     "threads = 4 ; range 2..8 ; source: another\n");
	assert_int_equal(scenario_add_override(&b.sc, "workload.threads=4"), 0);
	unc_plan_init(&u);
	assert_int_equal(unc_plan_collect(&u, &b.sc), 0);
	hvtlb_sim_config_init(&dc);
	dc.contention = false; /* as the scenario says */
	for (size_t i = 0; i < ncost; i++) {
		hvtlb_sim_cost_range(i, &lo, &hi, NULL);
		/* a mechanism left off: its costs are not drawn */
		exact += lo == hi || !hvtlb_sim_cost_used(&dc, i);
	}
	assert_null(param(&u, "cost.line_transfer"));
	/* every ranged cost but kick, plus sleep_ns_max; threads is pinned */
	assert_int_equal(u.n, ncost - exact - 1 + 1);
	assert_null(param(&u, "cost.kick"));
	assert_null(param(&u, "cost.l1_hit")); /* exact in the library */
	assert_null(param(&u, "workload.threads"));
	p = param(&u, "cost.ipi_target");
	assert_non_null(p);
	assert_true(p->lo == 800 && p->hi == 1000 && p->log && p->integer);
	assert_int_equal(p->line, 6);
	assert_string_equal(p->source, "t");
	p = param(&u, "workload.sleep_ns_max");
	assert_true(p && p->lo == 0 && p->hi == 5000 && !p->log);
	assert_string_equal(u.p[u.n - 1].key, "workload.sleep_ns_max");
	p = param(&u, "cost.halt_wake");
	assert_true(p && !p->file && p->nominal == 12000 && p->log);
	/* collecting again adds nothing */
	assert_int_equal(unc_plan_collect(&u, &b.sc), 0);
	assert_int_equal(u.n, ncost - exact);
	unc_plan_finish(&u);
	sim_batch_finish(&b);

	/* with machine.contention (and two sockets) its costs vary too */
	load(&b, "q.ini",
	     "[machine]\ncontention = true\nsockets = 2\npcpus = 16\n");
	unc_plan_init(&u);
	assert_int_equal(unc_plan_collect(&u, &b.sc), 0);
	assert_non_null(param(&u, "cost.line_transfer"));
	assert_non_null(param(&u, "cost.line_transfer_socket"));
	assert_null(param(&u, "cost.copy_page"));
	unc_plan_finish(&u);
	sim_batch_finish(&b);
}

/* Spearman rank correlation of two columns of draws. */
static double rank_corr(const struct unc_plan *u, size_t a, size_t b)
{
	size_t n = u->ndraws;
	double sum = 0;

	for (size_t i = 0; i < n; i++) {
		double ra = 0, rb = 0;

		for (size_t k = 0; k < n; k++) {
			ra += unc_value(u, k, a) < unc_value(u, i, a);
			rb += unc_value(u, k, b) < unc_value(u, i, b);
		}
		sum += (ra - rb) * (ra - rb);
	}
	return 1 - 6 * sum / ((double)n * ((double)n * n - 1));
}

/*
 * Property test on seeded random ranges: every value in its range; a real
 * parameter uses each of its N strata exactly once (in log space for a log
 * range); integer parameters draw whole numbers; columns are not
 * correlated; the same seed draws the same points and another seed other
 * ones.
 */
static void test_latin_hypercube(void **state)
{
	unsigned rs = 12345;

	(void)state;
	for (int round = 0; round < 200; round++) {
		struct unc_plan u, v;
		size_t np = 1 + (size_t)(rand_r(&rs) % 6);
		size_t n = 1 + (size_t)(rand_r(&rs) % 100);
		uint64_t seed = (uint64_t)rand_r(&rs) << 20 | (unsigned)round;

		unc_plan_init(&u);
		unc_plan_init(&v);
		u.p = calloc(np, sizeof(*u.p));
		assert_non_null(u.p);
		u.n = u.cap = np;
		for (size_t j = 0; j < np; j++) {
			struct unc_param *p = &u.p[j];

			snprintf(p->key, sizeof(p->key), "k%zu", j);
			p->log = rand_r(&rs) % 2;
			p->integer = rand_r(&rs) % 4 == 0;
			p->lo = p->integer ? (double)(rand_r(&rs) % 100)
					   : ldexp(rand_r(&rs), -20);
			if (p->log && p->lo <= 0)
				p->lo = 1;
			p->hi = p->lo + (p->integer ? 1 + rand_r(&rs) % 1000
						    : ldexp(rand_r(&rs), -18));
			p->nominal = p->lo;
			p->digits = unc_digits(p->lo, p->hi);
		}
		assert_int_equal(unc_plan_draw(&u, n, seed), 0);
		assert_int_equal(u.ndraws, n);
		for (size_t j = 0; j < np; j++) {
			const struct unc_param *p = &u.p[j];
			unsigned char *used = calloc(n, 1);

			assert_non_null(used);
			for (size_t i = 0; i < n; i++) {
				double x = unc_value(&u, i, j), q;
				size_t s;

				assert_true(x >= p->lo && x <= p->hi);
				if (p->integer) {
					assert_true(x == floor(x));
					continue;
				}
				q = p->log ? (log(x) - log(p->lo)) /
						     (log(p->hi) - log(p->lo))
					   : (x - p->lo) / (p->hi - p->lo);
				s = (size_t)(q * (double)n);
				if (s == n)
					s--;
				/* 6-digit rounding may cross a boundary */
				if (used[s] && s + 1 < n && !used[s + 1] &&
				    fabs(q * (double)n - (double)(s + 1)) <
					    1e-3)
					s++;
				if (used[s] && s > 0 && !used[s - 1] &&
				    fabs(q * (double)n - (double)s) < 1e-3)
					s--;
				if (used[s]++)
					fail_msg("round %d: stratum %zu of %zu "
						 "used twice (param %zu)",
						 round, s, n, j);
			}
			free(used);
			if (j && n >= 32 && !p->integer && !u.p[j - 1].integer)
				assert_true(fabs(rank_corr(&u, j - 1, j)) <
					    0.6);
		}
		/* same seed, same points; draw seeds differ from each other */
		v.p = u.p;
		v.n = u.n;
		assert_int_equal(unc_plan_draw(&v, n, seed), 0);
		assert_memory_equal(u.x, v.x, n * np * sizeof(double));
		assert_memory_equal(u.seed, v.seed, n * sizeof(uint64_t));
		if (n > 1)
			assert_true(u.seed[0] != u.seed[1]);
		assert_int_equal(unc_plan_draw(&v, n, seed + 1), 0);
		if (n > 2)
			assert_memory_not_equal(u.x, v.x,
						n * np * sizeof(double));
		v.p = NULL;
		unc_plan_finish(&v);
		unc_plan_finish(&u);
	}
}

/* Draws reach the configuration only through keys still ranged in the
 * run's scenario; one-at-a-time points move one parameter each. */
static void test_apply(void **state)
{
	struct sim_batch b;
	struct unc_plan u;
	struct hvtlb_sim_config c;
	char err[256];
	size_t i_kick, j_sleep = 0;

	(void)state;
	load(&b, "a.ini",
	     "[workload]\nsleep_ns_max = 1000 ; range 0..5000 ; source: x\n");
	unc_plan_init(&u);
	assert_int_equal(unc_plan_collect(&u, &b.sc), 0);
	assert_int_equal(unc_plan_draw(&u, 8, 7), 0);
	assert_int_equal(sim_batch_configure(&b, 1), 0);
	c = b.cfg[0];
	assert_int_equal(unc_plan_apply(&u, 3, &b.sc, &c, err, sizeof(err)), 0);
	assert_true(c.seed == u.seed[3]);
	for (size_t j = 0; j < u.n; j++)
		if (!strcmp(u.p[j].key, "workload.sleep_ns_max"))
			j_sleep = j;
	assert_true((double)c.wl_sleep_ns_max == unc_value(&u, 3, j_sleep));
	assert_int_equal(sim_cost_index("cost.kick", &i_kick), 0);
	for (size_t j = 0; j < u.n; j++)
		if (!strcmp(u.p[j].key, "cost.kick"))
			assert_true(c.cost[i_kick] == unc_value(&u, 3, j));

	/* a --set pins the key in this run */
	assert_int_equal(scenario_add_override(&b.sc, "cost.kick=1234"), 0);
	c = b.cfg[0];
	assert_int_equal(unc_plan_apply(&u, 3, &b.sc, &c, err, sizeof(err)), 0);
	assert_true(c.cost[i_kick] == b.cfg[0].cost[i_kick]);

	/* one at a time: draw 2j low end, 2j + 1 high end, nothing else */
	assert_int_equal(unc_plan_one_at_a_time(&u), 0);
	assert_int_equal(u.ndraws, 2 * u.n);
	c = b.cfg[0];
	assert_int_equal(unc_plan_apply(&u, 2 * j_sleep + 1, &b.sc, &c, err,
					sizeof(err)),
			 0);
	assert_true(c.wl_sleep_ns_max == 5000);
	assert_true(c.seed == b.cfg[0].seed);
	c.wl_sleep_ns_max = b.cfg[0].wl_sleep_ns_max;
	assert_memory_equal(&c, &b.cfg[0], sizeof(c));
	unc_plan_finish(&u);
	sim_batch_finish(&b);
}

static void test_band(void **state)
{
	double v[] = { 5, 1, 4, 2, 3 }, one = 7, w[21];
	struct band b;

	(void)state;
	band_of(v, 5, &b);
	assert_true(b.p50 == 3);
	assert_true(fabs(b.p5 - 1.2) < 1e-12);	/* h = 0.2 */
	assert_true(fabs(b.p95 - 4.8) < 1e-12); /* h = 3.8 */
	band_of(&one, 1, &b);
	assert_true(b.p5 == 7 && b.p50 == 7 && b.p95 == 7);
	for (int i = 0; i < 21; i++)
		w[i] = 20 - i;
	band_of(w, 21, &b);
	assert_true(b.p5 == 1 && b.p50 == 10 && b.p95 == 19);
	assert_true(band_contains(&b, 1) && band_contains(&b, 19));
	assert_false(band_contains(&b, 0.999) || band_contains(&b, 19.01));
}

static void fill(double *v, size_t from, size_t to, double x)
{
	for (size_t i = from; i < to; i++)
		v[i] = x;
}

/* 64 values, @p lo below index @p k and @p hi from it, are settled;
 * with v[@p i] = @p x they are not. */
static void settles_until(size_t k, double lo, double hi, size_t i, double x)
{
	double v[64];

	fill(v, 0, k, lo);
	fill(v, k, 64, hi);
	assert_true(band_settled(v, 64, 0.005));
	v[i] = x;
	assert_false(band_settled(v, 64, 0.005));
}

/* band_settled(): the 90 % interval of each percentile. At n = 64 the
 * p5 interval runs from the 1st to the 7th smallest value, the p50 one
 * from the 25th to the 39th, the p95 one from the 57th to the largest;
 * a band is settled when each is within tol x |p50|. */
static void test_band_settled(void **state)
{
	double v[64];

	(void)state;
	fill(v, 0, 16, 1.0);
	assert_true(band_settled(v, 16, 0.005));
	assert_false(band_settled(v, 1, 0.005)); /* one value says nothing */
	v[0] = 0.99; /* in the p5 interval, 1 % of p50 wide */
	assert_false(band_settled(v, 16, 0.005));
	assert_true(band_settled(v, 16, 0.02));
	v[0] = 0.998;
	assert_true(band_settled(v, 16, 0.005));

	/* the p50 interval: the 25th smallest is in it, the 24th not */
	settles_until(24, 0.5, 1.0, 24, 0.5);
	/* the 39th is in it, the 40th not */
	settles_until(39, 1.0, 2.0, 38, 2.0);
	/* the largest is in the p95 interval */
	settles_until(64, 1.0, 1.0, 63, 1.01);
	/* the p5 interval ends at the 7th smallest, not the 8th */
	settles_until(7, 0.9, 1.0, 6, 1.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collect),
		cmocka_unit_test(test_latin_hypercube),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_band),
		cmocka_unit_test(test_band_settled),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
