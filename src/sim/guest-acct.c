// SPDX-License-Identifier: MIT
/*
 * The user and sys time of guest threads, two ways:
 *
 * - as the guest reports it (task user, sys): exact intervals of the
 *   thread's mode, or with guest.tick_accounting a whole tick for each
 *   clock tick in the interval (Windows: KeUpdateRunTime and its
 *   catch-up, KeAccumulateTicks, charge the ticks elapsed since the
 *   processor's last one to the current thread in the mode it was
 *   interrupted in); with guest.steal_accounting the time its vCPU spent
 *   descheduled by the host is left out (Linux's steal time), without it
 *   that time counts in the mode the thread was in;
 * - as consumed (task sys_cons): the guest kernel time the vCPU actually
 *   ran on a host CPU, whatever the guest reports.
 */
#include "sim/guest.h"
#include "sim/machine.h"

/* What the guest charges for [@p since, now): the time, or a tick per
 * clock tick in it (the ticks fall at k * tick, k >= 1). */
static simtime charged(const struct sim *s, simtime since)
{
	simtime tk = s->tick;

	if (!s->c->tick_accounting)
		return s->now - since;
	if (!since)
		since = 1;
	return ((s->now + tk - 1) / tk - (since + tk - 1) / tk) * tk;
}

void sim_acct_close(struct sim *s, struct task *t)
{
	if (!t->acct_paused) {
		simtime d = charged(s, t->acct_since);

		if (t->acct == ACCT_USER)
			t->user += d;
		else if (t->acct == ACCT_SYS)
			t->sys += d;
	}
	if (!t->off_cpu) {
		simtime d = s->now - t->cons_since;

		if (t->acct == ACCT_SYS)
			t->sys_cons += d;
		else if (t->acct == ACCT_USER)
			t->user_cons += d;
		if (t->in_ack_wait)
			t->ackw_cons += d;
	}
	t->acct_since = s->now;
	t->cons_since = s->now;
}

void sim_acct_ack_wait(struct sim *s, struct task *t, bool on)
{
	sim_acct_close(s, t);
	t->in_ack_wait = on;
}

void sim_acct_set(struct sim *s, struct task *t, enum acct a)
{
	sim_acct_close(s, t);
	if (TRACING(s))
		sim_trace_mode(s, t, a);
	t->acct = a;
}

void sim_acct_start(struct sim *s, struct task *t)
{
	t->acct_since = s->now;
	t->cons_since = s->now;
	t->acct_paused = false;
	t->off_cpu = false;
}

void sim_acct_off_cpu(struct sim *s, struct task *t)
{
	sim_acct_close(s, t);
	t->off_cpu = true;
	if (s->c->steal_accounting)
		t->acct_paused = true;
}

void sim_acct_on_cpu(struct sim *s, struct task *t)
{
	t->cons_since = s->now;
	t->off_cpu = false;
	if (s->c->steal_accounting) {
		t->acct_since = s->now;
		t->acct_paused = false;
	}
}
