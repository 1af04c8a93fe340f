// SPDX-License-Identifier: MIT
/*
 * The scenario key table (HVTLB_SIM_KEY_MAP): defaults, ranges, the getter
 * and the setter agree with each other for every key, so a key added to
 * the table is checked without a line here.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hvtlb/sim.h>

static bool numeric(const struct hvtlb_sim_key *k)
{
	return !strcmp(k->type, "U64") || !strcmp(k->type, "U32") ||
	       !strcmp(k->type, "POW2") || !strcmp(k->type, "DOUBLE");
}

static bool integer(const struct hvtlb_sim_key *k)
{
	return numeric(k) && strcmp(k->type, "DOUBLE");
}

/* Every key: a meaning, a default that init applied (get returns it and
 * set accepts it), and set/get round trips. */
static void test_defaults_roundtrip(void **state)
{
	struct hvtlb_sim_config c, d;
	const struct hvtlb_sim_key *k;
	char buf[64], back[64];
	size_t n = hvtlb_sim_key_count();

	(void)state;
	assert_true(n >= 50);
	hvtlb_sim_config_init(&c);
	assert_int_equal(hvtlb_sim_config_validate(&c, NULL), 0);
	for (size_t i = 0; i < n; i++) {
		k = hvtlb_sim_key_at(i);
		assert_non_null(k);
		assert_ptr_equal(hvtlb_sim_key_find(k->name), k);
		assert_string_equal(hvtlb_sim_config_key_name(i), k->name);
		assert_true(strlen(k->meaning) >= 8);
		assert_int_equal(
			hvtlb_sim_config_get(&c, k->name, buf, sizeof(buf)), 0);
		if (*k->def && numeric(k))
			assert_true(fabs(strtod(buf, NULL) -
					 strtod(k->def, NULL)) < 1e-9);
		else if (*k->def)
			assert_string_equal(buf, k->def);
		/* What get writes, set reads back to the same config. */
		d = c;
		if (strcmp(k->type, "STRATEGY")) {
			assert_int_equal(hvtlb_sim_config_set(&d, k->name, buf),
					 0);
			/* ... but for the record that it was given */
			memset(d.set_keys, 0, sizeof(d.set_keys));
			assert_memory_equal(&c, &d, sizeof(c));
		}
		assert_int_equal(
			hvtlb_sim_config_get(&d, k->name, back, sizeof(back)),
			0);
		assert_string_equal(buf, back);
	}
	assert_null(hvtlb_sim_key_at(n));
	assert_null(hvtlb_sim_key_find("vm.vcpu"));
	assert_int_equal(hvtlb_sim_config_get(&c, "vm.vcpu", buf, sizeof(buf)),
			 -ENOENT);
	assert_int_equal(hvtlb_sim_config_get(&c, "vm.vcpus", buf, 2), -ENOSPC);
	assert_int_equal(
		hvtlb_sim_config_get(&c, "cost.vmexit", buf, sizeof(buf)), 0);
}

/* Numeric keys: the ends of the range are accepted and read back, one
 * past them is -ERANGE from the setter, and a field written out of range
 * directly is named by validate. */
static void test_ranges(void **state)
{
	struct hvtlb_sim_config c;
	const struct hvtlb_sim_key *k;
	const char *bad;
	char v[64], buf[64];

	(void)state;
	for (size_t i = 0; (k = hvtlb_sim_key_at(i)); i++) {
		double ends[2] = { k->min, k->max };

		if (!numeric(k))
			continue;
		assert_true(k->min <= k->max);
		for (int e = 0; e < 2; e++) {
			if (ends[e] >= 18446744073709551615.0)
				continue; /* the seed: no upper end */
			hvtlb_sim_config_init(&c);
			snprintf(v, sizeof(v), integer(k) ? "%.0f" : "%.17g",
				 ends[e]);
			if (!strcmp(k->type, "POW2") && e == 1)
				assert_true(ends[e] == 65536);
			assert_int_equal(hvtlb_sim_config_set(&c, k->name, v),
					 0);
			assert_int_equal(hvtlb_sim_config_get(&c, k->name, buf,
							      sizeof(buf)),
					 0);
			assert_true(strtod(buf, NULL) == ends[e]);
			/* One step outside. */
			double out = e ? ends[e] + (integer(k) ? 1 : ends[e])
				       : ends[e] - (integer(k) ? 1 : 1e-3);

			if (out < 0)
				continue; /* unsigned: "-1" is -EINVAL */
			snprintf(v, sizeof(v), integer(k) ? "%.0f" : "%.17g",
				 out);
			assert_int_equal(hvtlb_sim_config_set(&c, k->name, v),
					 -ERANGE);
		}
	}
	/* Written directly: validate names the key. */
	hvtlb_sim_config_init(&c);
	c.l1_sets = 24;
	assert_int_equal(hvtlb_sim_config_validate(&c, &bad), -ERANGE);
	assert_string_equal(bad, "tlb.l1_sets");
	hvtlb_sim_config_init(&c);
	c.wl_search_pages = 0;
	assert_int_equal(hvtlb_sim_config_validate(&c, &bad), -ERANGE);
	assert_string_equal(bad, "workload.search_pages");
	hvtlb_sim_config_init(&c);
	c.max_virtual_s = NAN;
	assert_int_equal(hvtlb_sim_config_validate(&c, &bad), -ERANGE);
	assert_string_equal(bad, "engine.max_virtual_s");
	hvtlb_sim_config_init(&c);
	c.wl_page_shift = 13;
	assert_int_equal(hvtlb_sim_config_validate(&c, &bad), -ERANGE);
	assert_string_equal(bad, "workload.page_size");
	hvtlb_sim_config_init(&c);
	c.workload = HVTLB_SIM_WORKLOAD_COUNT_;
	assert_int_equal(hvtlb_sim_config_validate(&c, &bad), -ERANGE);
	assert_string_equal(bad, "workload.kind");
}

/* Name keys: every listed value is accepted and read back; anything else
 * is -EINVAL. */
static void test_values(void **state)
{
	struct hvtlb_sim_config c;
	const struct hvtlb_sim_key *k;
	const char *val;
	char buf[64];
	size_t named = 0;

	(void)state;
	for (size_t i = 0; (k = hvtlb_sim_key_at(i)); i++) {
		size_t n = 0;

		for (; (val = hvtlb_sim_key_value(k, n)); n++) {
			hvtlb_sim_config_init(&c);
			assert_int_equal(hvtlb_sim_config_set(&c, k->name, val),
					 0);
			assert_int_equal(hvtlb_sim_config_get(&c, k->name, buf,
							      sizeof(buf)),
					 0);
			assert_string_equal(buf, val);
		}
		if (numeric(k) || !strcmp(k->type, "KVER")) {
			assert_int_equal(n, 0); /* KVER: test-gate.c */
			continue;
		}
		if (!strcmp(k->type, "KNOB") && !n)
			continue; /* a count knob */
		assert_true(n >= 2);
		named++;
		hvtlb_sim_config_init(&c);
		assert_int_equal(hvtlb_sim_config_set(&c, k->name, "nonesuch"),
				 -EINVAL);
	}
	assert_true(named >= 25);
	k = hvtlb_sim_key_find("strategy");
	assert_string_equal(hvtlb_sim_key_value(k, 1), "hyperv");
	k = hvtlb_sim_key_find("workload.page_size");
	assert_string_equal(hvtlb_sim_key_value(k, 2), "1g");
	assert_null(hvtlb_sim_key_value(NULL, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_roundtrip),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
