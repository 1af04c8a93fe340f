// SPDX-License-Identifier: MIT
/*
 * The simulator's configuration: every scenario key comes from
 * HVTLB_SIM_KEY_MAP (sim-keys.h), which generates the key table, the
 * setter, the getter, the defaults and the range checks below; a key is
 * added there and nowhere else. Cost keys ("cost.<name>") come from
 * cost.h's list.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <hvtlb/sim.h>

#include "sim/cost.h"
#include "sim/gate.h"
#include "sim/guest-os.h"
#include "sim/workload.h"
#include "sim/host.h"

enum key_id {
#define HVTLB_X_(id, ...) K_##id,
	HVTLB_SIM_KEY_MAP(HVTLB_X_)
#undef HVTLB_X_
		K_COUNT
};

_Static_assert(K_COUNT <= 8 * sizeof(((struct hvtlb_sim_config *)0)->set_keys),
	       "set_keys has a bit per key");

static const struct hvtlb_sim_key keys[K_COUNT] = {
#define HVTLB_X_(id, name, type, field, def, lo, hi, unit, meaning)            \
	[K_##id] = { name, #type, def, lo, hi, unit, meaning },
	HVTLB_SIM_KEY_MAP(HVTLB_X_)
#undef HVTLB_X_
};

static const char *const cost_keys[] = {
#define HVTLB_X_(n, d, u, s) "cost." #n,
	HVTLB_SIM_COST_MAP(HVTLB_X_)
#undef HVTLB_X_
};

static const char *const fault_names[] = {
#define HVTLB_X_(n, s) s,
	HVTLB_SIM_FAULT_MAP(HVTLB_X_)
#undef HVTLB_X_
};

static const char *const workload_names[] = {
#define HVTLB_X_(n, s) s,
	HVTLB_SIM_WORKLOAD_MAP(HVTLB_X_)
#undef HVTLB_X_
};

static const char *const guest_os_names[] = {
#define HVTLB_X_(n, s) s,
	HVTLB_SIM_GUEST_OS_MAP(HVTLB_X_)
#undef HVTLB_X_
};

static const char *const host_policy_names[] = {
#define HVTLB_X_(n, s) s,
	HVTLB_SIM_HOST_POLICY_MAP(HVTLB_X_)
#undef HVTLB_X_
};

static const char *const touch_names[] = { "none", "first", "all", "random" };

static const char *const governor_names[] = { "menu", "residency" };

static const char *const guest_idle_names[] = { "halt", "poll", "haltpoll" };

static const char *const ipi_delivery_names[] = {
#define HVTLB_X_(n, s) s,
	HVTLB_SIM_IPI_DELIVERY_MAP(HVTLB_X_)
#undef HVTLB_X_
};

static const char *const backing_names[] = {
#define HVTLB_X_(n, s) s,
	HVTLB_SIM_BACKING_MAP(HVTLB_X_)
#undef HVTLB_X_
};

static const char *const page_size_names[] = { "4k", "2m", "1g" };
static const unsigned page_shifts[] = { 12, 21, 30 };

#define NAMES(a) (sizeof(a) / sizeof((a)[0]))

const char *hvtlb_sim_ipi_delivery_name(enum hvtlb_sim_ipi_delivery d)
{
	return (unsigned)d < NAMES(ipi_delivery_names) ? ipi_delivery_names[d]
						       : NULL;
}

/* ------------------------------------------------------------- parsing */
static int parse_u64(const char *v, uint64_t *out)
{
	char *end;

	if (!v || !*v || *v == '-' || *v == '+' || *v == ' ')
		return -EINVAL;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 0);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || *end)
		return -EINVAL;
	*out = x;
	return 0;
}

static int parse_double(const char *v, double *out)
{
	char *end;

	if (!v || !*v || *v == ' ')
		return -EINVAL;
	errno = 0;
	double x = strtod(v, &end);
	if (*end || errno == EINVAL)
		return -EINVAL;
	if (errno == ERANGE || !isfinite(x))
		return -ERANGE;
	*out = x;
	return 0;
}

/* Index of @p v in @p names, or -EINVAL. */
static int parse_name(const char *v, const char *const *names, size_t n)
{
	if (!v)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(v, names[i]))
			return (int)i;
	}
	return -EINVAL;
}

static bool in_range(double x, const struct hvtlb_sim_key *k)
{
	return x >= k->min && x <= k->max;
}

static bool is_pow2(uint32_t x)
{
	return x && !(x & (x - 1));
}

/* ------------------------------------------------ one function per type */
/* set_T(field, value, key), get_T(field, buf, len) and ok_T(field, key):
 * HVTLB_SIM_KEY_MAP's TYPE column names them. */
static int set_U64(uint64_t *f, const char *v, const struct hvtlb_sim_key *k)
{
	uint64_t x;
	int r = parse_u64(v, &x);

	if (r)
		return r;
	if (!in_range((double)x, k))
		return -ERANGE;
	*f = x;
	return 0;
}

static int set_U32(uint32_t *f, const char *v, const struct hvtlb_sim_key *k)
{
	uint64_t x;
	int r = parse_u64(v, &x);

	if (r)
		return r;
	if (!in_range((double)x, k))
		return -ERANGE;
	*f = (uint32_t)x;
	return 0;
}

static int set_POW2(uint32_t *f, const char *v, const struct hvtlb_sim_key *k)
{
	uint32_t x;
	int r = set_U32(&x, v, k);

	if (r)
		return r;
	if (!is_pow2(x))
		return -ERANGE;
	*f = x;
	return 0;
}

static int set_BOOL(bool *f, const char *v, const struct hvtlb_sim_key *k)
{
	(void)k;
	return hvtlb_parse_bool(v, f);
}

static int set_DOUBLE(double *f, const char *v, const struct hvtlb_sim_key *k)
{
	double x;
	int r = parse_double(v, &x);

	if (r)
		return r;
	if (!in_range(x, k))
		return -ERANGE;
	*f = x;
	return 0;
}

static int set_STRATEGY(struct hvtlb_strategy_config *f, const char *v,
			const struct hvtlb_sim_key *k)
{
	enum hvtlb_strategy_kind sk;

	(void)k;
	if (!v || hvtlb_strategy_from_name(v, &sk))
		return -EINVAL;
	hvtlb_strategy_config_init(f, sk);
	return 0;
}

static int set_KNOB(struct hvtlb_strategy_config *f, const char *v,
		    const struct hvtlb_sim_key *k)
{
	int r;

	if (!v)
		return -EINVAL;
	r = hvtlb_strategy_config_set(f, k->name + strlen("strategy."), v);
	return r == -ENOENT ? -EINVAL : r;
}

static int set_PROFILE(enum hvtlb_profile *f, const char *v,
		       const struct hvtlb_sim_key *k)
{
	enum hvtlb_profile p;

	(void)k;
	if (!v || hvtlb_profile_from_name(v, &p))
		return -EINVAL;
	*f = p;
	return 0;
}

static int set_PAGE_SIZE(unsigned *f, const char *v,
			 const struct hvtlb_sim_key *k)
{
	(void)k;
	if (!v)
		return -EINVAL;
	for (size_t i = 0; i < NAMES(page_size_names); i++) {
		if (!strcasecmp(v, page_size_names[i])) {
			*f = page_shifts[i];
			return 0;
		}
	}
	return -EINVAL;
}

static int put(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int put(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int w;

	va_start(ap, fmt);
	w = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return w < 0 || (size_t)w >= len ? -ENOSPC : 0;
}

static int get_U64(const uint64_t *f, char *buf, size_t len,
		   const struct hvtlb_sim_key *k)
{
	(void)k;
	return put(buf, len, "%llu", (unsigned long long)*f);
}

static int get_U32(const uint32_t *f, char *buf, size_t len,
		   const struct hvtlb_sim_key *k)
{
	(void)k;
	return put(buf, len, "%u", *f);
}

#define get_POW2 get_U32

static int get_BOOL(const bool *f, char *buf, size_t len,
		    const struct hvtlb_sim_key *k)
{
	(void)k;
	return put(buf, len, "%s", *f ? "true" : "false");
}

/* The shortest text that reads back as the same double. */
static int get_DOUBLE(const double *f, char *buf, size_t len,
		      const struct hvtlb_sim_key *k)
{
	(void)k;
	for (int prec = 6; prec <= 17; prec++) {
		int r = put(buf, len, "%.*g", prec, *f);

		if (r || strtod(buf, NULL) == *f)
			return r;
	}
	return 0;
}

/* A name from @p names, or "?" for a value out of the list. */
static int get_name(unsigned i, const char *const *names, size_t n, char *buf,
		    size_t len)
{
	return put(buf, len, "%s", i < n ? names[i] : "?");
}

static int get_STRATEGY(const struct hvtlb_strategy_config *f, char *buf,
			size_t len, const struct hvtlb_sim_key *k)
{
	const char *n = hvtlb_strategy_name(f->kind);

	(void)k;
	return put(buf, len, "%s", n ? n : "?");
}

static int get_KNOB(const struct hvtlb_strategy_config *f, char *buf,
		    size_t len, const struct hvtlb_sim_key *k)
{
	return hvtlb_strategy_config_get(f, k->name + strlen("strategy."), buf,
					 len);
}

static int get_PROFILE(const enum hvtlb_profile *f, char *buf, size_t len,
		       const struct hvtlb_sim_key *k)
{
	const char *n = hvtlb_profile_name(*f);

	(void)k;
	return put(buf, len, "%s", n ? n : "?");
}

static int get_PAGE_SIZE(const unsigned *f, char *buf, size_t len,
			 const struct hvtlb_sim_key *k)
{
	(void)k;
	for (size_t i = 0; i < NAMES(page_shifts); i++) {
		if (*f == page_shifts[i])
			return put(buf, len, "%s", page_size_names[i]);
	}
	return put(buf, len, "?");
}

/*
 * A key type whose values are the names of a list (TYPE as in the key
 * table, C its field's type): its set_, get_ and ok_ functions. Setting
 * guest.os sets only the model; hvtlb_sim_config_set() sets its bundle.
 */
#define NAMED_TYPE(TYPE, C, names)                                             \
	static int set_##TYPE(C *f, const char *v,                             \
			      const struct hvtlb_sim_key *k)                   \
	{                                                                      \
		int i = parse_name(v, names, NAMES(names));                    \
                                                                               \
		(void)k;                                                       \
		if (i < 0)                                                     \
			return i;                                              \
		*f = (C)i;                                                     \
		return 0;                                                      \
	}                                                                      \
	static int get_##TYPE(const C *f, char *buf, size_t len,               \
			      const struct hvtlb_sim_key *k)                   \
	{                                                                      \
		(void)k;                                                       \
		return get_name((unsigned)*f, names, NAMES(names), buf, len);  \
	}                                                                      \
	static bool ok_##TYPE(const C *f, const struct hvtlb_sim_key *k)       \
	{                                                                      \
		(void)k;                                                       \
		return (unsigned)*f < NAMES(names);                            \
	}

NAMED_TYPE(FAULT, enum hvtlb_sim_fault, fault_names)
NAMED_TYPE(WORKLOAD, enum hvtlb_sim_workload, workload_names)
NAMED_TYPE(GUEST_OS, enum hvtlb_sim_guest_os, guest_os_names)
NAMED_TYPE(HOST_POLICY, enum hvtlb_sim_host_policy, host_policy_names)
NAMED_TYPE(TOUCH, enum hvtlb_sim_touch, touch_names)
NAMED_TYPE(GOVERNOR, enum hvtlb_sim_idle_governor, governor_names)
NAMED_TYPE(IDLE, enum hvtlb_sim_guest_idle, guest_idle_names)
NAMED_TYPE(IPI_DELIVERY, enum hvtlb_sim_ipi_delivery, ipi_delivery_names)
NAMED_TYPE(BACKING, enum hvtlb_sim_backing, backing_names)

/* A Linux version "MAJOR.MINOR" (2 <= MAJOR <= 99, MINOR <= 99) as
 * HVTLB_SIM_KVER(), or "any": 0, no version. */
static int set_KVER(uint32_t *f, const char *v, const struct hvtlb_sim_key *k)
{
	unsigned long maj, min;
	char *end;

	(void)k;
	if (!v)
		return -EINVAL;
	if (!strcmp(v, "any")) {
		*f = 0;
		return 0;
	}
	if (*v < '0' || *v > '9')
		return -EINVAL;
	maj = strtoul(v, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return -EINVAL;
	min = strtoul(end + 1, &end, 10);
	if (*end)
		return -EINVAL;
	if (maj < 2 || maj > 99 || min > 99)
		return -ERANGE;
	*f = HVTLB_SIM_KVER((uint32_t)maj, (uint32_t)min);
	return 0;
}

static int get_KVER(const uint32_t *f, char *buf, size_t len,
		    const struct hvtlb_sim_key *k)
{
	(void)k;
	if (!*f)
		return put(buf, len, "any");
	return put(buf, len, "%u.%u", *f / 100, *f % 100);
}

static bool ok_KVER(const uint32_t *f, const struct hvtlb_sim_key *k)
{
	(void)k;
	return !*f ||
	       (*f >= HVTLB_SIM_KVER(2, 0) && *f <= HVTLB_SIM_KVER(99, 99));
}

/* Validation of a field written directly (hvtlb_sim_config_validate). */
static bool ok_U64(const uint64_t *f, const struct hvtlb_sim_key *k)
{
	return in_range((double)*f, k);
}

static bool ok_U32(const uint32_t *f, const struct hvtlb_sim_key *k)
{
	return in_range((double)*f, k);
}

static bool ok_POW2(const uint32_t *f, const struct hvtlb_sim_key *k)
{
	return in_range((double)*f, k) && is_pow2(*f);
}

static bool ok_BOOL(const bool *f, const struct hvtlb_sim_key *k)
{
	(void)f;
	(void)k;
	return true;
}

static bool ok_DOUBLE(const double *f, const struct hvtlb_sim_key *k)
{
	return isfinite(*f) && in_range(*f, k);
}

static bool ok_STRATEGY(const struct hvtlb_strategy_config *f,
			const struct hvtlb_sim_key *k)
{
	(void)k;
	return (unsigned)f->kind < HVTLB_STRATEGY_COUNT_;
}

static bool ok_KNOB(const struct hvtlb_strategy_config *f,
		    const struct hvtlb_sim_key *k)
{
	(void)f;
	(void)k;
	return true;
}

static bool ok_PROFILE(const enum hvtlb_profile *f,
		       const struct hvtlb_sim_key *k)
{
	(void)k;
	return (unsigned)*f < HVTLB_PROFILE_COUNT_;
}

static bool ok_PAGE_SIZE(const unsigned *f, const struct hvtlb_sim_key *k)
{
	(void)k;
	return *f == 12 || *f == 21 || *f == 30;
}

/* ------------------------------------------------------------ the keys */
static int set_key(struct hvtlb_sim_config *c, enum key_id k, const char *v)
{
	switch (k) {
#define HVTLB_X_(id, name, type, field, ...)                                   \
	case K_##id:                                                           \
		return set_##type(&c->field, v, &keys[k]);
		HVTLB_SIM_KEY_MAP(HVTLB_X_)
#undef HVTLB_X_
	case K_COUNT:
		break;
	}
	return -ENOENT;
}

static int get_key(const struct hvtlb_sim_config *c, enum key_id k, char *buf,
		   size_t len)
{
	switch (k) {
#define HVTLB_X_(id, name, type, field, ...)                                   \
	case K_##id:                                                           \
		return get_##type(&c->field, buf, len, &keys[k]);
		HVTLB_SIM_KEY_MAP(HVTLB_X_)
#undef HVTLB_X_
	case K_COUNT:
		break;
	}
	return -ENOENT;
}

/* Whether strategy @p k calls on a hypervisor (a hint only a host
 * gives): nothing to call on bare metal. */
static bool needs_hypervisor(enum hvtlb_strategy_kind k)
{
	struct hvtlb_hints n;

	return !hvtlb_strategy_needs(k, &n) &&
	       (n.remote_flush_recommended || n.kvm_pv_flush || n.vmm_assist);
}

/* The first key whose field is out of its range, or K_COUNT. */
static enum key_id first_bad_key(const struct hvtlb_sim_config *c)
{
#define HVTLB_X_(id, name, type, field, ...)                                   \
	if (!ok_##type(&c->field, &keys[K_##id]))                              \
		return K_##id;
	HVTLB_SIM_KEY_MAP(HVTLB_X_)
#undef HVTLB_X_
	return K_COUNT;
}

static int find_key(const char *name)
{
	for (int k = 0; k < K_COUNT; k++) {
		if (!strcmp(name, keys[k].name))
			return k;
	}
	return -1;
}

static int find_cost(const char *key)
{
	if (strncmp(key, "cost.", 5))
		return -1;
	for (size_t i = 0; i < SIM_COST_COUNT; i++) {
		if (!strcmp(key + 5, hvtlb_sim_cost_name(i)))
			return (int)i;
	}
	return -1;
}

void hvtlb_sim_config_init(struct hvtlb_sim_config *c)
{
	memset(c, 0, sizeof(*c));
	for (int k = 0; k < K_COUNT; k++) {
		/* Knobs take their strategy's defaults (set with it). */
		if (*keys[k].def)
			set_key(c, (enum key_id)k, keys[k].def);
	}
	for (size_t i = 0; i < SIM_COST_COUNT; i++)
		c->cost[i] = hvtlb_sim_cost_default(i);
}

static bool was_set(const struct hvtlb_sim_config *c, int k)
{
	return c->set_keys[k / 64] >> (k % 64) & 1;
}

bool sim_config_given(const struct hvtlb_sim_config *c, const char *key)
{
	int k = find_key(key);

	return k >= 0 && was_set(c, k);
}

/*
 * A bundle (`strategy` sets the strategy.* knobs, `guest.os` its model's
 * keys): the keys given by name keep their values, so that a bundle may
 * come before or after them.
 */
static int set_bundle(struct hvtlb_sim_config *c, enum key_id b,
		      const char *value)
{
	struct hvtlb_sim_config was = *c;
	char buf[128];
	int rc = set_key(c, b, value);

	if (!rc && b == K_GUEST_OS)
		rc = sim_guest_os_apply(c, c->guest_os);
	if (rc) {
		*c = was;
		return rc;
	}
	memcpy(c->set_keys, was.set_keys, sizeof(c->set_keys));
	for (int k = 0; k < K_COUNT; k++) {
		if (was_set(c, k) &&
		    (get_key(&was, (enum key_id)k, buf, sizeof(buf)) ||
		     set_key(c, (enum key_id)k, buf)))
			return -EIO; /* a value that does not read back */
	}
	return 0;
}

int hvtlb_sim_config_set(struct hvtlb_sim_config *c, const char *key,
			 const char *value)
{
	int k, i, rc;

	if (!c || !key)
		return -EINVAL;
	k = find_key(key);
	if (k == K_GUEST_OS || k == K_STRATEGY)
		return set_bundle(c, (enum key_id)k, value);
	if (k >= 0) {
		rc = set_key(c, (enum key_id)k, value);
		if (!rc)
			c->set_keys[k / 64] |= 1ull << (k % 64);
		if (!rc &&
		    (k == K_CFS || k == K_CFS_TICK || k == K_HOST_POLICY))
			sim_host_policy_follow(c);
		return rc;
	}
	i = find_cost(key);
	if (i >= 0) {
		/* "default": the library's value, whatever was set before */
		double d = hvtlb_sim_cost_default((size_t)i);
		int r = value && !strcmp(value, "default")
				? 0
				: parse_double(value, &d);

		if (r)
			return r;
		if (d < 0 || (i == SIM_COST_cpu_mhz && d <= 0))
			return -ERANGE;
		c->cost[i] = d;
		return 0;
	}
	return -ENOENT;
}

int hvtlb_sim_config_get(const struct hvtlb_sim_config *c, const char *key,
			 char *buf, size_t len)
{
	int k, i;

	if (!c || !key || !buf || !len)
		return -EINVAL;
	k = find_key(key);
	if (k >= 0)
		return get_key(c, (enum key_id)k, buf, len);
	i = find_cost(key);
	if (i >= 0)
		return get_DOUBLE(&c->cost[i], buf, len, NULL);
	return -ENOENT;
}

/* The most vCPUs a VM of the decoder's host can have. */
static uint32_t decoder_max_vps(const struct hvtlb_sim_config *c)
{
	struct hvtlb_host h = { .profile = c->decoder };

	return hvtlb_host_max_vps(&h, NULL);
}

int hvtlb_sim_config_validate(const struct hvtlb_sim_config *c,
			      const char **bad_key)
{
	return hvtlb_sim_config_check(c, bad_key, NULL);
}

int hvtlb_sim_config_check(const struct hvtlb_sim_config *c,
			   const char **bad_key, const char **reason)
{
	enum key_id k;
	const char *bad = NULL, *why = NULL;

	if (!c)
		return -EINVAL;
	k = first_bad_key(c);
	if (k != K_COUNT)
		bad = keys[k].name;
	/* Rules between keys. */
	else if (c->partition && c->pcpus % c->vms)
		bad = keys[K_PARTITION].name;
	else if (c->wl_processes > c->wl_threads)
		bad = keys[K_WL_PROCESSES].name;
	/* a trace workload replays its script: none, nothing to run */
	else if (c->workload == HVTLB_SIM_WORKLOAD_TRACE &&
		 !sim_trace_script_ok(c->wl_script))
		bad = keys[K_WL_KIND].name;
	else if (c->workload == HVTLB_SIM_WORKLOAD_TRACE &&
		 sim_trace_script_processes(c->wl_script) > c->wl_processes) {
		bad = keys[K_WL_PROCESSES].name;
		why = "fewer than the processes of the replayed threads";
	} else if (c->pcpus % c->sockets) {
		bad = keys[K_SOCKETS].name;
	} else if (c->pv_spinlock && !c->contention) {
		bad = keys[K_PV_SPINLOCK].name;
		why = "needs machine.contention (its zone and LRU locks)";
	} else if (c->pv_wait_early && !c->pv_spinlock) {
		bad = keys[K_PV_WAIT_EARLY].name;
		why = "needs guest.pv_spinlock";
	} else if (c->wl_ebizzy_always_mmap /* ebizzy: no -m with -M */ &&
		   c->wl_ebizzy_never_mmap)
		bad = keys[K_EB_NEVER_MMAP].name;
	else if (c->bare_metal && (c->vms != 1 || c->vcpus != c->pcpus))
		bad = keys[K_BARE_METAL].name;
	else if (c->bare_metal && needs_hypervisor(c->strategy.kind))
		bad = keys[K_STRATEGY].name;
	/* The send-IPI hypercalls need a hypervisor to call. */
	else if (c->bare_metal &&
		 (c->ipi_delivery == HVTLB_SIM_IPI_DELIVERY_KVM_PV ||
		  c->ipi_delivery == HVTLB_SIM_IPI_DELIVERY_HYPERV))
		bad = keys[K_IPI_DELIVERY].name;
	/* ipi_batch is the icr mode's older grouping, not a fifth mode. */
	else if (c->ipi_batch != 1 &&
		 c->ipi_delivery != HVTLB_SIM_IPI_DELIVERY_ICR)
		bad = keys[K_IPI_BATCH].name;
	else if ((uint64_t)c->vms * c->vcpus > 64u * HVTLB_SIM_MAX_VCPUS)
		bad = keys[K_VMS].name;
	/* No host builds a VM larger than its limit (Xen's HVM_MAX_VCPUS). */
	else if (c->vcpus > decoder_max_vps(c))
		bad = keys[K_VCPUS].name;
	if (!bad) /* hypervisor.cfs, cfs_tick and host_policy (host-policy.c) */
		bad = sim_host_policy_clash(c, &why);
	for (size_t i = 0; !bad && i < SIM_COST_COUNT; i++) {
		if (!isfinite(c->cost[i]) || c->cost[i] < 0 ||
		    (i == SIM_COST_cpu_mhz && c->cost[i] <= 0))
			bad = cost_keys[i];
	}
	if (!bad) {
		/* The arena of one process must fit the simulator's page
		 * tables: threads x pages x 2 pages of page-table entries. */
		uint64_t per = (uint64_t)c->wl_pages *
			       sim_workload_threads_per_process(c);
		if (per > (1ULL << 26))
			bad = keys[K_WL_PAGES].name;
	}
	if (!bad) /* guest.kernel and machine.backing (gate.c) */
		bad = sim_gate_refused(c, &why);
	if (reason)
		*reason = bad ? why : NULL;
	if (bad) {
		if (bad_key)
			*bad_key = bad;
		return -ERANGE;
	}
	return 0;
}

unsigned hvtlb_sim_config_warnings(const struct hvtlb_sim_config *c)
{
	unsigned w = 0;

	/* every strategy's remote set honours lazy_skip (the broadcast
	 * one's IPI fallback too) */
	if (c && c->strategy.lazy_skip && !c->tlb_gen)
		w |= HVTLB_SIM_WARN_NO_CATCH_UP;
	return w;
}

const char *hvtlb_sim_config_key_name(size_t i)
{
	if (i < K_COUNT)
		return keys[i].name;
	i -= K_COUNT;
	if (i < SIM_COST_COUNT)
		return cost_keys[i];
	return NULL;
}

size_t hvtlb_sim_key_count(void)
{
	return K_COUNT;
}

const struct hvtlb_sim_key *hvtlb_sim_key_at(size_t i)
{
	return i < K_COUNT ? &keys[i] : NULL;
}

const struct hvtlb_sim_key *hvtlb_sim_key_find(const char *name)
{
	int k = name ? find_key(name) : -1;

	return k >= 0 ? &keys[k] : NULL;
}

const char *hvtlb_sim_key_value(const struct hvtlb_sim_key *k, size_t i)
{
	if (!k)
		return NULL;
	if (!strcmp(k->type, "FAULT"))
		return i < NAMES(fault_names) ? fault_names[i] : NULL;
	if (!strcmp(k->type, "STRATEGY"))
		return i < HVTLB_STRATEGY_COUNT_
			       ? hvtlb_strategy_name(
					 (enum hvtlb_strategy_kind)i)
			       : NULL;
	if (!strcmp(k->type, "PROFILE"))
		return i < HVTLB_PROFILE_COUNT_
			       ? hvtlb_profile_name((enum hvtlb_profile)i)
			       : NULL;
	if (!strcmp(k->type, "WORKLOAD"))
		return i < NAMES(workload_names) ? workload_names[i] : NULL;
	if (!strcmp(k->type, "GUEST_OS"))
		return i < NAMES(guest_os_names) ? guest_os_names[i] : NULL;
	if (!strcmp(k->type, "HOST_POLICY"))
		return i < NAMES(host_policy_names) ? host_policy_names[i]
						    : NULL;
	if (!strcmp(k->type, "TOUCH"))
		return i < NAMES(touch_names) ? touch_names[i] : NULL;
	if (!strcmp(k->type, "PAGE_SIZE"))
		return i < NAMES(page_size_names) ? page_size_names[i] : NULL;
	if (!strcmp(k->type, "GOVERNOR"))
		return i < NAMES(governor_names) ? governor_names[i] : NULL;
	if (!strcmp(k->type, "IDLE"))
		return i < NAMES(guest_idle_names) ? guest_idle_names[i] : NULL;
	if (!strcmp(k->type, "IPI_DELIVERY"))
		return i < NAMES(ipi_delivery_names) ? ipi_delivery_names[i]
						     : NULL;
	if (!strcmp(k->type, "BACKING"))
		return i < NAMES(backing_names) ? backing_names[i] : NULL;
	if (!strcmp(k->type, "KNOB")) {
		/* A boolean knob reads "true" or "false". */
		struct hvtlb_strategy_config sc;
		char buf[32];

		hvtlb_strategy_config_init(&sc, HVTLB_STRATEGY_IPI);
		if (hvtlb_strategy_config_get(&sc,
					      k->name + strlen("strategy."),
					      buf, sizeof(buf)) ||
		    (strcmp(buf, "true") && strcmp(buf, "false")))
			return NULL;
	} else if (strcmp(k->type, "BOOL")) {
		return NULL;
	}
	return i < 2 ? (i ? "true" : "false") : NULL;
}

const char *hvtlb_sim_backing_name(enum hvtlb_sim_backing b)
{
	return (unsigned)b < NAMES(backing_names) ? backing_names[b] : NULL;
}

const char *hvtlb_sim_fault_name(enum hvtlb_sim_fault f)
{
	return (unsigned)f < HVTLB_SIM_FAULT_COUNT_ ? fault_names[f] : NULL;
}

const char *hvtlb_sim_guest_os_name(enum hvtlb_sim_guest_os os)
{
	return (unsigned)os < HVTLB_SIM_GUEST_OS_COUNT_ ? guest_os_names[os]
							: NULL;
}

const char *hvtlb_sim_workload_name(enum hvtlb_sim_workload w)
{
	return (unsigned)w < HVTLB_SIM_WORKLOAD_COUNT_ ? workload_names[w]
						       : NULL;
}

const char *hvtlb_sim_host_policy_name(enum hvtlb_sim_host_policy p)
{
	return (unsigned)p < HVTLB_SIM_HOST_POLICY_COUNT_ ? host_policy_names[p]
							  : NULL;
}
