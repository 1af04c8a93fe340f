/* SPDX-License-Identifier: MIT */
/* Handing a drained flush batch to the guest through its mailbox. */
#ifndef KVMVMM_MAILBOX_H
#define KVMVMM_MAILBOX_H

#include <hvtlb/flushq.h>

#include "abi.h"

/**
 * Adds @p b to the flushes @p mb already holds: its ranges are appended
 * while they fit, otherwise (or when either side says "all") the mailbox
 * becomes flush-all. A flush is never dropped. @p mb lives in guest
 * memory, so its count is not trusted: an out-of-range count is treated
 * as flush-all. Call only while the mailbox's vCPU is stopped.
 */
void kvmvmm_mailbox_add(struct kvmvmm_mailbox *mb,
			const struct hvtlb_flushq_batch *b);

#endif
