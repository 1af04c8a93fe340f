/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the hypercall tests: little-endian input builders that
 * follow docs/wire-format.md byte by byte (independent of the library's
 * own helpers), a
 * small seeded generator and a decoder front end that hands the decoder an
 * allocation exactly the size of the span, so ASan sees any over-read.
 */
#ifndef HVTLB_TEST_HC_TEST_H
#define HVTLB_TEST_HC_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hvtlb/hypercall.h>

static inline void le64_put(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint64_t le64_get(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static inline uint32_t le32_get(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* An input image built word by word. */
struct img {
	uint8_t b[2 * HVTLB_PAGE_BYTES];
	size_t len;
};

static inline void img_reset(struct img *im)
{
	memset(im, 0, sizeof(*im));
}

static inline void img_word(struct img *im, uint64_t v)
{
	le64_put(im->b + im->len, v);
	im->len += 8;
}

static inline void img_words(struct img *im, size_t n, ...)
{
	va_list ap;

	va_start(ap, n);
	for (size_t i = 0; i < n; i++)
		img_word(im, va_arg(ap, uint64_t));
	va_end(ap);
}

static inline uint64_t ctl_word(uint16_t code, bool fast, unsigned varhead,
				unsigned reps, unsigned start)
{
	return (uint64_t)code | (fast ? HVTLB_CTL_FAST : 0) |
	       ((uint64_t)varhead << HVTLB_CTL_VARHEAD_SHIFT) |
	       ((uint64_t)reps << HVTLB_CTL_REP_COUNT_SHIFT) |
	       ((uint64_t)start << HVTLB_CTL_REP_START_SHIFT);
}

/* Simple-format GVA entry: page number and additional pages. */
static inline uint64_t gva_simple(uint64_t gva, unsigned extra)
{
	return (gva & ~0xfffULL) | extra;
}

/* Decodes im->b[0 .. im->len) from a heap copy of exactly that size. */
static inline uint64_t decode_exact(const struct hvtlb_host *h, uint64_t ctl,
				    const uint8_t *data, size_t len,
				    uint64_t gpa, struct hvtlb_decoded *out)
{
	uint8_t *copy = malloc(len ? len : 1);
	struct hvtlb_input in;
	uint64_t r;

	if (!copy)
		abort();
	if (len)
		memcpy(copy, data, len);
	in.data = copy;
	in.len = len;
	in.gpa = gpa;
	memset(out, 0xa5, sizeof(*out));
	r = hvtlb_decode(h, ctl, &in, out);
	free(copy);
	return r;
}

/* The views in @p out point into the (freed) copy after decode_exact(), so
 * callers that iterate GVAs use this variant with their own buffer. */
static inline uint64_t decode_buf(const struct hvtlb_host *h, uint64_t ctl,
				  const uint8_t *data, size_t len, uint64_t gpa,
				  struct hvtlb_decoded *out)
{
	struct hvtlb_input in = { .data = data, .len = len, .gpa = gpa };

	memset(out, 0xa5, sizeof(*out));
	return hvtlb_decode(h, ctl, &in, out);
}

/* splitmix64: the tests' only source of randomness (seeded, no rand()). */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return n ? rng_next(s) % n : 0;
}

#endif
