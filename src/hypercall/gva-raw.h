/* SPDX-License-Identifier: MIT */
/*
 * One vector-width instance of the fast path of hvtlb_gva_iter_fill_raw(),
 * included by decode.c once per width it builds. Before including, define:
 *   GVA_RAW_FN      the function's name
 *   GVA_RAW_ATTR    attributes for it (for example a target ISA), or nothing
 *   GVA_RAW_VEC     a GCC vector type of uint64_t
 *   GVA_RAW_UVEC    the same type with alignment 1
 *   GVA_RAW_VW      the entries in one GVA_RAW_VEC
 *   GVA_RAW_ANY(v)  the or of the lanes of GVA_RAW_VEC v, as a uint64_t
 *
 * GVA_RAW_FN(dst, src, count, low_bits) copies simple-format entries from
 * @p src to @p dst while each is below 2^(low_bits + 12) - 2^24, so that
 * even 4096 pages from it stay in the lower half, and returns how many (at
 * most @p count); @p dst may be written past that, within @p count.
 * (e + 2^24) | e has a bit at or above low_bits + 12 set exactly when e is
 * not below that bound (the | catches the wrap of e near 2^64).
 *
 * The first entries go one by one until @p dst is aligned to the vector
 * (a store that splits a cache line costs two). Then 32 entries per step,
 * with the test of up to GVA_RAW_CHUNK of them folded into one branch at
 * the end: folding the lanes is a chain of shuffles, too slow to pay every
 * 32 entries. A chunk that fails is redone one vector at a time, and so
 * are the whole vectors left at the end. Adds and ors only, on one load
 * of each entry: the value checked is the value stored. The loads are
 * volatile because nothing else stops a compiler from loading the guest's
 * bytes again for the store (GCC 12 does so in the 64-byte instance).
 */
#define GVA_RAW_CHUNK 256u
#define GVA_RAW_LOAD(p) (*(const volatile GVA_RAW_UVEC *)(const void *)(p))

GVA_RAW_ATTR static size_t GVA_RAW_FN(uint64_t *dst, const uint8_t *src,
				      size_t count, unsigned low_bits)
{
	const GVA_RAW_VEC carry = (GVA_RAW_VEC){ 0 } + (1ULL << 24);
	const GVA_RAW_VEC zero = { 0 };
	size_t i = 0;

	/* One by one until @p dst is aligned to the vector. */
	while (i < count &&
	       ((uintptr_t)(dst + i) & (sizeof(GVA_RAW_VEC) - 1))) {
		uint64_t e = hv_ld64_once(src + 8 * i);

		if ((e | (e + (1ULL << 24))) >> (low_bits + 12))
			return i;
		dst[i++] = e;
	}
	/* A value stored before its chunk's test fails lies past the count
	 * returned. Two accumulators, so that the ors do not form one
	 * chain. */
	while (count - i >= 32) {
		size_t start = i, end = count - (count - i) % 32;
		GVA_RAW_VEC a = zero, b = zero;

		if (end - i > GVA_RAW_CHUNK)
			end = i + GVA_RAW_CHUNK;
		for (; i < end; i += 32) {
			for (unsigned k = 0; k < 32; k += 2 * GVA_RAW_VW) {
				GVA_RAW_VEC v = GVA_RAW_LOAD(src + 8 * (i + k));
				GVA_RAW_VEC w = GVA_RAW_LOAD(
					src + 8 * (i + k + GVA_RAW_VW));

				a |= v | (v + carry);
				b |= w | (w + carry);
				memcpy(dst + i + k, &v, sizeof(v));
				memcpy(dst + i + k + GVA_RAW_VW, &w, sizeof(w));
			}
		}
		a = (a | b) >> (low_bits + 12);
		if (GVA_RAW_ANY(a)) {
			i = start;
			break;
		}
	}
	/* The chunk that failed, or the rest, one vector at a time. */
	for (; count - i >= GVA_RAW_VW; i += GVA_RAW_VW) {
		GVA_RAW_VEC v = GVA_RAW_LOAD(src + 8 * i), t;

		t = (v | (v + carry)) >> (low_bits + 12);
		if (GVA_RAW_ANY(t))
			break;
		memcpy(dst + i, &v, sizeof(v));
	}
	return i;
}

#undef GVA_RAW_CHUNK
#undef GVA_RAW_LOAD
#undef GVA_RAW_FN
#undef GVA_RAW_ATTR
#undef GVA_RAW_VEC
#undef GVA_RAW_UVEC
#undef GVA_RAW_VW
#undef GVA_RAW_ANY
