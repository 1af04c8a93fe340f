/* SPDX-License-Identifier: MIT */
/*
 * A minimal VMM on /dev/kvm that runs the guest of guest/ and implements
 * the Hyper-V flush hypercall itself, with the public hvtlb API:
 * hvtlb_decode() for the TLFS input, hvtlb_vcpu_flush_post() and the
 * per-vCPU hvtlb_vcpu_sync for the queue/kick/acknowledge protocol.
 *
 * One call of kvmvmm_run() creates one VM, runs one experiment on it
 * (stale-read rounds or one calibration measurement), and destroys it.
 */
#ifndef KVMVMM_VMM_H
#define KVMVMM_VMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hvtlb/hypercall.h>

#include "abi.h"

/** Fault switch: the doorbell returns before the targets acknowledge. */
#define KVMVMM_FAULT_NO_WAIT (1u << 0)
/** Fault switch: the doorbell leaves out its highest-numbered target. */
#define KVMVMM_FAULT_DROP_TARGET (1u << 1)

/** What to run. Zero-initialize, then set what differs from defaults. */
struct kvmvmm_config {
	const char *device; /**< NULL: /dev/kvm */
	uint32_t nvcpus;    /**< 1 .. KVMVMM_MAX_VCPUS; 0: 2 */
	uint32_t mode;	    /**< enum kvmvmm_mode */
	uint32_t strategy;  /**< enum kvmvmm_strategy (stale mode) */
	uint32_t bench;	    /**< enum kvmvmm_bench (bench mode) */
	uint32_t rounds;    /**< rounds or samples; 0: 1000 */
	uint32_t targets;   /**< doorbell bench: 0 (self) .. nvcpus-1 */
	/** FLUSH bench: pages, 1..KVMVMM_FLUSH_MAX_PAGES; 0 = everything */
	uint32_t pages;
	bool x2apic;			   /**< guest LAPIC mode */
	unsigned faults;		   /**< KVMVMM_FAULT_* */
	enum hvtlb_profile decode_profile; /**< how the doorbell validates */
	/** Stale mode: every n-th round each target exits and stays out
	 *  for deschedule_us (0: never). */
	uint32_t deschedule_every;
	uint32_t deschedule_us;
	/** KVM_CAP_HALT_POLL for this VM in ns; negative: host default. */
	int64_t halt_poll_ns;
	uint32_t idle_us; /**< IPI_HALTED: time halted before the IPI */
	/** A guest wait spins this long, then yields the host CPU at every
	 *  check; 0: 500 us. */
	uint32_t yield_us;
	/** Pin vCPU i to CPU i when the host has a CPU for every vCPU. */
	bool pin;
	uint32_t timeout_ms; /**< whole run; 0: 60000 */
};

/** VMM-side counters of one run. */
struct kvmvmm_stats {
	uint64_t exits;		  /**< userspace exits, all vCPUs */
	uint64_t hypercalls;	  /**< doorbell exits */
	uint64_t kicks;		  /**< interrupts injected to request a flush */
	uint64_t kick_exits;	  /**< exits of the guest's kick handler */
	uint64_t services;	  /**< flush requests serviced at an entry */
	uint64_t deferred;	  /**< ... of which not after a kick exit */
	uint64_t timeouts;	  /**< doorbells that gave up waiting */
	uint64_t dropped_targets; /**< left out by KVMVMM_FAULT_DROP_TARGET */
	uint64_t yields;	  /**< waiting vCPUs that gave their CPU away */
	/** VMM time in doorbells: copying and decoding the input, and
	 *  posting, kicking and waiting for the targets (CLOCK_MONOTONIC). */
	uint64_t decode_ns, post_ns;
};

/** What came out. */
struct kvmvmm_result {
	uint64_t tsc_khz;     /**< guest TSC frequency (KVM_GET_TSC_KHZ) */
	uint64_t stale_reads; /**< stale mode: target reads of the old page */
	uint64_t fresh_reads; /**< ... and of the new one */
	uint64_t stale_by_vcpu[KVMVMM_MAX_VCPUS]; /**< per target */
	uint32_t nsamples;
	uint64_t *samples;	/**< TSC cycles; free() it */
	uint32_t guest_fail;	/**< first KVMVMM_FAIL_* a vCPU reported */
	uint64_t failed_status; /**< with KVMVMM_FAIL_STATUS */
	struct kvmvmm_stats stats;
};

/**
 * Checks that @p device (NULL: /dev/kvm) can be opened and speaks KVM API
 * 12 with an in-kernel irqchip. Returns 0 or a negative errno (-ENOENT,
 * -EACCES, -ENODEV for a device without what the VMM needs).
 */
int kvmvmm_probe(const char *device);

/**
 * Creates a VM from @p cfg, runs the experiment and fills @p res (free
 * res->samples afterwards, also on error). Returns 0 when every vCPU
 * reported done (res->guest_fail says whether the guest's own checks
 * passed); -EINVAL for a bad @p cfg; -ETIMEDOUT when the guest did not
 * finish in time; another negative errno when KVM refused something
 * (a message is printed on stderr naming the ioctl).
 */
int kvmvmm_run(const struct kvmvmm_config *cfg, struct kvmvmm_result *res);

#endif
