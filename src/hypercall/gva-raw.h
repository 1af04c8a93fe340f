/* SPDX-License-Identifier: MIT */
/*
 * One vector-width instance of the fast path of hvtlb_gva_iter_fill_raw(),
 * included by decode.c once per width it builds. Before including, define:
 *   GVA_RAW_FN    the function's name
 *   GVA_RAW_ATTR  attributes for it (for example a target ISA), or nothing
 *   GVA_RAW_VEC   a GCC vector type of uint64_t
 *   GVA_RAW_UVEC  the same type with alignment 1
 *   GVA_RAW_VW    the entries in one GVA_RAW_VEC
 *
 * GVA_RAW_FN(dst, src, count, low_bits) copies simple-format entries from
 * @p src to @p dst, 32 at a time while all 32 are below
 * 2^(low_bits + 12) - 2^24, so that even 4096 pages from any of them stay
 * in the lower half, then one vector at a time; returns how many (a
 * multiple of GVA_RAW_VW, at most @p count); @p dst may be written past
 * that, within @p count. (e + 2^24) | e has a bit at or above
 * low_bits + 12 set exactly when e is not below that bound (the | catches
 * the wrap of e near 2^64). Adds and ors only, on one load of each entry:
 * the value checked is the value stored. The loads are volatile because
 * nothing else stops a compiler from loading the guest's bytes again for
 * the store.
 */
#define GVA_RAW_LOAD(p) (*(const volatile GVA_RAW_UVEC *)(const void *)(p))

GVA_RAW_ATTR static size_t GVA_RAW_FN(uint64_t *dst, const uint8_t *src,
				      size_t count, unsigned low_bits)
{
	const GVA_RAW_VEC carry = (GVA_RAW_VEC){ 0 } + (1ULL << 24);
	const GVA_RAW_VEC zero = { 0 };
	size_t i = 0;

	/* 32 entries per step, one test at the end: a value stored before
	 * the test fails lies past the count returned. Two accumulators, so
	 * that the ors do not form one chain. */
	for (; count - i >= 32; i += 32) {
		GVA_RAW_VEC a = zero, b = zero;

		for (unsigned k = 0; k < 32; k += 2 * GVA_RAW_VW) {
			GVA_RAW_VEC v = GVA_RAW_LOAD(src + 8 * (i + k));
			GVA_RAW_VEC w =
				GVA_RAW_LOAD(src + 8 * (i + k + GVA_RAW_VW));

			a |= v | (v + carry);
			b |= w | (w + carry);
			memcpy(dst + i + k, &v, sizeof(v));
			memcpy(dst + i + k + GVA_RAW_VW, &w, sizeof(w));
		}
		a = (a | b) >> (low_bits + 12);
		for (unsigned k = 1; k < GVA_RAW_VW; k++)
			a[0] |= a[k];
		if (a[0])
			break;
	}
	/* The rest (or the block that failed), one vector at a time. */
	for (; count - i >= GVA_RAW_VW; i += GVA_RAW_VW) {
		GVA_RAW_VEC v = GVA_RAW_LOAD(src + 8 * i), t;

		t = (v | (v + carry)) >> (low_bits + 12);
		for (unsigned k = 1; k < GVA_RAW_VW; k++)
			t[0] |= t[k];
		if (t[0])
			break;
		memcpy(dst + i, &v, sizeof(v));
	}
	return i;
}

#undef GVA_RAW_LOAD
#undef GVA_RAW_FN
#undef GVA_RAW_ATTR
#undef GVA_RAW_VEC
#undef GVA_RAW_UVEC
#undef GVA_RAW_VW
