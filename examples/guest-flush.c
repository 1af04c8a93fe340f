// SPDX-License-Identifier: MIT
/*
 * Guest side: flush 40 MiB at 0x7f0000000000 (three 16 MiB entries) on VPs 0, 5 and 130, the way
 * a guest kernel would: encode a ListEx hypercall and run the rep loop.
 * The "hypervisor" here is a toy host that completes at most 1 rep per call, so
 * the loop has to resume from the reps completed.
 */
#include <inttypes.h>
#include <stdio.h>

#include <hvtlb/hypercall.h>

static uint64_t toy_host_hypercall(void *data, uint64_t control,
				   const void *input, size_t len)
{
	unsigned *calls = data;
	struct hvtlb_control c;

	(void)input;
	(void)len;
	hvtlb_control_unpack(control, &c);
	++*calls;
	printf("  hypercall 0x%016" PRIx64 " (reps %u..%u)\n", control,
	       c.rep_start, c.rep_count);
	return hvtlb_result_pack(HVTLB_STATUS_SUCCESS, c.rep_start + 1);
}

int main(void)
{
	struct hvtlb_vpmask vps = { { 0 } };
	struct hvtlb_gva_range range = { 0x7f0000000000, 10240, HVTLB_PAGE_4K };
	struct hvtlb_call_desc d = {
		.call = HVTLB_CALL_FLUSH_LIST_EX,
		.address_space = 0x1234000,
		.vps = &vps,
		.ranges = &range,
		.nranges = 1,
	};
	static struct hvtlb_encoded enc;
	unsigned calls = 0;
	uint64_t result;
	int rc;

	hvtlb_vpmask_set(&vps, 0);
	hvtlb_vpmask_set(&vps, 5);
	hvtlb_vpmask_set(&vps, 130);

	rc = hvtlb_encode(&d, &enc);
	if (rc < 0) {
		fprintf(stderr, "encode: %d, use call 0x%x instead\n", rc,
			hvtlb_encode_suggest(&d));
		return 1;
	}
	printf("control 0x%016" PRIx64 ", %zu input bytes\n", enc.control,
	       enc.len);
	rc = hvtlb_rep_call(enc.control, enc.input, enc.len, toy_host_hypercall,
			    &calls, &result);
	printf("status %s, reps %u, %u calls\n",
	       hvtlb_status_name(hvtlb_result_status(result)),
	       hvtlb_result_reps(result), calls);
	return rc == 0 && hvtlb_result_status(result) == HVTLB_STATUS_SUCCESS
		       ? 0
		       : 1;
}
