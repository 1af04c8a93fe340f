// SPDX-License-Identifier: MIT
/* The guest's rep loop (docs/wire-format.md, "Rep calls") with a
 * no-progress guard. */
#include <hvtlb/hypercall.h>

#include "wire.h"

int hvtlb_rep_call(uint64_t control, const void *input, size_t len,
		   hvtlb_hypercall_fn fn, void *data, uint64_t *result)
{
	uint64_t count = (control & HVTLB_CTL_REP_COUNT_MASK) >>
			 HVTLB_CTL_REP_COUNT_SHIFT;
	uint64_t start = (control & HVTLB_CTL_REP_START_MASK) >>
			 HVTLB_CTL_REP_START_SHIFT;
	unsigned stalls = 0;
	uint64_t r;

	if (!fn || !result)
		return -HVTLB_EINVAL;
	if (count == 0) {
		/* A simple call: issued once, whatever it answers. */
		*result = fn(data, control, input, len);
		return 0;
	}
	for (;;) {
		uint64_t done;

		r = fn(data, control, input, len);
		*result = r;
		if (hvtlb_result_status(r) != HVTLB_STATUS_SUCCESS)
			return 0;
		done = hvtlb_result_reps(r);
		/* Reps completed are absolute: never below the start we
		 * asked for, never above the count. */
		if (done > count || done < start)
			return -HVTLB_EPROTO;
		if (done == count)
			return 0;
		if (done == start) {
			if (++stalls >= HVTLB_REP_MAX_STALLS)
				return -HVTLB_EPROTO;
		} else {
			stalls = 0;
		}
		start = done;
		control = (control & ~HVTLB_CTL_REP_START_MASK) |
			  start << HVTLB_CTL_REP_START_SHIFT;
	}
}
