// SPDX-License-Identifier: MIT
/* Sparse VP sets (abi.md section 7), built one 64-bit word at a time. */
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
