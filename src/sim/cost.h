/* SPDX-License-Identifier: MIT */
/*
 * The simulator's cost parameters: one X-macro list, so the enum, the key
 * names ("cost.<name>"), the defaults, the units and the sources cannot
 * drift apart.
 *
 * X(name, default, unit, source)
 *
 * Units: "cycles" (guest CPU cycles at cpu_mhz), "us" (microseconds of
 * virtual time), "MHz", "refs" (memory references), "entries".
 * Defaults are the figures of /work/shared/docs/calibration.md §1 where one
 * exists. Where no primary figure exists the default sits inside the
 * documented range given in the source string; profile files override
 * every value with their own cited source. Never tune a value here to hit
 * a published result.
 */
#ifndef HVTLB_SIM_COST_H
#define HVTLB_SIM_COST_H

#define HVTLB_SIM_COST_MAP(X)                                                  \
	/* clock */                                                            \
	X(cpu_mhz, 2600, "MHz",                                                \
	  "assumed guest clock to convert cycles to seconds (scenario "        \
	  "profiles set it)")                                                  \
	/* local invalidation */                                               \
	X(flush_base, 1050, "cycles",                                          \
	  "fit 1050+227n of Hansen, linux-mm 2014-02-18 (Intel)")              \
	X(flush_per_page, 227, "cycles",                                       \
	  "fit 1050+227n of Hansen, linux-mm 2014-02-18 (Intel)")              \
	X(flush_full, 2283, "cycles",                                          \
	  "local full flush, Hansen, linux-mm 2014-02-18 (refill misses "      \
	  "are simulated separately)")                                         \
	/* translation */                                                      \
	X(l1_hit, 0, "cycles", "L1 dTLB hit: hidden in the load latency")      \
	X(stlb_hit, 12, "cycles", "STLB hit, Haswell measurements")            \
	X(walk_ref, 30, "cycles",                                              \
	  "one page-walk memory reference hitting caches (30; 720-1000 "       \
	  "to DRAM)")                                                          \
	X(walk_refs, 24, "refs",                                               \
	  "references per walk: 24 for a 2-D nested walk (Bhargava et al., "   \
	  "ASPLOS 2008), 4 native")                                            \
	X(touch, 4, "cycles", "one load/store that hits the L1 cache")         \
	/* virtualization */                                                   \
	X(vmexit, 1540, "cycles",                                              \
	  "VMCALL round trip exit+handler+entry, kvm-unit-tests vmexit, "      \
	  "Skylake-X 2020")                                                    \
	X(hypercall, 1540, "cycles",                                           \
	  "flush hypercall round trip before per-target work; no primary "     \
	  "figure for Hyper-V (range 1000-3000); KVM = vmexit")                \
	X(hv_per_target, 150, "cycles",                                        \
	  "host work per target of a flush hypercall (queue push + request "   \
	  "bit); no primary figure, range 50-500")                             \
	X(ipi_send, 1540, "cycles",                                            \
	  "sender cost of one ICR write: a VM exit round trip (vmexit); 0 "    \
	  "exits with IPI virtualization")                                     \
	X(ipi_latency, 4338, "cycles",                                         \
	  "send-to-handler-done round trip of a virtual IPI, x2APIC, "         \
	  "kvm-unit-tests vmexit ipi 2022 (xAPIC 6059; IPIv 3645)")            \
	X(ipi_target, 1540, "cycles",                                          \
	  "cycles an IPI steals from its target (interrupt injection + EOI "   \
	  "exit); range 500-3000")                                             \
	X(kick, 2000, "cycles",                                                \
	  "host kick of a running vCPU (host IPI + exit) to request a "        \
	  "flush; no primary figure, range 1000-5000")                         \
	X(halt_wake, 20000, "cycles",                                          \
	  "host latency from waking a halted vCPU to its entry; no primary "   \
	  "figure, range 5000-50000")                                          \
	X(halt_poll_us, 0, "us",                                               \
	  "KVM halt polling window (halt_poll_ns, default 200 us since "       \
	  "Linux 4.x; 0 = off): a vCPU woken within it re-enters at once")     \
	X(cstate_exit_us, 0, "us",                                             \
	  "exit latency of the idle state an idle pCPU reaches (intel_idle "   \
	  "hsw_cstates: C1 2, C1E 10, C3 33, C6 133 us worst case); added "    \
	  "to a wake on a pCPU idle for cstate_residency_us; 0 = off")         \
	X(cstate_residency_us, 0, "us",                                        \
	  "idle time before a pCPU is in that state (intel_idle "              \
	  "target_residency: C1E 20, C3 100, C6 400 us)")                      \
	X(vcpu_switch, 5000, "cycles",                                         \
	  "host switch from one vCPU thread to another on a pCPU (exit, "      \
	  "schedule, entry); range 3000-10000")                                \
	X(ple_window, 4096, "cycles",                                          \
	  "pause-loop exiting window (KVM ple_window default 4096)")           \
	X(host_slice_us, 3000, "us",                                           \
	  "host CFS time slice; Linux sched_latency 6 ms scaled by "           \
	  "1+log2(ncpus), divided by runnable tasks, min granularity 0.75 "    \
	  "ms scaled")                                                         \
	/* guest kernel */                                                     \
	X(guest_slice_us, 3000, "us", "guest CFS time slice, as host")         \
	X(tick_us, 4000, "us", "guest timer tick, HZ=250")                     \
	X(ctx_switch, 3000, "cycles", "guest context switch; range 1000-5000") \
	X(syscall, 700, "cycles",                                              \
	  "syscall entry+exit with PTI; range 100-1000")                       \
	X(mmap, 3000, "cycles",                                                \
	  "mmap() work under the mmap lock; no primary figure, range "         \
	  "2000-10000")                                                        \
	X(munmap, 3000, "cycles",                                              \
	  "munmap() work under the lock, before the flush; range "             \
	  "2000-10000")                                                        \
	X(unmap_per_page, 60, "cycles",                                        \
	  "zapping one PTE (and freeing or dropping the page); range 30-200")  \
	X(madvise, 1000, "cycles",                                             \
	  "madvise(DONTNEED) without the flush: Amit 2019 gives 2119 with "    \
	  "one local flush of 1276")                                           \
	X(page_fault, 2500, "cycles",                                          \
	  "minor page fault (page-cache hit) incl. exception; range "          \
	  "1000-5000")                                                         \
	X(zero_page, 1000, "cycles", "zeroing a 4 KiB anonymous page")         \
	X(user_op, 200, "cycles",                                              \
	  "user-space work per workload operation (loop, libc)")               \
	X(lock_handoff, 1000, "cycles",                                        \
	  "waking a sleeping mmap-lock waiter (excluding any IPI)")            \
	/* other strategies */                                                 \
	X(kvm_pv_check, 50, "cycles", "reading and CASing one preempted byte") \
	X(invlpgb, 200, "cycles",                                              \
	  "one INVLPGB; no primary figure, range 100-1000")                    \
	X(tlbsync, 1500, "cycles",                                             \
	  "TLBSYNC wait; no primary figure, range 500-5000")                   \
	X(vmm_target, 1000, "cycles",                                          \
	  "host invalidation on behalf of one running target (Shoot4U, VEE "   \
	  "2016); range 500-3000")                                             \
	X(lazy_post, 60, "cycles",                                             \
	  "recording one lazy invalidation for one target (LATR, ASPLOS "      \
	  "2018)")                                                             \
	X(lazy_slots, 64, "entries",                                           \
	  "per-CPU lazy invalidation slots before a full flush (LATR)")

enum sim_cost {
#define HVTLB_X_(n, d, u, s) SIM_COST_##n,
	HVTLB_SIM_COST_MAP(HVTLB_X_)
#undef HVTLB_X_
		SIM_COST_COUNT
};

#endif
