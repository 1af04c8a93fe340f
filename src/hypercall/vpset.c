// SPDX-License-Identifier: MIT
/*
 * Sparse VP sets (docs/wire-format.md, "VP sets") and the 4096-bit VP
 * mask, both ways: a mask into banks for the guest, a decoded set into a
 * mask for the host.
 * One step per 64-bit word, never per VP.
 */
#include <hvtlb/hypercall.h>

#include "wire.h"

unsigned hvtlb_vpset_build(const struct hvtlb_vpmask *m,
			   enum hvtlb_vpset_style style, uint64_t *valid_mask,
			   uint64_t banks[HVTLB_VPSET_BANKS])
{
	if (!banks) {
		if (valid_mask)
			*valid_mask = 0;
		return 0;
	}
	return hv_vpset_build(m, style, valid_mask, banks);
}

/* Stores the banks of a sparse set at their places in @p out, which is
 * clear above what it writes. Only the banks in @p valid are placed; bank
 * i of the input is the i-th set bit of d->valid_mask, whichever of those
 * @p valid keeps (it only drops high bits). */
static void vpmask_place_banks(const struct hvtlb_decoded *d, uint64_t valid,
			       struct hvtlb_vpmask *out)
{
	unsigned n =
		d->nbanks < HVTLB_VPSET_BANKS ? d->nbanks : HVTLB_VPSET_BANKS;
	unsigned low, i;

	/* The low run of valid banks, as Linux always sends them, is a
	 * straight copy: bank i is VPs 64 i .. 64 i + 63. */
	low = ~valid ? (unsigned)__builtin_ctzll(~valid) : HVTLB_VPSET_BANKS;
	if (low > n)
		low = n;
	hv_copy_words(out->bits, d->banks, low);
	if (low == HVTLB_VPSET_BANKS)
		return;
	hv_zero_words(out->bits + low, HVTLB_VPSET_BANKS - low);
	valid &= ~hv_bits_below(low);
	/* The rest one bank at a time; banks[] past n are not read. */
	for (i = low; valid && i < n; i++) {
		out->bits[__builtin_ctzll(valid)] = d->banks[i];
		valid &= valid - 1;
	}
}

int hvtlb_decoded_vpmask(const struct hvtlb_decoded *d,
			 struct hvtlb_vpmask *out)
{
	uint32_t lim;
	unsigned words;

	if (!out)
		return -HVTLB_EINVAL;
	if (!d) {
		hv_zero_words(out->bits, HVTLB_VPSET_BANKS);
		return -HVTLB_EINVAL;
	}
	lim = d->vp_count < HVTLB_MAX_VPS ? d->vp_count : HVTLB_MAX_VPS;
	words = (lim + 63) / 64; /* words that hold a VP below lim */
	if (d->all_vps) {
		memset(out->bits, 0xff, hv_opaque_size(8u * words));
		hv_zero_words(out->bits + words, HVTLB_VPSET_BANKS - words);
	} else {
		uint64_t valid = d->valid_mask;

		/* Banks at or past lim are neither read nor stored. */
		if (words < HVTLB_VPSET_BANKS)
			valid &= hv_bits_below(words);
		vpmask_place_banks(d, valid, out);
	}
	if (lim % 64)
		out->bits[lim / 64] &= hv_bits_below(lim % 64);
	return 0;
}
