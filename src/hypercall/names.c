// SPDX-License-Identifier: MIT
/* Names of call codes, status codes, flags and profiles, from the X-macro
 * lists in hvtlb/hypercall.h so that values and names cannot drift. */
#include <hvtlb/hypercall.h>

const char *hvtlb_call_name(uint16_t code)
{
	switch (code) {
#define X(n, c, s)                                                             \
	case c:                                                                \
		return s;
		HVTLB_CALL_MAP(X)
#undef X
	}
	return NULL;
}

static bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

uint16_t hvtlb_call_from_name(const char *name)
{
	if (!name)
		return 0;
#define X(n, c, s)                                                             \
	if (str_eq(name, s))                                                   \
		return c;
	HVTLB_CALL_MAP(X)
#undef X
	return 0;
}

bool hvtlb_call_is_rep(uint16_t code)
{
	return code == HVTLB_CALL_FLUSH_LIST ||
	       code == HVTLB_CALL_FLUSH_LIST_EX;
}

bool hvtlb_call_is_ex(uint16_t code)
{
	return code == HVTLB_CALL_FLUSH_SPACE_EX ||
	       code == HVTLB_CALL_FLUSH_LIST_EX ||
	       code == HVTLB_CALL_SEND_IPI_EX;
}

bool hvtlb_call_is_flush(uint16_t code)
{
	return code == HVTLB_CALL_FLUSH_SPACE ||
	       code == HVTLB_CALL_FLUSH_LIST ||
	       code == HVTLB_CALL_FLUSH_SPACE_EX ||
	       code == HVTLB_CALL_FLUSH_LIST_EX;
}

const char *hvtlb_status_name(hvtlb_status status)
{
	switch (status) {
#define X(n, v)                                                                \
	case v:                                                                \
		return "HV_STATUS_" #n;
		HVTLB_STATUS_MAP(X)
#undef X
	}
	return NULL;
}

const char *hvtlb_flush_flag_name(uint64_t bit)
{
	switch (bit) {
#define X(n, v, s)                                                             \
	case v:                                                                \
		return s;
		HVTLB_FLUSH_FLAG_MAP(X)
#undef X
	}
	return NULL;
}

static const char *const profile_names[] = {
#define X(n, s, src) [HVTLB_PROFILE_##n] = s,
	HVTLB_PROFILE_MAP(X)
#undef X
};

static const char *const profile_sources[] = {
#define X(n, s, src) [HVTLB_PROFILE_##n] = src,
	HVTLB_PROFILE_MAP(X)
#undef X
};

const char *hvtlb_profile_name(enum hvtlb_profile p)
{
	if ((unsigned)p >= HVTLB_PROFILE_COUNT_)
		return NULL;
	return profile_names[p];
}

const char *hvtlb_profile_source(enum hvtlb_profile p)
{
	if ((unsigned)p >= HVTLB_PROFILE_COUNT_)
		return NULL;
	return profile_sources[p];
}

int hvtlb_profile_from_name(const char *name, enum hvtlb_profile *p)
{
	if (!name || !p)
		return -HVTLB_EINVAL;
	for (unsigned i = 0; i < HVTLB_PROFILE_COUNT_; i++) {
		if (str_eq(name, profile_names[i])) {
			*p = (enum hvtlb_profile)i;
			return 0;
		}
	}
	/* The name used before the two OpenVMM backings were told apart. */
	if (str_eq(name, "openvmm")) {
		*p = HVTLB_PROFILE_OPENVMM;
		return 0;
	}
	return -HVTLB_EINVAL;
}
