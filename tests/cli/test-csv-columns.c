// SPDX-License-Identifier: MIT
/* Unit tests for the CSV columns of `hvtlb sim --csv` and `hvtlb sweep`
 * (CSV_COLUMN_MAP in tools/hvtlb/output/csv.h): the headers users parse
 * stay as they were, each column prints the figure its name says (the
 * metric of that name, metrics.h), and whole numbers are printed exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csv.h"
#include "metrics.h"

/* The headers as scripts read them (docs/cli.md): names and order. */
static void test_headers(void **state)
{
	char sim[512] = "", sweep[512] = "";

	(void)state;
	for (size_t k = 0; k < CSV_NCOLUMNS; k++) {
		strcat(sim, ",");
		strcat(sim, csv_columns[k].name);
	}
	for (size_t k = 0; k < CSV_NSWEEP; k++) {
		strcat(sweep, ",");
		strcat(sweep, csv_sweep_column(k)->name);
	}
	assert_string_equal(sim, ",real_s,user_s,sys_s,vm_exits,ipis_sent,"
				 "hypercalls,shootdowns,pages_invalidated,"
				 "latency_us_p50,latency_us_p99,"
				 "latency_us_max,violations,"
				 "latent_violations,used_violations");
	assert_string_equal(sweep, ",real_s,user_s,sys_s,vm_exits,ipis_sent,"
				   "hypercalls,shootdowns,pages_invalidated,"
				   "latency_us_p50,latency_us_p99,"
				   "latency_us_max,violations");
	assert_null(csv_sweep_column(CSV_NSWEEP));
}

/* A run whose figures all differ, set field by field (not from the map). */
static void distinct_results(struct hvtlb_sim_results *r)
{
	memset(r, 0, sizeof(*r));
	r->real_s = 1.25;
	r->user_s = 2.5;
	r->sys_s = 3.75;
	r->vm_exits_total = 4;
	r->ipis_sent = 5;
	r->hypercalls = 6;
	r->shootdowns = 7;
	r->pages_invalidated = 8;
	r->latency_us_p50 = 9.5;
	r->latency_us_p99 = 10.5;
	r->latency_us_max = 11.5;
	r->violations = 12;
	r->latent_violations = 13;
	r->used_violations = 14;
}

/* Every column is the metric of its name: the sweep bands it by that
 * name, and `sweep --metric` / `sim --json` call it so. */
static void test_columns_are_their_metrics(void **state)
{
	struct hvtlb_sim_results r;
	struct hvtlb_sim_config c;
	char cell[CSV_CELL_MAX];

	(void)state;
	memset(&c, 0, sizeof(c));
	distinct_results(&r);
	for (size_t k = 0; k < CSV_NCOLUMNS; k++) {
		const struct metric *m = metric_find(csv_columns[k].name);

		assert_non_null(m);
		csv_column_format(&csv_columns[k], &r, cell, sizeof(cell));
		if (strtod(cell, NULL) != m->get(&r, &c))
			fail_msg("column %s prints %s, its metric is %.9g",
				 csv_columns[k].name, cell, m->get(&r, &c));
	}
}

/* Whole numbers in full (not through a double), reals with %.9g. */
static void test_formats(void **state)
{
	struct hvtlb_sim_results r;
	char cell[CSV_CELL_MAX];

	(void)state;
	distinct_results(&r);
	r.vm_exits_total = UINT64_MAX;
	r.real_s = -1.0 / 3.0 * 1e-300;
	for (size_t k = 0; k < CSV_NCOLUMNS; k++) {
		const char *want = !strcmp(csv_columns[k].name, "vm_exits")
					   ? "18446744073709551615"
				   : !strcmp(csv_columns[k].name, "real_s")
					   ? "-3.33333333e-301"
					   : NULL;

		if (!want)
			continue;
		csv_column_format(&csv_columns[k], &r, cell, sizeof(cell));
		assert_string_equal(cell, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_columns_are_their_metrics),
		cmocka_unit_test(test_formats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
