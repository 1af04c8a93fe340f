/* SPDX-License-Identifier: MIT */
/**
 * @file
 * The simulator's scenario keys, in one list: every key that
 * hvtlb_sim_config_set() takes besides "cost.<name>" (hvtlb_sim_cost_name),
 * with its type, default, range, unit and meaning. The library's setter,
 * defaults, validation and key enumeration, and `hvtlb keys`, are all
 * generated from this list; this list is the reference.
 *
 * X(ID, "name", TYPE, field, "default", min, max, "unit", "meaning")
 *
 * - TYPE: U64, U32 (integers, decimal or 0x hex, within [min, max]), POW2
 *   (a U32 that must be a power of two), BOOL (the words of
 *   hvtlb_parse_bool(), as the boolean KNOBs), DOUBLE (within [min, max]),
 *   or a name: FAULT
 *   (HVTLB_SIM_FAULT_MAP), STRATEGY (hvtlb_strategy_name; setting it sets
 *   the strategy.* knobs), PROFILE (hvtlb_profile_name), WORKLOAD
 *   (HVTLB_SIM_WORKLOAD_MAP), GUEST_OS (HVTLB_SIM_GUEST_OS_MAP; setting
 *   it sets its model's keys), HOST_POLICY (HVTLB_SIM_HOST_POLICY_MAP), TOUCH, PAGE_SIZE, GOVERNOR (menu,
 *   residency), IDLE (halt, poll, haltpoll), IPI_DELIVERY
 *   (HVTLB_SIM_IPI_DELIVERY_MAP), BACKING (HVTLB_SIM_BACKING_MAP); KVER
 *   (a Linux MAJOR.MINOR, "any" for none: HVTLB_SIM_KVER); or KNOB, a knob of
 *   hvtlb_strategy_config_set() whose default is the strategy's.
 * - field: the member of struct hvtlb_sim_config it sets.
 * - "default": the value hvtlb_sim_config_init() sets, as text ("" for
 *   KNOB).
 */
#ifndef HVTLB_SIM_KEYS_H
#define HVTLB_SIM_KEYS_H

#define HVTLB_SIM_KEY_MAP(X)                                                   \
	X(SEED, "seed", U64, seed, "1", 0, 18446744073709551616.0, "",         \
	  "random seed: every random choice of a run derives from it")         \
	X(THREADS, "threads", U32, threads, "1", 1, 64, "host threads",        \
	  "host threads of the engine: partitioned VMs run in parallel "       \
	  "(machine.partition); one VM runs on one thread. Never changes "     \
	  "the results")                                                       \
	X(FAULT, "fault", FAULT, fault, "none", 0, 0, "",                      \
	  "break the flush protocol on purpose; the oracle must fire: "        \
	  "no-wait (return before the targets acknowledge), lose-deferred "    \
	  "(the host drops KVM's deferred flush), skip-lazy-freed (lazy "      \
	  "CPUs skipped although page tables were freed), drop-target (the "   \
	  "highest target is not flushed), global-survives (every flush "      \
	  "keeps global entries), host-no-wait (the hypervisor returns from "  \
	  "a flush hypercall before the targets it kicked flushed: KVM "       \
	  "0baedd792713, fixed by 1ebfaa11ebb5), vp-as-cpu (the guest names "  \
	  "its CPU numbers where the hypercall wants VP indexes, as the "      \
	  "confusion fixed in Linux 86c48271e0d6; see "                        \
	  "hypervisor.vp_index_offset), gen-zero-skip (the guest's flush "     \
	  "handler takes a flush that carries no tlb generation for an old "   \
	  "one and skips it: Linux aa44284960d5, fixed by 8f1d56f64f8d)")      \
	X(STRATEGY, "strategy", STRATEGY, strategy, "ipi", 0, 0, "",           \
	  "the guest's flush strategy: ipi, hyperv, kvm-pv, vmm-assist, "      \
	  "broadcast, lazy, xen-pv (a Xen PV guest's one MMUEXT_*_MULTI "      \
	  "call: one page, or else a full flush of the targets). Sets the "    \
	  "strategy.* knobs not given to its defaults")                        \
	X(CONCURRENT, "strategy.concurrent", KNOB, strategy, "", 0, 0, "",     \
	  "send the flush IPIs first, flush locally while they fly, then "     \
	  "wait (Linux >= 5.13); false: flush locally first")                  \
	X(EARLY_ACK, "strategy.early_ack", KNOB, strategy, "", 0, 0, "",       \
	  "targets acknowledge on entry to the handler, then flush (never "    \
	  "when page tables are freed)")                                       \
	X(LAZY_SKIP, "strategy.lazy_skip", KNOB, strategy, "", 0, 0, "",       \
	  "no flush IPI to a CPU in lazy TLB mode unless page tables are "     \
	  "freed (Linux >= 4.19)")                                             \
	X(CEILING, "strategy.full_flush_ceiling", KNOB, strategy, "", 0, 0,    \
	  "pages",                                                             \
	  "above this many pages a range becomes a full flush (Linux's "       \
	  "tlb_single_page_flush_ceiling, 33)")                                \
	X(XMM_FAST, "strategy.xmm_fast", KNOB, strategy, "", 0, 0, "",         \
	  "hyperv: fast (XMM register) input when it fits and is offered")     \
	X(COMPACT, "strategy.compact_vpset", KNOB, strategy, "", 0, 0, "",     \
	  "hyperv: compact sparse VP sets (false: Linux's 2^n-1 bank masks)")  \
	X(EXT_RANGES, "strategy.extended_ranges", KNOB, strategy, "", 0, 0,    \
	  "", "hyperv: large-page GVA entries when offered")                   \
	X(BCAST_MAX, "strategy.broadcast_max_pages", KNOB, strategy, "", 0, 0, \
	  "pages", "broadcast: pages one INVLPGB covers (CPUID limit)")        \
	X(PCPUS, "machine.pcpus", U32, pcpus, "16", 1, 4096, "CPUs",           \
	  "host CPUs")                                                         \
	X(VMS, "machine.vms", U32, vms, "1", 1, 64, "VMs",                     \
	  "identical VMs sharing the host CPUs")                               \
	X(PARTITION, "machine.partition", BOOL, partition, "false", 0, 0, "",  \
	  "VM k runs alone on pCPUs [k*p/vms, (k+1)*p/vms) (pcpus a "          \
	  "multiple of vms); the VMs are then independent and run in "         \
	  "parallel on `threads` host threads; false: every VM shares every "  \
	  "pCPU")                                                              \
	X(SOCKETS, "machine.sockets", U32, sockets, "1", 1, 64, "sockets",     \
	  "host sockets: pCPUs [k*p/sockets, (k+1)*p/sockets) are socket k; "  \
	  "with machine.contention a cache line moving between sockets "       \
	  "costs cost.line_transfer_socket instead of cost.line_transfer")     \
	X(CONTENTION, "machine.contention", BOOL, contention, "true", 0, 0,    \
	  "",                                                                  \
	  "cache lines many CPUs write cost a line transfer and queue "        \
	  "behind each other (src/sim/contention.c): the mmap lock word, the " \
	  "mm's tlb_gen and cpumask, per-VMA locks, the page allocator's "     \
	  "zone lock and the LRU lock; false: every access costs what the "    \
	  "per-operation costs say, whatever the number of CPUs (the "         \
	  "engine's older model)")                                             \
	X(BARE_METAL, "machine.bare_metal", BOOL, bare_metal, "false", 0, 0,   \
	  "",                                                                  \
	  "no hypervisor: the one VM is the operating system on the "          \
	  "machine's CPUs (machine.vms = 1, vm.vcpus = machine.pcpus). A "     \
	  "halt or an ICR write is then no VM exit, so none is counted, and "  \
	  "the strategies that need a hypervisor (hyperv, kvm-pv, "            \
	  "vmm-assist, xen-pv) are refused; costs come from the profile "      \
	  "(profiles/native.ini)")                                             \
	X(BACKING, "machine.backing", BACKING, backing, "plain", 0, 0, "",     \
	  "what the VM is on, as a confidential-VM platform restricts it: "    \
	  "plain (an ordinary VM, nothing refused), tdx (Intel TDX: "          \
	  "strategy kvm-pv and broadcast are refused, since QEMU and Cloud "   \
	  "Hypervisor give a TD no steal time, which Linux's PV flush needs, " \
	  "and INVLPGB is AMD's), snp (AMD SEV-SNP: one ASID per VM, as "      \
	  "INVLPGB in a guest needs), snp-savic (SEV-SNP with Secure AVIC: "   \
	  "as snp, and the host no longer recommends the synthetic cluster "   \
	  "IPI, so ipi_delivery hyperv is refused and a derived delivery is "  \
	  "icr; the flush hypercalls stay). docs/model.md gives the sources")  \
	X(VCPUS, "vm.vcpus", U32, vcpus, "16", 1, 4096, "vCPUs",               \
	  "vCPUs per VM")                                                      \
	X(PROFILE, "hypervisor.profile", PROFILE, decoder, "strict", 0, 0, "", \
	  "the host's hypercall decoder profile (hvtlb_profile_name)")         \
	X(IPIV, "hypervisor.ipiv", BOOL, ipiv, "false", 0, 0, "",              \
	  "IPI virtualization: sending an IPI costs no VM exit")               \
	X(PLE, "hypervisor.ple", BOOL, ple, "true", 0, 0, "",                  \
	  "pause-loop exiting: a spinning vCPU may yield its pCPU")            \
	X(PLE_BOOST, "hypervisor.ple_boost_ready", BOOL, ple_boost_ready,      \
	  "true", 0, 0, "",                                                    \
	  "a pause-loop exit may yield to a vCPU that was woken (halt, IPI) "  \
	  "and waits to run: KVM >= 5.3 (commit d73eb57b80b9, vcpu->ready); "  \
	  "false: only to a vCPU preempted while running (vcpu->preempted), "  \
	  "otherwise the spinner keeps its pCPU")                              \
	X(PLE_BOOST_IRQ, "hypervisor.ple_boost_irq", BOOL, ple_boost_irq,      \
	  "false", 0, 0, "",                                                   \
	  "a vCPU preempted in user mode is a directed-yield candidate when "  \
	  "an interrupt is pending for it: KVM >= 5.13 (commit 52acd22faa1a, " \
	  "kvm_arch_dy_has_pending_interrupt) on a host with APICv (posted "   \
	  "interrupts); false: before 5.13, or no APICv")                      \
	X(KICK_YIELD, "hypervisor.kick_yield", BOOL, kick_yield, "true", 0, 0, \
	  "",                                                                  \
	  "the PV spinlock's kick (KVM_HC_KICK_CPU) yields the releaser's "    \
	  "pCPU to the kicked waiter when that one waits for a pCPU "          \
	  "(vcpu->ready): KVM >= 5.3 (commit 266e85a5ec9, kvm_sched_yield); "  \
	  "false: before 5.3, the kick only wakes the waiter")                 \
	X(DIRECTED_YIELD, "hypervisor.directed_yield", BOOL, directed_yield,   \
	  "true", 0, 0, "",                                                    \
	  "a pause-loop exit runs KVM's kvm_vcpu_on_spin (2018): the VM's "    \
	  "vCPUs round-robin from the last boosted, two passes, three tries; " \
	  "a candidate preempted in kernel mode, dy_eligible alternation; "    \
	  "yield_to it; PLE in guest kernel mode only, the window grows and "  \
	  "shrinks (hypervisor.ple_window_*); false: the spinner yields its "  \
	  "own pCPU if any vCPU of the VM is preempted, fixed window (the "    \
	  "engine's older model)")                                             \
	X(PLE_GROW, "hypervisor.ple_window_grow", U32, ple_window_grow, "2",   \
	  0, 4294967295.0, "",                                                 \
	  "KVM's ple_window_grow: the window is multiplied by it at every "    \
	  "pause-loop exit (added when not below cost.ple_window; 0 resets "   \
	  "it); 2 on VMX and SVM")                                             \
	X(PLE_SHRINK, "hypervisor.ple_window_shrink", U32, ple_window_shrink,  \
	  "0", 0, 4294967295.0, "",                                            \
	  "KVM's ple_window_shrink: the window is divided by it when the "     \
	  "vCPU is scheduled in (0: back to cost.ple_window); 0 on VMX and "   \
	  "SVM")                                                               \
	X(PLE_MAX, "hypervisor.ple_window_max", U64, ple_window_max,           \
	  "1073741823", 1, 18446744073709551615.0, "cycles",                   \
	  "KVM's ple_window_max: INT_MAX / 2 in Linux 4.15 vmx.c (UINT_MAX "   \
	  "since 4.18; SVM: 65535 PAUSE instructions)")                        \
	X(CFS, "hypervisor.cfs", BOOL, cfs, "true", 0, 0, "",                  \
	  "the host scheduler is Linux CFS (smallest virtual runtime first, "  \
	  "slice = sched_latency over the runnable vCPUs, at least "           \
	  "min_granularity, wake-up preemption past the wake-up "              \
	  "granularity; kernel/sched/fair.c defaults); false: a FIFO run "     \
	  "queue, a woken vCPU runs next, fixed slice cost.host_slice_us "     \
	  "(the engine's older model; also what stands for a host that is "    \
	  "not Linux, such as Hyper-V). hypervisor.host_policy names the "     \
	  "same choice")                                                       \
	X(CFS_TICK, "hypervisor.cfs_tick", BOOL, cfs_tick, "true", 0, 0, "",   \
	  "with hypervisor.cfs: the running vCPU's slice is checked at every " \
	  "host tick (cost.host_tick_us) against the vCPUs runnable then "     \
	  "(check_preempt_tick), and picks honour CFS's next, last and skip "  \
	  "buddies (Linux 4.15 kernel/sched/fair.c); false: the slice is "     \
	  "fixed when a vCPU enters and a vCPU that yielded is never picked "  \
	  "while another waits (the engine's older model)")                    \
	X(HOST_POLICY, "hypervisor.host_policy", HOST_POLICY, host_policy,     \
	  "cfs-tick", 0, 0, "",                                                \
	  "the host scheduler by name: fifo (hypervisor.cfs = false), "        \
	  "cfs-tick (cfs and cfs_tick true) or cfs-entry (cfs true, cfs_tick " \
	  "false). Not given, the two booleans choose; given, those of them "  \
	  "not given follow it, and one given that says otherwise is "         \
	  "refused (cfs_tick is not read under fifo)")                         \
	X(BALANCE, "hypervisor.balance", BOOL, balance, "true", 0, 0, "",      \
	  "the host moves vCPU threads between pCPUs as Linux 4.15 does "      \
	  "(kernel/sched/fair.c): a woken vCPU runs on its previous pCPU if "  \
	  "idle, else on an idle pCPU of the same socket "                     \
	  "(select_idle_sibling), a pCPU that runs out of vCPUs pulls a "      \
	  "waiting one (idle_balance) and each pCPU pulls from the busiest "   \
	  "at its balance interval; a moved vCPU's TLB is flushed at its "     \
	  "next entry (KVM_REQ_TLB_FLUSH in vmx_vcpu_load); false: vCPU i "    \
	  "stays on pCPU i mod machine.pcpus (the engine's older model)")      \
	X(IDLE_GOV, "hypervisor.idle_governor", GOVERNOR, idle_governor,       \
	  "menu", 0, 0, "",                                                    \
	  "how an idle pCPU picks its idle state (cost.cstate_*): menu, "      \
	  "Linux 4.15's menu governor (predicted idle time from the next "     \
	  "timer, cost.idle_timer_us, and the recent idle periods, against "   \
	  "each state's target residency); residency: the deepest state "      \
	  "(cost.cstate_exit_us) once idle cost.cstate_residency_us (the "     \
	  "engine's older model)")                                             \
	X(HV_SPINLOCKS, "hypervisor.hv_spinlocks", U32, hv_spinlocks,          \
	  "0xffffffff", 0, 4294967295.0, "attempts",                           \
	  "CPUID 0x40000004 EBX, the spin attempts before a Hyper-V guest "    \
	  "notifies the hypervisor (QEMU's hv-spinlocks; its default "         \
	  "0xffffffff: never). A guest with guest.long_spin_notify makes "     \
	  "HvCallNotifyLongSpinWait every 2^k PAUSEs of a flush wait, 2^k - "  \
	  "1 "                                                                 \
	  ">= EBX, when EBX as a signed number is positive; KVM handles it "   \
	  "as a pause-loop exit")                                              \
	X(IPI_BATCH, "hypervisor.ipi_batch", U32, ipi_batch, "1", 1, 4096,     \
	  "destinations",                                                      \
	  "with hypervisor.ipi_delivery = icr: IPI destinations per sender "   \
	  "VM exit, counted in target order whatever their APIC IDs (the "     \
	  "older model of cluster and PV sends; 1: one write per target). "    \
	  "Above 1 only with icr")                                             \
	X(IPI_DELIVERY, "hypervisor.ipi_delivery", IPI_DELIVERY, ipi_delivery, \
	  "icr", 0, 0, "",                                                     \
	  "how the guest sends every IPI (flush, reschedule): icr (an x2APIC " \
	  "ICR write per target, each an exit unless hypervisor.ipiv), "       \
	  "cluster (x2APIC cluster mode: a write per cluster of 16 APIC IDs "  \
	  "holding a target), kvm-pv (KVM_HC_SEND_IPI, Linux >= 4.19: a "      \
	  "hypercall per 128-APIC-ID window from the lowest target; one "      \
	  "target alone takes an ICR write), hyperv "                          \
	  "(HvCallSendSyntheticClusterIpi below VP 64, its Ex form above, "    \
	  "Linux >= 4.18 hv_apic.c: encoded, then decoded by "                 \
	  "hypervisor.profile; a refused call falls back to ICR writes). A "   \
	  "hypercall is an exit with IPI virtualization too")                  \
	X(PV_SEND_IPI, "hypervisor.pv_send_ipi", BOOL, pv_send_ipi, "true", 0, \
	  0, "",                                                               \
	  "the host advertises KVM_FEATURE_PV_SEND_IPI (CPUID 0x40000001 EAX " \
	  "bit 11); false: a guest set to hypervisor.ipi_delivery = kvm-pv "   \
	  "sends by ICR writes, as Linux does without the bit (it never "      \
	  "installs kvm_send_ipi_mask)")                                       \
	X(CLUSTER_IPI, "hypervisor.cluster_ipi", BOOL, cluster_ipi, "true", 0, \
	  0, "",                                                               \
	  "the host recommends HV_X64_CLUSTER_IPI_RECOMMENDED (CPUID "         \
	  "0x40000004 EAX bit 10); false: a guest set to "                     \
	  "hypervisor.ipi_delivery = hyperv sends by ICR writes, as Linux's "  \
	  "hv_apic_init() then keeps the APIC's own IPI functions")            \
	X(XMM, "hypervisor.xmm", BOOL, offer_xmm, "true", 0, 0, "",            \
	  "the host offers XMM fast hypercall input")                          \
	X(EX, "hypervisor.ex", BOOL, offer_ex, "true", 0, 0, "",               \
	  "the host offers the Ex hypercalls (sparse VP sets)")                \
	X(VP_OFFSET, "hypervisor.vp_index_offset", U32, vp_index_offset, "0",  \
	  0, 4095, "",                                                         \
	  "the hypervisor's VP index of guest CPU i is (i + this) mod "        \
	  "vm.vcpus; the guest maps CPUs to VP indexes for hypercall VP sets " \
	  "(Linux: hv_vp_index[]). 0: equal, the usual case; a VMM may "       \
	  "number VPs as it likes (KVM takes them from userspace, "            \
	  "KVM_CAP_HYPERV_VP_INDEX)")                                          \
	X(TLB_LEVELS, "tlb.levels", U32, tlb_levels, "2", 1, 2, "levels",      \
	  "TLB levels: 1 (L1 dTLB only) or 2 (and an STLB)")                   \
	X(L1_SETS, "tlb.l1_sets", POW2, l1_sets, "16", 1, 65536, "sets",       \
	  "L1 dTLB sets")                                                      \
	X(L1_WAYS, "tlb.l1_ways", U32, l1_ways, "4", 1, 64, "ways",            \
	  "L1 dTLB ways")                                                      \
	X(L2_SETS, "tlb.l2_sets", POW2, l2_sets, "128", 1, 65536, "sets",      \
	  "STLB sets")                                                         \
	X(L2_WAYS, "tlb.l2_ways", U32, l2_ways, "12", 1, 64, "ways",           \
	  "STLB ways")                                                         \
	X(PCID, "tlb.pcid", BOOL, pcid, "true", 0, 0, "",                      \
	  "entries are tagged with their address space (PCID/ASID)")           \
	X(GUEST_OS, "guest.os", GUEST_OS, guest_os, "linux", 0, 0, "",         \
	  "the guest OS model, linux or windows: a bundle that sets "          \
	  "guest.tick_accounting, steal_accounting, idle_leaves_mm, "          \
	  "early_ack_pages, ipi_mailbox, lock_spin_us, lock_spin_cycles, "     \
	  "lock_spin_owner, long_spin_notify and group_size (linux: their "    \
	  "defaults; docs/model.md). A scenario overrides any of them: the "   \
	  "tool applies guest.os before the scenario's other lines")           \
	X(GUEST_KERNEL, "guest.kernel", KVER, guest_kernel, "any", 0, 0, "",   \
	  "the Linux guest's version, MAJOR.MINOR (e.g. 4.15); any: none, "    \
	  "nothing gated. Set, it refuses what that Linux lacks: "             \
	  "ipi_delivery kvm-pv before 4.19, hyperv before 4.18; strategy "     \
	  "kvm-pv before 4.16, hyperv before 4.14, broadcast before 6.15; "    \
	  "strategy.lazy_skip before 4.19 and strategy.concurrent before "     \
	  "5.13 when set true. Keys not given follow it: "                     \
	  "hypervisor.ipi_delivery is what the guest would pick on the host "  \
	  "of hypervisor.profile (kvm: kvm-pv from 4.19 with "                 \
	  "hypervisor.pv_send_ipi; strict, openvmm-*: hyperv from 4.18 with "  \
	  "hypervisor.cluster_ipi; otherwise icr), lazy_skip and concurrent "  \
	  "are on from the version that has them. Refused with guest.os = "    \
	  "windows")                                                           \
	X(LAZY_LEAVE, "guest.lazy_leave", BOOL, lazy_leave, "true", 0, 0, "",  \
	  "a lazy CPU that takes a flush IPI leaves the mm (Linux < 4.19)")    \
	X(STEAL, "guest.steal_accounting", BOOL, steal_accounting, "false", 0, \
	  0, "",                                                               \
	  "time the host preempted a vCPU is not counted as guest user/sys "   \
	  "(Linux with steal time); false: it is")                             \
	X(TICK_ACCT, "guest.tick_accounting", BOOL, tick_accounting, "false",  \
	  0, 0, "",                                                            \
	  "a thread's user and sys time is sampled at clock ticks "            \
	  "(cost.tick_us; the same instants on every vCPU): each tick "        \
	  "charges one whole tick to the vCPU's current thread in the mode "   \
	  "it is in, and the first tick after the host ran the vCPU again "    \
	  "charges every tick missed meanwhile in the mode of the moment it "  \
	  "was descheduled (Windows' KeAccumulateTicks catch-up); "            \
	  "guest.steal_accounting then drops the missed ones. false: exact "   \
	  "time")                                                              \
	X(IDLE_LEAVES, "guest.idle_leaves_mm", BOOL, idle_leaves_mm, "false",  \
	  0, 0, "",                                                            \
	  "a vCPU that switches to its idle thread leaves the address space "  \
	  "(Windows: the idle thread belongs to the idle process, so the "     \
	  "switch clears the processor from the process's ActiveProcessors "   \
	  "and its CR3 write flushes the TLB): flushes target only the vCPUs " \
	  "running, or preempted while running, a thread of the process. "     \
	  "false: Linux's lazy TLB mode (the idle vCPU keeps the mm)")         \
	X(EARLY_ACK_PAGES, "guest.early_ack_pages", U32, early_ack_pages, "0", \
	  0, 4096, "pages",                                                    \
	  "a flush IPI's target acknowledges before it flushes when the "      \
	  "request flushes everything or at most this many pages, after it "   \
	  "flushes a longer list (Windows' KiIpiProcessRequests: 7, the "      \
	  "addresses that fit the IPI mailbox); 0: the strategy's "            \
	  "strategy.early_ack decides")                                        \
	X(IPI_MAILBOX, "guest.ipi_mailbox", BOOL, ipi_mailbox, "false", 0, 0,  \
	  "",                                                                  \
	  "a sender has one flush request slot per target: before it writes "  \
	  "the next request it spins until the target processed its last "     \
	  "one, which matters when targets acknowledge early (Windows' "       \
	  "KiIpiSendRequest); false: requests queue without limit")            \
	X(LONG_SPIN, "guest.long_spin_notify", BOOL, long_spin_notify,         \
	  "false", 0, 0, "",                                                   \
	  "the guest's flush wait notifies the hypervisor of a long spin as "  \
	  "hypervisor.hv_spinlocks recommends (Windows' "                      \
	  "KiIpiWaitForRequestBarrier); false: never")                         \
	X(GROUP_SIZE, "guest.group_size", U32, group_size, "0", 0, 4096,       \
	  "vCPUs",                                                             \
	  "processor groups: the vCPUs form groups of this many, process p "   \
	  "is in group p mod groups and its threads run only there (Windows: " \
	  "groups of up to 64 logical processors, an application confined "    \
	  "to one group by default before Windows 11 and Server 2022); 0: "    \
	  "none")                                                              \
	X(MIGRATE, "guest.migrate", BOOL, migrate, "true", 0, 0, "",           \
	  "a woken thread moves to an idle vCPU (select_idle_sibling)")        \
	X(LOCK_SPIN, "guest.lock_spin_us", DOUBLE, lock_spin_us, "0", 0, 1e6,  \
	  "us",                                                                \
	  "a waiter for the mmap lock spins (sys) up to this long while the "  \
	  "holder's vCPU runs, then sleeps")                                   \
	X(LOCK_SPIN_CYC, "guest.lock_spin_cycles", U64, lock_spin_cycles, "0", \
	  0, 1e12, "cycles",                                                   \
	  "added to guest.lock_spin_us: a spin limit in time-stamp counter "   \
	  "cycles (Windows pushlocks: ExpSpinCycleCount 10240 on "             \
	  "multiprocessors)")                                                  \
	X(LOCK_SPIN_OWNER, "guest.lock_spin_owner", BOOL, lock_spin_owner,     \
	  "true", 0, 0, "",                                                    \
	  "a waiter spins only while the writer holding the lock runs on its " \
	  "vCPU (rwsem's owner check, vcpu_is_preempted); false: whatever "    \
	  "the holder does (a Windows pushlock does not know its owner)")      \
	X(PV_SPINLOCK, "guest.pv_spinlock", BOOL, pv_spinlock, "false", 0, 0,  \
	  "",                                                                  \
	  "the zone and LRU locks of machine.contention are Linux's "          \
	  "paravirtual queued spinlocks (a KVM guest given "                   \
	  "KVM_FEATURE_PV_UNHALT): interrupts off while waiting and holding, " \
	  "held until the holder's vCPU has run the section, waiters in "      \
	  "order, spinning 2^15 PAUSE loops (cost.pause) then halting until "  \
	  "the release kicks them (KVM_HC_KICK_CPU), while the queue's head "  \
	  "is halted others spin for it outside the queue and take it when "   \
	  "free (the unfair mode); false: a section's wait and release are "   \
	  "fixed when it starts. Needs machine.contention")                    \
	X(PV_WAIT_EARLY, "guest.pv_wait_early", BOOL, pv_wait_early, "false",  \
	  0, 0, "",                                                            \
	  "with guest.pv_spinlock, a queued waiter whose predecessor halted "  \
	  "or is preempted halts at once (Linux 4.13 to 5.3: commit "          \
	  "75437bb304b2, reverted for 5.4)")                                   \
	X(TLB_GEN, "guest.tlb_gen", BOOL, tlb_gen, "true", 0, 0, "",           \
	  "the guest tracks the mm's flush generation per CPU, and a lazy "    \
	  "CPU switching back to the mm flushes if it missed one (Linux >= "   \
	  "4.14); false: it switches back without a flush (Linux 4.12; only "  \
	  "safe without strategy.lazy_skip)")                                  \
	X(LOCK_HANDOFF, "guest.lock_handoff_us", DOUBLE, lock_handoff_us, "0", \
	  0, 1e9, "us",                                                        \
	  "a writer queued this long is handed the lock at the next release "  \
	  "instead of racing for it (Linux >= 5.3: 4000, rwsem's "             \
	  "RWSEM_WAIT_TIMEOUT); 0: never")                                     \
	X(FAULT_EXCL, "guest.fault_exclusive", BOOL, fault_exclusive, "false", \
	  0, 0, "",                                                            \
	  "a page fault takes the address-space lock exclusive, as mmap and "  \
	  "munmap do (faults serialize); false: shared, as Linux's mmap "      \
	  "lock read side")                                                    \
	X(GUEST_IDLE, "guest.idle", IDLE, guest_idle, "halt", 0, 0, "",        \
	  "what an idle vCPU does: halt (HLT, a VM exit: the host blocks "     \
	  "it), poll (idle=poll: it spins in the guest, never halts, and is "  \
	  "woken without an IPI), haltpoll (cpuidle-haltpoll, Linux >= 5.4: "  \
	  "it polls up to an adaptive limit of at most guest.halt_poll_us, "   \
	  "then halts; the host's halt polling is then off)")                  \
	X(GUEST_HALT_POLL, "guest.halt_poll_us", DOUBLE, guest_halt_poll_us,   \
	  "200", 0, 1e6, "us",                                                 \
	  "guest.idle = haltpoll: the most a vCPU polls before it halts "      \
	  "(guest_halt_poll_ns, 200 us by default; grows from 50 us by 2x, "   \
	  "shrinks by 2x)")                                                    \
	X(FAULT_VMA, "guest.fault_vma_lock", BOOL, fault_vma_lock, "false", 0, \
	  0, "",                                                               \
	  "a page fault on a mapped anonymous range takes that mapping's own " \
	  "lock (lock_vma_under_rcu, Linux >= 6.4), not the mmap lock; "       \
	  "false: the mmap lock's read side (guest.fault_exclusive: write)")   \
	X(WL_KIND, "workload.kind", WORKLOAD, workload, "trasher", 0, 0, "",   \
	  "what every guest thread does: trasher (mmap, touch, munmap), "      \
	  "madvise (touch, madvise(DONTNEED)), ebizzy (the program: malloc, "  \
	  "copy a record chunk, binary search, free), tlb-flush1 and "         \
	  "tlb-flush2 (will-it-scale's loops), mmap-search (mmap, fill, "      \
	  "search other threads' chunks, munmap), mix (trasher, madvise or "   \
	  "mmap-search, at random each operation), oracle-stress (every "      \
	  "thread touches all of its process's two shared mappings, zaps "     \
	  "one, has page reclaim unmap one or does an mmap-search operation, " \
	  "and "                                                               \
	  "touches them again: built to expose a broken flush protocol), "     \
	  "trace (a recorded kernel trace replayed, workload.trace or "        \
	  "hvtlb sim --trace-in: docs/replay.md)")                             \
	X(WL_THREADS, "workload.threads", U32, wl_threads, "32", 1, 65536,     \
	  "threads", "guest threads per VM")                                   \
	X(WL_PROCESSES, "workload.processes", U32, wl_processes, "1", 1, 4096, \
	  "processes",                                                         \
	  "processes (address spaces) per VM; threads are split "              \
	  "round-robin (workload.kind = trace: each in its recorded "          \
	  "process, and their count by default)")                              \
	X(WL_ITERATIONS, "workload.iterations", U64, wl_iterations, "1000", 1, \
	  1099511627776.0, "operations", "operations per thread")              \
	X(WL_PAGES, "workload.pages", U32, wl_pages, "1", 1, 1048576, "pages", \
	  "pages per mapping")                                                 \
	X(WL_PAGE_SIZE, "workload.page_size", PAGE_SIZE, wl_page_shift, "4k",  \
	  0, 0, "", "page size of the mappings: 4k, 2m or 1g")                 \
	X(WL_TOUCH, "workload.touch", TOUCH, wl_touch, "all", 0, 0, "",        \
	  "pages touched after each mmap: none, first, all, random "           \
	  "(workload.search_pages random ones). A fault takes the mmap lock "  \
	  "(read side; readers queue behind a writer)")                        \
	X(WL_TOUCH_REPEAT, "workload.touch_repeat", U32, wl_touch_repeat, "1", \
	  1, 1048576, "reads", "times each touched page is read")              \
	X(WL_SLEEP, "workload.sleep_ns_max", U64, wl_sleep_ns_max, "0", 0,     \
	  1e10, "ns",                                                          \
	  "a uniform random sleep in [0, max] after each operation; 0: none")  \
	X(WL_FILE, "workload.file_backed", BOOL, wl_file_backed, "true", 0, 0, \
	  "", "file mappings (no zeroing of new pages)")                       \
	X(WL_SHARED, "workload.shared", BOOL, wl_shared, "false", 0, 0, "",    \
	  "madvise: all threads of a process touch and zap one shared "        \
	  "mapping")                                                           \
	X(WL_SEARCH, "workload.search_pages", U32, wl_search_pages, "64", 1,   \
	  1048576, "pages",                                                    \
	  "random pages per operation for touch = random, and mmap-search's "  \
	  "searched pages per operation")                                      \
	X(WL_USER_NS, "workload.user_ns", U64, wl_user_ns, "0", 0, 1e9, "ns",  \
	  "extra user-space work per operation")                               \
	X(WL_KERNEL_PAGES, "workload.kernel_pages", U32, wl_kernel_pages, "0", \
	  0, 1048576, "pages",                                                 \
	  "kernel (global) pages per VM: each operation a thread maps one "    \
	  "if it holds none, reads it and a random mapped one, and every "     \
	  "4th operation unmaps it with a flush of everything including "      \
	  "globals (vfree); 0: off")                                           \
	X(WL_DURATION, "workload.duration_s", DOUBLE, wl_duration_s, "0", 0,   \
	  1e6, "s",                                                            \
	  "each thread repeats its operation until this much virtual time "    \
	  "has passed, then stops (ebizzy -S: records/s = operations / "       \
	  "time); 0: workload.iterations operations each")                     \
	X(EB_CHUNKS, "workload.ebizzy_chunks", U32, wl_ebizzy_chunks, "10", 1, \
	  4096, "chunks",                                                      \
	  "ebizzy -n: record chunks of workload.pages pages each, written "    \
	  "once at start and copied from by every operation")                  \
	X(EB_ALWAYS_MMAP, "workload.ebizzy_always_mmap", BOOL,                 \
	  wl_ebizzy_always_mmap, "false", 0, 0, "",                            \
	  "ebizzy -m: every copy is its own mmap and munmap (no malloc)")      \
	X(EB_NEVER_MMAP, "workload.ebizzy_never_mmap", BOOL,                   \
	  wl_ebizzy_never_mmap, "false", 0, 0, "",                             \
	  "ebizzy -M: mallopt(M_MMAP_MAX, 0): every copy comes from the "      \
	  "thread's malloc heap, trimmed with madvise(DONTNEED) at 128 KiB "   \
	  "(M_TRIM_THRESHOLD); neither -m nor -M: glibc's dynamic mmap "       \
	  "threshold decides")                                                 \
	X(GLIBC_TRIM_ALL, "workload.glibc_trim_all", BOOL, wl_glibc_trim_all,  \
	  "false", 0, 0, "",                                                   \
	  "glibc < 2.22: a thread's heap is trimmed whenever more than a "     \
	  "page is free at its top (M_TRIM_THRESHOLD applied to the main "     \
	  "arena only, until glibc commit c26efef979); false: glibc >= "       \
	  "2.22, the trim threshold applies to every heap")                    \
	X(MAX_VIRTUAL, "engine.max_virtual_s", DOUBLE, max_virtual_s, "3600",  \
	  1e-9, 1e9, "s", "stop (error -ETIME) beyond this much virtual time") \
	X(MAX_VIOLATIONS, "engine.max_violations", U32, max_violations, "16",  \
	  0, 1048576, "violations", "oracle violations recorded in detail")    \
	X(LATENT_CHECK, "engine.latent_check", BOOL, latent_check, "true", 0,  \
	  0, "",                                                               \
	  "the oracle also checks every completed flush: each vCPU must hold " \
	  "no entry older than what the flush covered, unless it is out of "   \
	  "guest mode with a flush pending for it or legally skipped in lazy " \
	  "TLB mode (latent violations); false: only translations through a "  \
	  "stale entry count (used violations)")

#endif
