// SPDX-License-Identifier: MIT
/* Strategy names and knobs. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <hvtlb/core.h>

/* Default INVLPGB page count per instruction: a parameter, since the
 * limit is what CPUID 0x80000008 EDX[15:0] reports on a given part. */
#define DEFAULT_BROADCAST_MAX_PAGES 8u
/* Linux's tlb_single_page_flush_ceiling (Documentation/arch/x86/tlb.rst). */
#define DEFAULT_FULL_FLUSH_CEILING 33u

static const char *const strategy_names[] = {
#define HVTLB_X_(n, s) [HVTLB_STRATEGY_##n] = s,
	HVTLB_STRATEGY_MAP(HVTLB_X_)
#undef HVTLB_X_
};

const char *hvtlb_strategy_name(enum hvtlb_strategy_kind k)
{
	if ((unsigned)k >= HVTLB_STRATEGY_COUNT_)
		return NULL;
	return strategy_names[k];
}

int hvtlb_strategy_from_name(const char *name, enum hvtlb_strategy_kind *k)
{
	if (!name || !k)
		return -EINVAL;
	for (unsigned i = 0; i < HVTLB_STRATEGY_COUNT_; i++) {
		if (!strcmp(name, strategy_names[i])) {
			*k = (enum hvtlb_strategy_kind)i;
			return 0;
		}
	}
	return -EINVAL;
}

void hvtlb_strategy_config_init(struct hvtlb_strategy_config *c,
				enum hvtlb_strategy_kind kind)
{
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	/* Linux since 5.13 sends the IPIs first, then flushes locally. */
	c->concurrent = true;
	c->early_ack = false;
	c->lazy_skip = true;
	c->full_flush_ceiling = DEFAULT_FULL_FLUSH_CEILING;
	/* Linux's Hyper-V flush: memory input, 2^n-1 bank masks, simple
	 * GVA entries. */
	c->xmm_fast = false;
	c->compact_vpset = false;
	c->extended_ranges = false;
	c->broadcast_max_pages = DEFAULT_BROADCAST_MAX_PAGES;
}

/* The words every boolean key takes, true then false, in any case. */
static const char *const bool_words[] = {
	"true", "false", "on", "off", "yes", "no", "1", "0",
};

const char *hvtlb_bool_word(size_t i)
{
	return i < sizeof(bool_words) / sizeof(bool_words[0]) ? bool_words[i]
							      : NULL;
}

int hvtlb_parse_bool(const char *s, bool *out)
{
	const char *w;

	if (!s || !out)
		return -EINVAL;
	for (size_t i = 0; (w = hvtlb_bool_word(i)); i++) {
		if (!strcasecmp(s, w)) {
			*out = !(i & 1);
			return 0;
		}
	}
	return -EINVAL;
}

/* Decimal 1..UINT32_MAX, no sign, no spaces. */
static int parse_count(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return -EINVAL;
	}
	if (v == 0)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

#define BOOL_KNOB(name)                                                        \
	{                                                                      \
#name, offsetof(struct hvtlb_strategy_config, name), true      \
	}
#define COUNT_KNOB(name)                                                       \
	{                                                                      \
#name, offsetof(struct hvtlb_strategy_config, name), false     \
	}

static const struct {
	const char *key;
	size_t offset;
	bool is_bool;
} knobs[] = {
	BOOL_KNOB(concurrent),	    BOOL_KNOB(early_ack),
	BOOL_KNOB(lazy_skip),	    COUNT_KNOB(full_flush_ceiling),
	BOOL_KNOB(xmm_fast),	    BOOL_KNOB(compact_vpset),
	BOOL_KNOB(extended_ranges), COUNT_KNOB(broadcast_max_pages),
};

int hvtlb_strategy_config_set(struct hvtlb_strategy_config *c, const char *key,
			      const char *value)
{
	if (!c || !key || !value)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		char *field = (char *)c + knobs[i].offset;
		bool b;
		uint32_t n;

		if (strcmp(key, knobs[i].key))
			continue;
		if (knobs[i].is_bool) {
			if (hvtlb_parse_bool(value, &b))
				return -EINVAL;
			memcpy(field, &b, sizeof(b));
		} else {
			if (parse_count(value, &n))
				return -EINVAL;
			memcpy(field, &n, sizeof(n));
		}
		return 0;
	}
	return -ENOENT;
}

int hvtlb_strategy_config_get(const struct hvtlb_strategy_config *c,
			      const char *key, char *buf, size_t len)
{
	if (!c || !key || !buf || !len)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		const char *field = (const char *)c + knobs[i].offset;
		bool b;
		uint32_t n;
		int w;

		if (strcmp(key, knobs[i].key))
			continue;
		if (knobs[i].is_bool) {
			memcpy(&b, field, sizeof(b));
			w = snprintf(buf, len, "%s", b ? "true" : "false");
		} else {
			memcpy(&n, field, sizeof(n));
			w = snprintf(buf, len, "%u", n);
		}
		return w < 0 || (size_t)w >= len ? -ENOSPC : 0;
	}
	return -ENOENT;
}
