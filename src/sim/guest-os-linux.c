// SPDX-License-Identifier: MIT
/*
 * The Linux guest: the engine's defaults. Times are exact, and with
 * steal time (guest.steal_accounting, kernel/sched/cputime.c) the time a
 * preempted vCPU waited is left out; an idle CPU keeps the mm in lazy
 * TLB mode; the strategy decides when targets acknowledge; flush
 * requests queue without limit; an rwsem waiter spins (if at all) only
 * while the owner runs; no long-spin notification; no processor groups.
 * Kernel-version details (lazy_leave, tlb_gen, lock_handoff_us, ...) are
 * keys of their own that scenarios set for the kernel they describe.
 */
#include "sim/guest-os.h"

static const struct guest_os_key keys[] = {
	{ "guest.tick_accounting", "false" },
	{ "guest.steal_accounting", "false" },
	{ "guest.idle_leaves_mm", "false" },
	{ "guest.early_ack_pages", "0" },
	{ "guest.ipi_mailbox", "false" },
	{ "guest.lock_spin_us", "0" },
	{ "guest.lock_spin_cycles", "0" },
	{ "guest.lock_spin_owner", "true" },
	{ "guest.long_spin_notify", "false" },
	{ "guest.group_size", "0" },
	{ NULL, NULL },
};

const struct guest_os sim_guest_os_LINUX = {
	.name = "linux",
	.keys = keys,
};
