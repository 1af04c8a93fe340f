// SPDX-License-Identifier: MIT
/*
 * Fuzzes scenario files end to end: the INI reader (tools/hvtlb/
 * scenario.c), the library's key parser and validation
 * (sim_batch_configure), and then the engine itself on what validates.
 *
 * The input is a scenario file's text, read as if it were
 * FUZZ_SCENARIO_DIR/fuzz.ini, so `profile = kvm-2018` finds the shipped
 * profiles. Inputs that mention dev/, proc/, sys/ or run/ are skipped:
 * a profile must be a regular file, but some files there are regular and
 * still block on read (/proc/kmsg).
 *
 * Invariants:
 * - configuration fails only with a documented code and a message that
 *   names its origin ("fuzz.ini:LINE: ...", the profile file, or "--...");
 * - a valid configuration, shrunk to a small machine and workload so that
 *   one input runs in milliseconds, ends with 0 or -ETIME (the virtual time
 *   limit), never another code;
 * - without a fault switch the oracle reports no stale translation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvtlb/sim.h>

#include "fuzz.h"
#include "sim-run.h"

#define FUZZ_NAME FUZZ_SCENARIO_DIR "/fuzz.ini"

#define CLAMP(field, max)                                                      \
	do {                                                                   \
		if ((field) > (max))                                           \
			(field) = (max);                                       \
	} while (0)

/* Small enough that every input runs in a few milliseconds. */
static void shrink(struct hvtlb_sim_config *c)
{
	c->threads = 1;
	CLAMP(c->vms, 4u);
	CLAMP(c->pcpus, 16u);
	if (c->partition && c->pcpus % c->vms)
		c->pcpus = c->vms;
	CLAMP(c->vcpus, 32u);
	CLAMP(c->wl_threads, 16u);
	CLAMP(c->wl_processes, 4u);
	CLAMP(c->wl_iterations, 8u);
	CLAMP(c->wl_pages, 64u);
	CLAMP(c->wl_search_pages, 64u);
	CLAMP(c->wl_touch_repeat, 2u);
	CLAMP(c->wl_kernel_pages, 64u);
	CLAMP(c->wl_sleep_ns_max, 1000000u);
	CLAMP(c->wl_user_ns, 1000000u);
	CLAMP(c->l1_sets, 64u);
	CLAMP(c->l2_sets, 256u);
	CLAMP(c->l1_ways, 16u);
	CLAMP(c->l2_ways, 16u);
	CLAMP(c->max_virtual_s, 0.5);
}

static void check_config_error(const struct sim_batch *b, int rc)
{
	const char *e = b->sc.err, *prof = b->sc.profile_path;

	FUZZ_CHECK(rc == -EINVAL || rc == -ERANGE || rc == -ENOENT ||
		   rc == -E2BIG || rc == -EACCES || rc == -EISDIR ||
		   rc == -EIO);
	FUZZ_CHECK(e[0] != '\0');
	/* Every message says where: this file, its profile, or an option. */
	FUZZ_CHECK(!strncmp(e, FUZZ_NAME ":", strlen(FUZZ_NAME ":")) ||
		   (prof && !strncmp(e, prof, strlen(prof))) || e[0] == '-');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const avoid[] = { "dev/", "proc/", "sys/", "run/" };
	struct sim_batch b;
	FILE *f;
	int rc;

	/* !data: UBSan's null check leaves a path to memmem(NULL, size) that
	 * gcc -O3 warns about (-Wnonnull). */
	if (!data || !size || size > 8192)
		return 0;
	for (size_t i = 0; i < sizeof(avoid) / sizeof(avoid[0]); i++)
		if (memmem(data, size, avoid[i], strlen(avoid[i])))
			return 0;
	f = fmemopen((void *)data, size, "r");
	if (!f)
		return 0;
	sim_batch_init(&b);
	rc = scenario_load_stream(&b.sc, f, FUZZ_NAME);
	fclose(f);
	if (rc) {
		check_config_error(&b, rc);
		goto out;
	}
	rc = sim_batch_configure(&b, 1);
	if (rc) {
		check_config_error(&b, rc);
		goto out;
	}
	for (size_t i = 0; i < b.nruns; i++) {
		struct hvtlb_sim_config *c = &b.cfg[i];
		struct hvtlb_sim_results *r = NULL;

		shrink(c);
		if (hvtlb_sim_config_validate(c, NULL))
			continue; /* the shrunk machine is impossible */
		rc = hvtlb_sim_run(c, &r);
		FUZZ_CHECK(rc == 0 || rc == -ETIME);
		if (!rc && c->fault == HVTLB_SIM_FAULT_NONE)
			FUZZ_CHECK(r->violations == 0);
		hvtlb_sim_results_destroy(r);
	}
out:
	sim_batch_finish(&b);
	return 0;
}
