/* SPDX-License-Identifier: MIT */
/*
 * The simulator's cost parameters: one list, so the enum, the key names
 * ("cost.<name>"), the defaults, their ranges, the units and the sources
 * cannot drift apart. This list is the only place that defines a default:
 * a profile line either says `name = default` (this value, range and
 * source) or sets its own value with its own source.
 *
 * X(name, default, lo, hi, dist, unit, source)
 *
 * - default: the value a run uses unless a profile or scenario sets one.
 * - lo, hi, dist: what is known about it. dist is UNIFORM or LOG (draws
 *   for `hvtlb sim --uncertainty` are uniform, or log-uniform, in
 *   [lo, hi]) or EXACT (then lo == hi == default: the source says why the
 *   value is exact, e.g. a documented kernel default or a hardware
 *   constant).
 * - unit: "cycles" (guest CPU cycles at cpu_mhz), "us" (microseconds of
 *   virtual time), "MHz", "refs" (memory references), "entries".
 * - source: where the value and the range come from. A value with no
 *   primary figure ("no primary figure; chosen X") always has a range.
 *
 * Never tune a value or a range here to hit a published result.
 */
#ifndef HVTLB_SIM_COST_H
#define HVTLB_SIM_COST_H

/* The list; F(X, fields...) lets the views below pick the fields. */
#define HVTLB_SIM_COST_LIST_(X, F)                                             \
	/* clock */                                                            \
	F(X, cpu_mhz, 2400, 2000, 3000, UNIFORM, "MHz",                        \
	  "assumed host: a 2016-2018 Xeon E5 v3/v4 at its 2.4 GHz base "       \
	  "clock; range 2.0-3.0 GHz, the base clocks of that family's "        \
	  "common server parts (neither published experiment names its "       \
	  "hardware)")                                                         \
	/* local invalidation */                                               \
	F(X, flush_base, 1050, 800, 1300, UNIFORM, "cycles",                   \
	  "fit 1050+227n of Dave Hansen's flush_tlb_mm_range timings, "        \
	  "linux-mm 2014-02-18 (Intel, 1..33 pages); range +-25%, the fit's "  \
	  "largest residual against those points (4 pages: 2447 measured, "    \
	  "1958 fitted)")                                                      \
	F(X, flush_per_page, 227, 170, 290, UNIFORM, "cycles",                 \
	  "fit 1050+227n of Hansen, linux-mm 2014-02-18; range +-25%, the "    \
	  "fit's largest residual against the published points")               \
	F(X, flush_full, 2283, 1700, 2900, UNIFORM, "cycles",                  \
	  "local full flush 2283, Hansen, linux-mm 2014-02-18 (refill misses " \
	  "are simulated separately); one machine: range +-25% as the "        \
	  "per-page fit")                                                      \
	/* translation */                                                      \
	F(X, l1_hit, 0, 0, 0, EXACT, "cycles",                                 \
	  "exact by construction: an L1 dTLB hit overlaps the 4-5 cycle L1D "  \
	  "load-to-use latency (Intel optimization manual, Skylake), which "   \
	  "`touch` charges")                                                   \
	F(X, stlb_hit, 12, 7, 20, UNIFORM, "cycles",                           \
	  "STLB hit about 12 cycles, Haswell measurements; no figure for "     \
	  "the assumed host: range 7-20 cycles (assumed, about 0.6x-1.7x)")    \
	F(X, walk_ref, 30, 12, 120, LOG, "cycles",                             \
	  "one page-walk reference hitting the data caches about 30 cycles, "  \
	  "720-1000 when it goes to DRAM; range 12 (an L2 hit) to 120 "        \
	  "(about one reference in eight going to DRAM; assumed)")             \
	F(X, walk_refs, 24, 8, 24, UNIFORM, "refs",                            \
	  "a 2-D (nested) page walk takes up to 24 memory references "         \
	  "(Bhargava et al., ASPLOS 2008); range 8-24: page-walk caches skip " \
	  "upper levels (assumed lower bound)")                                \
	F(X, touch, 4, 4, 5, UNIFORM, "cycles",                                \
	  "one load/store hitting L1D: load-to-use 4-5 cycles, Intel 64 and "  \
	  "IA-32 Optimization Reference Manual (Skylake)")                     \
	/* virtualization */                                                   \
	F(X, vmexit, 1540, 1300, 2500, UNIFORM, "cycles",                      \
	  "VMCALL round trip (exit + handler + entry) about 1540 cycles, "     \
	  "kvm-unit-tests vmexit, Skylake-X 2020; range from AMD's VMRUN to "  \
	  "exit of about 1350 (LKML 2020-12) up to 2500 for an older core or " \
	  "a heavier handler (assumed)")                                       \
	F(X, hypercall, 1540, 1000, 3000, UNIFORM, "cycles",                   \
	  "flush hypercall round trip before per-target work: no primary "     \
	  "figure for Hyper-V (the TLFS only bounds a call at 50 us before "   \
	  "continuation); chosen the KVM VMCALL round trip 1540 "              \
	  "(kvm-unit-tests vmexit), same VMX transition hardware; range "      \
	  "1000-3000 cycles. Also a send-IPI hypercall's (KVM_HC_SEND_IPI, "   \
	  "HvCallSendSyntheticClusterIpi[Ex]; hypervisor.ipi_delivery): no "   \
	  "figure of one alone either (Linux 4180bf1b655a times whole "        \
	  "broadcasts), the same VMCALL round trip")                           \
	F(X, hv_per_target, 150, 50, 500, LOG, "cycles",                       \
	  "host work per target of a flush hypercall (queue push + request "   \
	  "bit), and per destination of a send-IPI hypercall (an IRR bit and " \
	  "a kick): no primary figure; chosen 150, range 50-500 (a few cache " \
	  "lines to a remote line transfer and an atomic)")                    \
	F(X, ipi_send, 1540, 1300, 2500, UNIFORM, "cycles",                    \
	  "sender cost of one x2APIC ICR write: a WRMSR VM exit, about one "   \
	  "exit round trip (vmexit's figure and range; with hypervisor.ipiv "  \
	  "the engine charges no exit). A cluster-mode write is the same "     \
	  "WRMSR (hypervisor.ipi_delivery = cluster)")                         \
	F(X, ipi_latency, 4338, 4338, 6059, UNIFORM, "cycles",                 \
	  "send-to-handler-done round trip of a virtual IPI: x2APIC 4338, "    \
	  "xAPIC 6059 cycles, kvm-unit-tests vmexit ipi, 2022 series; range "  \
	  "between the two (a guest's APIC mode is rarely published)")         \
	F(X, ipi_target, 1540, 500, 3000, UNIFORM, "cycles",                   \
	  "cycles an IPI steals from its target (interrupt injection + EOI "   \
	  "exit): no primary figure; chosen one exit round trip 1540, range "  \
	  "500-3000")                                                          \
	F(X, kick, 2000, 1000, 5000, UNIFORM, "cycles",                        \
	  "host kick of a running vCPU (host IPI + exit) to request a flush: " \
	  "no primary figure; chosen 2000, range 1000-5000")                   \
	F(X, halt_wake, 12000, 5000, 50000, LOG, "cycles",                     \
	  "host latency from waking a halted vCPU to its entry: KVM's "        \
	  "halt-polling document says the trip through the scheduler is "      \
	  "'on the order of a few micro-seconds'; chosen 5 us = 12000 cycles " \
	  "at 2400 MHz, range 5000-50000 (2-20 us)")                           \
	F(X, halt_poll_us, 0, 0, 0, EXACT, "us",                               \
	  "exact: off unless the host polls (KVM's halt_poll_ns, "             \
	  "Documentation/virt/kvm/halt-polling.rst; a KVM profile sets its "   \
	  "200 us default)")                                                   \
	F(X, cstate_c1_exit_us, 2, 1, 2, UNIFORM, "us",                        \
	  "exit latency a wake-up from C1, the host's shallowest idle state "  \
	  "after polling, pays: no measurement; chosen 2 us, the worst case "  \
	  "the kernel's table declares (cstate_c1_declared_exit_us); range "   \
	  "1-2 us, down to about the measured C1E exit (1.7 us, below; "       \
	  "assumed)")                                                          \
	F(X, cstate_c1_declared_exit_us, 2, 2, 2, EXACT, "us",                 \
	  "exact: exit latency of C1 in Linux drivers/idle/intel_idle.c "      \
	  "hsw_cstates (Haswell-EP, the assumed host), the worst case the "    \
	  "menu governor compares with its prediction (Documentation/admin-"   \
	  "guide/pm/cpuidle.rst: the maximum time to the first instruction "   \
	  "after a wake-up)")                                                  \
	F(X, cstate_c1_residency_us, 2, 2, 2, EXACT, "us",                     \
	  "exact: target residency of C1 in intel_idle hsw_cstates, the "      \
	  "value the menu governor compares its prediction with")              \
	F(X, cstate_c1e_exit_us, 1.76, 1.7, 10, UNIFORM, "us",                 \
	  "exit latency a wake-up from C1E pays: 1.74-1.76 us measured on a "  \
	  "Haswell Celeron G1840 (Richard L. Sites, KUtrace, "                 \
	  "postproc/rawtoevent.cc, MWAIT notes), chosen 1.76; range 1.7 up "   \
	  "to the 10 us worst case of the kernel's table "                     \
	  "(cstate_c1e_declared_exit_us)")                                     \
	F(X, cstate_c1e_declared_exit_us, 10, 10, 10, EXACT, "us",             \
	  "exact: exit latency of C1E in intel_idle hsw_cstates, the worst "   \
	  "case the menu governor compares with its prediction")               \
	F(X, cstate_c1e_residency_us, 20, 20, 20, EXACT, "us",                 \
	  "exact: target residency of C1E in intel_idle hsw_cstates")          \
	F(X, cstate_c3_exit_us, 4, 3.7, 33, UNIFORM, "us",                     \
	  "exit latency a wake-up from C3 pays: 3.75-4.0 us measured on a "    \
	  "Haswell Celeron (KUtrace rawtoevent.cc, MWAIT notes), chosen 4; "   \
	  "range 3.7 up to the 33 us worst case of the kernel's table "        \
	  "(cstate_c3_declared_exit_us)")                                      \
	F(X, cstate_c3_declared_exit_us, 33, 33, 33, EXACT, "us",              \
	  "exact: exit latency of C3 in intel_idle hsw_cstates, the worst "    \
	  "case the menu governor compares with its prediction")               \
	F(X, cstate_c3_residency_us, 100, 100, 100, EXACT, "us",               \
	  "exact: target residency of C3 in intel_idle hsw_cstates")           \
	F(X, cstate_exit_us, 13.9, 0, 133, UNIFORM, "us",                      \
	  "exit latency a wake-up from the deepest idle state, C6, pays: "     \
	  "13.3-13.9 us measured on a Haswell Celeron (KUtrace "               \
	  "rawtoevent.cc), chosen 13.9; range 0 (C-states disabled, as "       \
	  "latency-tuned hosts run) up to the 133 us worst case of the "       \
	  "kernel's table (cstate_declared_exit_us)")                          \
	F(X, cstate_declared_exit_us, 133, 133, 133, EXACT, "us",              \
	  "exact: exit latency of C6 in intel_idle hsw_cstates (Haswell-EP, "  \
	  "the assumed host), the worst case the menu governor compares "      \
	  "with its prediction")                                               \
	F(X, cstate_residency_us, 400, 20, 400, LOG, "us",                     \
	  "target residency of C6: intel_idle hsw_cstates 400 us; range 20 "   \
	  "(C1E's) to 400: with hypervisor.idle_governor = residency, a pCPU " \
	  "idle this long pays cstate_exit_us, and the range stands for the "  \
	  "state choice that rule does not model")                             \
	F(X, idle_timer_us, 10000, 1000, 100000, LOG, "us",                    \
	  "time from a host CPU's entry into idle to its next timer event "    \
	  "when no simulated guest timer is due on it (the menu governor's "   \
	  "next_timer_us): no primary figure; chosen 10 ms, range 1 ms (a "    \
	  "timer every tick) to 100 ms (a tickless CPU with little to do)")    \
	F(X, vcpu_switch, 5000, 3000, 10000, UNIFORM, "cycles",                \
	  "host switch from one vCPU thread to another on a pCPU: one exit "   \
	  "1540 (kvm-unit-tests) + a host thread switch 1.07 us at 3.2 GHz = " \
	  "3400 (pipe ping-pong, Linux 6.6) = about 5000; range 3000-10000 "   \
	  "(assumed)")                                                         \
	F(X, ple_window, 4096, 4096, 4096, EXACT, "cycles",                    \
	  "exact: KVM's documented default pause-loop exiting window, "        \
	  "ple_window 4096 (arch/x86/kvm/vmx): where a vCPU's window starts "  \
	  "and shrinks back to (hypervisor.ple_window_grow, _shrink)")         \
	F(X, pause, 10, 5, 140, LOG, "cycles",                                 \
	  "one iteration of a PAUSE spin loop: 'about 10 cycles' before "      \
	  "Skylake, 'as many as 140' on Skylake (Intel 64 and IA-32 "          \
	  "Architectures Optimization Reference Manual, PAUSE latency in "     \
	  "the Skylake microarchitecture); the assumed host is a Haswell or "  \
	  "Broadwell Xeon: 10, range 5-140")                                   \
	F(X, host_slice_us, 3000, 3000, 3000, EXACT, "us",                     \
	  "exact: Linux CFS defaults, kernel/sched/fair.c: min granularity "   \
	  "0.75 ms x (1 + ilog2(min(ncpus, 8))) = 3 ms on 8 or more CPUs; "    \
	  "with 8 or more runnable vCPUs per pCPU the slice is that minimum")  \
	F(X, host_tick_us, 1000, 1000, 4000, UNIFORM, "us",                    \
	  "the host kernel's scheduler tick, at which CFS checks whether the " \
	  "running vCPU used up its slice (check_preempt_tick, "               \
	  "kernel/sched/fair.c): CONFIG_HZ=1000 as RHEL and Fedora kernels "   \
	  "are built (assumed for a KVM host); range 1000-4000 us (HZ 250, "   \
	  "Debian and Ubuntu kernels)")                                        \
	F(X, sched_migration_cost_us, 500, 500, 500, EXACT, "us",              \
	  "exact: Linux's sysctl_sched_migration_cost, 500000 ns "             \
	  "(kernel/sched/fair.c, 4.15): a vCPU thread that ran less than "     \
	  "this long ago is cache hot and not pulled by load balancing "       \
	  "(task_hot), and a pCPU whose average idle period is shorter does "  \
	  "not pull when it goes idle (idle_balance, avg_idle)")               \
	/* guest kernel */                                                     \
	F(X, guest_slice_us, 3000, 3000, 3000, EXACT, "us",                    \
	  "exact: Linux CFS default for a guest of 8 or more CPUs "            \
	  "(kernel/sched/fair.c, as host_slice_us)")                           \
	F(X, tick_us, 1000, 1000, 4000, UNIFORM, "us",                         \
	  "guest timer tick: assumed CONFIG_HZ=1000 as Fedora and RHEL "       \
	  "kernels are built; range 1000-4000 us (HZ 1000 to 250, the other "  \
	  "common distribution setting)")                                      \
	F(X, ctx_switch, 3400, 2400, 8400, UNIFORM, "cycles",                  \
	  "guest thread switch 1.07 us by pipe ping-pong, Linux 6.6, i7 11th " \
	  "gen at 3.2 GHz = 3400 cycles; range 1-3.5 us at 2.4 GHz, the "      \
	  "measured thread switch up to a process switch (2.4-3.5 us)")        \
	F(X, thread_create_us, 9, 5, 20, LOG, "us",                            \
	  "a workload creates its threads one after another (pthread_create "  \
	  "in a loop), thread k of a VM starting k times this after the "      \
	  "first: creating a thread that runs and exits, Lemire 2020 (Linux "  \
	  "Skylake server 9 us, AMD Rome server 20 us); range 5-20 us "        \
	  "(assumed below: creation alone is part of that round trip)")        \
	F(X, syscall, 420, 420, 1800, UNIFORM, "cycles",                       \
	  "syscall entry + exit: Cracauer 2018 (PTI microbenchmarks): a "      \
	  "1-byte read of /dev/zero 127 ns without PTI, 537 ns with, on a "    \
	  "3.33 GHz Xeon W3580; range: the two (420-1800 cycles), since a "    \
	  "guest's PTI state is rarely published")                             \
	F(X, mmap, 5700, 3000, 10000, UNIFORM, "cycles",                       \
	  "mmap() work under the lock: Cracauer 2018, mmap_no_touch 3692 ns "  \
	  "per mmap+munmap at 3.33 GHz = 12294 cycles, minus two syscalls of " \
	  "420, split evenly; one measurement on a 2009 core: range "          \
	  "3000-10000 (about 0.5x-1.75x, assumed)")                            \
	F(X, munmap, 5700, 3000, 10000, UNIFORM, "cycles",                     \
	  "munmap() work under the lock before the flush: Cracauer 2018, as "  \
	  "mmap; range 3000-10000 (assumed, as mmap)")                         \
	F(X, unmap_per_page, 290, 50, 330, UNIFORM, "cycles",                  \
	  "zapping one PTE: Amit 2019 madvise(DONTNEED) of 1 and 10 pages "    \
	  "2119 and 6791 cycles, minus the Hansen fit's growth of 2044, over " \
	  "9 pages; range 50-330: the same with Hansen's measured per-page "   \
	  "steps (187-471) instead of the fit")                                \
	F(X, madvise, 850, 400, 1300, UNIFORM, "cycles",                       \
	  "madvise(DONTNEED) without the flush: Amit 2019, 2119 cycles with "  \
	  "one local 1-page flush of 1276 (Hansen 2014); Amit measured with "  \
	  "PTI on: range 400-1300 (assumed, about +-50%)")                     \
	F(X, page_fault, 2500, 1500, 4000, UNIFORM, "cycles",                  \
	  "minor anonymous fault incl. exception: median 3241 cycles with "    \
	  "zeroing, Linux 6.6 on an i7 11th gen (p5-p95 1842-12880), minus "   \
	  "zero_page 720; one machine: range 1500-4000 (assumed, +-40%)")      \
	F(X, zero_page, 720, 500, 1200, UNIFORM, "cycles",                     \
	  "zeroing a 4 KiB page: clear_page with rep stos at 13.7 GB/s on "    \
	  "AMD Milan (x86 clear_pages() commit, Ankur Arora): 299 ns = 720 "   \
	  "cycles at 2400 MHz; range 500-1200 (8-20 GB/s across cores, "       \
	  "assumed)")                                                          \
	F(X, user_op, 200, 100, 1000, LOG, "cycles",                           \
	  "user-space work per workload operation (loop, libc wrapper): no "   \
	  "primary figure; chosen 200, range 100-1000")                        \
	F(X, lock_handoff, 1000, 500, 3000, UNIFORM, "cycles",                 \
	  "waking a sleeping mmap-lock waiter (try_to_wake_up) without its "   \
	  "IPI: no primary figure; chosen 1000, range 500-3000")               \
	F(X, copy_page, 720, 280, 1100, UNIFORM, "cycles",                     \
	  "copying 4 KiB that sits in the caches (a user memcpy, a kernel "    \
	  "copy-on-write): no primary figure; chosen the store rate of "       \
	  "zero_page's source, 13.7 GB/s (x86 clear_pages() commit, Ankur "    \
	  "Arora) = 720 cycles at 2400 MHz; range 9-35 GB/s for one core "     \
	  "(280-1100 cycles, assumed)")                                        \
	/* contention (machine.contention) */                                  \
	F(X, line_transfer, 106, 48, 276, UNIFORM, "cycles",                   \
	  "moving a cache line another core of the same socket wrote (an "     \
	  "atomic on it): median core-to-core latency of a Xeon E5-2695 v4 "   \
	  "(Broadwell-EP, the assumed host) 44 ns = 106 cycles at 2400 MHz, "  \
	  "nviennot/core-to-core-latency (compare-and-swap ping-pong); "       \
	  "range 20 ns (Haswell i5-4590 21 ns, AMD Milan within a CCX 23 ns) " \
	  "to 115 ns (EPYC 7773X Milan-X across CCXs), same source")           \
	F(X, line_transfer_socket, 283, 259, 480, UNIFORM, "cycles",           \
	  "the same from the other socket: dual Xeon E5-2695 v4 118 ns = 283 " \
	  "cycles at 2400 MHz (nviennot/core-to-core-latency); range 108 ns "  \
	  "(dual Xeon 8375C, Ice Lake) to 200 ns (dual EPYC 7R13, Milan), "    \
	  "same source")                                                       \
	F(X, lru_lock_page, 60, 30, 200, LOG, "cycles",                        \
	  "the LRU lock held per page added to or taken off an LRU list "      \
	  "(__pagevec_lru_add_fn, release_pages: list update and counters): "  \
	  "no primary figure; chosen 60, range 30-200")                        \
	F(X, zone_lock_page, 100, 50, 300, LOG, "cycles",                      \
	  "zone->lock held per page a per-CPU free list takes from or gives "  \
	  "back to the buddy allocator (rmqueue_bulk, free_pcppages_bulk): "   \
	  "no primary figure; chosen 100, range 50-300")                       \
	F(X, pcp_batch, 63, 31, 63, UNIFORM, "entries",                        \
	  "pages a per-CPU free list takes from or returns to its zone at "    \
	  "once: zone_batchsize() of a zone of 1 GiB or more, 63 under the "   \
	  "1 MiB cap, 31 under the older 512 KiB cap (mm/page_alloc.c); the "  \
	  "list is drained above 6 x batch (pageset_set_batch, Linux < 5.14)") \
	F(X, lru_batch, 15, 15, 31, UNIFORM, "entries",                        \
	  "pages a CPU gathers before adding them to the LRU under its lock: " \
	  "PAGEVEC_SIZE 15 (include/linux/pagevec.h, Linux 4.x-5.x); range "   \
	  "up to 31, the batch of later kernels (folio_batch)")                \
	/* other strategies */                                                 \
	F(X, kvm_pv_check, 50, 20, 150, LOG, "cycles",                         \
	  "reading and CASing one preempted byte: one lock cmpxchg, about 20 " \
	  "cycles uncontended to 100+ with a line transfer (Agner Fog's "      \
	  "instruction tables); no primary figure for the pair; chosen 50, "   \
	  "range 20-150")                                                      \
	F(X, invlpgb, 200, 100, 1000, LOG, "cycles",                           \
	  "one INVLPGB: no primary figure exists; chosen 200, range "          \
	  "100-1000")                                                          \
	F(X, tlbsync, 1500, 500, 5000, LOG, "cycles",                          \
	  "TLBSYNC wait: no primary figure exists; chosen 1500, range "        \
	  "500-5000")                                                          \
	F(X, vmm_target, 1000, 500, 3000, UNIFORM, "cycles",                   \
	  "host invalidation on behalf of one running target (Shoot4U, VEE "   \
	  "2016, gives no cycle figure): chosen 1000, range 500-3000")         \
	F(X, lazy_post, 60, 30, 200, LOG, "cycles",                            \
	  "recording one lazy invalidation for one target: LATR (ASPLOS "      \
	  "2018) posts into a per-core queue, a few cache-line writes; no "    \
	  "cycle figure: chosen 60, range 30-200")                             \
	F(X, lazy_slots, 64, 32, 128, LOG, "entries",                          \
	  "per-CPU lazy invalidation slots before a full flush: LATR's "       \
	  "per-core queue; no published size: chosen 64, range 32-128")

/* Every field: X(name, default, lo, hi, dist, unit, source). */
#define HVTLB_SIM_COST_ALL_(X, n, d, lo, hi, dist, u, s)                       \
	X(n, d, lo, hi, dist, u, s)
#define HVTLB_SIM_COST_TABLE(X) HVTLB_SIM_COST_LIST_(X, HVTLB_SIM_COST_ALL_)

/* The four-field view X(name, default, unit, source). */
#define HVTLB_SIM_COST_NO_RANGE_(X, n, d, lo, hi, dist, u, s) X(n, d, u, s)
#define HVTLB_SIM_COST_MAP(X) HVTLB_SIM_COST_LIST_(X, HVTLB_SIM_COST_NO_RANGE_)

enum sim_cost {
#define HVTLB_X_(n, d, u, s) SIM_COST_##n,
	HVTLB_SIM_COST_MAP(HVTLB_X_)
#undef HVTLB_X_
		SIM_COST_COUNT
};

#endif
