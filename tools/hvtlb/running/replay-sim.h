/* SPDX-License-Identifier: MIT */
/*
 * The replayed side of `hvtlb replay --check`: the trace run through the
 * simulator at the machine it was recorded on (docs/replay.md), with the
 * figures to set beside the recorded flushes by reason.
 */
#ifndef HVTLB_TOOL_REPLAY_SIM_H
#define HVTLB_TOOL_REPLAY_SIM_H

#include <stddef.h>
#include <stdint.h>

/* The strategy that stands for the recorded guest: its remote flushes
 * are hypercalls whose host flushes the targets (traces/README.md: PVM's
 * PVM_HC_FLUSH_TLB_MULTI), as Hyper-V's flush hypercalls. */
#define REPLAY_SIM_STRATEGY "hyperv"

struct replay_side {
	uint32_t threads, cpus; /* replayed threads; vCPUs = pCPUs */
	uint32_t processes;	/* their address spaces */
	uint64_t seed;
	/* recorded, from the trace (trace-workload.h) */
	uint64_t requests;   /* flush steps */
	uint64_t by_kind[4]; /* munmap, madvise, mprotect, other */
	uint64_t remote, remote_elsewhere;
	/* replayed, from the run */
	uint64_t shootdowns;   /* flush requests */
	uint64_t hypercalls;   /* requests with a remote target */
	uint64_t local;	       /* the initiators' own flushes */
	uint64_t switch_mm;    /* flushes at a switch of address space */
	uint64_t guest_target; /* targets flushed by the guest (IPI) */
	double real_s;
	char err[256]; /* why the trace was not replayed */
};

/**
 * Replays the trace of @p len bytes at @p buf. 0; -EINVAL when the trace
 * cannot be replayed (s->err says why: a raw clock, no thread of a
 * traced process); another -errno if the run failed (s->err too).
 */
int replay_side_run(const char *buf, size_t len, struct replay_side *s);

#endif
