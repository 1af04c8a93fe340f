/* SPDX-License-Identifier: MIT */
/**
 * @file
 * Everything hvtlb offers, in one include:
 * - hypercall.h: the TLFS flush/IPI wire format (freestanding);
 * - core.h: flush requests, strategies, the backend interface;
 * - flushq.h: thread-safe flush delivery for hypervisor prototypes;
 * - sim.h: the simulated hypervisor.
 */
#ifndef HVTLB_HVTLB_H
#define HVTLB_HVTLB_H

#include <hvtlb/hypercall.h>
#include <hvtlb/core.h>
#include <hvtlb/flushq.h>
#include <hvtlb/sim.h>

#endif /* HVTLB_HVTLB_H */
