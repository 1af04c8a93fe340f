/* SPDX-License-Identifier: MIT */
/*
 * Private to the decoder: the state of one decode and the helpers every
 * profile shares. Each host profile lives in its own file (decode-kvm.c,
 * decode-xen.c, decode-openvmm.c); decode.c holds the strict profile, the
 * table of what every profile does, and the entry point.
 */
#ifndef HVTLB_HYPERCALL_DECODE_H
#define HVTLB_HYPERCALL_DECODE_H

#include <hvtlb/hypercall.h>

#include "host-bugs.h"
#include "wire.h"

/* Call codes beyond the six that some host answers itself. */
#define HV_CALL_NOTIFY_LONG_SPIN_WAIT 0x0008u
#define HV_CALL_POST_MESSAGE 0x005cu
#define HV_CALL_SIGNAL_EVENT 0x005du
#define HV_CALL_POST_DEBUG_DATA 0x0069u
#define HV_CALL_RETRIEVE_DEBUG_DATA 0x006au
#define HV_CALL_RESET_DEBUG_SESSION 0x006bu
#define HV_EXT_CALL_QUERY_CAPABILITIES 0x8001u

struct hv_ctx {
	const struct hvtlb_host *host;
	uint64_t control;
	struct hvtlb_control ctl;
	const uint8_t *data;
	size_t len;
	uint64_t gpa;
	uint16_t call;
	bool ex, ipi, list, space;
};

static inline uint64_t hv_st(hvtlb_status s)
{
	return hvtlb_result_pack(s, 0);
}

static inline uint64_t hv_ok(uint16_t reps)
{
	return hvtlb_result_pack(HVTLB_STATUS_SUCCESS, reps);
}

static inline uint64_t hv_ld(const struct hv_ctx *c, size_t off)
{
	return hv_ld64(c->data + off);
}

/* Reads @p n bank words at @p off (callers bound the span first). */
static inline void hv_read_banks(const struct hv_ctx *c, size_t off, unsigned n,
				 struct hvtlb_decoded *out)
{
	if (n > HVTLB_VPSET_BANKS)
		n = HVTLB_VPSET_BANKS;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* The wire's byte order is the host's: one copy. */
	hv_copy_words(out->banks, c->data + off, n);
#else
	for (unsigned i = 0; i < n; i++)
		out->banks[i] = hv_ld64(c->data + off + 8 * i);
#endif
	out->nbanks = n;
}

/* Stops at the first non-empty bank: at once for any set a guest means. */
static inline bool hv_set_empty(const struct hvtlb_decoded *d)
{
	for (unsigned i = 0; i < d->nbanks; i++)
		if (d->banks[i])
			return false;
	return true;
}

/* A one-bank set for the non-Ex calls. */
static inline void hv_set_mask0(struct hvtlb_decoded *out, uint64_t mask)
{
	out->valid_mask = 1;
	out->banks[0] = mask;
	out->nbanks = 1;
}

static inline bool hv_vector_ok(uint32_t v)
{
	return v >= HVTLB_IPI_VECTOR_MIN && v <= HVTLB_IPI_VECTOR_MAX;
}

/* The GVA list view of a List call, from the rep start index. */
static inline void hv_set_list(const struct hv_ctx *c,
			       struct hvtlb_decoded *out, size_t list_off,
			       bool extended)
{
	out->extended = extended;
	out->gva = c->data + list_off + 8u * c->ctl.rep_start;
	out->gva_count = (uint32_t)(c->ctl.rep_count - c->ctl.rep_start);
}

/* Whether the sparse set as read names a VP at or above @p limit (which
 * is at most 4096); format and flags are the caller's business. */
static inline bool hv_set_names_from(const struct hvtlb_decoded *d,
				     uint32_t limit)
{
	unsigned i = 0;

	for (unsigned b = 0; b < HVTLB_VPSET_BANKS && i < d->nbanks; b++) {
		uint64_t w;

		if (!((d->valid_mask >> b) & 1))
			continue;
		w = d->banks[i++];
		if (b * 64 + 64 <= limit)
			continue;
		if (b * 64 >= limit ? w != 0 : (w >> (limit - b * 64)) != 0)
			return true;
	}
	return false;
}

/*
 * A decoder host: one validation profile's rules. Each profile's file
 * defines its hv_host_<NAME> (NAME as in HVTLB_PROFILE_MAP), and the
 * map's rows make the table decode.c dispatches through: a new host is
 * a row of the map, its file and its line in meson.build.
 */
struct hv_host_ops {
	/* Decodes the call @p c into @p out, which hvtlb_decode() has set
	 * to "nothing decoded" (vp_count already capped by max_vps). */
	uint64_t (*decode)(const struct hv_ctx *c, struct hvtlb_decoded *out);
	/* The VPs a VM of this host has at most (<= HVTLB_MAX_VPS); NULL:
	 * no limit below HVTLB_MAX_VPS. */
	uint32_t (*max_vps)(const struct hvtlb_host *h);
	/* The host's own name for that limit ("KVM_MAX_VCPUS"), or NULL. */
	const char *max_vps_name;
	/* The hypervisor it is (hvtlb_profile_hypervisor()): the simulator
	 * derives the guest's IPI delivery from it. */
	enum hvtlb_hypervisor hypervisor;
	/* The enum hvtlb_host_field bits its decode reads: the tool takes
	 * an option of the host only for a profile that reads it. */
	unsigned fields;
};

#define HV_HOST_X_(n, s, src) extern const struct hv_host_ops hv_host_##n;
HVTLB_PROFILE_MAP(HV_HOST_X_)
#undef HV_HOST_X_

/* The non-Ex HvCallSendSyntheticClusterIpi header as KVM reads it, the
 * same in Linux 5.10 and 6.12: 16 bytes; fast, the upper half of RDX
 * (the reserved word) zero, in memory not checked; the vector, the VTL
 * and bank 0, never "all". False for input KVM answers 3. */
static inline bool hv_kvm_ipi_plain(const struct hv_ctx *c,
				    struct hvtlb_decoded *out)
{
	if (c->len < HVTLB_IPI_HDR_BYTES ||
	    (c->ctl.fast && hv_ld32(c->data + 4) != 0))
		return false;
	out->vector = hv_ld32(c->data + HV_OFF_IPI_VECTOR);
	out->target_vtl = c->data[HV_OFF_IPI_VTL];
	hv_set_mask0(out, hv_ld(c, HV_OFF_IPI_MASK));
	return true;
}

/* The non-Ex flush header (24 bytes) as KVM reads it, the same in Linux
 * 5.10 (1509-1510, 1525-1526) and 6.12 (2068-2078, 2094-2095): the
 * address space, the flags and bank 0; *@p all when ALL_PROCESSORS is
 * set or the mask is 0 (a WS2012 workaround). False when it is cut
 * short. */
static inline bool hv_kvm_flush_head(const struct hv_ctx *c,
				     struct hvtlb_decoded *out, bool *all)
{
	if (c->len < HVTLB_FLUSH_HDR_BYTES)
		return false;
	out->address_space = hv_ld(c, HV_OFF_ADDRESS_SPACE);
	out->flags = hv_ld(c, HV_OFF_FLAGS);
	hv_set_mask0(out, hv_ld(c, HV_OFF_MASK));
	*all = (out->flags & HVTLB_FLUSH_ALL_PROCESSORS) || out->banks[0] == 0;
	return true;
}

/* The Ex flush header (32 bytes) as KVM reads it, the same in 5.10
 * (1528-1530, 1538-1539) and 6.12 (the format: 2116-2117): the address
 * space, the flags and the valid-bank mask; *@p all for any format but
 * SPARSE_4K (the ALL_PROCESSORS flag is not read). False when it is cut
 * short. */
static inline bool hv_kvm_flush_ex_head(const struct hv_ctx *c,
					struct hvtlb_decoded *out, bool *all)
{
	if (c->len < HVTLB_FLUSH_EX_HDR_BYTES)
		return false;
	out->address_space = hv_ld(c, HV_OFF_ADDRESS_SPACE);
	out->flags = hv_ld(c, HV_OFF_FLAGS);
	out->valid_mask = hv_ld(c, HV_OFF_EX_VMASK);
	*all = hv_ld(c, HV_OFF_EX_FORMAT) != HVTLB_VPSET_SPARSE_4K;
	return true;
}

/* The fixed part of HvCallSendSyntheticClusterIpiEx (24 bytes): the
 * vector, the VTL and the valid-bank mask. False when it is cut short. */
static inline bool hv_ipi_ex_head(const struct hv_ctx *c,
				  struct hvtlb_decoded *out)
{
	if (c->len < HVTLB_IPI_EX_HDR_BYTES)
		return false;
	out->vector = hv_ld32(c->data + HV_OFF_IPI_VECTOR);
	out->target_vtl = c->data[HV_OFF_IPI_VTL];
	out->valid_mask = hv_ld(c, HV_OFF_IPI_VMASK);
	return true;
}

/* KVM's rep fields, the same in Linux 5.10 (1808-1849) and 6.12
 * (2631-2669): a List needs a rep count and rep start 0, the other calls
 * neither. */
static inline bool hv_kvm_reps_ok(const struct hv_ctx *c)
{
	const struct hvtlb_control *k = &c->ctl;

	if (c->list)
		return k->rep_count != 0 && k->rep_start == 0;
	return !k->rep_count && !k->rep_start;
}

/* Not an answer: the caller goes on deciding (no hv_ok() or hv_st() is
 * all ones). */
#define HV_KVM_GO_ON UINT64_MAX
/* An Ex IPI's VP set as one KVM version reads it, after the header:
 * the status to answer at once, or HV_KVM_GO_ON for the vector
 * check. */
typedef uint64_t hv_kvm_ipi_set_fn(const struct hv_ctx *c,
				   struct hvtlb_decoded *out);
/* kvm_hv_send_ipi() as Linux 5.10 and 6.12 both frame it (decode-kvm.c):
 * the non-Ex header, or the Ex header and @p ex_set, then the vector. */
uint64_t hv_kvm_ipi(const struct hv_ctx *c, struct hvtlb_decoded *out,
		    hv_kvm_ipi_set_fn *ex_set);

/* The calls beyond the flush and IPI ones that KVM answers itself
 * (NotifyLongSpinWait, SignalEvent, PostMessage, the SynDBG ones), as
 * Linux 6.12 and 5.10 decide them alike (decode-kvm.c); @p varhead: a
 * variable header is refused (6.12, not 5.10). HV_KVM_GO_ON for any
 * other call. */
uint64_t hv_kvm_synic_calls(const struct hv_ctx *c, struct hvtlb_decoded *out,
			    bool varhead);

/* HvCallSignalEvent as KVM decodes it (decode-kvm.c): the same in the
 * kvm and kvm-5.10 profiles. */
uint64_t hv_kvm_signal_event(const struct hv_ctx *c, struct hvtlb_decoded *out);

#endif
