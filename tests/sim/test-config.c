// SPDX-License-Identifier: MIT
/*
 * The simulator's configuration (src/sim/config.c): keys that do not
 * exist, values out of range, machines that validate refuses, the key
 * and cost lists, the guest.os bundles (src/sim/guest-os.c), cost
 * defaults and warnings.
 *
 * Each test is selectable by name (argv[1] is a cmocka filter) so meson
 * runs them as separate tests.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <hvtlb/sim.h>

#include "sim/guest-os.h"
#include "sim/host.h"

static void test_config_errors(void **state)
{
	struct hvtlb_sim_config c;
	const char *bad = NULL;

	(void)state;
	hvtlb_sim_config_init(&c);
	assert_int_equal(hvtlb_sim_config_validate(&c, &bad), 0);
	assert_int_equal(hvtlb_sim_config_set(&c, "vm.nope", "1"), -ENOENT);
	assert_int_equal(hvtlb_sim_config_set(&c, "cost.nope", "1"), -ENOENT);
	assert_int_equal(hvtlb_sim_config_set(&c, "strategy.nope", "1"),
			 -ENOENT);
	assert_int_equal(hvtlb_sim_config_set(&c, "vm.vcpus", "x"), -EINVAL);
	assert_int_equal(hvtlb_sim_config_set(&c, "vm.vcpus", "-1"), -EINVAL);
	assert_int_equal(hvtlb_sim_config_set(&c, "vm.vcpus", "0"), -ERANGE);
	assert_int_equal(hvtlb_sim_config_set(&c, "vm.vcpus", "4097"), -ERANGE);
	assert_int_equal(hvtlb_sim_config_set(&c, "vm.vcpus", "4096"), 0);
	assert_int_equal(hvtlb_sim_config_set(&c, "machine.pcpus", "0"),
			 -ERANGE);
	assert_int_equal(hvtlb_sim_config_set(&c, "threads", "0"), -ERANGE);
	assert_int_equal(hvtlb_sim_config_set(&c, "tlb.l1_sets", "3"), -ERANGE);
	assert_int_equal(hvtlb_sim_config_set(&c, "fault", "no-wait"), 0);
	assert_int_equal(c.fault, HVTLB_SIM_FAULT_NO_WAIT);
	assert_int_equal(hvtlb_sim_config_set(&c, "fault", "nowait"), -EINVAL);
	assert_int_equal(hvtlb_sim_config_set(&c, "strategy", "hyperv"), 0);
	assert_int_equal(hvtlb_sim_config_set(&c, "strategy.xmm_fast", "0"), 0);
	assert_false(c.strategy.xmm_fast);
	assert_int_equal(hvtlb_sim_config_set(&c, "strategy.xmm_fast", "2"),
			 -EINVAL);
	assert_int_equal(hvtlb_sim_config_set(&c, "cost.vmexit", "1e3"), 0);
	assert_int_equal(hvtlb_sim_config_set(&c, "cost.vmexit", "-1"),
			 -ERANGE);
	assert_int_equal(hvtlb_sim_config_set(&c, "cost.cpu_mhz", "0"),
			 -ERANGE);
	assert_int_equal(hvtlb_sim_config_set(&c, "workload.page_size", "2m"),
			 0);
	assert_int_equal(c.wl_page_shift, 21);

	/* Impossible machines written directly are caught by validate. */
	hvtlb_sim_config_init(&c);
	c.vcpus = 0;
	assert_int_equal(hvtlb_sim_config_validate(&c, &bad), -ERANGE);
	assert_string_equal(bad, "vm.vcpus");
	hvtlb_sim_config_init(&c);
	c.vcpus = 4097;
	assert_int_equal(hvtlb_sim_config_validate(&c, &bad), -ERANGE);
	assert_string_equal(bad, "vm.vcpus");
	hvtlb_sim_config_init(&c);
	c.pcpus = 0;
	assert_int_equal(hvtlb_sim_config_validate(&c, &bad), -ERANGE);
	assert_string_equal(bad, "machine.pcpus");
	hvtlb_sim_config_init(&c);
	c.threads = 0;
	assert_int_equal(hvtlb_sim_config_validate(&c, &bad), -ERANGE);
	assert_string_equal(bad, "threads");
	hvtlb_sim_config_init(&c);
	c.wl_threads = 0;
	assert_int_equal(hvtlb_sim_config_validate(&c, &bad), -ERANGE);
	assert_string_equal(bad, "workload.threads");
	hvtlb_sim_config_init(&c);
	c.cost[0] = -1;
	assert_int_equal(hvtlb_sim_config_validate(&c, &bad), -ERANGE);
	assert_string_equal(bad, "cost.cpu_mhz");
	/* A named field written directly with a value past its names. */
#define BAD_NAMED(field, key)                                                  \
	do {                                                                   \
		hvtlb_sim_config_init(&c);                                     \
		memset(&c.field, 0x7f, sizeof(c.field));                       \
		assert_int_equal(hvtlb_sim_config_validate(&c, &bad),          \
				 -ERANGE);                                     \
		assert_string_equal(bad, key);                                 \
	} while (0)
	BAD_NAMED(fault, "fault");
	BAD_NAMED(workload, "workload.kind");
	BAD_NAMED(guest_os, "guest.os");
	BAD_NAMED(wl_touch, "workload.touch");
	BAD_NAMED(idle_governor, "hypervisor.idle_governor");
	BAD_NAMED(guest_idle, "guest.idle");
	BAD_NAMED(ipi_delivery, "hypervisor.ipi_delivery");
#undef BAD_NAMED
	struct hvtlb_sim_results *r = (void *)1;

	assert_int_equal(hvtlb_sim_run(&c, &r), -ERANGE);
	assert_null(r);
}

static void test_config_keys(void **state)
{
	struct hvtlb_sim_config c;
	size_t n = 0, costs = 0;
	const char *k;

	(void)state;
	hvtlb_sim_config_init(&c);
	for (size_t i = 0; (k = hvtlb_sim_config_key_name(i)); i++) {
		/* Every enumerated key exists (its value may be wrong). */
		assert_int_not_equal(hvtlb_sim_config_set(&c, k, "1"), -ENOENT);
		costs += !strncmp(k, "cost.", 5);
		n++;
	}
	assert_int_equal(costs, hvtlb_sim_cost_count());
	assert_true(n > 40);
	for (size_t i = 0; i < hvtlb_sim_cost_count(); i++) {
		assert_non_null(hvtlb_sim_cost_name(i));
		assert_non_null(hvtlb_sim_cost_unit(i));
		assert_true(strlen(hvtlb_sim_cost_source(i)) > 10);
	}
	assert_null(hvtlb_sim_cost_name(hvtlb_sim_cost_count()));
	assert_string_equal(hvtlb_sim_fault_name(HVTLB_SIM_FAULT_DROP_TARGET),
			    "drop-target");
	assert_string_equal(hvtlb_sim_workload_name(HVTLB_SIM_WORKLOAD_EBIZZY),
			    "ebizzy");
}

/*
 * guest.os: the Linux model is the defaults; every model sets the same
 * keys, so switching back and forth restores a config; a key set before
 * or after the model overrides it; an unknown model changes nothing.
 */
static void test_guest_os(void **state)
{
	struct hvtlb_sim_config def, c, d;
	char buf[64];

	(void)state;
	hvtlb_sim_config_init(&def);
	c = def;
	assert_int_equal(hvtlb_sim_config_set(&c, "guest.os", "linux"), 0);
	assert_memory_equal(&c, &def, sizeof(c));
	for (int os = 0; os < HVTLB_SIM_GUEST_OS_COUNT_; os++) {
		const struct guest_os *m =
			sim_guest_os_get((enum hvtlb_sim_guest_os)os);
		const struct guest_os_key *k, *l = sim_guest_os_LINUX.keys;

		assert_non_null(m);
		assert_string_equal(
			m->name,
			hvtlb_sim_guest_os_name((enum hvtlb_sim_guest_os)os));
		c = def;
		assert_int_equal(hvtlb_sim_config_set(&c, "guest.os", m->name),
				 0);
		for (k = m->keys; k->key; k++, l++) {
			/* the same keys as the Linux model, in its order */
			assert_non_null(l->key);
			assert_string_equal(k->key, l->key);
			assert_int_equal(hvtlb_sim_config_get(&c, k->key, buf,
							      sizeof(buf)),
					 0);
			d = c;
			assert_int_equal(hvtlb_sim_config_set(&d, k->key, buf),
					 0);
			memset(d.set_keys, 0, sizeof(d.set_keys));
			assert_memory_equal(&c, &d, sizeof(c));
		}
		assert_null(l->key);
		assert_int_equal(hvtlb_sim_config_set(&c, "guest.os", "linux"),
				 0);
		assert_memory_equal(&c, &def, sizeof(c));
	}
	c = def;
	assert_int_equal(hvtlb_sim_config_set(&c, "guest.os", "windows"), 0);
	/* idle processors stay in the flush set (docs/validation.md 7.7) */
	assert_true(c.tick_accounting && !c.idle_leaves_mm && c.ipi_mailbox);
	assert_int_equal(c.group_size, 64);
	assert_int_equal(c.lock_spin_cycles, 10240);
	assert_int_equal(hvtlb_sim_config_set(&c, "guest.group_size", "0"), 0);
	assert_int_equal(c.group_size, 0);
	assert_true(c.tick_accounting);
	/* order-free: the model again, or another one, keeps the key */
	d = c;
	assert_int_equal(hvtlb_sim_config_set(&c, "guest.os", "linux"), 0);
	assert_int_equal(c.group_size, 0);
	assert_false(c.tick_accounting);
	assert_int_equal(hvtlb_sim_config_set(&c, "guest.os", "windows"), 0);
	assert_memory_equal(&c, &d, sizeof(c));
	d = c;
	assert_int_equal(hvtlb_sim_config_set(&c, "guest.os", "beos"), -EINVAL);
	assert_memory_equal(&c, &d, sizeof(c));
	assert_int_equal(hvtlb_sim_config_get(&c, "guest.os", buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "windows");
	assert_null(hvtlb_sim_guest_os_name(HVTLB_SIM_GUEST_OS_COUNT_));
}

/*
 * `cost.X = default` restores the library's value whatever came before;
 * a valid config that skips lazy CPUs without tlb_gen warns.
 */
static void test_config_defaults(void **state)
{
	struct hvtlb_sim_config def, c;

	(void)state;
	hvtlb_sim_config_init(&def);
	c = def;
	assert_int_equal(hvtlb_sim_config_set(&c, "cost.cpu_mhz", "7"), 0);
	assert_int_equal(hvtlb_sim_config_set(&c, "cost.cpu_mhz", "default"),
			 0);
	assert_memory_equal(&c, &def, sizeof(c));
	assert_int_equal(hvtlb_sim_config_set(&c, "vm.vcpus", "default"),
			 -EINVAL);

	assert_int_equal(hvtlb_sim_config_warnings(NULL), 0);
	assert_int_equal(hvtlb_sim_config_set(&c, "guest.tlb_gen", "true"), 0);
	assert_int_equal(hvtlb_sim_config_warnings(&c), 0);
	assert_int_equal(hvtlb_sim_config_set(&c, "guest.tlb_gen", "off"), 0);
	assert_int_equal(hvtlb_sim_config_validate(&c, NULL), 0);
	assert_int_equal(hvtlb_sim_config_warnings(&c),
			 HVTLB_SIM_WARN_NO_CATCH_UP);
	assert_int_equal(hvtlb_sim_config_set(&c, "strategy.lazy_skip", "no"),
			 0);
	assert_int_equal(hvtlb_sim_config_warnings(&c), 0);
}

/*
 * A bundle (`strategy`, `guest.os`) written before or after the keys it
 * sets gives the same config: the keys given by name win.
 */
static void test_config_order(void **state)
{
	static const char *const kv[][2] = {
		{ "strategy.lazy_skip", "false" },
		{ "strategy.full_flush_ceiling", "7" },
		{ "guest.tick_accounting", "false" },
		{ "guest.os", "windows" },
		{ "strategy", "hyperv" },
		{ "vm.vcpus", "8" },
	};
	const size_t n = sizeof(kv) / sizeof(kv[0]);
	struct hvtlb_sim_config fwd, back;

	(void)state;
	hvtlb_sim_config_init(&fwd);
	hvtlb_sim_config_init(&back);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(hvtlb_sim_config_set(&fwd, kv[i][0], kv[i][1]),
				 0);
		assert_int_equal(hvtlb_sim_config_set(&back, kv[n - 1 - i][0],
						      kv[n - 1 - i][1]),
				 0);
	}
	assert_memory_equal(&fwd, &back, sizeof(fwd));
	assert_int_equal(fwd.strategy.kind, HVTLB_STRATEGY_HYPERV);
	assert_false(fwd.strategy.lazy_skip);
	assert_int_equal(fwd.strategy.full_flush_ceiling, 7);
	assert_false(fwd.tick_accounting);
	assert_true(fwd.ipi_mailbox); /* windows */
	/* a bad bundle changes nothing */
	assert_int_equal(hvtlb_sim_config_set(&back, "strategy", "nope"),
			 -EINVAL);
	assert_memory_equal(&fwd, &back, sizeof(fwd));
}

/* Advances @p a (a permutation of 0..n-1) to the next in lexicographic
 * order; false after the last. */
static bool next_permutation(size_t *a, size_t n)
{
	size_t i = n - 1, j = n - 1, t;

	while (i > 0 && a[i - 1] >= a[i])
		i--;
	if (i == 0)
		return false;
	while (a[j] <= a[i - 1])
		j--;
	t = a[i - 1], a[i - 1] = a[j], a[j] = t;
	for (j = n - 1; i < j; i++, j--)
		t = a[i], a[i] = a[j], a[j] = t;
	return true;
}

/*
 * Every order of a small file's lines (both bundles, keys of both
 * bundles, a plain key, a cost set to its default) gives the same
 * config, byte for byte: the library, not the caller, orders them.
 */
static void test_config_permutations(void **state)
{
	static const char *const kv[][2] = {
		{ "strategy.lazy_skip", "off" },
		{ "strategy.full_flush_ceiling", "7" },
		{ "guest.tick_accounting", "false" },
		{ "guest.os", "windows" },
		{ "strategy", "hyperv" },
		{ "vm.vcpus", "8" },
		{ "cost.vmexit", "default" },
	};
	enum { N = sizeof(kv) / sizeof(kv[0]) };
	size_t order[N], perms = 0;
	struct hvtlb_sim_config first, c;

	(void)state;
	for (size_t i = 0; i < N; i++)
		order[i] = i;
	do {
		hvtlb_sim_config_init(&c);
		for (size_t i = 0; i < N; i++)
			assert_int_equal(hvtlb_sim_config_set(&c,
							      kv[order[i]][0],
							      kv[order[i]][1]),
					 0);
		if (!perms++)
			first = c;
		assert_memory_equal(&c, &first, sizeof(c));
	} while (next_permutation(order, N));
	assert_int_equal(perms, 5040); /* 7! */
	/* the keys given by name beat both bundles */
	assert_int_equal(first.strategy.kind, HVTLB_STRATEGY_HYPERV);
	assert_false(first.strategy.lazy_skip);
	assert_int_equal(first.strategy.full_flush_ceiling, 7);
	assert_false(first.tick_accounting);
	assert_true(first.ipi_mailbox); /* the rest of windows' bundle */
	assert_int_equal(first.vcpus, 8);
}

/*
 * Every boolean key (BOOL, and the strategy knobs that read true or
 * false) takes the same words, in any case, and refuses any other
 * without changing the config.
 */
static void test_config_bool_words(void **state)
{
	static const char *const words[] = { "true", "false", "on", "off",
					     "yes",  "no",    "1",  "0" };
	static const char *const upper[] = { "TRUE", "False", "ON",
					     "Off",  "YES",   "No" };
	static const char *const bad[] = { "maybe", "",	   "2",	  "tru",
					   "y",	    " on", "on ", "enable" };
	const struct hvtlb_sim_key *k;
	struct hvtlb_sim_config c, was;
	size_t nkeys = 0, nbool = 0;
	char buf[16];

	(void)state;
	/* the library's list is exactly these, true then false */
	for (size_t i = 0; i < 8; i++)
		assert_string_equal(hvtlb_bool_word(i), words[i]);
	assert_null(hvtlb_bool_word(8));
	hvtlb_sim_config_init(&c);
	for (size_t i = 0; (k = hvtlb_sim_key_at(i)); i++) {
		if (!hvtlb_sim_key_value(k, 0) ||
		    strcmp(hvtlb_sim_key_value(k, 0), "false") ||
		    (strcmp(k->type, "BOOL") && strcmp(k->type, "KNOB")))
			continue;
		nkeys++;
		nbool += !strcmp(k->type, "BOOL");
		for (size_t w = 0; w < 8 + 6; w++) {
			const char *v = w < 8 ? words[w] : upper[w - 8];

			assert_int_equal(hvtlb_sim_config_set(&c, k->name, v),
					 0);
			assert_int_equal(hvtlb_sim_config_get(&c, k->name, buf,
							      sizeof(buf)),
					 0);
			assert_string_equal(buf, w % 2 ? "false" : "true");
		}
		was = c;
		for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
			assert_int_equal(
				hvtlb_sim_config_set(&c, k->name, bad[b]),
				-EINVAL);
			assert_memory_equal(&c, &was, sizeof(c));
		}
	}
	/* BOOL keys and boolean knobs both */
	assert_true(nbool > 0 && nkeys > nbool);
	assert_int_equal(hvtlb_sim_config_set(&c, "strategy.lazy_skip", "on"),
			 0);
	assert_true(c.strategy.lazy_skip);
	assert_int_equal(hvtlb_sim_config_set(&c, "guest.tlb_gen", "yes"), 0);
	assert_true(c.tlb_gen);
}

/* Sets @p kv's pairs on a fresh config in order, or in reverse order. */
static void set_pairs(struct hvtlb_sim_config *c, const char *const kv[][2],
		      size_t n, bool reverse)
{
	hvtlb_sim_config_init(c);
	for (size_t i = 0; i < n; i++) {
		const char *const *p = kv[reverse ? n - 1 - i : i];

		assert_int_equal(hvtlb_sim_config_set(c, p[0], p[1]), 0);
	}
}

/* hypervisor.host_policy and a boolean both given, in either order: the
 * same config, refused when they disagree (naming both keys). */
static void host_policy_given_both(void)
{
	static const char *const clash[][3][2] = {
		{ { "hypervisor.cfs", "false" },
		  { "hypervisor.host_policy", "cfs-tick" } },
		{ { "hypervisor.cfs", "true" },
		  { "hypervisor.host_policy", "fifo" } },
		{ { "hypervisor.cfs_tick", "true" },
		  { "hypervisor.host_policy", "cfs-entry" } },
		{ { "hypervisor.cfs_tick", "false" },
		  { "hypervisor.host_policy", "cfs-tick" } },
	};
	static const char *const agree[][3][2] = {
		{ { "hypervisor.cfs_tick", "true" },
		  { "hypervisor.host_policy", "fifo" } },
		{ { "hypervisor.cfs", "true" },
		  { "hypervisor.host_policy", "cfs-entry" } },
		{ { "hypervisor.cfs", "false" },
		  { "hypervisor.host_policy", "fifo" },
		  { "hypervisor.cfs_tick", "false" } },
	};
	struct hvtlb_sim_config c, d;
	const char *bad, *why;
	char buf[64];

	for (size_t i = 0; i < sizeof(clash) / sizeof(clash[0]); i++) {
		set_pairs(&c, clash[i], 2, false);
		set_pairs(&d, clash[i], 2, true);
		assert_memory_equal(&c, &d, sizeof(c));
		bad = why = NULL;
		assert_int_equal(hvtlb_sim_config_check(&c, &bad, &why),
				 -ERANGE);
		assert_string_equal(bad, clash[i][0][0]);
		assert_non_null(why);
		snprintf(buf, sizeof(buf), "hypervisor.host_policy = %s",
			 clash[i][1][1]);
		assert_non_null(strstr(why, buf));
	}
	for (size_t i = 0; i < sizeof(agree) / sizeof(agree[0]); i++) {
		size_t n = agree[i][2][0] ? 3 : 2;

		set_pairs(&c, agree[i], n, false);
		set_pairs(&d, agree[i], n, true);
		assert_memory_equal(&c, &d, sizeof(c));
		assert_int_equal(hvtlb_sim_config_validate(&c, NULL), 0);
	}
}

/*
 * The host policy registry (HVTLB_SIM_HOST_POLICY_MAP): every name parses,
 * reads back, has its implementation under the same name and sets the
 * booleans not given; the booleans alone choose the policy they always
 * did; a boolean given against hypervisor.host_policy is refused, naming
 * both keys, whichever comes first; one that agrees (or cfs_tick under
 * fifo) is not.
 */
static void test_host_policy(void **state)
{
	static const struct {
		const char *cfs, *tick, *policy;
	} by_bools[] = {
		{ "false", "true", "fifo" },
		{ "false", "false", "fifo" },
		{ "true", "true", "cfs-tick" },
		{ "true", "false", "cfs-entry" },
	};
	struct hvtlb_sim_config c, d;
	char buf[64];

	(void)state;
	for (int p = 0; p < HVTLB_SIM_HOST_POLICY_COUNT_; p++) {
		const char *name = hvtlb_sim_host_policy_name(
			(enum hvtlb_sim_host_policy)p);

		assert_non_null(name);
		assert_non_null(sim_host_policy_get(p));
		assert_string_equal(sim_host_policy_get(p)->name, name);
		hvtlb_sim_config_init(&c);
		assert_int_equal(hvtlb_sim_config_set(
					 &c, "hypervisor.host_policy", name),
				 0);
		assert_int_equal(c.host_policy, p);
		assert_int_equal(hvtlb_sim_config_get(&c,
						      "hypervisor.host_policy",
						      buf, sizeof(buf)),
				 0);
		assert_string_equal(buf, name);
		assert_int_equal(c.cfs, p != HVTLB_SIM_HOST_POLICY_FIFO);
		if (p != HVTLB_SIM_HOST_POLICY_FIFO)
			assert_int_equal(c.cfs_tick,
					 p == HVTLB_SIM_HOST_POLICY_CFS_TICK);
		assert_int_equal(hvtlb_sim_config_validate(&c, NULL), 0);
	}
	assert_null(hvtlb_sim_host_policy_name(HVTLB_SIM_HOST_POLICY_COUNT_));
	assert_null(sim_host_policy_get(HVTLB_SIM_HOST_POLICY_COUNT_));
	d = c;
	assert_int_equal(
		hvtlb_sim_config_set(&c, "hypervisor.host_policy", "cfs"),
		-EINVAL);
	assert_memory_equal(&c, &d, sizeof(c));

	for (size_t i = 0; i < sizeof(by_bools) / sizeof(by_bools[0]); i++) {
		const char *const kv[][2] = {
			{ "hypervisor.cfs", by_bools[i].cfs },
			{ "hypervisor.cfs_tick", by_bools[i].tick },
		};

		for (int r = 0; r < 2; r++) {
			set_pairs(&c, kv, 2, r);
			assert_int_equal(hvtlb_sim_config_get(
						 &c, "hypervisor.host_policy",
						 buf, sizeof(buf)),
					 0);
			assert_string_equal(buf, by_bools[i].policy);
			assert_int_equal(hvtlb_sim_config_validate(&c, NULL),
					 0);
		}
	}

	host_policy_given_both();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_config_keys),
		cmocka_unit_test(test_guest_os),
		cmocka_unit_test(test_config_defaults),
		cmocka_unit_test(test_config_order),
		cmocka_unit_test(test_config_permutations),
		cmocka_unit_test(test_config_bool_words),
		cmocka_unit_test(test_host_policy),
	};

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
