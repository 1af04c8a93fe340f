// SPDX-License-Identifier: MIT
#include "mailbox.h"

void kvmvmm_mailbox_add(struct kvmvmm_mailbox *mb,
			const struct hvtlb_flushq_batch *b)
{
	uint32_t n = mb->pending ? mb->n : 0;
	size_t i;

	if (!b->all && b->n == 0)
		return;
	if (mb->pending && mb->all)
		return;
	if (b->all || n > KVMVMM_MAILBOX_RANGES ||
	    b->n > KVMVMM_MAILBOX_RANGES - n) {
		mb->all = 1;
		mb->n = 0;
		mb->pending = 1;
		return;
	}
	for (i = 0; i < b->n; i++, n++) {
		mb->ranges[n].gva = b->ranges[i].gva;
		mb->ranges[n].pages = b->ranges[i].pages;
		mb->ranges[n].shift = hvtlb_page_shift(b->ranges[i].size);
	}
	mb->all = 0;
	mb->n = n;
	mb->pending = 1;
}
