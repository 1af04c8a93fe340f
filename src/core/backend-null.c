// SPDX-License-Identifier: MIT
/*
 * The null backend: every action is a no-op, every CPU runs, every
 * hypercall succeeds with all its reps. Stateless, so thread-safe.
 */
#include <hvtlb/core.h>

static void null_local_flush(void *user, uint32_t cpu,
			     const struct hvtlb_flush_range *r)
{
}

static void null_send_ipis(void *user, const struct hvtlb_cpumask *targets,
			   const struct hvtlb_ipi_flush *f)
{
}

static void null_wait_acks(void *user, const struct hvtlb_cpumask *targets)
{
}

static uint64_t null_hypercall(void *user, uint64_t control, const void *input,
			       size_t len)
{
	struct hvtlb_control c;

	hvtlb_control_unpack(control, &c);
	return hvtlb_result_pack(HVTLB_STATUS_SUCCESS, c.rep_count);
}

static const struct hvtlb_backend_ops null_ops = {
	.version = HVTLB_BACKEND_OPS_VERSION,
	.local_flush = null_local_flush,
	.send_ipis = null_send_ipis,
	.wait_acks = null_wait_acks,
	.hypercall = null_hypercall,
};

const struct hvtlb_backend_ops *hvtlb_null_backend_ops(void)
{
	return &null_ops;
}

bool hvtlb_backend_is_null(const struct hvtlb_backend_ops *ops)
{
	return ops == &null_ops;
}
