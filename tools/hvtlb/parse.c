// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "parse.h"

static int digit_value(char c, unsigned base)
{
	unsigned v;

	if (c >= '0' && c <= '9')
		v = (unsigned)(c - '0');
	else if (c >= 'a' && c <= 'f')
		v = (unsigned)(c - 'a' + 10);
	else if (c >= 'A' && c <= 'F')
		v = (unsigned)(c - 'A' + 10);
	else
		return -1;
	return v < base ? (int)v : -1;
}

/* Parses s[0 .. n) in @p base; n > 0. */
static int parse_digits(const char *s, size_t n, unsigned base, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		int d = digit_value(s[i], base);
		if (d < 0)
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return -ERANGE;
		v = v * base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

static int parse_u64_n(const char *s, size_t n, uint64_t *out)
{
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return parse_digits(s + 2, n - 2, 16, out);
	return parse_digits(s, n, 10, out);
}

int parse_u64(const char *s, uint64_t *out)
{
	if (!s)
		return -EINVAL;
	return parse_u64_n(s, strlen(s), out);
}

int parse_hex_u64(const char *s, uint64_t *out)
{
	size_t n;

	if (!s)
		return -EINVAL;
	n = strlen(s);
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return parse_digits(s + 2, n - 2, 16, out);
	return parse_digits(s, n, 16, out);
}

int parse_u64_max(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int rc = parse_u64(s, &v);

	if (rc)
		return rc;
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };

	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

int parse_index_list(const char *s, uint64_t *bits, uint32_t nbits)
{
	size_t words = (nbits + 63) / 64;

	if (!s || !*s)
		return -EINVAL;
	memset(bits, 0, words * sizeof(*bits));
	while (*s) {
		const char *comma = strchr(s, ',');
		size_t n = comma ? (size_t)(comma - s) : strlen(s);
		const char *dash = memchr(s, '-', n);
		uint64_t lo, hi;
		int rc;

		if (dash) {
			rc = parse_u64_n(s, (size_t)(dash - s), &lo);
			if (!rc)
				rc = parse_u64_n(dash + 1,
						 n - (size_t)(dash - s) - 1,
						 &hi);
		} else {
			rc = parse_u64_n(s, n, &lo);
			hi = lo;
		}
		if (rc)
			return rc;
		if (hi < lo)
			return -EINVAL;
		if (hi >= nbits)
			return -ERANGE;
		for (uint64_t i = lo; i <= hi; i++)
			bits[i / 64] |= 1ULL << (i % 64);
		if (!comma)
			break;
		s = comma + 1;
		if (!*s)
			return -EINVAL; /* trailing comma */
	}
	return 0;
}

int parse_page_size(const char *s, unsigned *shift)
{
	if (!s)
		return -EINVAL;
	if (!strcasecmp(s, "4k"))
		*shift = 12;
	else if (!strcasecmp(s, "2m"))
		*shift = 21;
	else if (!strcasecmp(s, "1g"))
		*shift = 30;
	else
		return -EINVAL;
	return 0;
}
