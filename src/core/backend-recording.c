// SPDX-License-Identifier: MIT
/*
 * The recording backend: keeps every action in order, answers queries from
 * state the caller sets, and renders what it recorded as text or JSON into
 * a caller buffer or a caller FILE. Not thread-safe.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <hvtlb/core.h>

struct hvtlb_recorder {
	struct hvtlb_action *actions;
	size_t count, cap;
	size_t dropped; /* actions lost to an allocation failure */
	uint8_t state[HVTLB_MAX_CPUS];
	uint8_t preempted[HVTLB_MAX_CPUS];
	bool cas_lose[HVTLB_MAX_CPUS];
	uint32_t vp[HVTLB_MAX_CPUS];
	struct hvtlb_hints hints;
	hvtlb_status status;
	uint32_t reps_per_call;
	int vmm_result;
	uint64_t epoch;
};

struct hvtlb_recorder *hvtlb_recorder_create(void)
{
	struct hvtlb_recorder *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	for (uint32_t i = 0; i < HVTLB_MAX_CPUS; i++)
		r->vp[i] = i;
	return r;
}

void hvtlb_recorder_clear(struct hvtlb_recorder *r)
{
	for (size_t i = 0; i < r->count; i++)
		free((void *)r->actions[i].input);
	r->count = 0;
	r->dropped = 0;
}

void hvtlb_recorder_destroy(struct hvtlb_recorder *r)
{
	if (!r)
		return;
	hvtlb_recorder_clear(r);
	free(r->actions);
	free(r);
}

size_t hvtlb_recorder_count(const struct hvtlb_recorder *r)
{
	return r->count;
}

const struct hvtlb_action *hvtlb_recorder_action(const struct hvtlb_recorder *r,
						 size_t i)
{
	return i < r->count ? &r->actions[i] : NULL;
}

int hvtlb_recorder_set_cpu_state(struct hvtlb_recorder *r, uint32_t cpu,
				 enum hvtlb_cpu_state state)
{
	if (cpu >= HVTLB_MAX_CPUS || (unsigned)state > HVTLB_CPU_OFFLINE)
		return -EINVAL;
	r->state[cpu] = (uint8_t)state;
	return 0;
}

int hvtlb_recorder_set_preempted(struct hvtlb_recorder *r, uint32_t cpu,
				 uint8_t value)
{
	if (cpu >= HVTLB_MAX_CPUS)
		return -EINVAL;
	r->preempted[cpu] = value;
	return 0;
}

int hvtlb_recorder_set_cas_lose(struct hvtlb_recorder *r, uint32_t cpu,
				bool lose)
{
	if (cpu >= HVTLB_MAX_CPUS)
		return -EINVAL;
	r->cas_lose[cpu] = lose;
	return 0;
}

int hvtlb_recorder_set_vp(struct hvtlb_recorder *r, uint32_t cpu, uint32_t vp)
{
	if (cpu >= HVTLB_MAX_CPUS)
		return -EINVAL;
	r->vp[cpu] = vp;
	return 0;
}

void hvtlb_recorder_set_hints(struct hvtlb_recorder *r,
			      const struct hvtlb_hints *h)
{
	r->hints = *h;
}

void hvtlb_recorder_set_hypercall_status(struct hvtlb_recorder *r,
					 hvtlb_status status)
{
	r->status = status;
}

void hvtlb_recorder_set_reps_per_call(struct hvtlb_recorder *r, uint32_t n)
{
	r->reps_per_call = n;
}

void hvtlb_recorder_set_vmm_result(struct hvtlb_recorder *r, int result)
{
	r->vmm_result = result;
}

/* A new zeroed action, or NULL (counted as dropped) when out of memory. */
static struct hvtlb_action *push(struct hvtlb_recorder *r,
				 enum hvtlb_action_kind kind)
{
	struct hvtlb_action *a;

	if (r->count == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;

		a = realloc(r->actions, cap * sizeof(*a));
		if (!a) {
			r->dropped++;
			return NULL;
		}
		r->actions = a;
		r->cap = cap;
	}
	a = &r->actions[r->count++];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	return a;
}

/* ------------------------------------------------------------------ */
/* The ops                                                             */
/* ------------------------------------------------------------------ */

static void rec_local_flush(void *user, uint32_t cpu,
			    const struct hvtlb_flush_range *range)
{
	struct hvtlb_action *a = push(user, HVTLB_ACTION_LOCAL_FLUSH);

	if (a) {
		a->cpu = cpu;
		a->range = *range;
	}
}

static void rec_send_ipis(void *user, const struct hvtlb_cpumask *targets,
			  const struct hvtlb_ipi_flush *f)
{
	struct hvtlb_action *a = push(user, HVTLB_ACTION_IPI);

	if (a) {
		a->targets = *targets;
		a->range = f->range;
		a->early_ack = f->early_ack;
	}
}

static void rec_wait_acks(void *user, const struct hvtlb_cpumask *targets)
{
	struct hvtlb_action *a = push(user, HVTLB_ACTION_WAIT);

	if (a)
		a->targets = *targets;
}

static enum hvtlb_cpu_state rec_cpu_state(void *user, uint32_t cpu)
{
	struct hvtlb_recorder *r = user;

	return cpu < HVTLB_MAX_CPUS ? (enum hvtlb_cpu_state)r->state[cpu]
				    : HVTLB_CPU_OFFLINE;
}

static uint64_t rec_hypercall(void *user, uint64_t control, const void *input,
			      size_t len)
{
	struct hvtlb_recorder *r = user;
	struct hvtlb_action *a = push(r, HVTLB_ACTION_HYPERCALL);
	struct hvtlb_control c;
	uint64_t result;
	uint32_t done;

	hvtlb_control_unpack(control, &c);
	if (r->status != HVTLB_STATUS_SUCCESS) {
		result = hvtlb_result_pack(r->status, c.rep_start);
	} else {
		done = c.rep_count;
		if (r->reps_per_call && c.rep_start + r->reps_per_call < done)
			done = c.rep_start + r->reps_per_call;
		result =
			hvtlb_result_pack(HVTLB_STATUS_SUCCESS, (uint16_t)done);
	}
	if (!a)
		return result;
	a->control = control;
	a->result = result;
	if (len && input) {
		uint8_t *copy = malloc(len);

		if (copy) {
			memcpy(copy, input, len);
			a->input = copy;
			a->len = len;
		}
	}
	return result;
}

static uint32_t rec_vp_index(void *user, uint32_t cpu)
{
	struct hvtlb_recorder *r = user;

	return cpu < HVTLB_MAX_CPUS ? r->vp[cpu] : UINT32_MAX;
}

static void rec_get_hints(void *user, struct hvtlb_hints *h)
{
	struct hvtlb_recorder *r = user;

	*h = r->hints;
}

static uint8_t rec_read_preempted(void *user, uint32_t cpu)
{
	struct hvtlb_recorder *r = user;

	return cpu < HVTLB_MAX_CPUS ? r->preempted[cpu] : 0;
}

static bool rec_cmpxchg_preempted(void *user, uint32_t cpu, uint8_t *expected,
				  uint8_t desired)
{
	struct hvtlb_recorder *r = user;
	struct hvtlb_action *a;
	bool won;

	if (cpu >= HVTLB_MAX_CPUS)
		return false;
	if (r->cas_lose[cpu]) {
		/* The host ran the target between the read and the CAS. */
		r->cas_lose[cpu] = false;
		r->preempted[cpu] = 0;
		r->state[cpu] = HVTLB_CPU_RUNNING;
	}
	won = r->preempted[cpu] == *expected;
	if (won)
		r->preempted[cpu] = desired;
	else
		*expected = r->preempted[cpu];
	a = push(r, HVTLB_ACTION_MARK_DEFERRED);
	if (a) {
		a->cpu = cpu;
		a->cas_won = won;
	}
	return won;
}

static void rec_broadcast_invalidate(void *user,
				     const struct hvtlb_flush_range *range)
{
	struct hvtlb_action *a = push(user, HVTLB_ACTION_BROADCAST);

	if (a)
		a->range = *range;
}

static void rec_broadcast_sync(void *user)
{
	push(user, HVTLB_ACTION_BROADCAST_SYNC);
}

static int rec_vmm_flush(void *user, const struct hvtlb_cpumask *targets,
			 const struct hvtlb_flush_range *range)
{
	struct hvtlb_recorder *r = user;
	struct hvtlb_action *a = push(r, HVTLB_ACTION_VMM_FLUSH);

	if (a) {
		a->targets = *targets;
		a->range = *range;
		a->vmm_result = r->vmm_result;
	}
	return r->vmm_result;
}

static uint64_t rec_lazy_post(void *user, const struct hvtlb_cpumask *targets,
			      const struct hvtlb_flush_range *range)
{
	struct hvtlb_recorder *r = user;
	struct hvtlb_action *a = push(r, HVTLB_ACTION_LAZY_POST);

	r->epoch++;
	if (a) {
		a->targets = *targets;
		a->range = *range;
		a->epoch = r->epoch;
	}
	return r->epoch;
}

static const struct hvtlb_backend_ops recorder_ops = {
	.version = HVTLB_BACKEND_OPS_VERSION,
	.local_flush = rec_local_flush,
	.send_ipis = rec_send_ipis,
	.wait_acks = rec_wait_acks,
	.cpu_state = rec_cpu_state,
	.hypercall = rec_hypercall,
	.vp_index = rec_vp_index,
	.get_hints = rec_get_hints,
	.read_preempted = rec_read_preempted,
	.cmpxchg_preempted = rec_cmpxchg_preempted,
	.broadcast_invalidate = rec_broadcast_invalidate,
	.broadcast_sync = rec_broadcast_sync,
	.vmm_flush = rec_vmm_flush,
	.lazy_post = rec_lazy_post,
};

const struct hvtlb_backend_ops *hvtlb_recorder_ops(void)
{
	return &recorder_ops;
}

bool hvtlb_backend_is_recorder(const struct hvtlb_backend_ops *ops)
{
	return ops == &recorder_ops;
}

/* ------------------------------------------------------------------ */
/* Rendering                                                           */
/* ------------------------------------------------------------------ */

/* Output to a buffer (counting what does not fit) or to a FILE. */
struct sink {
	char *buf;
	size_t size;
	size_t len;
	FILE *out;
	bool failed;
};

__attribute__((format(printf, 2, 3))) static void put(struct sink *s,
						      const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	if (s->out) {
		if (vfprintf(s->out, fmt, ap) < 0)
			s->failed = true;
	} else {
		size_t room = s->len < s->size ? s->size - s->len : 0;

		n = vsnprintf(room ? s->buf + s->len : NULL, room, fmt, ap);
		if (n < 0)
			s->failed = true;
		else
			s->len += (size_t)n;
	}
	va_end(ap);
}

static const char *stride_name(unsigned shift)
{
	return shift == 30 ? "1g" : shift == 21 ? "2m" : "4k";
}

static const char *page_size_name(enum hvtlb_page_size size)
{
	return size == HVTLB_PAGE_1G   ? "1g"
	       : size == HVTLB_PAGE_2M ? "2m"
				       : "4k";
}

static void put_cpus(struct sink *s, const struct hvtlb_cpumask *m, bool json)
{
	const char *sep = "";
	uint32_t cpu = hvtlb_cpumask_next(m, 0);

	if (json)
		put(s, "[");
	while (cpu < HVTLB_MAX_CPUS) {
		uint32_t last = cpu;

		if (json) {
			put(s, "%s%u", sep, cpu);
			sep = ",";
			cpu = hvtlb_cpumask_next(m, cpu + 1);
			continue;
		}
		while (last + 1 < HVTLB_MAX_CPUS &&
		       hvtlb_cpumask_test(m, last + 1))
			last++;
		if (last == cpu)
			put(s, "%s%u", sep, cpu);
		else
			put(s, "%s%u-%u", sep, cpu, last);
		sep = ",";
		cpu = hvtlb_cpumask_next(m, last + 1);
	}
	if (json)
		put(s, "]");
	else if (!*sep)
		put(s, "none");
}

static void put_range(struct sink *s, const struct hvtlb_flush_range *r,
		      bool json)
{
	uint64_t pages = hvtlb_range_pages(r);

	if (json && r->all)
		put(s, ",\"pages\":\"all\"");
	else if (json)
		put(s,
		    ",\"start\":\"0x%llx\",\"end\":\"0x%llx\",\"stride\":\"%"
		    "s\","
		    "\"pages\":%llu",
		    (unsigned long long)r->start, (unsigned long long)r->end,
		    stride_name(r->stride_shift), (unsigned long long)pages);
	else if (r->all)
		put(s, " range=all");
	else
		put(s, " range=0x%llx-0x%llx stride=%s pages=%llu",
		    (unsigned long long)r->start, (unsigned long long)r->end,
		    stride_name(r->stride_shift), (unsigned long long)pages);
	if (r->include_global)
		put(s, json ? ",\"global\":true" : " global=1");
}

/* The decoded flush flags, by name (text: "a|b", or "none"). */
static void put_flags(struct sink *s, uint64_t flags, bool json)
{
	const char *sep = "";

	put(s, json ? ",\"flags\":[" : " flags=");
	for (uint64_t bit = 1; bit <= HVTLB_FLUSH_FLAGS_VALID; bit <<= 1) {
		const char *name = hvtlb_flush_flag_name(bit);

		if (!(flags & bit) || !name)
			continue;
		put(s, json ? "%s\"%s\"" : "%s%s", sep, name);
		sep = json ? "," : "|";
	}
	if (json)
		put(s, "]");
	else if (!*sep)
		put(s, "none");
}

/* The decoded target VPs: "all", or each one. */
static void put_vps(struct sink *s, const struct hvtlb_decoded *d, bool json)
{
	struct hvtlb_vp_iter it;
	uint32_t vp, first = 0, last = 0;
	const char *sep = "";

	if (d->all_vps) {
		put(s, json ? ",\"vps\":\"all\"" : " vps=all");
		return;
	}
	put(s, json ? ",\"vps\":[" : " vps=");
	hvtlb_vp_iter_init(&it, d);
	/* JSON lists every VP; text folds runs into "a-b". */
	while (hvtlb_vp_iter_next(&it, &vp)) {
		if (!json && *sep && vp == last + 1) {
			last = vp;
			continue;
		}
		if (!json && *sep && last != first)
			put(s, "-%u", last);
		put(s, "%s%u", sep, vp);
		sep = ",";
		first = last = vp;
	}
	if (!json && *sep && last != first)
		put(s, "-%u", last);
	put(s, "%s", json ? "]" : *sep ? "" : "none");
}

/* The decoded GVA ranges: "all", or each one with its page size. */
static void put_gvas(struct sink *s, const struct hvtlb_decoded *d, bool json)
{
	struct hvtlb_gva_iter it;
	struct hvtlb_gva_range g;
	const char *sep = "";

	if (d->flush_all_gvas) {
		put(s, json ? ",\"ranges\":\"all\"" : " ranges=all");
		return;
	}
	put(s, json ? ",\"ranges\":[" : " ranges=");
	hvtlb_gva_iter_init(&it, d);
	while (hvtlb_gva_iter_next(&it, &g)) {
		put(s,
		    json ? "%s{\"gva\":\"0x%llx\",\"pages\":%llu,"
			   "\"size\":\"%s\"}"
			 : "%s0x%llx+%llu/%s",
		    sep, (unsigned long long)g.gva, (unsigned long long)g.pages,
		    page_size_name(g.size));
		sep = ",";
	}
	put(s, "%s", json ? "]" : *sep ? "" : "none");
}

/* The hypercall decoded as a strict host would: call, flags, VPs, GVAs. */
static void put_decoded(struct sink *s, const struct hvtlb_action *a, bool json)
{
	static const struct hvtlb_host host = {
		.profile = HVTLB_PROFILE_STRICT,
		.vp_count = HVTLB_MAX_VPS,
	};
	struct hvtlb_control c;
	struct hvtlb_decoded d;
	struct hvtlb_input in = { .data = a->input, .len = a->len };
	uint8_t regs[HVTLB_FAST_BYTES] = { 0 };
	uint64_t res;

	hvtlb_control_unpack(a->control, &c);
	if (c.fast) {
		/* A register image is always whole: pad with zeros. */
		memcpy(regs, a->input,
		       a->len < sizeof(regs) ? a->len : sizeof(regs));
		in.data = regs;
		in.len = sizeof(regs);
	}
	res = hvtlb_decode(&host, a->control, &in, &d);
	if (hvtlb_result_status(res) != HVTLB_STATUS_SUCCESS) {
		const char *name = hvtlb_status_name(hvtlb_result_status(res));

		put(s, json ? ",\"decode_status\":\"%s\"" : " decode_status=%s",
		    name ? name : "unknown");
		return;
	}
	put_flags(s, d.flags, json);
	put_vps(s, &d, json);
	put_gvas(s, &d, json);
}

static uint64_t input_word(const struct hvtlb_action *a, size_t i)
{
	uint64_t w = 0;

	for (unsigned b = 0; b < 8 && i * 8 + b < a->len; b++)
		w |= (uint64_t)a->input[i * 8 + b] << (8 * b);
	return w;
}

static void put_hypercall(struct sink *s, const struct hvtlb_action *a,
			  bool json)
{
	struct hvtlb_control c;
	const char *call;
	const char *status;
	size_t words = (a->len + 7) / 8;

	hvtlb_control_unpack(a->control, &c);
	call = hvtlb_call_name(c.code);
	status = hvtlb_status_name(hvtlb_result_status(a->result));
	if (json) {
		put(s,
		    "{\"op\":\"hypercall\",\"control\":\"0x%016llx\","
		    "\"call\":\"%s\",\"fast\":%s,\"rep_count\":%u,"
		    "\"rep_start\":%u,\"input\":[",
		    (unsigned long long)a->control, call ? call : "unknown",
		    c.fast ? "true" : "false", c.rep_count, c.rep_start);
		for (size_t i = 0; i < words; i++)
			put(s, "%s\"0x%016llx\"", i ? "," : "",
			    (unsigned long long)input_word(a, i));
		put(s, "],\"result\":\"0x%016llx\",\"status\":\"%s\"",
		    (unsigned long long)a->result, status ? status : "unknown");
		put_decoded(s, a, true);
		put(s, "}");
		return;
	}
	put(s,
	    "hypercall control=0x%016llx call=%s fast=%d rep_count=%u "
	    "rep_start=%u result=0x%016llx status=%s\n",
	    (unsigned long long)a->control, call ? call : "unknown", c.fast,
	    c.rep_count, c.rep_start, (unsigned long long)a->result,
	    status ? status : "unknown");
	put(s, "  input");
	for (size_t i = 0; i < words; i++)
		put(s, "%s0x%016llx", i && i % 4 == 0 ? "\n       " : " ",
		    (unsigned long long)input_word(a, i));
	put(s, "\n  decoded");
	put_decoded(s, a, false);
	put(s, "\n");
}

static void put_action(struct sink *s, const struct hvtlb_action *a, bool json)
{
	static const char *const ops[] = {
		[HVTLB_ACTION_LOCAL_FLUSH] = "local_flush",
		[HVTLB_ACTION_IPI] = "ipi",
		[HVTLB_ACTION_WAIT] = "wait",
		[HVTLB_ACTION_HYPERCALL] = "hypercall",
		[HVTLB_ACTION_MARK_DEFERRED] = "mark_deferred",
		[HVTLB_ACTION_BROADCAST] = "broadcast",
		[HVTLB_ACTION_BROADCAST_SYNC] = "broadcast_sync",
		[HVTLB_ACTION_VMM_FLUSH] = "vmm_flush",
		[HVTLB_ACTION_LAZY_POST] = "lazy_post",
	};
	bool has_targets = a->kind == HVTLB_ACTION_IPI ||
			   a->kind == HVTLB_ACTION_WAIT ||
			   a->kind == HVTLB_ACTION_VMM_FLUSH ||
			   a->kind == HVTLB_ACTION_LAZY_POST;
	bool has_range = a->kind == HVTLB_ACTION_LOCAL_FLUSH ||
			 a->kind == HVTLB_ACTION_IPI ||
			 a->kind == HVTLB_ACTION_BROADCAST ||
			 a->kind == HVTLB_ACTION_VMM_FLUSH ||
			 a->kind == HVTLB_ACTION_LAZY_POST;

	if (a->kind == HVTLB_ACTION_HYPERCALL) {
		put_hypercall(s, a, json);
		return;
	}
	put(s, json ? "{\"op\":\"%s\"" : "%s", ops[a->kind]);
	if (a->kind == HVTLB_ACTION_LOCAL_FLUSH ||
	    a->kind == HVTLB_ACTION_MARK_DEFERRED)
		put(s, json ? ",\"cpu\":%u" : " cpu=%u", a->cpu);
	if (has_targets) {
		put(s, json ? ",\"targets\":" : " targets=");
		put_cpus(s, &a->targets, json);
	}
	if (has_range)
		put_range(s, &a->range, json);
	switch (a->kind) {
	case HVTLB_ACTION_IPI:
		put(s, json ? ",\"early_ack\":%s" : " early_ack=%s",
		    a->early_ack ? (json ? "true" : "1")
				 : (json ? "false" : "0"));
		break;
	case HVTLB_ACTION_MARK_DEFERRED:
		put(s, json ? ",\"won\":%s" : " won=%s",
		    a->cas_won ? (json ? "true" : "1")
			       : (json ? "false" : "0"));
		break;
	case HVTLB_ACTION_VMM_FLUSH:
		put(s, json ? ",\"result\":%d" : " result=%d", a->vmm_result);
		break;
	case HVTLB_ACTION_LAZY_POST:
		put(s, json ? ",\"epoch\":%llu" : " epoch=%llu",
		    (unsigned long long)a->epoch);
		break;
	default:
		break;
	}
	put(s, json ? "}" : "\n");
}

static void render(const struct hvtlb_recorder *r, struct sink *s, bool json)
{
	if (json)
		put(s, "{\"actions\":[");
	for (size_t i = 0; i < r->count; i++) {
		if (json && i)
			put(s, ",");
		put_action(s, &r->actions[i], json);
	}
	if (json)
		put(s, "]");
	if (json && r->dropped)
		put(s, ",\"dropped\":%zu", r->dropped);
	if (json)
		put(s, "}\n");
	else if (r->dropped)
		put(s, "dropped %zu actions (out of memory)\n", r->dropped);
}

int hvtlb_recorder_render(const struct hvtlb_recorder *r,
			  enum hvtlb_render_format fmt, char *buf, size_t size,
			  size_t *len)
{
	struct sink s = { .buf = buf, .size = buf ? size : 0 };

	if (!r || (fmt != HVTLB_RENDER_TEXT && fmt != HVTLB_RENDER_JSON))
		return -EINVAL;
	if (buf && size)
		buf[0] = '\0';
	render(r, &s, fmt == HVTLB_RENDER_JSON);
	if (s.failed)
		return -EINVAL;
	if (len)
		*len = s.len;
	return s.len < s.size ? 0 : -ENOSPC;
}

int hvtlb_recorder_write(const struct hvtlb_recorder *r,
			 enum hvtlb_render_format fmt, FILE *out)
{
	struct sink s = { .out = out };

	if (!r || !out ||
	    (fmt != HVTLB_RENDER_TEXT && fmt != HVTLB_RENDER_JSON))
		return -EINVAL;
	render(r, &s, fmt == HVTLB_RENDER_JSON);
	return s.failed ? -EIO : 0;
}
