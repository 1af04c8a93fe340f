// SPDX-License-Identifier: MIT
/*
 * Hypervisor side: a guest asked for a flush. Decode its input as KVM and
 * as the strict TLFS reading would, then walk the target VPs and ranges.
 * The input page is built here with the encoder; a VMM would map the
 * guest's page and pass its bytes, with the GPA, instead.
 */
#include <inttypes.h>
#include <stdio.h>

#include <hvtlb/hypercall.h>

static void handle(enum hvtlb_profile profile, uint64_t control,
		   const struct hvtlb_input *in)
{
	struct hvtlb_host host = { .profile = profile, .vp_count = 128 };
	struct hvtlb_decoded d;
	struct hvtlb_vp_iter vi;
	struct hvtlb_gva_iter gi;
	struct hvtlb_gva_range r;
	uint32_t vp;
	uint64_t result = hvtlb_decode(&host, control, in, &d);

	printf("%s: %s\n", hvtlb_profile_name(profile),
	       hvtlb_status_name(hvtlb_result_status(result)));
	if (hvtlb_result_status(result) != HVTLB_STATUS_SUCCESS)
		return;
	printf("  flush VPs:");
	hvtlb_vp_iter_init(&vi, &d);
	while (hvtlb_vp_iter_next(&vi, &vp))
		printf(" %" PRIu32, vp);
	printf("%s\n", d.all_vps ? " (all)" : "");
	if (d.flush_all_gvas) {
		printf("  the whole address space\n");
		return;
	}
	hvtlb_gva_iter_init(&gi, &d);
	while (hvtlb_gva_iter_next(&gi, &r))
		printf("  gva 0x%" PRIx64 " + %" PRIu64 " pages of %u bits\n",
		       r.gva, r.pages, hvtlb_page_shift(r.size));
}

int main(void)
{
	struct hvtlb_vpmask vps = { { 0 } };
	struct hvtlb_gva_range ranges[] = {
		{ 0x7f0000000000, 3, HVTLB_PAGE_4K },
		{ 0x7fff00000000, 20, HVTLB_PAGE_4K },
	};
	struct hvtlb_call_desc d = {
		.call = HVTLB_CALL_FLUSH_LIST_EX,
		.vps = &vps,
		.ranges = ranges,
		.nranges = 2,
	};
	static struct hvtlb_encoded enc;

	hvtlb_vpmask_set(&vps, 1);
	hvtlb_vpmask_set(&vps, 70);
	hvtlb_vpmask_set(&vps, 200); /* beyond this VM's 128 VPs: ignored */
	if (hvtlb_encode(&d, &enc) < 0)
		return 1;

	struct hvtlb_input in = { enc.input, enc.len, 0x10000 };
	handle(HVTLB_PROFILE_STRICT, enc.control, &in);
	handle(HVTLB_PROFILE_KVM, enc.control, &in);
	/* The same input with a reserved control bit set. */
	handle(HVTLB_PROFILE_STRICT, enc.control | (1ULL << 30), &in);
	handle(HVTLB_PROFILE_XEN, enc.control | (1ULL << 30), &in);
	return 0;
}
