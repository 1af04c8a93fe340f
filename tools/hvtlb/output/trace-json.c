// SPDX-License-Identifier: MIT
/* The Chrome trace event format writer of `hvtlb sim --trace` (see
 * trace-json.h for the layout of the file). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef HVTLB_HAVE_ZLIB
#include <zlib.h>
#endif

#include "trace-json.h"
#include "version.h"

#define PID_HOST 1u
#define PID_VM0 2u
/* tids inside a VM: vCPU i is 1 + i, guest thread j after every vCPU */
#define TID_THREAD0 (1u + HVTLB_SIM_MAX_VCPUS)

/* One recorded event (the library's, without vm and reserved). */
struct rec {
	uint64_t start, dur, arg0, arg1;
	uint32_t vcpu, pcpu, thread;
	uint32_t kind;
};

struct trace_vm {
	struct rec *r;
	size_t n, cap, share;
	uint64_t dropped;
};

static void on_event(void *data, const struct hvtlb_sim_trace_event *e)
{
	struct trace_json *t = data;
	struct trace_vm *v;

	if (e->vm >= t->vms)
		return;
	if (e->start >= t->win_end || e->start + e->dur < t->win_start)
		return;
	v = &t->vm[e->vm];
	if (v->n == v->share) {
		v->dropped++;
		return;
	}
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 4096;
		struct rec *p;

		if (cap > v->share)
			cap = v->share;
		p = realloc(v->r, cap * sizeof(*p));
		if (!p) {
			v->dropped++;
			return;
		}
		v->r = p;
		v->cap = cap;
	}
	v->r[v->n++] = (struct rec){
		.start = e->start,
		.dur = e->dur,
		.arg0 = e->arg0,
		.arg1 = e->arg1,
		.vcpu = e->vcpu,
		.pcpu = e->pcpu,
		.thread = e->thread,
		.kind = (uint32_t)e->kind,
	};
}

static uint64_t ms_to_cycles(double ms, double mhz)
{
	double c = ms * 1000.0 * mhz;

	if (c >= 18446744073709549568.0)
		return UINT64_MAX;
	return (uint64_t)c;
}

int trace_json_init(struct trace_json *t, const struct hvtlb_sim_config *c,
		    uint64_t limit, double win_start_ms, double win_end_ms)
{
	double mhz = 0;
	const char *name;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; (name = hvtlb_sim_cost_name(i)); i++)
		if (!strcmp(name, "cpu_mhz"))
			mhz = c->cost[i];
	if (!(mhz > 0) || !limit)
		return -EINVAL;
	t->vms = c->vms;
	t->vcpus = c->vcpus;
	t->threads = c->wl_threads;
	t->pcpus = c->pcpus;
	t->ns_per_cycle = 1000.0 / mhz;
	t->win_start = ms_to_cycles(win_start_ms, mhz);
	t->win_end =
		win_end_ms < 0 ? UINT64_MAX : ms_to_cycles(win_end_ms, mhz);
	t->vm = calloc(t->vms, sizeof(*t->vm));
	if (!t->vm)
		return -ENOMEM;
	for (uint32_t k = 0; k < t->vms; k++)
		t->vm[k].share =
			(size_t)(limit / t->vms + (k < limit % t->vms));
	return 0;
}

void trace_json_attach(struct trace_json *t, struct hvtlb_sim_config *c)
{
	c->trace_fn = on_event;
	c->trace_data = t;
}

uint64_t trace_json_events(const struct trace_json *t)
{
	uint64_t n = 0;

	for (uint32_t k = 0; k < t->vms; k++)
		n += t->vm[k].n;
	return n;
}

uint64_t trace_json_dropped(const struct trace_json *t)
{
	uint64_t n = 0;

	for (uint32_t k = 0; k < t->vms; k++)
		n += t->vm[k].dropped;
	return n;
}

void trace_json_finish(struct trace_json *t)
{
	if (t->vm)
		for (uint32_t k = 0; k < t->vms; k++)
			free(t->vm[k].r);
	free(t->vm);
	memset(t, 0, sizeof(*t));
}

/* ------------------------------------------------------------ writing */
/* Output goes through a buffer with its own number formatting: a trace
 * has millions of lines and printf dominated the writing time. */
struct writer {
	FILE *f;
#ifdef HVTLB_HAVE_ZLIB
	gzFile gz; /* NULL: plain */
#endif
	bool count_only; /* only count the bytes (the size estimate) */
	uint64_t bytes;	 /* written (or counted) so far */
	const struct trace_json *t;
	bool first;
	size_t n;
	/* flows of the VM being written: per record, its bind id (0: none),
	 * and whether it starts (shootdown) or ends (flush) the flow */
	const uint64_t *flow;
	const struct rec *vm_rec; /* the VM's records, flow[] indexes them */
	char buf[1u << 16];
};

/* flow[] bit: this record starts its flow (a shootdown). */
#define FLOW_OUT (1ULL << 63)

static void w_flush(struct writer *w)
{
	w->bytes += w->n;
	if (w->n && !w->count_only) {
#ifdef HVTLB_HAVE_ZLIB
		if (w->gz)
			gzwrite(w->gz, w->buf, (unsigned)w->n);
		else
#endif
			fwrite(w->buf, 1, w->n, w->f);
	}
	w->n = 0;
}

static void w_put(struct writer *w, const char *s, size_t len)
{
	while (w->n + len > sizeof(w->buf)) {
		size_t part = sizeof(w->buf) - w->n;

		memcpy(w->buf + w->n, s, part);
		w->n += part;
		w_flush(w);
		s += part;
		len -= part;
	}
	memcpy(w->buf + w->n, s, len);
	w->n += len;
}

/* A string literal. */
#define W_LIT(w, s) w_put((w), (s), sizeof(s) - 1)

/* Text known to need no JSON escaping (our own names). */
static void w_str(struct writer *w, const char *s)
{
	w_put(w, s, strlen(s));
}

static void w_u64(struct writer *w, uint64_t v)
{
	char tmp[20];
	int i = (int)sizeof(tmp);

	do
		tmp[--i] = (char)('0' + v % 10);
	while (v /= 10);
	w_put(w, tmp + i, sizeof(tmp) - (size_t)i);
}

/* Microseconds with three decimals (exact nanoseconds). */
static void w_us(struct writer *w, uint64_t ns)
{
	char frac[4] = { '.', (char)('0' + ns / 100 % 10),
			 (char)('0' + ns / 10 % 10), (char)('0' + ns % 10) };

	w_u64(w, ns / 1000);
	w_put(w, frac, sizeof(frac));
}

/* A quoted JSON string with escapes (file names); NULL: null. */
static void w_json(struct writer *w, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	if (!s) {
		W_LIT(w, "null");
		return;
	}
	W_LIT(w, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			w_put(w, e, 2);
		} else if (c < 0x20) {
			char e[6] = { '\\', 'u',	 '0',
				      '0',  hex[c >> 4], hex[c & 15] };

			w_put(w, e, 6);
		} else {
			w_put(w, (const char *)&c, 1);
		}
	}
	W_LIT(w, "\"");
}

static void w_hex64(struct writer *w, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char out[20] = { '"', '0', 'x' };

	for (int i = 0; i < 16; i++)
		out[3 + i] = hex[(v >> (60 - 4 * i)) & 15];
	out[19] = '"';
	w_put(w, out, sizeof(out));
}

static void sep(struct writer *w)
{
	if (w->first)
		W_LIT(w, "\n");
	else
		W_LIT(w, ",\n");
	w->first = false;
}

/* Virtual nanoseconds of @p cycles, rounded: start and end of a slice
 * round the same way, so adjacent slices stay adjacent. */
static uint64_t ns_of(const struct writer *w, uint64_t cycles)
{
	return (uint64_t)llround((double)cycles * w->t->ns_per_cycle);
}

static void meta(struct writer *w, const char *what, unsigned pid, unsigned tid,
		 const char *name, unsigned sort)
{
	for (int k = 0; k < 2; k++) {
		sep(w);
		W_LIT(w, "{\"ph\":\"M\",\"pid\":");
		w_u64(w, pid);
		W_LIT(w, ",\"tid\":");
		w_u64(w, tid);
		W_LIT(w, ",\"name\":\"");
		w_str(w, what);
		if (!k) {
			W_LIT(w, "_name\",\"args\":{\"name\":");
			w_json(w, name);
			W_LIT(w, "}}");
		} else {
			W_LIT(w, "_sort_index\",\"args\":{\"sort_index\":");
			w_u64(w, sort);
			W_LIT(w, "}}");
		}
	}
}

/* The common head of an event, up to its args object (left open). A
 * record with a flow gets its Perfetto flow members: "bind_id" and
 * "flow_out" on the shootdown, "flow_in" on each flush it caused. */
static void head(struct writer *w, char ph, unsigned pid, unsigned tid,
		 const char *cat, const char *name, const struct rec *r)
{
	uint64_t s = ns_of(w, r->start);
	uint64_t flow = w->flow ? w->flow[r - w->vm_rec] : 0;

	sep(w);
	W_LIT(w, "{\"ph\":\"");
	w_put(w, &ph, 1);
	W_LIT(w, "\",\"pid\":");
	w_u64(w, pid);
	W_LIT(w, ",\"tid\":");
	w_u64(w, tid);
	W_LIT(w, ",\"cat\":\"");
	w_str(w, cat);
	W_LIT(w, "\",\"name\":\"");
	w_str(w, name);
	W_LIT(w, "\",\"ts\":");
	w_us(w, s);
	if (ph == 'X') {
		W_LIT(w, ",\"dur\":");
		w_us(w, ns_of(w, r->start + r->dur) - s);
	} else {
		W_LIT(w, ",\"s\":\"t\"");
	}
	if (flow) {
		W_LIT(w, ",\"bind_id\":");
		w_u64(w, flow & ~FLOW_OUT);
		if (flow & FLOW_OUT)
			W_LIT(w, ",\"flow_out\":true");
		else
			W_LIT(w, ",\"flow_in\":true");
	}
	W_LIT(w, ",\"args\":{");
}

/* A "key":number member, with a leading comma unless @p first. */
static void arg_u64(struct writer *w, const char *key, uint64_t v, bool first)
{
	if (!first)
		W_LIT(w, ",");
	W_LIT(w, "\"");
	w_str(w, key);
	W_LIT(w, "\":");
	w_u64(w, v);
}

/* A "key":"text" member (text needs no escaping). */
static void arg_str(struct writer *w, const char *key, const char *v,
		    bool first)
{
	if (!first)
		W_LIT(w, ",");
	W_LIT(w, "\"");
	w_str(w, key);
	W_LIT(w, "\":\"");
	w_str(w, v);
	W_LIT(w, "\"");
}

static const char *left_name(uint64_t why)
{
	return why == 0 ? "halted" : why == 1 ? "preempted" : "run ended";
}

/* "ipi+hypercall", from the SHOOTDOWN bits; "local" for none. */
static void action_name(char *buf, size_t len, uint64_t bits)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} names[] = {
		{ HVTLB_SIM_TRACE_SD_IPI, "ipi" },
		{ HVTLB_SIM_TRACE_SD_HYPERCALL, "hypercall" },
		{ HVTLB_SIM_TRACE_SD_DEFERRED, "deferred" },
		{ HVTLB_SIM_TRACE_SD_FELL_BACK, "fell_back" },
		{ HVTLB_SIM_TRACE_SD_FULL, "full" },
		{ HVTLB_SIM_TRACE_SD_LAZY, "lazy" },
	};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if ((bits & names[i].bit) && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? "+" : "",
						 names[i].name);
	if (!used)
		snprintf(buf, len, "local");
}

/* A vCPU's run, twice: on its pCPU's track in the host process (which
 * vCPU ran there) and on its own track in its VM (which pCPU it had).
 * The second event is left open, as write_event closes it. */
static void write_vcpu_run(struct writer *w, uint32_t vm, unsigned pid,
			   unsigned vtid, const struct rec *r)
{
	char name[96];

	snprintf(name, sizeof(name), "vm %u vcpu %u", vm, r->vcpu);
	head(w, 'X', PID_HOST, 1 + r->pcpu, "vcpu_run", name, r);
	arg_u64(w, "vm", vm, true);
	arg_u64(w, "vcpu", r->vcpu, false);
	arg_str(w, "left", left_name(r->arg0), false);
	W_LIT(w, "}}");
	snprintf(name, sizeof(name), "on pcpu %u", r->pcpu);
	head(w, 'X', pid, vtid, "vcpu_run", name, r);
	arg_u64(w, "pcpu", r->pcpu, true);
	arg_str(w, "left", left_name(r->arg0), false);
}

/* A flush on the vCPU's track, its args left open like write_vcpu_run's. */
static void write_flush(struct writer *w, unsigned pid, unsigned vtid,
			const struct rec *r)
{
	const char *nm;
	char name[96];

	nm = hvtlb_sim_flush_name((enum hvtlb_sim_flush_kind)r->arg0);
	nm = nm ? nm : "?";
	snprintf(name, sizeof(name), "flush %s", nm);
	/* Perfetto binds a flow to a slice, not to an instant: a
	 * flush with an arrow is a slice of no duration. */
	head(w, w->flow && w->flow[r - w->vm_rec] ? 'X' : 'i', pid, vtid,
	     "flush", name, r);
	arg_str(w, "kind", nm, true);
	if (r->arg1)
		arg_u64(w, "pages", r->arg1, false);
	else
		arg_str(w, "pages", "all", false);
}

static void write_event(struct writer *w, uint32_t vm, const struct rec *r)
{
	unsigned pid = PID_VM0 + vm, vtid = 1 + r->vcpu;
	unsigned ttid = TID_THREAD0 + r->thread;
	const char *nm;
	char name[96];

	switch ((enum hvtlb_sim_trace_kind)r->kind) {
	case HVTLB_SIM_TRACE_VCPU_RUN:
		write_vcpu_run(w, vm, pid, vtid, r);
		break;
	case HVTLB_SIM_TRACE_USER:
	case HVTLB_SIM_TRACE_KERNEL:
		head(w, 'X', pid, ttid, "mode",
		     r->kind == HVTLB_SIM_TRACE_USER ? "user" : "kernel", r);
		arg_u64(w, "vcpu", r->vcpu, true);
		break;
	case HVTLB_SIM_TRACE_SHOOTDOWN:
		action_name(name, sizeof(name), r->arg1);
		head(w, 'X', pid, ttid, "shootdown", "shootdown", r);
		arg_u64(w, "vcpu", r->vcpu, true);
		arg_u64(w, "targets", r->arg0, false);
		arg_str(w, "action", name, false);
		break;
	case HVTLB_SIM_TRACE_EXIT:
		nm = hvtlb_sim_exit_name((enum hvtlb_sim_exit)r->arg0);
		nm = nm ? nm : "?";
		snprintf(name, sizeof(name), "exit %s", nm);
		head(w, 'i', pid, vtid, "exit", name, r);
		arg_str(w, "reason", nm, true);
		arg_u64(w, "count", r->arg1, false);
		break;
	case HVTLB_SIM_TRACE_FLUSH:
		write_flush(w, pid, vtid, r);
		break;
	case HVTLB_SIM_TRACE_IPI:
		nm = hvtlb_sim_ipi_delivery_name(
			(enum hvtlb_sim_ipi_delivery)r->arg1);
		head(w, 'i', pid, vtid, "ipi", "flush ipi", r);
		arg_u64(w, "from_vcpu", r->arg0, true);
		arg_str(w, "delivery", nm ? nm : "?", false);
		break;
	case HVTLB_SIM_TRACE_KICK:
		head(w, 'i', pid, vtid, "kick", "kick", r);
		arg_u64(w, "from_vcpu", r->arg0, true);
		W_LIT(w, ",\"running\":");
		if (r->arg1)
			W_LIT(w, "true");
		else
			W_LIT(w, "false");
		break;
	case HVTLB_SIM_TRACE_HALT:
		head(w, 'i', pid, vtid, "halt", "halt", r);
		break;
	case HVTLB_SIM_TRACE_WAKE:
		head(w, 'X', pid, vtid, "wake", "wake", r);
		break;
	case HVTLB_SIM_TRACE_VIOLATION:
		head(w, 'i', pid, vtid, "violation", "oracle violation", r);
		W_LIT(w, "\"address\":");
		w_hex64(w, r->arg0);
		W_LIT(w, ",\"why\":");
		w_json(w, hvtlb_sim_stale_name((enum hvtlb_sim_stale)r->arg1));
		break;
	default:
		head(w, 'i', pid, vtid, "unknown", "unknown", r);
		break;
	}
	W_LIT(w, "}}");
}

/* Names the processes and the threads that have events. */
static int write_meta(struct writer *w)
{
	const struct trace_json *t = w->t;
	uint8_t *pused = calloc(t->pcpus ? t->pcpus : 1, 1);
	uint8_t *vused = calloc(t->vcpus ? t->vcpus : 1, 1);
	uint8_t *tused = calloc(t->threads ? t->threads : 1, 1);
	char name[64];
	bool host = false;
	int rc = 0;

	if (!pused || !vused || !tused) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t k = 0; k < t->vms; k++)
		for (size_t i = 0; i < t->vm[k].n; i++) {
			const struct rec *r = &t->vm[k].r[i];

			if (r->kind == HVTLB_SIM_TRACE_VCPU_RUN &&
			    r->pcpu < t->pcpus) {
				pused[r->pcpu] = 1;
				host = true;
			}
		}
	if (host) {
		meta(w, "process", PID_HOST, 0, "host", 0);
		for (uint32_t p = 0; p < t->pcpus; p++) {
			if (!pused[p])
				continue;
			snprintf(name, sizeof(name), "pcpu %u", p);
			meta(w, "thread", PID_HOST, 1 + p, name, p);
		}
	}
	for (uint32_t k = 0; k < t->vms; k++) {
		const struct trace_vm *v = &t->vm[k];

		if (!v->n)
			continue;
		memset(vused, 0, t->vcpus);
		memset(tused, 0, t->threads);
		for (size_t i = 0; i < v->n; i++) {
			const struct rec *r = &v->r[i];

			if (r->thread < t->threads &&
			    (r->kind == HVTLB_SIM_TRACE_USER ||
			     r->kind == HVTLB_SIM_TRACE_KERNEL ||
			     r->kind == HVTLB_SIM_TRACE_SHOOTDOWN))
				tused[r->thread] = 1;
			else if (r->vcpu < t->vcpus)
				vused[r->vcpu] = 1;
		}
		snprintf(name, sizeof(name), "vm %u", k);
		meta(w, "process", PID_VM0 + k, 0, name, 1 + k);
		for (uint32_t i = 0; i < t->vcpus; i++) {
			if (!vused[i])
				continue;
			snprintf(name, sizeof(name), "vcpu %u", i);
			meta(w, "thread", PID_VM0 + k, 1 + i, name, i);
		}
		for (uint32_t j = 0; j < t->threads; j++) {
			if (!tused[j])
				continue;
			snprintf(name, sizeof(name), "thread %u", j);
			meta(w, "thread", PID_VM0 + k, TID_THREAD0 + j, name,
			     TID_THREAD0 + j);
		}
	}
out:
	free(pused);
	free(vused);
	free(tused);
	return rc;
}

/* A shootdown: its initiator, start and record. */
struct sd {
	uint32_t vcpu;
	uint64_t start;
	size_t rec;
};

static int by_vcpu_start(const void *pa, const void *pb)
{
	const struct sd *a = pa, *b = pb;

	if (a->vcpu != b->vcpu)
		return a->vcpu < b->vcpu ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->rec > b->rec) - (a->rec < b->rec);
}

/* The latest shootdown of vCPU @p vcpu that started at or before @p at,
 * or NULL. */
static const struct sd *find_sd(const struct sd *v, size_t n, uint32_t vcpu,
				uint64_t at)
{
	size_t lo = 0, hi = n;

	/* first entry greater than (vcpu, at) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].vcpu < vcpu ||
		    (v[mid].vcpu == vcpu && v[mid].start <= at))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && v[lo - 1].vcpu == vcpu ? &v[lo - 1] : NULL;
}

/* Whether a flush of @p kind carries out another vCPU's shootdown. */
static bool target_kind(uint64_t kind)
{
	return kind != HVTLB_SIM_FLUSH_LOCAL &&
	       kind != HVTLB_SIM_FLUSH_SWITCH_MM &&
	       kind != HVTLB_SIM_FLUSH_FULL && kind != HVTLB_SIM_FLUSH_OVERFLOW;
}

/*
 * The flows of VM @p v into @p flow (one entry per record). A target's
 * flush is tied to the shootdown that asked for it when the trace names
 * the sender: the flush IPI (IPI, arg0 the sender's vCPU) or the
 * hypervisor's kick (KICK, arg0 the initiator's vCPU) that the vCPU took
 * at the instant of the flush; the shootdown is then the sender's latest
 * one that started at or before it. Flushes done at a vCPU's next entry
 * (KVM's deferred flush, the hypervisor's queue for a vCPU that was not
 * running), broadcast and lazy flushes name no sender and get no arrow;
 * *unlinked counts them. Ids are @p *next_id onwards, unique in the file.
 */
static int vm_flows(const struct trace_vm *v, uint32_t vcpus, uint64_t *flow,
		    uint64_t *next_id, uint64_t *linked, uint64_t *unlinked)
{
	struct sd *sds = NULL;
	struct {
		uint64_t at;
		uint32_t sender;
	} *last = calloc(vcpus ? vcpus : 1, sizeof(*last));
	size_t nsd = 0;

	for (size_t i = 0; i < v->n; i++)
		nsd += v->r[i].kind == HVTLB_SIM_TRACE_SHOOTDOWN;
	sds = malloc((nsd ? nsd : 1) * sizeof(*sds));
	if (!sds || !last) {
		free(sds);
		free(last);
		return -ENOMEM;
	}
	nsd = 0;
	for (size_t i = 0; i < v->n; i++)
		if (v->r[i].kind == HVTLB_SIM_TRACE_SHOOTDOWN)
			sds[nsd++] =
				(struct sd){ v->r[i].vcpu, v->r[i].start, i };
	qsort(sds, nsd, sizeof(*sds), by_vcpu_start);
	for (uint32_t c = 0; c < vcpus; c++)
		last[c].sender = UINT32_MAX;
	for (size_t i = 0; i < v->n; i++) {
		const struct rec *r = &v->r[i];
		const struct sd *sd;

		if (r->vcpu >= vcpus)
			continue;
		if (r->kind == HVTLB_SIM_TRACE_IPI ||
		    r->kind == HVTLB_SIM_TRACE_KICK) {
			last[r->vcpu].at = r->start;
			last[r->vcpu].sender = (uint32_t)r->arg0;
			continue;
		}
		if (r->kind != HVTLB_SIM_TRACE_FLUSH || !target_kind(r->arg0))
			continue;
		sd = last[r->vcpu].sender != UINT32_MAX &&
				     last[r->vcpu].at == r->start
			     ? find_sd(sds, nsd, last[r->vcpu].sender, r->start)
			     : NULL;
		if (!sd) {
			(*unlinked)++;
			continue;
		}
		if (!flow[sd->rec])
			flow[sd->rec] = (*next_id)++ | FLOW_OUT;
		flow[i] = flow[sd->rec] & ~FLOW_OUT;
		(*linked)++;
	}
	free(sds);
	free(last);
	return 0;
}

/* Writes the whole file through @p w (or only counts it). */
static int write_all(struct writer *w, const char *scenario,
		     const char *strategy, uint64_t *nflows)
{
	const struct trace_json *t = w->t;
	uint64_t next_id = 1, linked = 0, unlinked = 0;
	int rc;

	W_LIT(w, "{\"traceEvents\":[");
	rc = write_meta(w);
	for (uint32_t k = 0; !rc && k < t->vms; k++) {
		const struct trace_vm *v = &t->vm[k];
		uint64_t *flow = calloc(v->n ? v->n : 1, sizeof(*flow));

		if (!flow ||
		    vm_flows(v, t->vcpus, flow, &next_id, &linked, &unlinked)) {
			free(flow);
			rc = -ENOMEM;
			break;
		}
		w->flow = flow;
		w->vm_rec = v->r;
		for (size_t i = 0; i < v->n; i++)
			write_event(w, k, &v->r[i]);
		w->flow = NULL;
		free(flow);
	}
	W_LIT(w, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"scenario\":");
	w_json(w, scenario);
	W_LIT(w, ",\"strategy\":");
	w_json(w, strategy);
	W_LIT(w, ",\"clock\":\"virtual\",\"events_dropped\":");
	w_u64(w, trace_json_dropped(t));
	W_LIT(w, ",\"flows\":");
	w_u64(w, linked);
	W_LIT(w, ",\"target_flushes_without_sender\":");
	w_u64(w, unlinked);
	/* what wrote it, as every JSON document of the tool says */
	W_LIT(w, ",\"hvtlb\":{\"version\":");
	w_json(w, tool_version());
	W_LIT(w, ",\"commit\":");
	w_json(w, tool_commit());
	W_LIT(w, "}}}\n");
	w_flush(w);
	if (nflows)
		*nflows = linked;
	return rc;
}

uint64_t trace_json_estimate(const struct trace_json *t)
{
	struct writer *w = calloc(1, sizeof(*w));
	struct trace_json sample = *t;
	struct trace_vm *vms;
	uint64_t total = 0, kept = 0, bytes;

	vms = calloc(t->vms ? t->vms : 1, sizeof(*vms));
	if (!w || !vms) {
		free(w);
		free(vms);
		return 0;
	}
	/* The first events of each VM, written into nothing, stand for the
	 * rest: the same kinds recur all through a run. */
	for (uint32_t k = 0; k < t->vms; k++) {
		vms[k] = t->vm[k];
		vms[k].n = t->vm[k].n < 20000 ? t->vm[k].n : 20000;
		total += t->vm[k].n;
		kept += vms[k].n;
	}
	sample.vm = vms;
	w->count_only = true;
	w->t = &sample;
	w->first = true;
	write_all(w, "", "", NULL);
	bytes = w->bytes;
	free(w);
	free(vms);
	return kept ? (uint64_t)((double)bytes * (double)total / (double)kept)
		    : bytes;
}

int trace_json_write(const struct trace_json *t, FILE *f, const char *scenario,
		     const char *strategy, bool gzip)
{
	struct writer *w = calloc(1, sizeof(*w));
	int rc;

	if (!w)
		return -ENOMEM;
	w->f = f;
	w->t = t;
	w->first = true;
	if (gzip) {
#ifdef HVTLB_HAVE_ZLIB
		int fd = dup(fileno(f));

		w->gz = fd >= 0 ? gzdopen(fd, "wb") : NULL;
		if (!w->gz) {
			if (fd >= 0)
				close(fd);
			free(w);
			return -ENOMEM;
		}
#else
		free(w);
		return -ENOTSUP;
#endif
	}
	rc = write_all(w, scenario, strategy, NULL);
#ifdef HVTLB_HAVE_ZLIB
	if (w->gz && gzclose(w->gz) != Z_OK && !rc)
		rc = -EIO;
#endif
	free(w);
	if (rc)
		return rc;
	return ferror(f) ? -EIO : 0;
}

bool trace_json_path_is_gzip(const char *path)
{
	size_t n = strlen(path);

	return n > 3 && !strcmp(path + n - 3, ".gz");
}

/* ------------------------------------------------------------ options */
static int parse_ms(const char *s, size_t len, double *out)
{
	char buf[64], *end;
	double v;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	/* digits and at most one dot: no sign, exponent, inf or nan */
	if (strspn(buf, "0123456789.") != len)
		return -EINVAL;
	errno = 0;
	v = strtod(buf, &end);
	if (errno || *end || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

int trace_json_parse_window(const char *s, double *start_ms, double *end_ms)
{
	const char *colon = strchr(s, ':');
	double a, b;

	if (!colon || parse_ms(s, (size_t)(colon - s), &a) ||
	    parse_ms(colon + 1, strlen(colon + 1), &b) || !(a < b))
		return -EINVAL;
	*start_ms = a;
	*end_ms = b;
	return 0;
}

int trace_json_run_path(char *buf, size_t len, const char *path,
			const char *strategy)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	size_t n = strlen(path), gz = trace_json_path_is_gzip(path) ? 3 : 0;
	const char *dot = NULL;
	int w;

	/* The extension before a final ".gz": out.json.gz -> out.ipi.json.gz */
	for (const char *p = base; p < path + n - gz; p++)
		if (*p == '.' && p != base)
			dot = p;
	if (!dot)
		w = snprintf(buf, len, "%.*s.%s%s", (int)(n - gz), path,
			     strategy, gz ? ".gz" : "");
	else
		w = snprintf(buf, len, "%.*s.%s%s", (int)(dot - path), path,
			     strategy, dot);
	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}
