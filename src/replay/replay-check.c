// SPDX-License-Identifier: MIT
/* The recorded side of `hvtlb replay --check` (replay-check.h says how
 * shootdowns are paired). Two passes over the text: the first finds which
 * events the trace has, which decides how the second pairs them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay-check.h"

struct sd_open {
	uint64_t seq, start;
	uint64_t pending[TRACE_MASK_WORDS];
	bool live;
};

/* Pairing state: a ring of open shootdowns in start order. */
struct pairing {
	struct sd_open ring[REPLAY_MAX_OPEN];
	uint64_t head, tail; /* sequence numbers: [head, tail) in the ring */
	uint64_t run_of[TRACE_MAX_CPUS]; /* csd runs: seq + 1, 0 none */
	bool exit_is_csd;		 /* targets end at csd_function_exit */
	uint32_t *pids; /* open-addressing set of pids, 0 empty */
	size_t pids_cap;
};

static bool mask_empty(const uint64_t *m)
{
	for (size_t i = 0; i < TRACE_MASK_WORDS; i++)
		if (m[i])
			return false;
	return true;
}

/* Appends @p lat to the array *@p v of *@p n, room for *@p cap. */
static int add_latency(uint64_t **v, size_t *n, size_t *cap, uint64_t lat)
{
	uint64_t *nl;
	size_t nc;

	if (*n == *cap) {
		nc = *cap ? 2 * *cap : 64;
		nl = realloc(*v, nc * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		*v = nl;
		*cap = nc;
	}
	(*v)[(*n)++] = lat;
	return 0;
}

static void pop_dead(struct pairing *p)
{
	while (p->head < p->tail && !p->ring[p->head % REPLAY_MAX_OPEN].live)
		p->head++;
}

/* Opens a shootdown at @p ts for @p mask; returns its seq. */
static uint64_t sd_open(struct replay_check *c, struct pairing *p, uint64_t ts,
			const uint64_t *mask)
{
	struct sd_open *o;

	if (p->tail - p->head == REPLAY_MAX_OPEN) {
		o = &p->ring[p->head % REPLAY_MAX_OPEN];
		if (o->live)
			c->unpaired++;
		o->live = false;
		p->head++;
	}
	o = &p->ring[p->tail % REPLAY_MAX_OPEN];
	o->seq = p->tail;
	o->start = ts;
	memcpy(o->pending, mask, sizeof(o->pending));
	o->live = true;
	c->shootdowns++;
	return p->tail++;
}

/* CPU @p cpu finished the function at @p ts. */
static int sd_target_done(struct replay_check *c, struct pairing *p,
			  uint32_t cpu, uint64_t ts)
{
	for (uint64_t s = p->head; s < p->tail; s++) {
		struct sd_open *o = &p->ring[s % REPLAY_MAX_OPEN];

		if (!o->live || o->start > ts ||
		    !trace_mask_test(o->pending, cpu))
			continue;
		o->pending[cpu / 64] &= ~(1ull << (cpu % 64));
		if (add_latency(&c->tlatency, &c->ntlatency, &c->tlatency_cap,
				ts - o->start))
			return -ENOMEM;
		if (!mask_empty(o->pending))
			return 0;
		o->live = false;
		c->paired++;
		pop_dead(p);
		return add_latency(&c->latency, &c->nlatency, &c->latency_cap,
				   ts - o->start);
	}
	c->stray_exits++;
	return 0;
}

/* Everything still open has lost its ends (LOST line, end of trace). */
static void sd_drop_all(struct replay_check *c, struct pairing *p)
{
	for (uint64_t s = p->head; s < p->tail; s++)
		if (p->ring[s % REPLAY_MAX_OPEN].live)
			c->unpaired++;
	p->head = p->tail;
	memset(p->run_of, 0, sizeof(p->run_of));
}

/* Adds @p pid to the set of threads seen; -ENOMEM. */
static int pid_add(struct replay_check *c, struct pairing *p, uint32_t pid)
{
	size_t i, mask;

	if (!pid)
		return 0; /* the idle task of every CPU */
	if (2 * (c->threads + 1) > p->pids_cap) {
		size_t cap = p->pids_cap ? 2 * p->pids_cap : 256;
		uint32_t *old = p->pids, *np = calloc(cap, sizeof(*np));
		size_t oldcap = p->pids_cap;

		if (!np)
			return -ENOMEM;
		p->pids = np;
		p->pids_cap = cap;
		c->threads = 0;
		for (i = 0; i < oldcap; i++)
			if (old[i] && pid_add(c, p, old[i]))
				return -ENOMEM;
		free(old);
	}
	mask = p->pids_cap - 1;
	for (i = (pid * 2654435761u) & mask; p->pids[i]; i = (i + 1) & mask)
		if (p->pids[i] == pid)
			return 0;
	p->pids[i] = pid;
	c->threads++;
	return 0;
}

static void count_flush(struct replay_check *c, const struct trace_record *r)
{
	struct replay_reason *rr = NULL;

	for (size_t i = 0; i < c->nreasons; i++)
		if (c->reasons[i].reason == r->u.tlb.reason)
			rr = &c->reasons[i];
	if (!rr && c->nreasons == REPLAY_MAX_REASONS) {
		c->other_reasons++;
		return;
	}
	if (!rr) {
		rr = &c->reasons[c->nreasons++];
		rr->reason = r->u.tlb.reason;
	}
	rr->flushes++;
	if (r->u.tlb.pages < 0)
		rr->full++;
	else if (rr->pages > UINT64_MAX - (uint64_t)r->u.tlb.pages)
		rr->pages = UINT64_MAX; /* saturates */
	else
		rr->pages += (uint64_t)r->u.tlb.pages;
}

/* Pass 1: which events say where shootdowns start and end. */
static int survey(struct replay_check *c, struct pairing *p, const char *buf,
		  size_t len)
{
	struct trace_reader rd;
	struct trace_record rec;
	bool csd_queue = false;
	int rc;

	trace_reader_init(&rd, buf, len);
	while ((rc = trace_reader_next(&rd, &rec)) > 0) {
		if (rec.kind != TRACE_LINE_EVENT)
			continue;
		switch (rec.event) {
		case TRACE_EV_IPI_SEND_CPUMASK:
		case TRACE_EV_IPI_SEND_CPU:
			if (trace_is_flush_func(rec.u.ipi.callback))
				c->source = REPLAY_SRC_IPI;
			break;
		case TRACE_EV_CSD_QUEUE_CPU:
			csd_queue |= trace_is_flush_func(rec.u.csd.func);
			break;
		case TRACE_EV_CSD_FUNCTION_EXIT:
			p->exit_is_csd |= trace_is_flush_func(rec.u.csd.func);
			break;
		default:
			break;
		}
	}
	if (rc < 0) {
		memcpy(c->err, rd.err, sizeof(c->err));
		return rc;
	}
	if (c->source == REPLAY_SRC_NONE && csd_queue)
		c->source = REPLAY_SRC_CSD;
	return 0;
}

/* csd_queue_cpu of flush_tlb_func: opens a shootdown or, right after
 * another on the same CPU, adds its target to it. */
static void csd_queued(struct replay_check *c, struct pairing *p,
		       const struct trace_record *r)
{
	uint64_t mask[TRACE_MASK_WORDS] = { 0 };
	uint64_t run = p->run_of[r->cpu];
	struct sd_open *o = run ? &p->ring[(run - 1) % REPLAY_MAX_OPEN] : NULL;

	if (o && o->seq == run - 1 && o->live && run - 1 >= p->head) {
		o->pending[r->u.csd.cpu / 64] |= 1ull << (r->u.csd.cpu % 64);
		return;
	}
	mask[r->u.csd.cpu / 64] |= 1ull << (r->u.csd.cpu % 64);
	p->run_of[r->cpu] = sd_open(c, p, r->ts, mask) + 1;
}

/* The shootdown side of one record. */
static int pair(struct replay_check *c, struct pairing *p,
		const struct trace_record *r)
{
	bool csd_run = false;
	int rc = 0;

	switch (r->event) {
	case TRACE_EV_IPI_SEND_CPUMASK:
	case TRACE_EV_IPI_SEND_CPU:
		if (c->source == REPLAY_SRC_IPI &&
		    trace_is_flush_func(r->u.ipi.callback)) {
			/* an empty mask never pairs: unpaired at the end */
			sd_open(c, p, r->ts, r->u.ipi.mask);
		}
		break;
	case TRACE_EV_CSD_QUEUE_CPU:
		if (c->source == REPLAY_SRC_CSD &&
		    trace_is_flush_func(r->u.csd.func)) {
			csd_queued(c, p, r);
			csd_run = true;
		}
		break;
	case TRACE_EV_CSD_FUNCTION_EXIT:
		if (p->exit_is_csd && r->u.csd.csd &&
		    trace_is_flush_func(r->u.csd.func))
			rc = sd_target_done(c, p, r->cpu, r->ts);
		break;
	case TRACE_EV_CALL_FUNCTION_EXIT:
	case TRACE_EV_CALL_FUNCTION_SINGLE_EXIT:
		if (!p->exit_is_csd)
			rc = sd_target_done(c, p, r->cpu, r->ts);
		break;
	default:
		break;
	}
	if (!csd_run)
		p->run_of[r->cpu] = 0;
	return rc;
}

static void count_event(struct replay_check *c, const struct trace_record *r)
{
	if (!c->events || r->ts < c->first_ts)
		c->first_ts = r->ts;
	if (r->ts > c->last_ts)
		c->last_ts = r->ts;
	c->events++;
	c->ts_raw = r->ts_raw;
	switch (r->event) {
	case TRACE_EV_TLB_FLUSH:
		count_flush(c, r);
		break;
	case TRACE_EV_SYS_ENTER:
		c->syscalls++;
		break;
	case TRACE_EV_MMAP_LOCK_START_LOCKING:
	case TRACE_EV_MMAP_LOCK_ACQUIRE_RETURNED:
	case TRACE_EV_MMAP_LOCK_RELEASED:
		c->mmap_lock_events++;
		break;
	case TRACE_EV_SCHED_SWITCH:
		c->sched_switches++;
		break;
	default:
		break;
	}
}

/* Pass 2: counts and pairing. */
static int tally(struct replay_check *c, struct pairing *p, const char *buf,
		 size_t len)
{
	struct trace_reader rd;
	struct trace_record rec;
	int rc;

	trace_reader_init(&rd, buf, len);
	while ((rc = trace_reader_next(&rd, &rec)) > 0) {
		if (rec.kind == TRACE_LINE_LOST) {
			c->lost_lines++;
			c->lost_events += rec.lost;
			sd_drop_all(c, p);
			continue;
		}
		count_event(c, &rec);
		if (pid_add(c, p, (uint32_t)rec.pid) || pair(c, p, &rec))
			return -ENOMEM;
	}
	if (rc < 0) {
		memcpy(c->err, rd.err, sizeof(c->err));
		return rc;
	}
	sd_drop_all(c, p);
	c->lines = rd.line;
	c->unknown = rd.unknown;
	c->clock_khz = rd.clock_khz;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int replay_check_run(struct replay_check *c, const char *buf, size_t len)
{
	struct pairing *p = calloc(1, sizeof(*p));
	int rc;

	memset(c, 0, sizeof(*c));
	if (!p)
		return -ENOMEM;
	rc = survey(c, p, buf, len);
	if (!rc)
		rc = tally(c, p, buf, len);
	if (!rc && c->nlatency)
		qsort(c->latency, c->nlatency, sizeof(*c->latency), cmp_u64);
	if (!rc && c->ntlatency)
		qsort(c->tlatency, c->ntlatency, sizeof(*c->tlatency), cmp_u64);
	free(p->pids);
	free(p);
	return rc;
}

void replay_check_finish(struct replay_check *c)
{
	free(c->latency);
	c->latency = NULL;
	c->nlatency = c->latency_cap = 0;
	free(c->tlatency);
	c->tlatency = NULL;
	c->ntlatency = c->tlatency_cap = 0;
}

/* Nearest rank: the smallest of the @p n sorted values with at least
 * @p q of them <= it. */
static uint64_t quantile(const uint64_t *v, size_t n, double q)
{
	size_t rank;

	if (!n)
		return 0;
	if (q <= 0)
		return v[0];
	rank = (size_t)(q * (double)n + 0.999999999);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

uint64_t replay_check_quantile(const struct replay_check *c, double q)
{
	return quantile(c->latency, c->nlatency, q);
}

uint64_t replay_check_target_quantile(const struct replay_check *c, double q)
{
	return quantile(c->tlatency, c->ntlatency, q);
}
