// SPDX-License-Identifier: MIT
/* Flush requests: validation and page counting. */
#include <errno.h>

#include <hvtlb/core.h>

static bool stride_valid(unsigned shift)
{
	return shift == 12 || shift == 21 || shift == 30;
}

int hvtlb_request_validate(const struct hvtlb_flush_request *req)
{
	const struct hvtlb_flush_range *r;
	uint64_t mask;

	if (!req || req->ncpus == 0 || req->ncpus > HVTLB_MAX_CPUS)
		return -EINVAL;
	if (req->initiator >= req->ncpus)
		return -EINVAL;
	/* Every target below ncpus: nothing set at or beyond it. */
	if (hvtlb_cpumask_next(&req->targets, req->ncpus) < HVTLB_MAX_CPUS)
		return -EINVAL;
	r = &req->range;
	if (!stride_valid(r->stride_shift))
		return -EINVAL;
	if (r->all)
		return 0;
	if (r->end < r->start)
		return -EINVAL;
	/* The end, rounded up to the stride, must not wrap past 2^64. */
	mask = (1ULL << r->stride_shift) - 1;
	if (r->end > ~mask)
		return -EINVAL;
	return 0;
}

uint64_t hvtlb_range_pages(const struct hvtlb_flush_range *r)
{
	uint64_t mask, start, end;

	if (!r || r->all || !stride_valid(r->stride_shift) ||
	    r->end <= r->start)
		return 0;
	mask = (1ULL << r->stride_shift) - 1;
	start = r->start & ~mask;
	if (r->end > ~mask) /* rounding up would wrap: count to 2^64 */
		return ((UINT64_MAX - start) >> r->stride_shift) + 1;
	end = (r->end + mask) & ~mask;
	return (end - start) >> r->stride_shift;
}
