// SPDX-License-Identifier: MIT
/*
 * Guest side: a typed call description to the control word and the exact
 * little-endian input image (docs/wire-format.md: the control word, flags,
 * input layouts, VP sets, GVA entries, memory and fast input).
 *
 * Encoding is two steps: plan() checks the description and works out the
 * VP set, the entry count and the size; emit() writes the bytes. Planning
 * alone answers hvtlb_encode_suggest(), so both always agree.
 */
#include <hvtlb/hypercall.h>

#include "wire.h"

struct plan {
	uint64_t flags;	     /* flags as they go on the wire */
	bool all;	     /* Ex: format ALL */
	uint64_t mask0;	     /* non-Ex ProcessorMask */
	uint64_t valid_mask; /* Ex: ValidBanksMask */
	unsigned nbanks;
	uint64_t banks[HVTLB_VPSET_BANKS];
	size_t entries; /* GVA list entries (List calls) */
	size_t hdr;	/* bytes before the GVA list */
};

/*
 * The pages a range covers after rounding outwards: first page index and
 * count in units of its own page size. Returns false for a bad page size or
 * a range that runs past 2^64.
 */
static bool range_pages(const struct hvtlb_gva_range *r, unsigned *shift,
			uint64_t *first, uint64_t *count)
{
	unsigned s;
	uint64_t last_page, extra;

	if (r->size != HVTLB_PAGE_4K && r->size != HVTLB_PAGE_2M &&
	    r->size != HVTLB_PAGE_1G)
		return false;
	s = hvtlb_page_shift(r->size);
	*shift = s;
	*first = r->gva >> s;
	if (r->pages == 0) {
		*count = 0;
		return true;
	}
	/* An unaligned start spills into one more page at the end. */
	extra = (r->gva & hv_bits_below(s)) ? 1 : 0;
	last_page = UINT64_MAX >> s;
	if (r->pages - 1 > last_page - *first ||
	    r->pages - 1 + extra > last_page - *first)
		return false;
	*count = r->pages + extra;
	return true;
}

/* Entries one range needs, or SIZE_MAX. */
static size_t range_entries(const struct hvtlb_gva_range *r, bool extended)
{
	unsigned shift;
	uint64_t first, count, n;

	if (!range_pages(r, &shift, &first, &count))
		return SIZE_MAX;
	if (extended) {
		n = count / HVTLB_GVA_EXT_MAX_PAGES +
		    (count % HVTLB_GVA_EXT_MAX_PAGES != 0);
	} else {
		/* Simple entries count 4 KiB pages: at most 2^52 of them. */
		count <<= shift - 12;
		n = count / HVTLB_GVA_SIMPLE_MAX_PAGES +
		    (count % HVTLB_GVA_SIMPLE_MAX_PAGES != 0);
	}
	if (n >= SIZE_MAX)
		return SIZE_MAX - 1;
	return (size_t)n;
}

size_t hvtlb_gva_entries_needed(const struct hvtlb_gva_range *r, size_t n,
				bool extended)
{
	size_t total = 0;

	if (n && !r)
		return SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		size_t e = range_entries(&r[i], extended);

		if (e == SIZE_MAX)
			return SIZE_MAX;
		/* Saturate below SIZE_MAX: huge but valid is not "wraps". */
		total = e > SIZE_MAX - 1 - total ? SIZE_MAX - 1 : total + e;
	}
	return total;
}

/* The VP set: every VP (format ALL, or the flag on a non-Ex flush), the
 * one mask of a non-Ex call (VPs 0-63 only), or the banks of an Ex call. */
static int plan_vpset(const struct hvtlb_call_desc *d, bool ex, bool ipi,
		      struct plan *p)
{
	p->all = false;
	p->mask0 = 0;
	p->valid_mask = 0;
	p->nbanks = 0;
	if (!ex && ipi && d->all_vps)
		return -HVTLB_EINVAL; /* a non-Ex IPI cannot say "all" */
	if (!ipi && (d->flags & HVTLB_FLUSH_ALL_PROCESSORS))
		p->all = true;
	if (d->all_vps) {
		/* Ex calls say "all" with format ALL; a non-Ex flush can only
		 * say it with the flag. */
		p->all = true;
		if (!ipi && !ex)
			p->flags |= HVTLB_FLUSH_ALL_PROCESSORS;
	}
	if (p->all)
		return 0;
	if (!d->vps)
		return -HVTLB_EINVAL;
	if (ex) {
		p->nbanks = hv_vpset_build(d->vps, d->vpset_style,
					   &p->valid_mask, p->banks);
		return 0;
	}
	for (unsigned i = 1; i < HVTLB_VPSET_BANKS; i++)
		if (d->vps->bits[i])
			return -HVTLB_ERANGE;
	p->mask0 = d->vps->bits[0];
	return 0;
}

static int plan(const struct hvtlb_call_desc *d, struct plan *p)
{
	uint16_t call;
	bool ex, ipi, list, space;
	size_t limit, room;
	int rc;

	if (!d)
		return -HVTLB_EINVAL;
	call = d->call;
	if (!hv_call_known(call))
		return -HVTLB_EINVAL;
	ex = hv_call_is_ex(call);
	ipi = hv_call_is_ipi(call);
	list = hv_call_is_list(call);
	space = hv_call_is_space(call);

	/* Flags: only flush calls have them, each bit in its place. */
	p->flags = d->flags;
	if (ipi && d->flags)
		return -HVTLB_EINVAL;
	if (d->flags & ~HVTLB_FLUSH_FLAGS_VALID)
		return -HVTLB_EINVAL;
	if ((d->flags & HVTLB_FLUSH_NON_GLOBAL_MAPPINGS_ONLY) && !space)
		return -HVTLB_EINVAL;
	if ((d->flags & HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT) && !list)
		return -HVTLB_EINVAL;
	if (ipi && (d->vector < HVTLB_IPI_VECTOR_MIN ||
		    d->vector > HVTLB_IPI_VECTOR_MAX))
		return -HVTLB_EINVAL;
	if (d->vpset_style != HVTLB_VPSET_COMPACT &&
	    d->vpset_style != HVTLB_VPSET_LINUX)
		return -HVTLB_EINVAL;

	p->entries = 0;
	if (list) {
		bool ext = d->flags & HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT;

		p->entries =
			hvtlb_gva_entries_needed(d->ranges, d->nranges, ext);
		if (p->entries == SIZE_MAX || p->entries == 0)
			return -HVTLB_EINVAL;
	}

	rc = plan_vpset(d, ex, ipi, p);
	if (rc)
		return rc;

	/* Size against the page or the register budget. */
	p->hdr = hv_fixed_header_bytes(call) + 8u * p->nbanks;
	limit = d->fast ? HVTLB_FAST_BYTES : HVTLB_PAGE_BYTES;
	if (p->hdr > limit)
		return -HVTLB_ENOSPC;
	room = (limit - p->hdr) / 8;
	if (p->entries > room || p->entries > HVTLB_REP_MAX)
		return -HVTLB_ENOSPC;
	return 0;
}

/* Writes the entries for one range at @w; returns the new cursor. */
static uint8_t *emit_range(uint8_t *w, const struct hvtlb_gva_range *r,
			   bool extended)
{
	unsigned shift;
	uint64_t page, count;

	if (!range_pages(r, &shift, &page, &count))
		return w; /* cannot happen: plan() checked every range */
	if (!extended || shift == 12) {
		uint64_t max = extended ? HVTLB_GVA_EXT_MAX_PAGES
					: HVTLB_GVA_SIMPLE_MAX_PAGES;

		/* 4 KiB pages: bits 63:12 page number, low bits extra. */
		page <<= shift - 12;
		count <<= shift - 12;
		while (count) {
			uint64_t k = count < max ? count : max;

			hv_st64(w, page << 12 | (k - 1));
			w += 8;
			page += k;
			count -= k;
		}
	} else {
		uint64_t kind = HVTLB_GVA_EXT_LARGE |
				(shift == 30 ? HVTLB_GVA_EXT_1G : 0);

		/* Large-page form: bits 63:21 = GVA >> 21 (bits 20:13
		 * reserved, zero), bits 10:0 additional large pages. */
		while (count) {
			uint64_t k = count < HVTLB_GVA_EXT_MAX_PAGES
					     ? count
					     : HVTLB_GVA_EXT_MAX_PAGES;

			hv_st64(w, page << shift | kind | (k - 1));
			w += 8;
			page += k;
			count -= k;
		}
	}
	return w;
}

int hvtlb_encode(const struct hvtlb_call_desc *d, struct hvtlb_encoded *out)
{
	struct plan p;
	uint8_t *b;
	uint64_t as;
	int rc;

	if (!out)
		return -HVTLB_EINVAL;
	rc = plan(d, &p);
	if (rc)
		return rc;

	/* Every byte of [0, len) is written below but the IPI padding; clear
	 * the header only, not the whole page (the simulator encodes once
	 * per shootdown). */
	b = out->input;
	memset(b, 0, p.hdr);
	as = (p.flags & HVTLB_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES)
		     ? 0
		     : d->address_space & ~HV_PAGE_OFFSET_MASK;
	switch (d->call) {
	case HVTLB_CALL_FLUSH_SPACE:
	case HVTLB_CALL_FLUSH_LIST:
		hv_st64(b + HV_OFF_ADDRESS_SPACE, as);
		hv_st64(b + HV_OFF_FLAGS, p.flags);
		hv_st64(b + HV_OFF_MASK, p.mask0);
		break;
	case HVTLB_CALL_FLUSH_SPACE_EX:
	case HVTLB_CALL_FLUSH_LIST_EX:
		hv_st64(b + HV_OFF_ADDRESS_SPACE, as);
		hv_st64(b + HV_OFF_FLAGS, p.flags);
		hv_st64(b + HV_OFF_EX_FORMAT,
			p.all ? HVTLB_VPSET_ALL : HVTLB_VPSET_SPARSE_4K);
		hv_st64(b + HV_OFF_EX_VMASK, p.valid_mask);
		break;
	case HVTLB_CALL_SEND_IPI:
		hv_st32(b + HV_OFF_IPI_VECTOR, d->vector);
		b[HV_OFF_IPI_VTL] = d->target_vtl;
		hv_st64(b + HV_OFF_IPI_MASK, p.mask0);
		break;
	case HVTLB_CALL_SEND_IPI_EX:
		hv_st32(b + HV_OFF_IPI_VECTOR, d->vector);
		b[HV_OFF_IPI_VTL] = d->target_vtl;
		hv_st64(b + HV_OFF_IPI_FORMAT,
			p.all ? HVTLB_VPSET_ALL : HVTLB_VPSET_SPARSE_4K);
		hv_st64(b + HV_OFF_IPI_VMASK, p.valid_mask);
		break;
	}
	for (unsigned i = 0; i < p.nbanks; i++)
		hv_st64(b + hv_fixed_header_bytes(d->call) + 8 * i, p.banks[i]);

	if (p.entries) {
		bool ext = p.flags & HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT;
		uint8_t *w = b + p.hdr;

		for (size_t i = 0; i < d->nranges; i++)
			w = emit_range(w, &d->ranges[i], ext);
	}

	out->len = p.hdr + 8 * p.entries;
	out->control = (uint64_t)d->call | (d->fast ? HVTLB_CTL_FAST : 0) |
		       (uint64_t)p.nbanks << HVTLB_CTL_VARHEAD_SHIFT |
		       (uint64_t)p.entries << HVTLB_CTL_REP_COUNT_SHIFT;
	return 0;
}

static uint16_t ex_form(uint16_t call)
{
	switch (call) {
	case HVTLB_CALL_FLUSH_SPACE:
		return HVTLB_CALL_FLUSH_SPACE_EX;
	case HVTLB_CALL_FLUSH_LIST:
		return HVTLB_CALL_FLUSH_LIST_EX;
	case HVTLB_CALL_SEND_IPI:
		return HVTLB_CALL_SEND_IPI_EX;
	}
	return call;
}

uint16_t hvtlb_encode_suggest(const struct hvtlb_call_desc *d)
{
	struct hvtlb_call_desc c;
	struct plan p;
	int rc;

	if (!d)
		return 0;
	if (plan(d, &p) == 0)
		return d->call;
	/* Everything below answers for the memory form. */
	c = *d;
	c.fast = false;
	rc = plan(&c, &p);
	if (rc == -HVTLB_ERANGE) {
		c.call = ex_form(c.call);
		rc = plan(&c, &p);
	}
	if (rc == -HVTLB_ENOSPC && hv_call_is_list(c.call)) {
		/* The list does not fit: flush the address space instead
		 * (the extended-range flag has no meaning there). */
		c.call = c.call == HVTLB_CALL_FLUSH_LIST
				 ? HVTLB_CALL_FLUSH_SPACE
				 : HVTLB_CALL_FLUSH_SPACE_EX;
		c.flags &= ~(uint64_t)HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT;
		rc = plan(&c, &p);
	}
	return rc == 0 ? c.call : 0;
}
