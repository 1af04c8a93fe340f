// SPDX-License-Identifier: MIT
/*
 * Fuzzes the CLI's strict parsers (tools/hvtlb/common/parse.c, linked directly).
 * Input: [0] picks nbits / max for the list parsers, the rest is the text
 * (up to the first NUL). Output buffers are allocated to their exact size,
 * so ASan sees a write past them; parsers must write nothing on failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "fuzz.h"

#define POISON 0x5a5a5a5a5a5a5a5aULL

static void check_u64(const char *s)
{
	uint64_t v = POISON, w = POISON, m;
	char buf[32];
	int rc = parse_u64(s, &v);

	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE);
	if (rc) {
		FUZZ_CHECK(v == POISON);
		return;
	}
	/* The value prints and parses back, in both bases. */
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	FUZZ_CHECK(parse_u64(buf, &w) == 0 && w == v);
	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	FUZZ_CHECK(parse_u64(buf, &w) == 0 && w == v);
	FUZZ_CHECK(parse_hex_u64(buf, &w) == 0 && w == v);
	/* parse_u64_max agrees at, below and above the value. */
	FUZZ_CHECK(parse_u64_max(s, v, &m) == 0 && m == v);
	if (v) {
		m = POISON;
		FUZZ_CHECK(parse_u64_max(s, v - 1, &m) == -ERANGE);
		FUZZ_CHECK(m == POISON);
	}
}

static void check_hex(const char *s)
{
	uint64_t v = POISON, w;
	char buf[32];
	int rc = parse_hex_u64(s, &v);

	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE);
	if (rc) {
		FUZZ_CHECK(v == POISON);
		return;
	}
	snprintf(buf, sizeof(buf), "%" PRIx64, v);
	FUZZ_CHECK(parse_hex_u64(buf, &w) == 0 && w == v);
}

static void check_list(const char *s, uint32_t nbits)
{
	size_t words = (nbits + 63) / 64;
	uint64_t *bits = malloc(words * sizeof(*bits));
	int rc;

	if (!bits)
		return;
	for (size_t i = 0; i < words; i++)
		bits[i] = POISON;
	rc = parse_index_list(s, bits, nbits);
	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE);
	if (rc) {
		for (size_t i = 0; i < words; i++)
			FUZZ_CHECK(bits[i] == POISON);
	} else if (nbits % 64) {
		FUZZ_CHECK((bits[words - 1] >> (nbits % 64)) == 0);
	}
	free(bits);
}

static void check_words(const char *s, size_t max)
{
	uint64_t *out = malloc((max ? max : 1) * sizeof(*out));
	size_t count = POISON;
	int rc;

	if (!out)
		return;
	rc = parse_hex_words(s, out, max, &count);
	FUZZ_CHECK(rc <= 0);
	if (!rc)
		FUZZ_CHECK(count <= max);
	free(out);
}

/* A range reads back as printed, and START+PAGES covers the same pages
 * as the START-END it stands for. */
static void check_range(const char *s)
{
	struct parse_range r, q;
	struct parse_range_error e;
	uint64_t a, b, g, n;
	char buf[64];
	int rc = parse_range(s, &r, &e);

	FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE || rc == -EDOM);
	if (rc) {
		FUZZ_CHECK(e.at + e.len <= strlen(s));
		return;
	}
	if (r.all)
		return;
	FUZZ_CHECK(r.pages || r.start <= r.end);
	if (r.pages)
		snprintf(buf, sizeof(buf), "0x%" PRIx64 "+%" PRIu64, r.start,
			 r.pages);
	else
		snprintf(buf, sizeof(buf), "0x%" PRIx64 "-0x%" PRIx64, r.start,
			 r.end);
	FUZZ_CHECK(parse_range(buf, &q, NULL) == 0 && q.start == r.start &&
		   q.end == r.end && q.pages == r.pages && !q.all);
	for (unsigned shift = 12; shift <= 30; shift += 9) {
		uint64_t mask = (1ULL << shift) - 1;

		if (!r.pages || parse_range_bytes(&r, shift, &a, &b))
			continue;
		q = (struct parse_range){ .start = a, .end = b };
		FUZZ_CHECK(parse_range_pages(&q, shift, &g, &n) == 0);
		FUZZ_CHECK(g == (a & ~mask) &&
			   n == r.pages + ((a & mask) ? 1 : 0));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned shift;
	char *s;

	if (size < 1)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';

	check_u64(s);
	check_hex(s);
	check_list(s, 1 + (uint32_t)data[0] * 16); /* 1..4081 bits */
	check_list(s, 4096);
	check_words(s, data[0] % 8);
	if (!parse_page_size(s, &shift))
		FUZZ_CHECK(shift == 12 || shift == 21 || shift == 30);
	check_range(s);
	free(s);
	return 0;
}
