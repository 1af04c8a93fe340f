// SPDX-License-Identifier: MIT
/*
 * The interleaving explorer (interleave.h). Threads are the simulator's
 * coroutines (src/sim/coro.c: TSan fibers and fresh ASan stacks), so a
 * schedule is replayed exactly: the only nondeterminism is the explorer's
 * choices, read from a prefix and then defaulted to "the same thread goes
 * on" (or the first option of a choice). After each schedule the deepest
 * choice with an untried option within the bound is advanced.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/coro.h"

#include "interleave.h"

#define MAX_THREADS 4
#define MAX_STEPS 1500
#define MAX_DECISIONS 1500
#define MAX_LOCKS 8
#define MAX_NAMES 8
#define STACK_SIZE (256u * 1024u)
#define TEXT 96

enum tstate { T_READY, T_LOCK, T_YIELD, T_COND, T_DONE };

struct pend {
	enum ilv_op op;
	const char *name;
	const volatile void *addr;
	const char *what;
	const char *func;
};

struct thread {
	const char *name;
	void (*fn)(void *);
	void *arg;
	struct coro ctx;
	unsigned char *stack;
	enum tstate state;
	struct pend pend;
	char text[TEXT]; /* ILV_STEP's */
	pthread_mutex_t *lock;
	/* X.writes when it last went on from a yield (0: never). A wait
	 * loop's loads all came after that: when nobody wrote since, the
	 * loop would read the same values and yield again, so the thread is
	 * not runnable. */
	uint64_t yield_writes;
	bool (*cond)(void *);
	void *cond_arg;
};

struct step {
	unsigned char thread;
	bool note; /* ilv_note, ilv_choose, ilv_fail: not scheduled */
	bool has_val;
	struct pend pend;
	const char *obj; /* the name of the object at pend.addr */
	uint64_t val;
	char text[TEXT]; /* steps of the test, notes, choices */
};

struct decision {
	unsigned n, chosen;
	bool costly; /* options after the first are preemptions */
	unsigned preempt_before;
};

static struct {
	struct coro sched;
	struct thread th[MAX_THREADS];
	unsigned nthreads;
	int cur;
	bool in_thread;
	uint64_t writes;
	unsigned preempt;
	struct {
		pthread_mutex_t *m;
		int owner;
	} locks[MAX_LOCKS];
	unsigned nlocks;
	struct {
		const void *base;
		const char *name;
	} names[MAX_NAMES];
	unsigned nnames;
	struct step trace[MAX_STEPS];
	unsigned nsteps; /* lines of the schedule, notes included */
	unsigned nsched; /* operations and steps scheduled */
	bool pruned;	 /* an option was left out for the bound */
	int val_step;	 /* the step whose value ILV_VAL records, or -1 */
	struct decision dec[MAX_DECISIONS];
	unsigned ndec;
	unsigned prefix[MAX_DECISIONS];
	unsigned prefix_n[MAX_DECISIONS];
	unsigned nprefix;
	bool violation;
	char msg[256];
	/* the shortest violation */
	struct step best[MAX_STEPS];
	unsigned nbest;
	char best_names[MAX_THREADS][32];
} X;

static struct thread *cur_thread(void)
{
	return &X.th[X.cur];
}

static void to_scheduler(void)
{
	sim_coro_switch(&cur_thread()->ctx, &X.sched);
}

static struct step *new_step(void)
{
	struct step *s;

	if (X.nsteps >= MAX_STEPS) {
		fprintf(stderr, "interleave: schedule longer than %u steps\n",
			MAX_STEPS);
		abort();
	}
	s = &X.trace[X.nsteps++];
	memset(s, 0, sizeof(*s));
	return s;
}

void ilv_point(enum ilv_op op, const char *name, const volatile void *addr,
	       const char *what, const char *func)
{
	struct thread *t;

	if (!X.in_thread)
		return;
	t = cur_thread();
	t->pend = (struct pend){ op, name, addr, what, func };
	t->state = T_READY;
	to_scheduler();
}

int ilv_lock(pthread_mutex_t *m, const char *what, const char *func)
{
	struct thread *t;

	if (!X.in_thread)
		return 0;
	t = cur_thread();
	t->pend = (struct pend){ ILV_LOCK, "lock", m, what, func };
	t->state = T_LOCK;
	t->lock = m;
	to_scheduler();
	return 0;
}

int ilv_unlock(pthread_mutex_t *m, const char *what, const char *func)
{
	struct thread *t;

	if (!X.in_thread)
		return 0;
	t = cur_thread();
	t->pend = (struct pend){ ILV_UNLOCK, "unlock", m, what, func };
	t->state = T_READY;
	t->lock = m;
	to_scheduler();
	return 0;
}

int ilv_yield(const char *func)
{
	struct thread *t;

	if (!X.in_thread)
		return 0;
	t = cur_thread();
	t->pend = (struct pend){ ILV_YIELD, "sched_yield", NULL,
				 "until another thread writes", func };
	t->state = T_YIELD;
	to_scheduler();
	return 0;
}

void ilv_step(const char *fmt, ...)
{
	struct thread *t;
	va_list ap;

	if (!X.in_thread)
		return;
	t = cur_thread();
	va_start(ap, fmt);
	vsnprintf(t->text, sizeof(t->text), fmt, ap);
	va_end(ap);
	t->pend = (struct pend){ ILV_STEP, NULL, NULL, NULL, NULL };
	t->state = T_READY;
	to_scheduler();
}

void ilv_note(const char *fmt, ...)
{
	struct step *s;
	va_list ap;

	if (!X.in_thread)
		return;
	s = new_step();
	s->thread = (unsigned char)X.cur;
	s->note = true;
	s->pend.op = ILV_STEP;
	va_start(ap, fmt);
	vsnprintf(s->text, sizeof(s->text), fmt, ap);
	va_end(ap);
}

void ilv_wait_until(bool (*cond)(void *), void *arg, const char *what)
{
	struct thread *t;

	if (!X.in_thread)
		return;
	t = cur_thread();
	snprintf(t->text, sizeof(t->text), "%s", what);
	t->pend = (struct pend){ ILV_STEP, NULL, NULL, NULL, NULL };
	t->state = T_COND;
	t->cond = cond;
	t->cond_arg = arg;
	to_scheduler();
}

static unsigned decide(unsigned n, bool costly)
{
	unsigned d = X.ndec++;
	unsigned c = 0;

	if (d >= MAX_DECISIONS) {
		fprintf(stderr, "interleave: more than %u choices\n",
			MAX_DECISIONS);
		abort();
	}
	if (d < X.nprefix) {
		if (X.prefix_n[d] != n) {
			fprintf(stderr,
				"interleave: replay diverged at "
				"choice %u\n",
				d);
			abort();
		}
		c = X.prefix[d];
	}
	X.dec[d] = (struct decision){ n, c, costly, X.preempt };
	return c;
}

unsigned ilv_choose(unsigned n, const char *what)
{
	unsigned c;

	if (!X.in_thread || n < 2)
		return 0;
	c = decide(n, false);
	ilv_note("chooses %u of %s", c, what);
	return c;
}

void ilv_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(X.msg, sizeof(X.msg), fmt, ap);
	va_end(ap);
	X.violation = true;
	if (X.in_thread) {
		ilv_note("VIOLATION: %s", X.msg);
		to_scheduler();
		abort(); /* never resumed */
	}
}

#define VAL(T, f)                                                              \
	T f(T v)                                                               \
	{                                                                      \
		if (X.in_thread && X.val_step >= 0) {                          \
			X.trace[X.val_step].has_val = true;                    \
			X.trace[X.val_step].val = (uint64_t)v;                 \
		}                                                              \
		return v;                                                      \
	}
VAL(bool, ilv_val_b)
VAL(unsigned char, ilv_val_uc)
VAL(int, ilv_val_i)
VAL(unsigned, ilv_val_u)
VAL(unsigned long, ilv_val_ul)
VAL(unsigned long long, ilv_val_ull)
#undef VAL

void ilv_name(const void *base, const char *name)
{
	if (X.nnames >= MAX_NAMES)
		abort();
	X.names[X.nnames].base = base;
	X.names[X.nnames].name = name;
	X.nnames++;
}

static void thread_main(void *arg)
{
	struct thread *t = arg;

	t->fn(t->arg);
	t->state = T_DONE;
	to_scheduler();
	abort();
}

void ilv_spawn(const char *name, void (*fn)(void *), void *arg)
{
	struct thread *t;

	if (X.nthreads >= MAX_THREADS)
		abort();
	t = &X.th[X.nthreads++];
	t->name = name;
	t->fn = fn;
	t->arg = arg;
	if (!t->stack)
		t->stack = malloc(STACK_SIZE);
	if (!t->stack)
		abort();
	sim_coro_make(&t->ctx, t->stack, STACK_SIZE, thread_main, t);
	t->state = T_READY;
	t->yield_writes = 0;
	snprintf(t->text, sizeof(t->text), "starts");
	t->pend = (struct pend){ ILV_STEP, NULL, NULL, NULL, NULL };
}

static int *lock_owner(pthread_mutex_t *m)
{
	unsigned i;

	for (i = 0; i < X.nlocks; i++) {
		if (X.locks[i].m == m)
			return &X.locks[i].owner;
	}
	if (X.nlocks >= MAX_LOCKS)
		abort();
	X.locks[X.nlocks].m = m;
	X.locks[X.nlocks].owner = -1;
	return &X.locks[X.nlocks++].owner;
}

static bool runnable(int i)
{
	struct thread *t = &X.th[i];

	switch (t->state) {
	case T_READY:
		return true;
	case T_LOCK:
		return *lock_owner(t->lock) < 0;
	case T_YIELD:
		return X.writes > t->yield_writes;
	case T_COND:
		return t->cond(t->cond_arg);
	case T_DONE:
		break;
	}
	return false;
}

static void deadlock(void)
{
	char *p = X.msg;
	size_t left = sizeof(X.msg);
	unsigned i;
	int w;

	w = snprintf(p, left, "deadlock: nobody can run:");
	for (i = 0; i < X.nthreads && w > 0 && (size_t)w < left; i++) {
		struct thread *t = &X.th[i];
		const char *why = t->state == T_LOCK	? "waits for a lock"
				  : t->state == T_YIELD ? "spins in a wait"
				  : t->state == T_COND	? t->text
							: "finished";
		p += w;
		left -= (size_t)w;
		w = snprintf(p, left, " %s %s;", t->name, why);
	}
	X.violation = true;
}

static const char *object_of(const volatile void *addr)
{
	const char *best = NULL;
	uintptr_t a = (uintptr_t)addr, bb = 0;
	unsigned i;

	for (i = 0; i < X.nnames; i++) {
		uintptr_t b = (uintptr_t)X.names[i].base;

		if (b <= a && a - b < 1024 && (!best || b > bb)) {
			best = X.names[i].name;
			bb = b;
		}
	}
	return best;
}

static void run_once(const struct ilv_scenario *sc)
{
	unsigned i;

	X.nthreads = 0;
	X.cur = -1;
	X.writes = 0;
	X.preempt = 0;
	X.nlocks = 0;
	X.nnames = 0;
	X.nsteps = 0;
	X.nsched = 0;
	X.ndec = 0;
	X.val_step = -1;
	X.violation = false;
	X.msg[0] = '\0';
	sc->setup();

	while (!X.violation) {
		int opts[MAX_THREADS];
		unsigned n = 0, pick = 0;
		bool cur_on = X.cur >= 0 && runnable(X.cur);
		struct thread *t;
		struct step *s;

		if (cur_on)
			opts[n++] = X.cur;
		for (i = 0; i < X.nthreads; i++) {
			if ((int)i != X.cur && runnable((int)i))
				opts[n++] = (int)i;
		}
		if (n == 0) {
			for (i = 0; i < X.nthreads; i++) {
				if (X.th[i].state != T_DONE)
					break;
			}
			if (i < X.nthreads)
				deadlock();
			break;
		}
		if (n > 1)
			pick = decide(n, cur_on);
		if (cur_on && opts[pick] != X.cur)
			X.preempt++;
		t = &X.th[opts[pick]];
		s = new_step();
		X.nsched++;
		s->thread = (unsigned char)opts[pick];
		s->pend = t->pend;
		s->obj = t->pend.addr ? object_of(t->pend.addr) : NULL;
		if (t->pend.op == ILV_STEP)
			memcpy(s->text, t->text, sizeof(s->text));
		X.val_step = (int)(s - X.trace);
		switch (t->pend.op) {
		case ILV_LOCK:
			*lock_owner(t->lock) = opts[pick];
			break;
		case ILV_UNLOCK:
			*lock_owner(t->lock) = -1;
			X.writes++;
			break;
		case ILV_STORE:
		case ILV_RMW:
		case ILV_STEP: /* the test's own state may change */
			X.writes++;
			break;
		default:
			break;
		}
		if (t->state == T_YIELD)
			t->yield_writes = X.writes;
		t->state = T_READY;
		X.cur = opts[pick];
		X.in_thread = true;
		sim_coro_switch(&X.sched, &t->ctx);
		X.in_thread = false;
		X.val_step = -1;
	}
	if (!X.violation)
		sc->check_end();
	sc->teardown();
	for (i = 0; i < X.nthreads; i++)
		sim_coro_finish(&X.th[i].ctx);
}

/* Advances the prefix to the next schedule within @p bound. */
static bool next_prefix(unsigned bound)
{
	unsigned i = X.ndec;

	while (i-- > 0) {
		struct decision *d = &X.dec[i];
		unsigned k;

		if (d->chosen + 1 >= d->n)
			continue;
		if (d->costly && d->preempt_before + 1 > bound) {
			X.pruned = true;
			continue;
		}
		for (k = 0; k < i; k++) {
			X.prefix[k] = X.dec[k].chosen;
			X.prefix_n[k] = X.dec[k].n;
		}
		X.prefix[i] = d->chosen + 1;
		X.prefix_n[i] = d->n;
		X.nprefix = i + 1;
		return true;
	}
	return false;
}

/* The member an operation's C text names ("&vs->mode": "mode"), or NULL
 * ("steal_atomic(s)"). */
static const char *field_of(const char *what)
{
	const char *p = strrchr(what, '>');

	if (p && p > what && p[-1] == '-')
		return p + 1;
	p = strrchr(what, '.');
	return p ? p + 1 : NULL;
}

static void print_step(unsigned k, const struct step *s)
{
	const struct pend *p = &s->pend;
	const char *who = X.best_names[s->thread];
	static const char *const modes[] = { "OUTSIDE_GUEST", "IN_GUEST",
					     "EXITING" };

	if (s->note) {
		printf("       %-9s   %s\n", who, s->text);
		return;
	}
	printf("  %3u. %-9s ", k, who);
	if (p->op == ILV_STEP) {
		printf("%s\n", s->text);
		return;
	}
	printf("%s: %s", p->func, p->name);
	if (p->op == ILV_YIELD) {
		printf(" (%s)\n", p->what);
		return;
	}
	{
		const char *obj = s->obj;
		const char *field = field_of(p->what);

		if (obj && field)
			printf(" %s.%s", obj, field);
		else
			printf(" %s", obj ? obj : p->what);
		if (s->has_val) {
			bool is_mode =
				field && !strcmp(field, "mode") && s->val < 3;

			if (p->op == ILV_LOAD)
				printf(" -> ");
			else if (p->op == ILV_STORE)
				printf(" = ");
			else if (!strncmp(p->name, "cas", 3))
				printf(" -> %s", s->val ? "succeeds" : "fails");
			else
				printf(" -> old ");
			if (strncmp(p->name, "cas", 3)) {
				if (is_mode)
					printf("%s", modes[s->val]);
				else
					printf("%llu",
					       (unsigned long long)s->val);
			}
		}
		printf("\n");
	}
}

void ilv_explore(const struct ilv_scenario *sc, unsigned bound,
		 struct ilv_result *res, bool print)
{
	unsigned i, k;

	memset(res, 0, sizeof(*res));
	X.nprefix = 0;
	X.nbest = 0;
	X.pruned = false;
	do {
		run_once(sc);
		res->schedules++;
		if (X.nsched > res->max_steps)
			res->max_steps = X.nsched;
		if (!X.violation)
			continue;
		if (!res->violations || X.preempt < res->min_preempt)
			res->min_preempt = X.preempt;
		res->violations++;
		if (X.nbest == 0 || X.nsched < res->shortest ||
		    (X.nsched == res->shortest &&
		     X.preempt < res->shortest_preempt)) {
			X.nbest = X.nsteps;
			memcpy(X.best, X.trace, X.nsteps * sizeof(X.trace[0]));
			res->shortest = X.nsched;
			res->shortest_preempt = X.preempt;
			snprintf(res->message, sizeof(res->message), "%s",
				 X.msg);
			for (i = 0; i < X.nthreads; i++)
				snprintf(X.best_names[i],
					 sizeof(X.best_names[i]), "%s",
					 X.th[i].name);
		}
	} while (next_prefix(bound));
	res->complete = !X.pruned;
	if (print && X.nbest) {
		printf("shortest violation: %u steps, preemptions: %u: %s\n",
		       res->shortest, res->shortest_preempt, res->message);
		for (i = 0, k = 0; i < X.nbest; i++)
			print_step(X.best[i].note ? k : ++k, &X.best[i]);
	}
}
