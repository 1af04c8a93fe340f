// SPDX-License-Identifier: MIT
/*
 * A program with a function of its own named tlb_init, as QEMU has
 * (accel/tcg/cputlb.c), that runs a small simulation through libhvtlb.
 * It must link against libhvtlb.a and libhvtlb.so alike, and the library
 * must never call this tlb_init in place of its own.
 */
#include <stdio.h>

#include <hvtlb/sim.h>

static int called;

void tlb_init(void *cpu);

void tlb_init(void *cpu)
{
	(void)cpu;
	called++;
}

int main(void)
{
	struct hvtlb_sim_config c;
	struct hvtlb_sim_results *r = NULL;
	int rc;

	hvtlb_sim_config_init(&c);
	if (hvtlb_sim_config_set(&c, "vm.vcpus", "4") ||
	    hvtlb_sim_config_set(&c, "machine.pcpus", "4") ||
	    hvtlb_sim_config_set(&c, "workload.iterations", "20"))
		return 1;
	rc = hvtlb_sim_run(&c, &r);
	if (rc || !r || r->shootdowns == 0) {
		fprintf(stderr, "hvtlb_sim_run: %d\n", rc);
		return 1;
	}
	hvtlb_sim_results_destroy(r);
	if (called) {
		fprintf(stderr, "the library called the program's tlb_init\n");
		return 1;
	}
	return 0;
}
