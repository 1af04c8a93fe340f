// SPDX-License-Identifier: MIT
/* Control word (RCX) pack/unpack and the fast-call register image. */
#include <hvtlb/hypercall.h>

#include "wire.h"

int hvtlb_control_pack(const struct hvtlb_control *c, uint64_t *word)
{
	if (!c || !word)
		return -HVTLB_EINVAL;
	if (c->varhead > HVTLB_VARHEAD_MAX || c->rep_count > HVTLB_REP_MAX ||
	    c->rep_start > HVTLB_REP_MAX || c->reserved != 0)
		return -HVTLB_EINVAL;
	*word = (uint64_t)c->code | (c->fast ? HVTLB_CTL_FAST : 0) |
		(uint64_t)c->varhead << HVTLB_CTL_VARHEAD_SHIFT |
		(c->nested ? HVTLB_CTL_NESTED : 0) |
		(uint64_t)c->rep_count << HVTLB_CTL_REP_COUNT_SHIFT |
		(uint64_t)c->rep_start << HVTLB_CTL_REP_START_SHIFT;
	return 0;
}

void hvtlb_control_unpack(uint64_t word, struct hvtlb_control *c)
{
	if (c)
		hv_control_unpack(word, c);
}

void hvtlb_fast_regs_from_input(const uint8_t *input, size_t len,
				struct hvtlb_fast_regs *regs)
{
	uint8_t buf[HVTLB_FAST_BYTES];

	if (!regs)
		return;
	memset(buf, 0, sizeof(buf));
	if (input) {
		if (len > sizeof(buf))
			len = sizeof(buf);
		memcpy(buf, input, len);
	}
	regs->rdx = hv_ld64(buf);
	regs->r8 = hv_ld64(buf + 8);
	for (unsigned i = 0; i < 6; i++) {
		regs->xmm[i][0] = hv_ld64(buf + 16 + 16 * i);
		regs->xmm[i][1] = hv_ld64(buf + 24 + 16 * i);
	}
}

void hvtlb_fast_regs_to_input(const struct hvtlb_fast_regs *regs,
			      uint8_t out[HVTLB_FAST_BYTES])
{
	if (!regs || !out)
		return;
	hv_st64(out, regs->rdx);
	hv_st64(out + 8, regs->r8);
	for (unsigned i = 0; i < 6; i++) {
		hv_st64(out + 16 + 16 * i, regs->xmm[i][0]);
		hv_st64(out + 24 + 16 * i, regs->xmm[i][1]);
	}
}
