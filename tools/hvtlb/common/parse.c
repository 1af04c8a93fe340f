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

/* Parses one "N" or "LO-HI" item of s[0 .. n) into *lo and *hi. */
static int parse_index_item(const char *s, size_t n, uint64_t *lo, uint64_t *hi)
{
	const char *dash = memchr(s, '-', n);
	size_t left;
	int rc;

	if (!dash) {
		rc = parse_u64_n(s, n, lo);
		*hi = *lo;
		return rc;
	}
	left = (size_t)(dash - s);
	rc = parse_u64_n(s, left, lo);
	if (!rc)
		rc = parse_u64_n(dash + 1, n - left - 1, hi);
	if (!rc && *hi < *lo)
		rc = -EINVAL;
	return rc;
}

/*
 * Two passes over the list: the first checks every item, the second sets
 * the bits, so that @p bits is written only when the whole list is good.
 */
int parse_index_list(const char *s, uint64_t *bits, uint32_t nbits)
{
	size_t words = ((size_t)nbits + 63) / 64;

	if (!s || !*s)
		return -EINVAL;
	for (int pass = 0; pass < 2; pass++) {
		const char *p = s;
		int range_rc = 0;

		if (pass == 1)
			memset(bits, 0, words * sizeof(*bits));
		for (;;) {
			const char *comma = strchr(p, ',');
			size_t n = comma ? (size_t)(comma - p) : strlen(p);
			uint64_t lo, hi;
			int rc = parse_index_item(p, n, &lo, &hi);

			if (rc)
				return rc;
			if (hi >= nbits) {
				/* Syntax errors later in the list win. */
				range_rc = -ERANGE;
			} else if (pass == 1) {
				for (uint64_t i = lo; i <= hi; i++)
					bits[i / 64] |= 1ULL << (i % 64);
			}
			if (!comma)
				break;
			p = comma + 1;
		}
		if (range_rc)
			return range_rc;
	}
	return 0;
}

/* An address of s[0 .. n) for parse_range(): hexadecimal, with 0x unless
 * no one could read it as decimal. */
static int parse_address(const char *s, size_t n, uint64_t *out)
{
	size_t decimal = 0;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		return parse_digits(s + 2, n - 2, 16, out);
	while (decimal < n && s[decimal] >= '0' && s[decimal] <= '9')
		decimal++;
	/* "1000": hvtlb plan read it as decimal, hvtlb encode as hex. */
	if (n > 1 && decimal == n) {
		uint64_t v;

		return parse_digits(s, n, 10, &v) ? -ERANGE : -EDOM;
	}
	return parse_digits(s, n, 16, out);
}

int parse_range(const char *s, struct parse_range *r,
		struct parse_range_error *err)
{
	struct parse_range v = { 0 };
	struct parse_range_error e = { PARSE_RANGE_FORM, 0, 0 };
	const char *sep, *right;
	int rc = -EINVAL;

	if (!s)
		goto fail;
	e.len = strlen(s);
	if (!strcmp(s, "all")) {
		*r = (struct parse_range){ .all = true };
		return 0;
	}
	sep = s + strcspn(s, "+-");
	right = sep + (*sep ? 1 : 0);
	if (!*sep || sep == s || !*right)
		goto fail;
	e.part = PARSE_RANGE_START;
	e.len = (size_t)(sep - s);
	rc = parse_address(s, e.len, &v.start);
	if (rc)
		goto fail;
	e.at = (size_t)(right - s);
	e.len = strlen(right);
	if (*sep == '+') {
		e.part = PARSE_RANGE_PAGES;
		rc = parse_u64(right, &v.pages);
		if (!rc && !v.pages)
			rc = -EINVAL;
	} else {
		e.part = PARSE_RANGE_END;
		rc = parse_address(right, e.len, &v.end);
		if (!rc && v.end < v.start) {
			e.part = PARSE_RANGE_ORDER;
			rc = -EINVAL;
		}
	}
	if (rc)
		goto fail;
	*r = v;
	return 0;
fail:
	if (err)
		*err = e;
	return rc;
}

int parse_range_bytes(const struct parse_range *r, unsigned shift,
		      uint64_t *start, uint64_t *end)
{
	if (r->all || shift > 63)
		return -EINVAL;
	if (!r->pages) {
		*start = r->start;
		*end = r->end;
		return 0;
	}
	if (r->pages > (UINT64_MAX - r->start) >> shift)
		return -ERANGE;
	*start = r->start;
	*end = r->start + (r->pages << shift);
	return 0;
}

int parse_range_pages(const struct parse_range *r, unsigned shift,
		      uint64_t *gva, uint64_t *pages)
{
	uint64_t first;

	if (r->all || shift > 63)
		return -EINVAL;
	if (r->pages) {
		*gva = r->start;
		*pages = r->pages;
		return 0;
	}
	if (r->end == r->start)
		return -EINVAL;
	first = r->start >> shift;
	*gva = first << shift;
	*pages = ((r->end - 1) >> shift) - first + 1;
	return 0;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

/* One pass of parse_hex_words(); stores the words only when out != NULL. */
static int scan_hex_words(const char *s, uint64_t *out, size_t max,
			  size_t *count)
{
	size_t n = 0;
	bool need_word = false; /* after a comma */

	for (;;) {
		size_t len = 0;
		uint64_t v;
		int rc;

		while (*s && (is_space(*s) || *s == '#')) {
			if (*s == '#') {
				while (*s && *s != '\n')
					s++;
			} else {
				s++;
			}
		}
		if (!*s || *s == ',') {
			if (need_word || *s == ',')
				return -EINVAL; /* empty item */
			break;
		}
		while (s[len] && s[len] != ',' && s[len] != '#' &&
		       !is_space(s[len]))
			len++;
		if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			rc = parse_digits(s + 2, len - 2, 16, &v);
		else
			rc = parse_digits(s, len, 16, &v);
		if (rc)
			return rc;
		if (n == max)
			return -E2BIG;
		if (out)
			out[n] = v;
		n++;
		s += len;
		while (*s && is_space(*s))
			s++;
		need_word = *s == ',';
		if (need_word)
			s++;
	}
	*count = n;
	return 0;
}

int parse_hex_words(const char *s, uint64_t *out, size_t max, size_t *count)
{
	size_t n;
	int rc;

	if (!s)
		return -EINVAL;
	rc = scan_hex_words(s, NULL, max, &n);
	if (!rc)
		rc = scan_hex_words(s, out, max, &n);
	if (!rc)
		*count = n;
	return rc;
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
