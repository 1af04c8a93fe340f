// SPDX-License-Identifier: MIT
/*
 * Host side: decode and validate one hypercall by the rules of a profile.
 * "strict" is the TLFS read strictly (here); each other profile follows
 * one host at one version, in its own file:
 *
 *   kvm          Linux 6.12.117 arch/x86/kvm/hyperv.c    decode-kvm.c
 *   xen          Xen c447b7308b viridian/viridian.c      decode-xen.c
 *   openvmm-tdx  OpenVMM 1488a37b7c hv1_hypercall and    decode-openvmm.c
 *   openvmm-snp    openhcl/virt_mshv_vtl, TDX or SNP
 *   (openvmm     the old name of openvmm-tdx)
 *   kvm-5.10     Linux 5.10.13 arch/x86/kvm/hyperv.c     decode-kvm-5.10.c
 *                (its column is in docs/hosts.md, not below)
 *
 * Every read is bounded by in->len: a profile first works out how many
 * bytes it will read (the whole claimed input for strict and openvmm; only
 * what the real host reads for kvm and xen) and answers what the host
 * answers for a guest read that fails when the span is shorter. Decoding
 * is O(header + banks); GVA entries are only read by the iterators.
 *
 * What each profile does with each input. Numbers are TLFS statuses; "-"
 * ignored, "ok" accepted, "all" every VP, "noop" success with no target,
 * "fa" flush all GVAs, "vmm" passed to the VMM, "disp" passed to a handler
 * hvtlb does not model. Cells cite the host source (K = hyperv.c, X =
 * viridian.c, S = hv1_hypercall/src/support.rs, I = .../imp.rs, H =
 * virt_mshv_vtl/src/processor/hardware_cvm/mod.rs, T = .../tdx/mod.rs,
 * N = .../snp/mod.rs); docs/hosts.md has the same table in prose.
 *
 *   input                           strict kvm        xen        ovmm-tdx   ovmm-snp
 *   control word
 *   unknown call code               2      2 K2697    2 X986     2 S130     2 S130
 *   NotifyLongSpinWait 0x0008       2      ok/3 K2608 ok X937    2 S130     2 S130
 *   other codes the host handles    2      [a]        2 X986     disp [b]   disp [b]
 *   reserved bits 30:27,47:44,63:60 3      3 K2591    -          -          -
 *   nested bit 31                   3 [c]  3 K2591    -          -          -
 *   varhead != 0 on a non-Ex call   3      3 K2632    -          3 S194     3 S194
 *   rep count 0 on a List           3      3 K2638    -          3 S208     3 S208
 *   rep start != 0 on a List        3 [d]  3 K2638    -          3 [d] S210 3 [d] S210
 *   rep fields on a simple call     3      3 K2651    - [e]      3 S192     3 S192
 *   input sizes and buffers
 *   fast flush call / fast IPI Ex   ok     ok         5 X701     ok         ok
 *   fast non-Ex IPI, RDX 63:32 != 0 ok     3 K2263    5 X820     5 [f]      5 [f]
 *   fast input over 112 bytes       3      3 [g]      n/a        3 S230     3 S230
 *   input crossing its 4 KiB page   4      ok         ok         3 S291     3 S291
 *   input GPA not 8-byte aligned    4      ok         ok         4 S296     4 S296
 *   span shorter than what is read  3      3 K2074    5 X705     3 S311     3 S311
 *   VP sets
 *   varhead != popcount (Ex)        3      3 K2119    - [h]      5 [i]      5 [i]
 *   unknown VP-set format           5      all [j]    5 X655     5 I823     5 I823
 *   format ALL                      all    all        all X618   5 I823     5 I823
 *   empty set, no ALL_PROCESSORS    5      [k]        noop       5 H1429    5 H1429
 *   VP index >= vp_count            -      -          -          bug [l]    -
 *   VP index >= the host's limit    -      - [m]      - X565     -          -
 *   targets                         set    set        set        set [n]    all [o]
 *   flush flags and GVAs
 *   reserved flag bits              5      -          -          5 H1426    5 H1426
 *   NON_GLOBAL on a List            5      -          -          ok         ok
 *   extended flag on a Space        5      -          -          5 H1424    5 H1424
 *   extended GVA entries            used   [p]        fa [q]     used [r]   used
 *   List with more than N entries   ok     fa N=15    fa [q]     fa N=32    fa N=16 [s]
 *   IPI fields
 *   IPI vector outside 0x10..0xff   5      3 K2311    5 X849     5 H2711    5 H2711
 *   IPI bytes 5..7 != 0             5      -          5 X839     5 [t]      5 [t]
 *   IPI target VTL (byte 4)         - [u]  -          5 X839     [v]        [v]
 *   IPI to an empty set             5      noop [w]   noop       noop       noop
 *   reps completed
 *   on success                      count  count      [x]        count      count
 *   on a failed List                0      0          n/a        [y]        [y]
 *   GVA entry bits 20:13 (large)    masked off in every profile
 *
 *   [a] K2608-2699: 0x005c/0x005d 3 without a SynIC (kvm_synic), vmm with
 *       one (SignalEvent: 4 for a misaligned or unreadable GPA, K2439);
 *       0x0069/0x006a fast 5, else 2 (SynDBG off); 0x006b 2;
 *       0x8001..0x8041 fast 5, else vmm.
 *   [b] the 18 other codes of the TDX and SNP dispatchers (T3719,
 *       N1111) get the control-word checks of S187-221 by their class;
 *       VtlCall and VtlReturn get none.
 *   [c] unless host->nested_enabled.
 *   [d] allowed when below the rep count (a resumed call).
 *   [e] Xen answers reps completed = rep count for the flush calls.
 *   [f] imp.rs reads RDX bits 39:32 as the target VTL, 47:40 as flags
 *       and 63:48 as reserved: see [t] and [v].
 *   [g] K1917; a List with more than 15 reps is success + flush all.
 *   [h] Xen reads popcount(ValidBanksMask) banks (X626).
 *   [i] a handler error (proc_mask.rs:26-29 via I828, I887).
 *   [j] K2116 for the flush calls; SendIpiEx reads anything but ALL as
 *       sparse (K2289).
 *   [k] non-Ex flush mask 0: all VPs (K2094, a WS2012 workaround); Ex:
 *       success and no-op before any bank or entry is read (K2123).
 *   [l] T4558 indexes active_vtl[vp]: a known bug, reported as such.
 *   [m] host->kvm_max_vcpus (KVM_MAX_VCPUS): KVM reads at most
 *       ceil(max / 64) banks (K1941) and has no vCPU at or above it.
 *   [n] TDX wakes the named VPs (T4436, T4487); the flush state it
 *       updates is the partition's, so the others flush when they next
 *       enter the guest.
 *   [o] INVLPGB is a broadcast (N3310-3378): every VP, except a flush
 *       entire whose named set is the caller alone with NON_GLOBAL, which
 *       stays local (N3364-3366, host->caller_vp).
 *   [p] KVM reads every entry as the simple format (K2004-2010).
 *   [q] Xen never reads the GVA list: each target's whole TLB is flushed.
 *   [r] a large-page entry makes TDX flush all (T4507-4514).
 *   [s] or an entry of more than 16 additional pages (N3267).
 *   [t] bytes 6-7 are 5 first (I962, I998), byte 5 (flags) after the VP
 *       set (H3162, H3184).
 *   [u] VTLs are not modelled by strict.
 *   [v] bits 7:5 set, or bit 4 with a VTL above 2: 5 (hvdef lib.rs:1551,
 *       1087); bit 4 with VTL 1 or 2: 6, the caller runs in VTL0
 *       (processor/mod.rs:1231), checked before the vector; bits 3:0
 *       without bit 4 are ignored.
 *   [w] KVM skips the vector check when the sparse set is empty (K2297).
 *   [x] the rep count for the flush calls (X730, X782); 0 for the IPIs
 *       and 0x0008, whose output Xen never fills in.
 *   [y] the rep start index for a handler failure (S594-602, S658-666);
 *       0 for the dispatcher's own checks.
 *
 * KVM and Xen flush every address space whatever AddressSpace says; the
 * decoded address_space and flags are still reported as read. Known host
 * bugs an input hits are in host-bugs.c; each host file says which input
 * hits which.
 */
#include "decode.h"

/* strict: the control word. The call must be known, no reserved bit set
 * (bit 31 too unless the host runs nested guests), rep fields only on a
 * List (with a start below the count) and a variable header only on an Ex
 * call. Returns the first check that fails, or success. */
static hvtlb_status strict_control(const struct hv_ctx *c)
{
	const struct hvtlb_control *k = &c->ctl;
	uint64_t rsv = c->host->nested_enabled ? HVTLB_CTL_RESERVED_MASK
					       : HVTLB_CTL_RESERVED_MASK_NESTED;

	if (!hv_call_known(c->call))
		return HVTLB_STATUS_INVALID_HYPERCALL_CODE;
	if (c->control & rsv)
		return HVTLB_STATUS_INVALID_HYPERCALL_INPUT;
	if (c->list) {
		if (k->rep_count == 0 || k->rep_start >= k->rep_count)
			return HVTLB_STATUS_INVALID_HYPERCALL_INPUT;
	} else if (k->rep_count || k->rep_start) {
		return HVTLB_STATUS_INVALID_HYPERCALL_INPUT;
	}
	if (!c->ex && k->varhead)
		return HVTLB_STATUS_INVALID_HYPERCALL_INPUT;
	return HVTLB_STATUS_SUCCESS;
}

/* strict: the input the control word claims (@p claimed bytes) fits the
 * fast registers, or its 4 KiB page at an 8-byte aligned GPA, and is all
 * there: every later read is within c->len. */
static hvtlb_status strict_span(const struct hv_ctx *c, size_t claimed)
{
	if (c->ctl.fast) {
		if (claimed > HVTLB_FAST_BYTES)
			return HVTLB_STATUS_INVALID_HYPERCALL_INPUT;
	} else if (claimed > HVTLB_PAGE_BYTES - (c->gpa & 0xfff) ||
		   (c->gpa & 7) != 0) {
		return HVTLB_STATUS_INVALID_ALIGNMENT;
	}
	if (c->len < claimed)
		return HVTLB_STATUS_INVALID_HYPERCALL_INPUT;
	return HVTLB_STATUS_SUCCESS;
}

/* strict: reads the fixed header (within the span strict_span() checked):
 * address space and flags, or vector and target VTL; then the VP set's
 * format and valid-bank mask (Ex) or its one mask. Returns the flush
 * flags (0 for an IPI); @p format is left as it is on a non-Ex call. */
static uint64_t strict_header(const struct hv_ctx *c, struct hvtlb_decoded *out,
			      uint64_t *format)
{
	uint64_t flags = 0;

	if (!c->ipi) {
		out->address_space = hv_ld(c, HV_OFF_ADDRESS_SPACE);
		out->flags = flags = hv_ld(c, HV_OFF_FLAGS);
		if (c->ex) {
			*format = hv_ld(c, HV_OFF_EX_FORMAT);
			out->valid_mask = hv_ld(c, HV_OFF_EX_VMASK);
		} else {
			hv_set_mask0(out, hv_ld(c, HV_OFF_MASK));
		}
	} else {
		out->vector = hv_ld32(c->data + HV_OFF_IPI_VECTOR);
		out->target_vtl = c->data[HV_OFF_IPI_VTL];
		if (c->ex) {
			*format = hv_ld(c, HV_OFF_IPI_FORMAT);
			out->valid_mask = hv_ld(c, HV_OFF_IPI_VMASK);
		} else {
			hv_set_mask0(out, hv_ld(c, HV_OFF_IPI_MASK));
		}
	}
	return flags;
}

/* strict: the TLFS, read strictly. */
static uint64_t decode_strict(const struct hv_ctx *c, struct hvtlb_decoded *out)
{
	const struct hvtlb_control *k = &c->ctl;
	size_t hdr = hv_fixed_header_bytes(c->call);
	size_t claimed = hdr + 8u * k->varhead + 8u * k->rep_count;
	uint64_t format = HVTLB_VPSET_SPARSE_4K, flags;
	hvtlb_status st;
	bool all = false;

	/* The control word first, then the span it claims. */
	st = strict_control(c);
	if (st == HVTLB_STATUS_SUCCESS)
		st = strict_span(c, claimed);
	if (st != HVTLB_STATUS_SUCCESS)
		return hv_st(st);

	flags = strict_header(c, out, &format);
	if (c->ex) {
		if (k->varhead != hv_popcount64(out->valid_mask))
			return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);
		hv_read_banks(c, hdr, k->varhead, out);
	}
	if (format == HVTLB_VPSET_ALL)
		all = true;
	else if (format != HVTLB_VPSET_SPARSE_4K)
		return hv_st(HVTLB_STATUS_INVALID_PARAMETER);

	if (!c->ipi) {
		if (flags & ~HVTLB_FLUSH_FLAGS_VALID)
			return hv_st(HVTLB_STATUS_INVALID_PARAMETER);
		if (c->list && (flags & HVTLB_FLUSH_NON_GLOBAL_MAPPINGS_ONLY))
			return hv_st(HVTLB_STATUS_INVALID_PARAMETER);
		if (c->space && (flags & HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT))
			return hv_st(HVTLB_STATUS_INVALID_PARAMETER);
		if (flags & HVTLB_FLUSH_ALL_PROCESSORS)
			all = true;
	} else {
		if (!hv_vector_ok(out->vector))
			return hv_st(HVTLB_STATUS_INVALID_PARAMETER);
		if (c->data[5] | c->data[6] | c->data[7])
			return hv_st(HVTLB_STATUS_INVALID_PARAMETER);
	}
	if (!all && hv_set_empty(out))
		return hv_st(HVTLB_STATUS_INVALID_PARAMETER);

	out->all_vps = all;
	out->flush_all_gvas = c->space;
	if (c->list)
		hv_set_list(c, out, hdr + 8u * k->varhead,
			    flags & HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT);
	return hv_ok(k->rep_count);
}

const struct hv_host_ops hv_host_STRICT = {
	.decode = decode_strict,
	.hypervisor = HVTLB_HYPERVISOR_HYPERV,
};

/* The hosts, by profile (decode.h). */
static const struct hv_host_ops *const hosts[] = {
#define HV_HOST_X_(n, s, src) [HVTLB_PROFILE_##n] = &hv_host_##n,
	HVTLB_PROFILE_MAP(HV_HOST_X_)
#undef HV_HOST_X_
};

/* The rules of @p p; a value out of range reads the TLFS strictly. */
static const struct hv_host_ops *host_ops(enum hvtlb_profile p)
{
	return (unsigned)p < HVTLB_PROFILE_COUNT_ ? hosts[p] : &hv_host_STRICT;
}

enum hvtlb_hypervisor hvtlb_profile_hypervisor(enum hvtlb_profile p)
{
	return host_ops(p)->hypervisor;
}

unsigned hvtlb_profile_host_fields(enum hvtlb_profile p)
{
	return host_ops(p)->fields; /* strict's, 0, out of range */
}

uint32_t hvtlb_host_max_vps(const struct hvtlb_host *h, const char **name)
{
	const struct hv_host_ops *o = h ? host_ops(h->profile) : NULL;

	if (name)
		*name = o && o->max_vps ? o->max_vps_name : NULL;
	if (!o)
		return 0;
	return o->max_vps ? o->max_vps(h) : HVTLB_MAX_VPS;
}

uint64_t hvtlb_decode(const struct hvtlb_host *host, uint64_t control,
		      const struct hvtlb_input *in, struct hvtlb_decoded *out)
{
	struct hv_ctx c;
	uint32_t max_vps;

	if (!host || !in || !out)
		return hv_st(HVTLB_STATUS_INVALID_HYPERCALL_INPUT);

	c.host = host;
	c.control = control;
	hv_control_unpack(control, &c.ctl);
	c.data = in->data;
	c.len = in->data ? in->len : 0;
	c.gpa = in->gpa;
	c.call = c.ctl.code;
	c.ex = hv_call_is_ex(c.call);
	c.ipi = hv_call_is_ipi(c.call);
	c.list = hv_call_is_list(c.call);
	c.space = hv_call_is_space(c.call);

	/* Everything but banks[] (only banks[0..nbanks) are meaningful). */
	out->ctl = c.ctl;
	out->call = c.call;
	out->address_space = 0;
	out->flags = 0;
	out->vector = 0;
	out->target_vtl = 0;
	out->all_vps = false;
	out->flush_all_gvas = false;
	out->valid_mask = 0;
	out->nbanks = 0;
	/* A host has no VP past its build's limit (kvm, xen). */
	max_vps = hvtlb_host_max_vps(host, NULL);
	out->vp_count = host->vp_count < max_vps ? host->vp_count : max_vps;
	out->va_bits = host->va_bits == 57 ? 57 : 48;
	out->extended = false;
	out->gva = NULL;
	out->gva_count = 0;
	out->scope = HVTLB_SCOPE_FULL;
	out->host_bug = HV_BUG_NONE;

	return host_ops(host->profile)->decode(&c, out);
}

bool hvtlb_decoded_has_vp(const struct hvtlb_decoded *d, uint32_t vp)
{
	unsigned bank, idx;

	if (!d || vp >= d->vp_count || vp >= HVTLB_MAX_VPS)
		return false;
	if (d->all_vps)
		return true;
	bank = vp / 64;
	if (!((d->valid_mask >> bank) & 1))
		return false;
	idx = hv_popcount64(d->valid_mask & hv_bits_below(bank));
	if (idx >= d->nbanks)
		return false;
	return (d->banks[idx] >> (vp % 64)) & 1;
}

void hvtlb_vp_iter_init(struct hvtlb_vp_iter *it, const struct hvtlb_decoded *d)
{
	if (!it)
		return;
	it->d = d;
	it->next = 0;
	it->bank = 0;
	it->word = 0;
	it->base = 0;
}

static uint32_t vp_limit(const struct hvtlb_decoded *d)
{
	return d->vp_count < HVTLB_MAX_VPS ? d->vp_count : HVTLB_MAX_VPS;
}

/* Loads the next bank word that may hold targets; false when none is
 * left. Valid banks are visited in ascending order, so the banks[] index is
 * a running count (the popcount of the mask bits below). */
static bool vp_iter_refill(struct hvtlb_vp_iter *it)
{
	const struct hvtlb_decoded *d = it->d;
	uint32_t lim = vp_limit(d);
	unsigned b = it->next / 64;
	uint64_t rest;

	if (it->next >= lim)
		return false;
	if (d->all_vps) {
		it->base = it->next;
		it->word = ~0ULL;
		it->next += 64;
		return true;
	}
	rest = d->valid_mask >> b;
	if (!rest || it->bank >= d->nbanks)
		return false;
	b += (unsigned)__builtin_ctzll(rest);
	if (b * 64 >= lim)
		return false;
	it->base = b * 64;
	it->word = d->banks[it->bank++];
	it->next = b * 64 + 64;
	return true;
}

bool hvtlb_vp_iter_next(struct hvtlb_vp_iter *it, uint32_t *vp)
{
	if (!it || !it->d)
		return false;
	for (;;) {
		if (it->word) {
			uint32_t v =
				it->base + (uint32_t)__builtin_ctzll(it->word);

			it->word &= it->word - 1;
			if (v >= vp_limit(it->d)) {
				it->word = 0;
				it->next = HVTLB_MAX_VPS;
				return false;
			}
			if (vp)
				*vp = v;
			return true;
		}
		if (!vp_iter_refill(it)) {
			it->next = HVTLB_MAX_VPS;
			return false;
		}
	}
}

bool hvtlb_vp_iter_next_word(struct hvtlb_vp_iter *it, uint32_t *base,
			     uint64_t *bits)
{
	if (!it || !it->d)
		return false;
	for (;;) {
		uint32_t lim = vp_limit(it->d);
		uint64_t w;

		if (!it->word && !vp_iter_refill(it)) {
			it->next = HVTLB_MAX_VPS;
			return false;
		}
		w = it->word;
		it->word = 0;
		/* refill keeps base < lim; drop the VPs at or past lim. */
		if (lim - it->base < 64)
			w &= (1ULL << (lim - it->base)) - 1;
		if (w) {
			if (base)
				*base = it->base;
			if (bits)
				*bits = w;
			return true;
		}
	}
}

void hvtlb_gva_iter_init(struct hvtlb_gva_iter *it,
			 const struct hvtlb_decoded *d)
{
	if (!it)
		return;
	it->d = d;
	it->index = 0;
	it->has_pending = false;
	it->pending.gva = 0;
	it->pending.pages = 0;
	it->pending.size = HVTLB_PAGE_4K;
}

static enum hvtlb_page_size size_of_shift(unsigned shift)
{
	return shift == 30   ? HVTLB_PAGE_1G
	       : shift == 21 ? HVTLB_PAGE_2M
			     : HVTLB_PAGE_4K;
}

__attribute__((noinline)) static bool gva_iter_slow(struct hvtlb_gva_iter *it,
						    struct hvtlb_gva_range *r)
{
	const struct hvtlb_decoded *d;
	unsigned va_bits;

	if (it->has_pending) {
		it->has_pending = false;
		if (r)
			*r = it->pending;
		return true;
	}
	d = it->d;
	if (!d->gva)
		return false;
	va_bits = d->va_bits == 57 ? 57 : 48;
	while (it->index < d->gva_count) {
		uint64_t e = hv_ld64_once(d->gva + 8u * it->index);
		uint64_t first, count, pages, low, high, end;
		unsigned shift;

		it->index++;
		if (!d->extended) {
			shift = 12;
			first = e >> 12;
			count = (e & HV_GVA_SIMPLE_COUNT_MASK) + 1;
		} else if (!(e & HVTLB_GVA_EXT_LARGE)) {
			shift = 12;
			first = e >> 12;
			count = (e & HV_GVA_EXT_COUNT_MASK) + 1;
		} else {
			/* A GVA inside a large page names that whole page. */
			shift = (e & HVTLB_GVA_EXT_1G) ? 30 : 21;
			first = e >> shift;
			count = (e & HV_GVA_EXT_COUNT_MASK) + 1;
		}
		/* In pages of 2^shift: the address space has 2^(64-shift)
		 * pages; the canonical ones are [0, low) and [high, pages). */
		pages = 1ULL << (64 - shift);
		low = 1ULL << (va_bits - 1 - shift);
		high = pages - low;
		if (count > pages - first)
			count = pages - first; /* clip at 2^64 */
		end = first + count;

		if (first < low) {
			uint64_t stop = end < low ? end : low;

			if (end > high) {
				/* Both halves (cannot happen with 4 KiB
				 * entries, kept for safety). */
				it->pending.gva = high << shift;
				it->pending.pages = end - high;
				it->pending.size = size_of_shift(shift);
				it->has_pending = true;
			}
			if (r) {
				r->gva = first << shift;
				r->pages = stop - first;
				r->size = size_of_shift(shift);
			}
			return true;
		}
		if (end > high) {
			uint64_t start = first > high ? first : high;

			if (r) {
				r->gva = start << shift;
				r->pages = end - start;
				r->size = size_of_shift(shift);
			}
			return true;
		}
		/* Entirely non-canonical: skipped. */
	}
	return false;
}

/* log2 of the 4 KiB pages in the lower canonical half of @p d's space. */
static unsigned gva_low_bits(const struct hvtlb_decoded *d)
{
	return d->va_bits == 57 ? 44 : 35;
}

/* Whether simple-format entry @p e is wholly in the lower canonical half:
 * its last page, first + additional, is below 2^low_bits. Nonzero means
 * no. The fast paths of the GVA iterators take the entries it passes. */
static inline uint64_t gva_raw_outside(uint64_t e, unsigned low_bits)
{
	return ((e >> 12) + (e & HV_GVA_SIMPLE_COUNT_MASK)) >> low_bits;
}

bool hvtlb_gva_iter_next(struct hvtlb_gva_iter *it, struct hvtlb_gva_range *r)
{
	const struct hvtlb_decoded *d;

	if (!it || !it->d)
		return false;
	d = it->d;
	/* Fast path: a simple-format entry wholly in the lower canonical
	 * half, the common case; everything else takes the general path. */
	if (!it->has_pending && !d->extended && it->index < d->gva_count &&
	    d->gva) {
		uint64_t e = hv_ld64_once(d->gva + 8u * it->index);

		if (!gva_raw_outside(e, gva_low_bits(d))) {
			it->index++;
			if (r) {
				r->gva = e & ~HV_PAGE_OFFSET_MASK;
				r->pages = (e & HV_GVA_SIMPLE_COUNT_MASK) + 1;
				r->size = HVTLB_PAGE_4K;
			}
			return true;
		}
	}
	return gva_iter_slow(it, r);
}

size_t hvtlb_gva_iter_fill(struct hvtlb_gva_iter *it,
			   struct hvtlb_gva_range *out, size_t max)
{
	const struct hvtlb_decoded *d;
	size_t n = 0;

	if (!it || !it->d || !out)
		return 0;
	d = it->d;
	while (n < max) {
		/* The common case in a tight loop: simple-format entries wholly
		 * in the lower canonical half (as in hvtlb_gva_iter_next). */
		if (!it->has_pending && !d->extended && d->gva) {
			const unsigned low_bits = gva_low_bits(d);
			uint32_t i = it->index, end = d->gva_count;

			for (; n < max && i < end; n++, i++) {
				uint64_t e = hv_ld64_once(d->gva + 8u * i);

				if (gva_raw_outside(e, low_bits))
					break;
				out[n].gva = e & ~HV_PAGE_OFFSET_MASK;
				out[n].pages =
					(e & HV_GVA_SIMPLE_COUNT_MASK) + 1;
				out[n].size = HVTLB_PAGE_4K;
			}
			it->index = i;
			if (n == max)
				break;
		}
		/* Anything else, one range at a time. */
		if (!gva_iter_slow(it, &out[n]))
			break;
		n++;
	}
	return n;
}

/* The entry, in the call's format, that names @p r (canonical, at most one
 * entry's worth of pages, as gva_iter_slow() returns it). */
static uint64_t gva_entry_of(const struct hvtlb_gva_range *r, bool extended)
{
	uint64_t e = r->gva | (r->pages - 1);

	if (extended && r->size != HVTLB_PAGE_4K) {
		e |= HVTLB_GVA_EXT_LARGE;
		if (r->size == HVTLB_PAGE_1G)
			e |= HVTLB_GVA_EXT_1G;
	}
	return e;
}

/*
 * The fast path of hvtlb_gva_iter_fill_raw(), gva_raw_copy_lower(): see
 * gva-raw.h. With GCC or clang on a little-endian host it is vector code:
 * 16-byte vectors (SSE2, NEON), or 32-byte ones when the build targets
 * AVX2. An x86-64 build that may use SSE but not AVX2 also carries an AVX2
 * and an AVX-512 instance and picks at run time the widest that the CPU
 * and the OS support and the CPU runs at full clock (a build with -mno-sse,
 * as kernels use, gets neither).
 * Elsewhere there is no fast path.
 */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) &&                            \
	__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
typedef uint64_t gva_v16 __attribute__((vector_size(16)));
typedef uint64_t gva_v32 __attribute__((vector_size(32)));
typedef gva_v16 gva_v16u __attribute__((aligned(1)));
typedef gva_v32 gva_v32u __attribute__((aligned(1)));
#define GVA_V16_ANY(v) ((v)[0] | (v)[1])
#define GVA_V32_ANY(v) ((v)[0] | (v)[1] | (v)[2] | (v)[3])

#if defined(__AVX2__)
#define GVA_RAW_FN gva_raw_copy_lower
#define GVA_RAW_ATTR
#define GVA_RAW_VEC gva_v32
#define GVA_RAW_UVEC gva_v32u
#define GVA_RAW_VW 4
#define GVA_RAW_ANY GVA_V32_ANY
#include "gva-raw.h"
#else
#define GVA_RAW_FN gva_raw_copy_v16
#define GVA_RAW_ATTR
#define GVA_RAW_VEC gva_v16
#define GVA_RAW_UVEC gva_v16u
#define GVA_RAW_VW 2
#define GVA_RAW_ANY GVA_V16_ANY
#include "gva-raw.h"

#if defined(__x86_64__) && defined(__SSE2__)
#define GVA_RAW_DISPATCH 1 /* instances chosen at run time */
#define GVA_RAW_FN gva_raw_copy_avx2
#define GVA_RAW_ATTR __attribute__((target("avx2")))
#define GVA_RAW_VEC gva_v32
#define GVA_RAW_UVEC gva_v32u
#define GVA_RAW_VW 4
#define GVA_RAW_ANY GVA_V32_ANY
#include "gva-raw.h"

/* The 64-byte instance needs __builtin_shufflevector (GCC 12, clang). */
#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define GVA_RAW_HAVE_AVX512 1
typedef uint64_t gva_v64 __attribute__((vector_size(64)));
typedef gva_v64 gva_v64u __attribute__((aligned(1)));

/* Lane by lane, GCC takes a 64-byte vector apart through memory; folded
 * in halves it stays in registers. */
#define GVA_V64_FOLD(v, ...) ((v) | __builtin_shufflevector(v, v, __VA_ARGS__))
#define GVA_V64_HALVES(v) GVA_V64_FOLD(v, 4, 5, 6, 7, 0, 1, 2, 3)
#define GVA_V64_QUARTERS(v) GVA_V64_FOLD(v, 2, 3, 0, 1, 6, 7, 4, 5)
#define GVA_V64_PAIRS(v) GVA_V64_FOLD(v, 1, 0, 3, 2, 5, 4, 7, 6)
#define GVA_V64_ANY(v) GVA_V64_PAIRS(GVA_V64_QUARTERS(GVA_V64_HALVES(v)))[0]

#define GVA_RAW_FN gva_raw_copy_avx512
#define GVA_RAW_ATTR __attribute__((target("avx512f")))
#define GVA_RAW_VEC gva_v64
#define GVA_RAW_UVEC gva_v64u
#define GVA_RAW_VW 8
#define GVA_RAW_ANY GVA_V64_ANY
#include "gva-raw.h"
#endif
#endif

static void hv_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	__asm__ volatile("cpuid"
			 : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
			 : "a"(leaf), "c"(sub));
}

#ifdef GVA_RAW_HAVE_AVX512
/* Intel cores whose clock drops for a while after 512-bit instructions:
 * Skylake-SP and its successors up to Ice Lake and Tiger Lake (family 6
 * models; the Linux kernel keeps the same list as X86_FEATURE_PREFER_YMM
 * and uses 256-bit code on them). */
static bool hv_cpu_zmm_throttles(const uint32_t id0[4], uint32_t sig)
{
	static const uint8_t models[] = { 0x55, 0x6a, 0x6c, 0x7d,
					  0x7e, 0x9d, 0x8c, 0x8d };
	uint32_t family = (sig >> 8) & 0xf;
	uint32_t model = ((sig >> 4) & 0xf) | ((sig >> 12) & 0xf0);

	/* "GenuineIntel" in EBX, EDX, ECX. */
	if (id0[1] != 0x756e6547 || id0[3] != 0x49656e69 ||
	    id0[2] != 0x6c65746e || family != 6)
		return false;
	for (unsigned i = 0; i < sizeof(models); i++)
		if (model == models[i])
			return true;
	return false;
}
#endif

/*
 * The widest instance this build has and this CPU and OS run well: 3
 * AVX-512 (CPUID.7.0:EBX AVX512F, XCR0 saving opmask and ZMM state, and no
 * clock penalty), 2 AVX2 (CPUID.1:ECX OSXSAVE and AVX, XCR0 saving SSE and
 * AVX state, CPUID.7.0:EBX AVX2), else 1. Intel SDM vol. 1, 14.3 and 15.2.
 */
static int hv_cpu_gva_raw_level(void)
{
	uint32_t id0[4], r[4], lo, hi, sig;

	hv_cpuid(0, 0, id0);
	if (id0[0] < 7)
		return 1;
	hv_cpuid(1, 0, r);
	sig = r[0];
	if ((r[2] & (3u << 27)) != (3u << 27))
		return 1;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	(void)hi;
	if ((lo & 6u) != 6u)
		return 1;
	hv_cpuid(7, 0, r);
	if (!(r[1] & (1u << 5)))
		return 1;
#ifdef GVA_RAW_HAVE_AVX512
	if ((r[1] & (1u << 16)) && (lo & 0xe6u) == 0xe6u &&
	    !hv_cpu_zmm_throttles(id0, sig))
		return 3;
#else
	(void)sig;
#endif
	return 2;
}

/* 0: not asked yet, 1: the 16-byte instance, 2: AVX2, 3: AVX-512. Asking
 * is idempotent, so a race only asks twice; CPUID is a VM exit, hence the
 * cache. */
static int gva_raw_isa;

int hv_gva_raw_select(int which)
{
	if (which < 0 || which > 3) {
		which = 0;
	} else if (which > 1) {
		int best = hv_cpu_gva_raw_level();

		if (which > best)
			which = best;
	}
	__atomic_store_n(&gva_raw_isa, which, __ATOMIC_RELAXED);
	return which;
}

static size_t gva_raw_copy_lower(uint64_t *dst, const uint8_t *src,
				 size_t count, unsigned low_bits)
{
	int have = __atomic_load_n(&gva_raw_isa, __ATOMIC_RELAXED);

	if (!have) {
		have = hv_cpu_gva_raw_level();
		__atomic_store_n(&gva_raw_isa, have, __ATOMIC_RELAXED);
	}
#ifdef GVA_RAW_HAVE_AVX512
	if (have == 3)
		return gva_raw_copy_avx512(dst, src, count, low_bits);
#endif
	if (have == 2)
		return gva_raw_copy_avx2(dst, src, count, low_bits);
	return gva_raw_copy_v16(dst, src, count, low_bits);
}
#endif
#ifndef GVA_RAW_DISPATCH
#define gva_raw_copy_lower gva_raw_copy_v16
#endif
#endif
#else
/* Without vectors a block test saves nothing over the exact one: the
 * caller's entry-by-entry loop does it all. */
static size_t gva_raw_copy_lower(uint64_t *dst, const uint8_t *src,
				 size_t count, unsigned low_bits)
{
	(void)dst;
	(void)src;
	(void)count;
	(void)low_bits;
	return 0;
}
#endif

#ifndef GVA_RAW_DISPATCH
int hv_gva_raw_select(int which)
{
	(void)which;
	return 0; /* one instance only */
}
#endif

size_t hvtlb_gva_iter_fill_raw(struct hvtlb_gva_iter *it, uint64_t *out,
			       size_t max)
{
	const struct hvtlb_decoded *d;
	size_t n = 0;

	if (!it || !it->d || !out)
		return 0;
	d = it->d;
	while (n < max) {
		struct hvtlb_gva_range r;

		/* Simple-format entries wholly in the lower canonical half are
		 * passed on as they are: in vector blocks while well below its
		 * top, then one by one. Each entry is loaded once and the value
		 * checked is the value stored, so a guest that rewrites its
		 * input meanwhile gains nothing. The first entry that fails
		 * is redone by the general path. */
		if (!it->has_pending && !d->extended && d->gva) {
			const unsigned low_bits = gva_low_bits(d);
			uint32_t i = it->index;
			size_t todo = d->gva_count - i, k;

			if (todo > max - n)
				todo = max - n;
			k = gva_raw_copy_lower(out + n, d->gva + 8u * i, todo,
					       low_bits);
			for (; k < todo; k++) {
				uint64_t e =
					hv_ld64_once(d->gva + 8u * (i + k));

				if (gva_raw_outside(e, low_bits))
					break;
				out[n + k] = e;
			}
			n += k;
			it->index = i + (uint32_t)k;
			if (n == max)
				break;
		}
		/* Anything else, one range at a time, re-encoded. */
		if (!gva_iter_slow(it, &r))
			break;
		out[n++] = gva_entry_of(&r, d->extended);
	}
	return n;
}
