// SPDX-License-Identifier: MIT
/*
 * The address-space lock (Linux's mmap_lock, an rwsem): mmap and munmap
 * take it for writing, page faults and madvise for reading. Waiters queue
 * in order, readers behind a queued writer; a woken writer competes for
 * the lock unless it waited long enough to be handed it; optionally a
 * waiter spins while the holder runs before it sleeps.
 */
#include "sim/contention.h"
#include "sim/guest.h"
#include "sim/host.h"
#include "sim/lock.h"
#include "sim/machine.h"

#define WQ_WRITER 0x80000000u

static void wq_push(struct mm *m, uint32_t tid)
{
	if (m->wq_n == m->wq_cap) {
		/* cap is the number of tasks: never full */
		return;
	}
	m->waiters[(m->wq_head + m->wq_n) % m->wq_cap] = tid;
	m->wq_n++;
}

/* A woken writer that lost the race keeps its place at the front. */
static void wq_push_head(struct mm *m, uint32_t tid)
{
	if (m->wq_n == m->wq_cap)
		return;
	m->wq_head = (m->wq_head + m->wq_cap - 1) % m->wq_cap;
	m->waiters[m->wq_head] = tid;
	m->wq_n++;
}

static void spin_release(struct sim *s, struct vcpu *v)
{
	if (!v->lock.spin_hold)
		return;
	v->lock.spin_hold = 0;
	v->lock.spin_token++;
	sim_vcpu_spin_over(s, v);
}

void sim_lock_setup(struct sim *s)
{
	const struct hvtlb_sim_config *c = s->c;

	s->lock.spin = us_to_cyc(s, c->lock_spin_us) + c->lock_spin_cycles;
	s->lock.handoff = us_to_cyc(s, c->lock_handoff_us);
}

/*
 * Optimistic spinning (rwsem, Windows pushlocks): a waiter spins in sys
 * for up to guest.lock_spin_us plus guest.lock_spin_cycles before it
 * sleeps, at every attempt (a woken waiter that loses the race spins
 * again), while the holder's vCPU runs (rwsem) or whatever the holder
 * does (pushlocks); a release ends every spin at once. Returns when the
 * spin ended.
 */
static void lock_spin(struct task *t, simtime *budget)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	struct vcpu *v = &s->v[t->vcpu];
	simtime t0 = s->now;

	/* A writer that is not running will not release soon: sleep
	 * (rwsem's owner check). Reader owners are not tracked; their lock
	 * is spun on. A pushlock does not know its owner: it spins anyway
	 * (guest.lock_spin_owner false). */
	if (!*budget || (s->c->lock_spin_owner && m->writer != NONE_ID &&
			 s->v[s->t[m->writer].vcpu].hs != H_RUNNING))
		return;
	v->lock.spin_hold = 1;
	m->spinners[m->nspin++] = v->gid;
	ev_push(s, s->now + *budget, EV_SPIN_END, v->gid, ++v->lock.spin_token);
	sim_t_spin(t);
	for (uint32_t i = 0; i < m->nspin; i++) {
		if (m->spinners[i] == v->gid) {
			m->spinners[i] = m->spinners[--m->nspin];
			break;
		}
	}
	*budget = s->now - t0 >= *budget ? 0 : *budget - (s->now - t0);
}

void sim_lock_write(struct task *t)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	simtime budget = s->lock.spin;
	bool queued = false;

	sim_ct_mmap_lock(t);
	while (m->writer != NONE_ID || m->readers) {
		lock_spin(t, &budget);
		if (m->writer == NONE_ID && !m->readers)
			break;
		budget = s->lock.spin; /* spin again next time */
		if (queued) {
			/* Woken but beaten to the lock: back to the front. */
			wq_push_head(m, t->id | WQ_WRITER);
		} else {
			t->wait_since = s->now;
			m->wwait++;
			queued = true;
			wq_push(m, t->id | WQ_WRITER);
		}
		sim_t_block(t);
		if (t->granted) {
			t->granted = false; /* handed over, wwait updated */
			return;
		}
	}
	/* A writer stays on the wait list until it owns the lock (Linux
	 * rwsem: the woken writer removes itself), so readers keep queueing
	 * behind it while it wakes up. */
	if (queued)
		m->wwait--;
	m->writer = t->id;
}

/* Readers queue behind a queued writer (no writer starvation). */
void sim_lock_read(struct task *t)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	simtime budget = s->lock.spin;

	sim_ct_mmap_lock(t);
	while (m->writer != NONE_ID || m->wwait) {
		lock_spin(t, &budget);
		if (m->writer == NONE_ID && !m->wwait)
			break;
		budget = s->lock.spin; /* spin again next time */
		wq_push(m, t->id);
		sim_t_block(t);
		if (t->granted) {
			t->granted = false;
			return;
		}
	}
	m->readers++;
}

/* rwsem's wake-up: the first waiter if it is a writer (it must then
 * compete: a running thread or a spinner may take the lock first, unless
 * it waited guest.lock_handoff_us: then it is handed the lock), or the
 * readers queued at the front, which are granted the lock at once. */
static void lock_wake_waiters(struct task *t)
{
	struct sim *s = t->s;
	struct mm *m = &s->mm[t->mm];
	bool first = true;

	while (m->wq_n) {
		uint32_t w = m->waiters[m->wq_head];

		if (!first && (w & WQ_WRITER))
			break;
		m->wq_head = (m->wq_head + 1) % m->wq_cap;
		m->wq_n--;
		if (w & WQ_WRITER) {
			/* rwsem's handoff: a writer that waited long enough
			 * gets the lock; it can no longer be stolen. */
			if (s->lock.handoff &&
			    s->now - s->t[w & ~WQ_WRITER].wait_since >=
				    s->lock.handoff) {
				m->wwait--;
				m->writer = w & ~WQ_WRITER;
				s->t[w & ~WQ_WRITER].granted = true;
			}
		} else {
			m->readers++;
			s->t[w].granted = true;
		}
		t->debt += cyc(s, SIM_COST_lock_handoff);
		sim_task_wake(s, &s->t[w & ~WQ_WRITER], t);
		if (w & WQ_WRITER)
			break;
		first = false;
	}
}

static void release_spinners(struct sim *s, struct mm *m)
{
	while (m->nspin)
		spin_release(s, &s->v[m->spinners[--m->nspin]]);
}

void sim_unlock_write(struct task *t)
{
	struct mm *m = &t->s->mm[t->mm];

	sim_ct_mmap_lock(t);
	m->writer = NONE_ID;
	release_spinners(t->s, m);
	lock_wake_waiters(t);
}

void sim_unlock_read(struct task *t)
{
	struct mm *m = &t->s->mm[t->mm];

	sim_ct_mmap_lock(t);
	if (--m->readers == 0) {
		release_spinners(t->s, m);
		lock_wake_waiters(t);
	}
}

/* EV_SPIN_END: a lock spinner's budget is over. */
void sim_lock_on_spin_end(struct sim *s, const struct event *e)
{
	struct vcpu *v = &s->v[e->obj];

	if (e->arg == v->lock.spin_token)
		spin_release(s, v);
}
