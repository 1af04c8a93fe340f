/* SPDX-License-Identifier: MIT */
/*
 * Private helpers of the wire-format layer: little-endian loads and stores
 * that do not depend on host byte order or alignment, a SWAR popcount (no
 * libgcc call), and the fixed sizes of the six call layouts.
 */
#ifndef HVTLB_HYPERCALL_WIRE_H
#define HVTLB_HYPERCALL_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hvtlb/hypercall.h>

/* The only libc this layer uses. Declared here rather than through
 * <string.h> so that the layer builds with -ffreestanding. */
void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memset(void *dst, int c, size_t n);

/*
 * Which instance of the raw GVA fast path hvtlb_gva_iter_fill_raw() uses,
 * for tests: 1 the 16-byte vectors, 2 AVX2, 3 AVX-512 (each lowered to the
 * widest below it that the CPU runs well), 0 ask the CPU at the next call.
 * Returns the choice made, or 0 in builds that have only one instance.
 * Not thread-safe with concurrent fills.
 */
int hv_gva_raw_select(int which);

/* Offsets inside the flush and IPI inputs (docs/wire-format.md, "Input
 * layouts"). */
#define HV_OFF_ADDRESS_SPACE 0u
#define HV_OFF_FLAGS 8u
#define HV_OFF_MASK 16u	     /* non-Ex flush: ProcessorMask */
#define HV_OFF_EX_FORMAT 16u /* Ex flush: VP set format */
#define HV_OFF_EX_VMASK 24u  /* Ex flush: ValidBanksMask */
#define HV_OFF_IPI_VECTOR 0u /* u32 */
#define HV_OFF_IPI_VTL 4u    /* u8, then 3 bytes of padding */
#define HV_OFF_IPI_MASK 8u   /* non-Ex IPI: ProcessorMask */
#define HV_OFF_IPI_FORMAT 8u /* IPI Ex: VP set format */
#define HV_OFF_IPI_VMASK 16u /* IPI Ex: ValidBanksMask */

#define HV_PAGE_OFFSET_MASK 0xfffULL
#define HV_GVA_SIMPLE_COUNT_MASK 0xfffULL
#define HV_GVA_EXT_COUNT_MASK 0x7ffULL

static inline uint64_t hv_ld64(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* One unaligned load, which the vectorizer can see through. */
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
#else
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
	       (uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
	       (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
	       (uint64_t)p[7] << 56;
#endif
}

/*
 * hv_ld64() of a GVA entry: exactly one load, so that what is checked is
 * what is used. Without volatile a compiler may load the guest's bytes
 * again after the check, and a guest that rewrites its input meanwhile
 * would get an unchecked value through.
 */
static inline uint64_t hv_ld64_once(const uint8_t *p)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) &&                            \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	typedef uint64_t u64_unaligned __attribute__((aligned(1)));

	return *(const volatile u64_unaligned *)(const void *)p;
#else
	const volatile uint8_t *b = p;

	return (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 |
	       (uint64_t)b[3] << 24 | (uint64_t)b[4] << 32 |
	       (uint64_t)b[5] << 40 | (uint64_t)b[6] << 48 |
	       (uint64_t)b[7] << 56;
#endif
}

static inline uint32_t hv_ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline void hv_st64(uint8_t *p, uint64_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
	p[4] = (uint8_t)(v >> 32);
	p[5] = (uint8_t)(v >> 40);
	p[6] = (uint8_t)(v >> 48);
	p[7] = (uint8_t)(v >> 56);
}

static inline void hv_st32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Population count without __builtin_popcountll (which may become a call
 * to libgcc's __popcountdi2 when the target has no POPCNT). */
static inline unsigned hv_popcount64(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned)((x * 0x0101010101010101ULL) >> 56);
}

/*
 * Hides @p n from the optimizer. GCC expands a memcpy or memset whose size
 * it knows to be bounded (as a bank count is) inline as `rep movsq` or
 * `rep stosq`. On the machine of BENCHMARKS.md (an Intel Xeon VM) that
 * took 10 to 17 ns for any size from 32 to 512 bytes, where the C
 * library's memcpy took 2 to 6 ns. The Linux kernel's OPTIMIZER_HIDE_VAR
 * is the same idiom.
 */
static inline size_t hv_opaque_size(size_t n)
{
#if defined(__GNUC__)
	__asm__("" : "+r"(n));
#endif
	return n;
}

/* Copies @p n 64-bit words (host order) from @p src, any alignment. */
static inline void hv_copy_words(uint64_t *dst, const void *src, size_t n)
{
	memcpy(dst, src, hv_opaque_size(8 * n));
}

static inline void hv_zero_words(uint64_t *dst, size_t n)
{
	memset(dst, 0, hv_opaque_size(8 * n));
}

/* Mask of the bits below bit @n (n <= 63). */
static inline uint64_t hv_bits_below(unsigned n)
{
	return (1ULL << n) - 1;
}

static inline bool hv_call_known(uint16_t code)
{
	switch (code) {
	case HVTLB_CALL_FLUSH_SPACE:
	case HVTLB_CALL_FLUSH_LIST:
	case HVTLB_CALL_SEND_IPI:
	case HVTLB_CALL_FLUSH_SPACE_EX:
	case HVTLB_CALL_FLUSH_LIST_EX:
	case HVTLB_CALL_SEND_IPI_EX:
		return true;
	}
	return false;
}

static inline bool hv_call_is_ipi(uint16_t code)
{
	return code == HVTLB_CALL_SEND_IPI || code == HVTLB_CALL_SEND_IPI_EX;
}

static inline bool hv_call_is_space(uint16_t code)
{
	return code == HVTLB_CALL_FLUSH_SPACE ||
	       code == HVTLB_CALL_FLUSH_SPACE_EX;
}

static inline bool hv_call_is_list(uint16_t code)
{
	return code == HVTLB_CALL_FLUSH_LIST ||
	       code == HVTLB_CALL_FLUSH_LIST_EX;
}

static inline bool hv_call_is_ex(uint16_t code)
{
	return code == HVTLB_CALL_FLUSH_SPACE_EX ||
	       code == HVTLB_CALL_FLUSH_LIST_EX ||
	       code == HVTLB_CALL_SEND_IPI_EX;
}

/* Bytes of the fixed header; for Ex calls the banks follow it. */
static inline size_t hv_fixed_header_bytes(uint16_t code)
{
	switch (code) {
	case HVTLB_CALL_FLUSH_SPACE:
	case HVTLB_CALL_FLUSH_LIST:
		return HVTLB_FLUSH_HDR_BYTES;
	case HVTLB_CALL_FLUSH_SPACE_EX:
	case HVTLB_CALL_FLUSH_LIST_EX:
		return HVTLB_FLUSH_EX_HDR_BYTES;
	case HVTLB_CALL_SEND_IPI:
		return HVTLB_IPI_HDR_BYTES;
	case HVTLB_CALL_SEND_IPI_EX:
		return HVTLB_IPI_EX_HDR_BYTES;
	}
	return 0;
}

/*
 * The body of hvtlb_control_unpack(), inline so that the decoder needs no
 * other object of this layer (each object links alone).
 */
static inline void hv_control_unpack(uint64_t word, struct hvtlb_control *c)
{
	c->code = (uint16_t)(word & HVTLB_CTL_CODE_MASK);
	c->fast = (word & HVTLB_CTL_FAST) != 0;
	c->varhead = (uint16_t)((word & HVTLB_CTL_VARHEAD_MASK) >>
				HVTLB_CTL_VARHEAD_SHIFT);
	c->nested = (word & HVTLB_CTL_NESTED) != 0;
	c->rep_count = (uint16_t)((word & HVTLB_CTL_REP_COUNT_MASK) >>
				  HVTLB_CTL_REP_COUNT_SHIFT);
	c->rep_start = (uint16_t)((word & HVTLB_CTL_REP_START_MASK) >>
				  HVTLB_CTL_REP_START_SHIFT);
	/* Bit 31 is reported as nested, not as reserved. */
	c->reserved = word & HVTLB_CTL_RESERVED_MASK;
}

/*
 * The body of hvtlb_vpset_build() (see there), shared with the encoder.
 * Word at a time: no loop over bits.
 */
static inline unsigned hv_vpset_build(const struct hvtlb_vpmask *m,
				      enum hvtlb_vpset_style style,
				      uint64_t *valid_mask, uint64_t *banks)
{
	uint64_t mask = 0;
	unsigned n = 0;

	if (style == HVTLB_VPSET_LINUX) {
		/* Contiguous mask 2^n - 1 up to the highest non-empty bank,
		 * at least one bank: find the top word, copy words below. */
		unsigned top = HVTLB_VPSET_BANKS;

		while (top > 1 && (!m || m->bits[top - 1] == 0))
			top--;
		for (unsigned i = 0; i < top; i++)
			banks[i] = m ? m->bits[i] : 0;
		mask = top == 64 ? ~0ULL : hv_bits_below(top);
		n = top;
	} else if (m) {
		/* Compact: one bank per non-empty word. Branch-free: the word
		 * is always stored and the cursor advances only if it is set,
		 * so banks[] needs its full 64 slots. */
		for (unsigned i = 0; i < HVTLB_VPSET_BANKS; i++) {
			uint64_t w = m->bits[i];
			uint64_t set = w != 0;

			banks[n] = w;
			n += (unsigned)set;
			mask |= set << i;
		}
	}
	if (valid_mask)
		*valid_mask = mask;
	return n;
}

#endif /* HVTLB_HYPERCALL_WIRE_H */
