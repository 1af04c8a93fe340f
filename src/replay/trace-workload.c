// SPDX-License-Identifier: MIT
/* A recorded trace as the simulator's step lists (trace-workload.h says
 * what is mapped to what). Two passes over the text: the first picks the
 * threads, the second writes their steps. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace-private.h"
#include "trace-workload.h"

#define PAGE_SHIFT 12 /* x86-64's base page: the traces' only page size */

/* What one thread is doing, between its events. */
struct tstate {
	struct hvtlb_sim_step *steps;
	uint64_t cap;
	uint64_t last;	   /* compute counted up to here */
	uint64_t sleep_at; /* asleep since */
	uint64_t compute;  /* ns not written as a step yet */
	bool started, running, asleep, self_flush;
	enum hvtlb_sim_step_kind sys; /* an open call: its step; COUNT none */
	uint32_t sys_pages;
	bool sys_flushed;
	int remote; /* the open call's remote flush: 0 none, 1, 2 elsewhere */
};

struct builder {
	struct trace_workload *w;
	struct tstate *ts;
	uint64_t t0; /* the first event of a replayed thread */
	bool have_t0;
	int32_t cur[TRACE_MAX_CPUS]; /* the task each CPU last ran, -1 none */
};

/* A chosen thread in pass 1: its pid and its address space, the mm of
 * the mmap_lock events inside its last flushing call (munmap, madvise,
 * mprotect: they lock the caller's own mm), else of its last mmap_lock
 * event (fork locks the child's mm too, exec a new one: neither is inside
 * those calls); 0: none seen. */
struct chosen {
	int32_t pid;
	bool in_call;
	uint64_t mm, call_mm;
};

static enum hvtlb_sim_step_kind call_kind(struct trace_span name);

static uint64_t mm_of(const struct chosen *c)
{
	return c->call_mm ? c->call_mm : c->mm;
}

static int cmp_pid(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_chosen(const void *a, const void *b)
{
	return cmp_pid(&((const struct chosen *)a)->pid,
		       &((const struct chosen *)b)->pid);
}

/* The index of @p pid among the chosen threads, or -1. */
static long thread_of(const struct trace_workload *w, int32_t pid)
{
	const int32_t *p;

	if (pid <= 0 || !w->script.nthreads)
		return -1;
	p = bsearch(&pid, w->pids, w->script.nthreads, sizeof(*p), cmp_pid);
	return p ? (long)(p - w->pids) : -1;
}

/* An event that only the command's own threads raise. */
static bool own_event(const struct trace_record *r)
{
	return r->event == TRACE_EV_SYS_ENTER ||
	       r->event == TRACE_EV_SYS_EXIT ||
	       r->event == TRACE_EV_MMAP_LOCK_START_LOCKING ||
	       r->event == TRACE_EV_MMAP_LOCK_ACQUIRE_RETURNED ||
	       r->event == TRACE_EV_MMAP_LOCK_RELEASED;
}

static int fail(struct trace_workload *w, const char *fmt, const char *a)
{
	snprintf(w->err, sizeof(w->err), fmt, a);
	return -EINVAL;
}

/* Adds the thread of record @p r to the chosen ones @p ch (*@p n of
 * them), once, and notes its address space from its first mmap_lock
 * event. */
static int choose(struct trace_workload *w, struct chosen **ch, uint32_t *n,
		  uint32_t *cap, const struct trace_record *r)
{
	bool lock =
		r->event != TRACE_EV_SYS_ENTER && r->event != TRACE_EV_SYS_EXIT;
	struct chosen *nc, *c;
	uint32_t i;

	for (i = 0; i < *n && (*ch)[i].pid != r->pid; i++)
		;
	if (i == *n) {
		if (*n == TRACE_WL_MAX_THREADS)
			return fail(w, "more than %s threads to replay",
				    "4096");
		if (*n == *cap) {
			*cap = *cap ? 2 * *cap : 16;
			nc = realloc(*ch, *cap * sizeof(*nc));
			if (!nc)
				return -ENOMEM;
			*ch = nc;
		}
		(*ch)[(*n)++] = (struct chosen){ .pid = r->pid };
	}
	c = &(*ch)[i];
	if (!lock) {
		if (call_kind(r->u.sys.name) != HVTLB_SIM_STEP_KIND_COUNT_)
			c->in_call = r->event == TRACE_EV_SYS_ENTER;
	} else if (r->u.lock.mm && r->u.lock.mm != TRACE_PTR_HIDDEN) {
		/* a withheld mm says nothing of which process it is */
		c->mm = r->u.lock.mm;
		if (c->in_call)
			c->call_mm = r->u.lock.mm;
	}
	return 0;
}

/* The process of each chosen thread (sorted by pid): threads with the
 * same mm share one, numbered in pid order; a thread with no mmap_lock
 * event of its own joins process 0. */
static int number_processes(struct trace_workload *w, const struct chosen *ch,
			    uint32_t n)
{
	w->pids = malloc(n * sizeof(*w->pids));
	w->procs = malloc(n * sizeof(*w->procs));
	if (!w->pids || !w->procs)
		return -ENOMEM;
	w->processes = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t mm = mm_of(&ch[i]);
		uint32_t j;

		w->pids[i] = ch[i].pid;
		for (j = 0; j < i && (!mm || mm_of(&ch[j]) != mm); j++)
			;
		if (!mm) {
			w->procs[i] = 0;
			w->no_mm++;
		} else {
			w->procs[i] = j < i ? w->procs[j] : w->processes;
		}
		if (w->procs[i] == w->processes)
			w->processes++;
	}
	return 0;
}

/* Pass 1, reading: the chosen threads into @p ch (*@p n), the CPUs, and
 * the clock is one in seconds. */
static int read_threads(struct trace_workload *w, const char *buf, size_t len,
			struct chosen **ch, uint32_t *n)
{
	struct trace_reader rd;
	struct trace_record rec;
	uint32_t cap = 0;
	int rc;

	trace_reader_init(&rd, buf, len);
	while ((rc = trace_reader_next(&rd, &rec)) > 0) {
		if (rec.cpu + 1 > w->cpus)
			w->cpus = rec.cpu + 1;
		if (rec.kind != TRACE_LINE_EVENT)
			continue;
		if (rec.ts_raw) {
			snprintf(w->err, sizeof(w->err),
				 "line %llu: the trace's clock counts in an "
				 "unknown unit (x86-tsc, counter): a replay "
				 "needs a clock in seconds (record with the "
				 "default 'local' clock)",
				 (unsigned long long)rd.line);
			return -EINVAL;
		}
		if (own_event(&rec) && rec.pid > 0) {
			rc = choose(w, ch, n, &cap, &rec);
			if (rc)
				return rc;
		}
	}
	if (rc < 0)
		memcpy(w->err, rd.err, sizeof(w->err));
	return rc;
}

/* Pass 1: the threads, sorted by pid, and their processes. */
static int pick_threads(struct trace_workload *w, const char *buf, size_t len)
{
	struct chosen *ch = NULL;
	uint32_t n = 0;
	int rc = read_threads(w, buf, len, &ch, &n);

	if (!rc && !n)
		rc = fail(w,
			  "%sno thread to replay: no syscall or mmap_lock "
			  "event of a traced process",
			  "");
	if (!rc) {
		qsort(ch, n, sizeof(*ch), cmp_chosen);
		rc = number_processes(w, ch, n);
		w->script.nthreads = n;
	}
	free(ch);
	return rc;
}

/* Appends a step to thread @p i; a COMPUTE after a COMPUTE adds to it. */
static int push(struct builder *b, uint32_t i, enum hvtlb_sim_step_kind k,
		uint32_t pages, uint64_t ns)
{
	struct hvtlb_sim_script_thread *th = &b->w->threads[i];
	struct tstate *t = &b->ts[i];
	struct hvtlb_sim_step *ns_;

	if (k == HVTLB_SIM_STEP_COMPUTE && !ns)
		return 0;
	if (k == HVTLB_SIM_STEP_COMPUTE && th->nsteps &&
	    t->steps[th->nsteps - 1].kind == HVTLB_SIM_STEP_COMPUTE) {
		t->steps[th->nsteps - 1].ns += ns;
		return 0;
	}
	if (th->nsteps == t->cap) {
		uint64_t cap = t->cap ? 2 * t->cap : 64;

		ns_ = realloc(t->steps, cap * sizeof(*ns_));
		if (!ns_)
			return -ENOMEM;
		t->steps = ns_;
		t->cap = cap;
		th->steps = ns_;
	}
	t->steps[th->nsteps++] =
		(struct hvtlb_sim_step){ .kind = k, .pages = pages, .ns = ns };
	b->w->by_kind[k]++;
	if (k != HVTLB_SIM_STEP_COMPUTE && k != HVTLB_SIM_STEP_SLEEP) {
		b->w->flushes++;
		if (pages > b->w->pages)
			b->w->pages = pages;
	}
	return 0;
}

/* Writes the compute time not written yet. */
static int push_compute(struct builder *b, uint32_t i)
{
	uint64_t ns = b->ts[i].compute;

	b->ts[i].compute = 0;
	return push(b, i, HVTLB_SIM_STEP_COMPUTE, 0, ns);
}

/* Thread @p i runs at @p ts: the time since its last event was work. */
static void ran_until(struct tstate *t, uint64_t ts)
{
	if (t->running && ts > t->last)
		t->compute += ts - t->last;
	t->running = true;
	t->last = ts;
}

/* The first event of thread @p i, at @p ts: it did not exist before, so
 * it waits from the first replayed thread's start until then. */
static int start(struct builder *b, uint32_t i, uint64_t ts)
{
	struct tstate *t = &b->ts[i];

	if (t->started)
		return 0;
	t->started = true;
	t->last = ts;
	if (!b->have_t0) {
		b->have_t0 = true;
		b->t0 = ts;
	}
	return ts > b->t0 ? push(b, i, HVTLB_SIM_STEP_SLEEP, 0, ts - b->t0) : 0;
}

/* Thread @p i is on a CPU again, or woken: its sleep ends at @p ts. */
static int wake(struct builder *b, uint32_t i, uint64_t ts)
{
	struct tstate *t = &b->ts[i];

	if (!t->asleep)
		return 0;
	t->asleep = false;
	return push(b, i, HVTLB_SIM_STEP_SLEEP, 0,
		    ts > t->sleep_at ? ts - t->sleep_at : 0);
}

/* The bytes of a call's length argument, as pages (at least 1). */
static uint32_t len_pages(uint64_t len)
{
	uint64_t p = (len >> PAGE_SHIFT) + !!(len & ((1u << PAGE_SHIFT) - 1));

	if (!p)
		return 1;
	return p > TRACE_WL_MAX_PAGES ? TRACE_WL_MAX_PAGES : (uint32_t)p;
}

/* The step of a flushing call named @p name, or COUNT. */
static enum hvtlb_sim_step_kind call_kind(struct trace_span name)
{
	if (span_eq(name, "munmap"))
		return HVTLB_SIM_STEP_MUNMAP;
	if (span_eq(name, "madvise"))
		return HVTLB_SIM_STEP_MADVISE;
	if (span_eq(name, "mprotect"))
		return HVTLB_SIM_STEP_MPROTECT;
	return HVTLB_SIM_STEP_KIND_COUNT_;
}

static void not_a_step(struct trace_workload *w, int32_t reason)
{
	w->not_steps[reason >= 0 && reason < 6 ? reason : 6]++;
}

/* A remote flush of thread @p i from @p cpu: 2 when no other CPU runs a
 * replayed thread of its process, else 1. */
static int remote_kind(const struct builder *b, uint32_t i, uint32_t cpu)
{
	for (uint32_t c = 0; c < b->w->cpus && c < TRACE_MAX_CPUS; c++) {
		long j = c != cpu ? thread_of(b->w, b->cur[c]) : -1;

		if (j >= 0 && b->w->procs[j] == b->w->procs[i])
			return 1;
	}
	return 2;
}

/* Counts a flush step's remote request (@p kind from remote_kind()). */
static void count_remote(struct trace_workload *w, int kind)
{
	w->remote += kind > 0;
	w->remote_elsewhere += kind == 2;
}

/* A tlb_flush line of thread @p i. */
static int on_flush(struct builder *b, uint32_t i, const struct trace_record *r)
{
	struct tstate *t = &b->ts[i];
	int32_t reason = r->u.tlb.reason;
	int64_t pages = r->u.tlb.pages;
	uint32_t p;
	int rc;

	if (reason != 3 && reason != 4) {
		not_a_step(b->w, reason);
		return 0;
	}
	if ((reason == 3 && t->self_flush) ||
	    (t->sys != HVTLB_SIM_STEP_KIND_COUNT_ && t->sys_flushed)) {
		if (reason == 4 && !t->remote)
			t->remote = remote_kind(b, i, r->cpu);
		not_a_step(b->w, reason);
		return 0;
	}
	if (t->sys != HVTLB_SIM_STEP_KIND_COUNT_) {
		t->sys_flushed = true;
		if (reason == 4 && !t->remote)
			t->remote = remote_kind(b, i, r->cpu);
		return 0;
	}
	if (reason == 4)
		count_remote(b->w, remote_kind(b, i, r->cpu));
	if (pages < 0)
		p = 0; /* the whole address space */
	else if (pages > TRACE_WL_MAX_PAGES)
		p = TRACE_WL_MAX_PAGES;
	else
		p = pages ? (uint32_t)pages : 1;
	rc = push_compute(b, i);
	return rc ? rc : push(b, i, HVTLB_SIM_STEP_FLUSH, p, 0);
}

/* A syscall line of thread @p i: a flushing call opens or closes. */
static int on_syscall(struct builder *b, uint32_t i,
		      const struct trace_record *r)
{
	struct tstate *t = &b->ts[i];
	enum hvtlb_sim_step_kind k = call_kind(r->u.sys.name);
	int rc;

	if (k == HVTLB_SIM_STEP_KIND_COUNT_)
		return 0;
	if (r->event == TRACE_EV_SYS_ENTER) {
		rc = push_compute(b, i);
		t->sys = k;
		t->sys_pages =
			len_pages(r->u.sys.nargs > 1 ? r->u.sys.args[1] : 0);
		t->sys_flushed = false;
		t->remote = 0;
		return rc;
	}
	if (t->sys != k)
		return 0; /* its enter was before the trace began */
	t->sys = HVTLB_SIM_STEP_KIND_COUNT_;
	if (!t->sys_flushed)
		return 0; /* no flush: its time stays compute */
	t->compute = 0;	  /* the simulator charges the call itself */
	count_remote(b->w, t->remote);
	return push(b, i, k, t->sys_pages, 0);
}

/* A sched_switch: its prev stops (asleep unless runnable), its next
 * starts. */
static int on_switch(struct builder *b, const struct trace_record *r)
{
	long p = thread_of(b->w, r->u.sw.prev_pid);
	long n = thread_of(b->w, r->u.sw.next_pid);
	struct trace_span st = r->u.sw.prev_state;
	int rc = 0;

	if (p >= 0 && (rc = start(b, (uint32_t)p, r->ts)))
		return rc;
	if (n >= 0 && (rc = start(b, (uint32_t)n, r->ts)))
		return rc;
	if (p >= 0) {
		struct tstate *t = &b->ts[p];

		ran_until(t, r->ts);
		t->running = false;
		rc = push_compute(b, (uint32_t)p);
		if (!st.len || st.p[0] != 'R') {
			t->asleep = true;
			t->sleep_at = r->ts;
		}
	}
	if (!rc && n >= 0) {
		rc = wake(b, (uint32_t)n, r->ts);
		b->ts[n].running = true;
		b->ts[n].last = r->ts;
	}
	return rc;
}

/* One record of pass 2. */
static int step_record(struct builder *b, const struct trace_record *r)
{
	long i;
	int rc = 0;

	if (r->kind != TRACE_LINE_EVENT)
		return 0;
	/* The flush on task switch is raised inside the switch, after its
	 * sched_switch line, still in the name of the task switched out:
	 * neither time that task ran nor a sign of what the CPU runs. */
	if (r->event == TRACE_EV_TLB_FLUSH && r->u.tlb.reason == 0) {
		if (thread_of(b->w, r->pid) >= 0)
			not_a_step(b->w, 0);
		return 0;
	}
	b->cur[r->cpu] =
		r->event == TRACE_EV_SCHED_SWITCH ? r->u.sw.next_pid : r->pid;
	if (r->event == TRACE_EV_SCHED_SWITCH)
		return on_switch(b, r);
	if (r->event == TRACE_EV_SCHED_WAKEUP) {
		i = thread_of(b->w, r->u.wake.pid);
		if (i < 0 || (rc = start(b, (uint32_t)i, r->ts)))
			return rc;
		return wake(b, (uint32_t)i, r->ts);
	}
	i = thread_of(b->w, r->pid);
	if (i < 0 || (rc = start(b, (uint32_t)i, r->ts)))
		return rc;
	ran_until(&b->ts[i], r->ts);
	switch (r->event) {
	case TRACE_EV_TLB_FLUSH:
		return on_flush(b, (uint32_t)i, r);
	case TRACE_EV_SYS_ENTER:
	case TRACE_EV_SYS_EXIT:
		return on_syscall(b, (uint32_t)i, r);
	case TRACE_EV_CSD_FUNCTION_ENTRY:
	case TRACE_EV_CSD_FUNCTION_EXIT:
		if (!r->u.csd.csd && trace_is_flush_func(r->u.csd.func))
			b->ts[i].self_flush =
				r->event == TRACE_EV_CSD_FUNCTION_ENTRY;
		return 0;
	default:
		return 0;
	}
}

/* Pass 2: the steps. */
static int write_steps(struct builder *b, const char *buf, size_t len)
{
	struct trace_reader rd;
	struct trace_record rec;
	int rc;

	trace_reader_init(&rd, buf, len);
	while ((rc = trace_reader_next(&rd, &rec)) > 0) {
		rc = step_record(b, &rec);
		if (rc)
			return rc;
	}
	if (rc < 0) {
		memcpy(b->w->err, rd.err, sizeof(b->w->err));
		return rc;
	}
	for (uint32_t i = 0; i < b->w->script.nthreads; i++) {
		rc = push_compute(b, i);
		if (rc)
			return rc;
	}
	return 0;
}

int trace_workload_read(struct trace_workload *w, const char *buf, size_t len)
{
	static struct builder zero;
	struct builder b = zero;
	int rc;

	memset(w, 0, sizeof(*w));
	b.w = w;
	rc = pick_threads(w, buf, len);
	if (rc)
		return rc;
	w->threads = calloc(w->script.nthreads, sizeof(*w->threads));
	b.ts = calloc(w->script.nthreads, sizeof(*b.ts));
	for (size_t c = 0; c < TRACE_MAX_CPUS; c++)
		b.cur[c] = -1;
	if (!w->threads || !b.ts) {
		free(b.ts);
		return -ENOMEM;
	}
	w->script.threads = w->threads;
	for (uint32_t i = 0; i < w->script.nthreads; i++) {
		b.ts[i].sys = HVTLB_SIM_STEP_KIND_COUNT_;
		w->threads[i].process = w->procs[i];
	}
	rc = write_steps(&b, buf, len);
	/* the steps now belong to w->threads[] */
	free(b.ts);
	if (!w->pages)
		w->pages = 1;
	return rc;
}

void trace_workload_free(struct trace_workload *w)
{
	if (w->threads)
		for (uint32_t i = 0; i < w->script.nthreads; i++)
			free((void *)w->threads[i].steps);
	free(w->threads);
	free(w->pids);
	free(w->procs);
	memset(w, 0, sizeof(*w));
}
