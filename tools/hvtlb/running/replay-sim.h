/* SPDX-License-Identifier: MIT */
/*
 * The replayed side of `hvtlb replay --check`: the trace run through the
 * simulator at the machine it was recorded on (docs/replay.md), with the
 * figures to set beside the recorded flushes by reason and, over draws of
 * the uncertain costs, the band of the flush IPIs' latency.
 */
#ifndef HVTLB_TOOL_REPLAY_SIM_H
#define HVTLB_TOOL_REPLAY_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "band.h"

/* The strategy that stands for a recorded guest whose remote flushes are
 * hypercalls the host carries out (traces/README.md: PVM's
 * PVM_HC_FLUSH_TLB_MULTI), as Hyper-V's flush hypercalls; one whose trace
 * holds IPI shootdowns sent IPIs, as the native shootdown does. */
#define REPLAY_SIM_HYPERCALL "hyperv"
#define REPLAY_SIM_IPI "ipi"

struct replay_side {
	const char *strategy;	/* REPLAY_SIM_HYPERCALL or REPLAY_SIM_IPI */
	uint32_t threads, cpus; /* replayed threads; vCPUs = pCPUs */
	uint32_t processes;	/* their address spaces */
	uint64_t seed;
	/* recorded, from the trace (trace-workload.h) */
	uint64_t requests;   /* flush steps */
	uint64_t by_kind[4]; /* munmap, madvise, mprotect, other */
	uint64_t remote, remote_elsewhere;
	/* replayed, from the nominal run */
	uint64_t shootdowns;   /* flush requests */
	uint64_t hypercalls;   /* hypercalls (hyperv) or flush IPIs (ipi) */
	uint64_t local;	       /* the initiators' own flushes */
	uint64_t switch_mm;    /* flushes at a switch of address space */
	uint64_t guest_target; /* targets flushed by the guest (IPI) */
	uint64_t ipi_targets;  /* flush IPIs handled (results.ipi_acks) */
	double ack_us_p50, ack_us_p99; /* their latency, nominal */
	/* over the draws (ndraws > 0): bands of ack_us_p50 and _p99 */
	size_t ndraws;
	struct band ack_p50, ack_p99;
	double real_s;
	char err[512]; /* why the trace was not replayed */
	bool bad_set;  /* because of a --set: the command line's error */
};

/**
 * Replays the trace @p path (@p len bytes at @p buf, its contents) on the
 * recorded machine with the strategy @p ipi_trace says (REPLAY_SIM_IPI for
 * a trace with IPI shootdowns), nominal and, with @p ndraws > 0, at as
 * many draws of the uncertain costs (`--uncertainty`), with the @p nsets
 * overrides "key=value" @p sets applied last (`--set`). 0; -EINVAL when
 * the trace cannot be replayed (s->err says why: a raw clock, no thread of
 * a traced process); another -errno if a run failed (s->err too).
 */
int replay_side_run(const char *path, const char *buf, size_t len,
		    bool ipi_trace, size_t ndraws, const char *const *sets,
		    size_t nsets, struct replay_side *s);

#endif
