// SPDX-License-Identifier: MIT
/*
 * Writes the seed corpora: gen-corpus DECODE_DIR PARSE_DIR ENCODE_DIR.
 * Decoder seeds are real encodings (hvtlb_encode) of every call, fast and
 * memory, under every profile, plus truncations and boundary inputs; parser
 * seeds are valid and nearly valid texts; encoder seeds are descriptions in
 * the layout fuzz-encode.c reads. Run by hand; the output is committed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hvtlb/hypercall.h>

static const char *ddir;
static unsigned nseeds;

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void write_file(const char *dir, const char *name, const void *buf,
		       size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len) {
		perror(path);
		exit(1);
	}
	fclose(f);
	nseeds++;
}

/* One decoder seed: header + span. */
static void seed(const char *name, unsigned profile, uint64_t control,
		 unsigned vp_count, unsigned hostflags, unsigned gpa_off,
		 const uint8_t *span, size_t len)
{
	static uint8_t buf[14 + HVTLB_PAGE_BYTES * 9];

	buf[0] = (uint8_t)profile;
	put_le(buf + 1, control, 8);
	put_le(buf + 9, vp_count, 2);
	buf[11] = (uint8_t)hostflags;
	put_le(buf + 12, gpa_off, 2);
	memcpy(buf + 14, span, len);
	write_file(ddir, name, buf, 14 + len);
}

static void seed_desc(const char *name, unsigned profile,
		      const struct hvtlb_call_desc *d, size_t cut)
{
	static struct hvtlb_encoded e;
	size_t len;

	if (hvtlb_encode(d, &e)) {
		fprintf(stderr, "%s: cannot encode\n", name);
		exit(1);
	}
	len = e.len;
	if (e.control & HVTLB_CTL_FAST) {
		/* The register image: input[] past len is not cleared. */
		memset(e.input + e.len, 0, HVTLB_FAST_BYTES - e.len);
		len = HVTLB_FAST_BYTES;
	}
	if (cut && cut < len)
		len = cut;
	seed(name, profile, e.control, 4096, 0, 0, e.input, len);
}

int main(int argc, char **argv)
{
	static const char *const pnames[] = { "strict", "kvm", "xen",
					      "openvmm" };
	static const uint16_t calls[] = { 0x2, 0x3, 0xb, 0x13, 0x14, 0x15 };
	struct hvtlb_vpmask m, big;
	struct hvtlb_gva_range r[3] = {
		{ 0x7f0000001000ULL, 3, HVTLB_PAGE_4K },
		{ 0xffff800000200000ULL, 5000, HVTLB_PAGE_4K },
		{ 0x40000000ULL, 2, HVTLB_PAGE_2M },
	};
	struct hvtlb_gva_range full = { 0, 509ULL * 4096, HVTLB_PAGE_4K };
	struct hvtlb_call_desc d;
	char name[64];
	uint8_t raw[HVTLB_PAGE_BYTES * 9];

	if (argc != 4) {
		fprintf(stderr,
			"usage: gen-corpus DECODE_DIR PARSE_DIR ENCODE_DIR\n");
		return 2;
	}
	ddir = argv[1];

	memset(&m, 0, sizeof(m));
	hvtlb_vpmask_set(&m, 0);
	hvtlb_vpmask_set(&m, 5);
	hvtlb_vpmask_set(&m, 63);
	memset(&big, 0, sizeof(big));
	hvtlb_vpmask_set(&big, 0);
	hvtlb_vpmask_set(&big, 5);
	hvtlb_vpmask_set(&big, 130);
	hvtlb_vpmask_set(&big, 4095);

	/* Every call, memory and fast, one profile each in turn. */
	for (unsigned c = 0; c < 6; c++) {
		for (int fast = 0; fast < 2; fast++) {
			unsigned p = (2 * c + (unsigned)fast) % 4;

			memset(&d, 0, sizeof(d));
			d.call = calls[c];
			d.address_space = 0x1234567000ULL;
			d.vps = hvtlb_call_is_ex(d.call) ? &big : &m;
			d.ranges = r;
			d.nranges = fast ? 1 : 3;
			d.fast = fast;
			d.vector = 0x30;
			if (hvtlb_call_is_rep(d.call) && !fast)
				d.flags = HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT;
			snprintf(name, sizeof(name), "%s-%s-%s",
				 hvtlb_call_name(d.call), fast ? "fast" : "mem",
				 pnames[p]);
			seed_desc(name, p, &d, 0);
		}
	}

	/* The TLFS set, Linux style, under every profile. */
	memset(&d, 0, sizeof(d));
	d.call = HVTLB_CALL_FLUSH_LIST_EX;
	d.vps = &big;
	d.vpset_style = HVTLB_VPSET_LINUX;
	d.ranges = r;
	d.nranges = 2;
	for (unsigned p = 0; p < 4; p++) {
		snprintf(name, sizeof(name), "list-ex-linux-%s", pnames[p]);
		seed_desc(name, p, &d, 0);
	}
	/* Truncations: in the banks, in the entries. */
	seed_desc("list-ex-cut-banks", 0, &d, 40);
	seed_desc("list-ex-cut-entries", 0, &d, 32 + 8 * 64 + 4);

	/* A full page: 509 entries; ALL format; 16 entries for KVM. */
	memset(&d, 0, sizeof(d));
	d.call = HVTLB_CALL_FLUSH_LIST;
	d.vps = &m;
	d.ranges = &full;
	d.nranges = 1;
	seed_desc("list-509-strict", 0, &d, 0);
	seed_desc("list-509-kvm", 1, &d, 0);
	d.call = HVTLB_CALL_FLUSH_LIST_EX;
	d.all_vps = true;
	full.pages = 16 * 4096;
	seed_desc("list-ex-all-16-kvm", 1, &d, 0);
	d.fast = true;
	full.pages = 10 * 4096;
	seed_desc("list-ex-all-fast-10", 0, &d, 0);

	/* Hand-made boundary inputs. */
	memset(raw, 0, sizeof(raw));
	put_le(raw, 0x1000, 8);
	put_le(raw + 16, 1, 8);
	/* 4095 reps: more than a page. */
	for (unsigned i = 0; i < 4095; i++)
		put_le(raw + 24 + 8 * i, 0x1000ULL * (i + 1), 8);
	seed("list-4095-strict", 0, 0x00000fff00000003ULL, 64, 0, 0, raw,
	     24 + 8 * 4095);
	seed("list-4095-kvm", 1, 0x00000fff00000003ULL, 64, 0, 0, raw,
	     24 + 8 * 4095);
	seed("list-4095-start-4094", 3, 0x0ffe0fff00000003ULL, 64, 0, 0, raw,
	     24 + 8 * 4095);
	/* Non-canonical edges, 48 and 57 bits. */
	put_le(raw + 24, 0x00007ffffffff002ULL, 8);
	put_le(raw + 32, 0xffff7ffffffff002ULL, 8);
	put_le(raw + 40, 0xfffffffffffff00fULL, 8);
	put_le(raw + 48, ~0ULL, 8);
	seed("list-noncanonical-48", 0, 0x0000000400000003ULL, 64, 0, 0, raw,
	     56);
	seed("list-noncanonical-57", 0, 0x0000000400000003ULL, 64, 2, 0, raw,
	     56);
	put_le(raw + 8, HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT, 8);
	put_le(raw + 24, 0x00007fffffe00801ULL, 8);
	put_le(raw + 32, 0x00007fffc0001802ULL, 8);
	put_le(raw + 40, 0xffffffffc0001fffULL, 8);
	put_le(raw + 48, 0x0000000040001fe0ULL, 8); /* reserved bits */
	seed("list-ext-edges", 0, 0x0000000400000003ULL, 64, 0, 0, raw, 56);
	seed("list-ext-edges-xen", 2, 0x0000000400000003ULL, 64, 0, 0, raw, 56);
	/* VP 4095 on VMs of 4095 and 4096 VPs; an empty and a zero VM. */
	memset(raw, 0, 64);
	put_le(raw + 24, (1ULL << 63) | 1, 8);
	put_le(raw + 32, 0x21, 8);
	put_le(raw + 40, 1ULL << 63, 8);
	seed("space-ex-vp4095-of-4095", 0, 0x13 | (2ULL << 17), 4095, 0, 0, raw,
	     48);
	seed("space-ex-vp4095-of-4096", 3, 0x13 | (2ULL << 17), 4096, 0, 0, raw,
	     48);
	seed("space-ex-vm-0", 1, 0x13 | (2ULL << 17), 0, 0, 0, raw, 48);
	seed("space-ex-varhead-1-xen", 2, 0x13 | (1ULL << 17), 64, 0, 0, raw,
	     48);
	seed("space-ex-varhead-3-openvmm", 3, 0x13 | (3ULL << 17), 64, 0, 0,
	     raw, 48);
	put_le(raw + 16, 7, 8);
	seed("space-ex-format-7-kvm", 1, 0x13 | (2ULL << 17), 64, 0, 0, raw,
	     48);
	/* Control-word defects. */
	memset(raw, 0, 64);
	put_le(raw + 16, 2, 8);
	seed("space-reserved-27", 0, 0x2 | (1ULL << 27), 64, 0, 0, raw, 24);
	seed("space-reserved-63-xen", 2, 0x2 | (1ULL << 63), 64, 0, 0, raw, 24);
	seed("space-nested-on", 0, 0x2 | (1ULL << 31), 64, 1, 0, raw, 24);
	seed("space-crossing", 0, 0x2, 64, 0, 4088, raw, 24);
	seed("space-crossing-kvm", 1, 0x2, 64, 0, 4088, raw, 24);
	seed("space-misaligned-openvmm", 3, 0x2, 64, 0, 4, raw, 24);
	seed("space-empty-mask-kvm", 1, 0x2, 64, 0, 0, raw, 16);
	seed("unknown-call", 0, 0x1, 64, 0, 0, raw, 24);
	seed("short-header", 0, 0x2, 64, 0, 0, raw, 12);
	seed("empty-span", 1, 0x14, 64, 0, 0, raw, 0);

	/* Host decisions and known host bugs of the pinned profiles
	 * (docs/hosts.md). Host flags: bit 2 KVM SynIC, bit 3
	 * KVM_MAX_VCPUS 1024, bits 7:4 the caller's VP. */
	memset(raw, 0, 256);
	seed("kvm-spin-wait", 1, 0x8, 64, 0, 0, raw, 8);
	seed("kvm-post-message-synic", 1, 0x5c, 64, 4, 0, raw, 16);
	seed("kvm-ext-call-fast", 1, 0x18001, 64, 0, 0, raw, 112);
	seed("xen-spin-wait-reps", 2, 0x500000008, 64, 0, 0, raw, 8);
	seed("openvmm-get-vp-registers", 4, 0x100000050, 64, 0, 0, raw, 16);
	put_le(raw + 24, 0xfffff, 8);
	put_le(raw + 32, 2, 8);
	seed("kvm-max-1024-20-banks", 1, 0x13 | (20ULL << 17), 1024, 8, 0, raw,
	     160);
	memset(raw, 0, 256);
	put_le(raw + 16, 2, 8);
	put_le(raw + 24, 0x00007ffffffff001ULL, 8);
	seed("kvm-list-noncanonical-range", 1, 0x3 | (1ULL << 32), 64, 0, 0,
	     raw, 32);
	memset(raw, 0, 256);
	put_le(raw, 0xc1fb853803000ULL, 8);
	put_le(raw + 8, 4, 8);
	put_le(raw + 24, 0x1000, 8);
	put_le(raw + 32, 0x80000, 8);
	seed("xen-vp-787", 2, 0x60013, 128, 0, 0, raw, 40);
	memset(raw, 0, 256);
	put_le(raw, 0x20, 8);
	put_le(raw + 8, 1, 8);
	seed("xen-ipi-ex-all-of-4", 2, 0x15, 4, 0, 0, raw, 24);
	memset(raw, 0, 256);
	put_le(raw + 8, 4, 8);
	put_le(raw + 16, 2, 8);
	seed("snp-space-self-non-global", 4, 0x2, 64, 1 << 4, 0, raw, 24);
	put_le(raw + 16, 0x100, 8);
	seed("tdx-space-vp-8-of-4", 3, 0x2, 4, 0, 0, raw, 24);
	memset(raw, 0, 256);
	put_le(raw, 0x1100000020ULL, 8);
	put_le(raw + 8, 2, 8);
	seed("openvmm-ipi-vtl-1", 3, 0xb, 64, 0, 0, raw, 16);
	memset(raw, 0, 256);
	put_le(raw + 8, 0x10, 8);
	put_le(raw + 16, 2, 8);
	seed("openvmm-list-fails-at-rep-1", 3, 0x0001000200000003ULL, 64, 0, 0,
	     raw, 40);
	printf("%u decoder seeds\n", nseeds);

	/* Parser seeds. */
	static const char *const texts[] = {
		"0",
		"18446744073709551615",
		"18446744073709551616",
		"0xffffffffffffffff",
		"0x10000000000000000",
		"0X1f",
		"0x",
		"-1",
		" 1",
		"1 ",
		"00000000000000000000000000042",
		"deadbeef",
		"0,5,64-127",
		"4095",
		"0-4095",
		"4096",
		"3-1",
		"1,,2",
		"1,",
		",1",
		"4k",
		"2M",
		"1g",
		"0x7f0000001000+3",
		"fffff000+0",
		"0x1 0x2,0x3 # comment\n4",
		"1,,2 3",
		"yes",
		"OFF",
	};
	unsigned np = 0;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		uint8_t buf[128];
		size_t n = strlen(texts[i]);

		buf[0] = (uint8_t)(i * 37);
		memcpy(buf + 1, texts[i], n);
		snprintf(name, sizeof(name), "text-%02zu", i);
		write_file(argv[2], name, buf, n + 1);
		np++;
	}
	printf("%u parser seeds\n", np);

	/* Encoder seeds: call, flag bits, VPs, ranges (fuzz-encode.c). */
	static const struct {
		uint8_t call, bits, nvps;
		uint16_t vps[4];
		uint8_t nr;
		uint64_t gva[3], pages[3];
		uint8_t size[3];
	} enc[] = {
		{ 0, 0x00, 3, { 0, 5, 63 }, 0, { 0 }, { 0 }, { 0 } },
		{ 1,
		  0x00,
		  1,
		  { 1 },
		  2,
		  { 0x7f0000001800ULL, 0 },
		  { 4097, 1 },
		  { 0, 0 } },
		{ 1, 0x10, 1, { 1 }, 1, { 0x1000 }, { 11 * 4096 }, { 0 } },
		{ 2, 0x10, 2, { 1, 63 }, 0, { 0 }, { 0 }, { 0 } },
		{ 3, 0x40, 3, { 0, 5, 130 }, 0, { 0 }, { 0 }, { 0 } },
		{ 4,
		  0x08,
		  2,
		  { 5, 4095 },
		  3,
		  { 0x40100000ULL, 0xffffffffc0000000ULL, 0x1fff },
		  { 2049, 1, 1 },
		  { 1, 2, 0 } },
		{ 4,
		  0x30,
		  0,
		  { 0 },
		  1,
		  { 0xfffffffffffff000ULL },
		  { 1 },
		  { 0 } },
		{ 5, 0x20, 0, { 0 }, 0, { 0 }, { 0 }, { 0 } },
		{ 5, 0x10, 4, { 0, 64, 128, 4095 }, 0, { 0 }, { 0 }, { 0 } },
		{ 0, 0x81, 0, { 0 }, 0, { 0 }, { 0 }, { 0 } },
		{ 1, 0x04, 1, { 2 }, 1, { 0x1000 }, { 1 }, { 0 } },
		{ 1,
		  0x00,
		  1,
		  { 64 },
		  1,
		  { 0xfffffffffffff000ULL },
		  { 2 },
		  { 0 } },
	};
	unsigned ne = 0;
	for (size_t i = 0; i < sizeof(enc) / sizeof(enc[0]); i++) {
		uint8_t buf[128];
		size_t n = 0;

		buf[n++] = enc[i].call;
		buf[n++] = enc[i].bits;
		put_le(buf + n, 0x123456789abcULL, 8);
		n += 8;
		buf[n++] = 0x30; /* vector */
		buf[n++] = 0;	 /* VTL */
		buf[n++] = enc[i].nvps;
		for (unsigned k = 0; k < enc[i].nvps; k++, n += 2)
			put_le(buf + n, enc[i].vps[k], 2);
		for (unsigned k = 0; k < enc[i].nr; k++) {
			put_le(buf + n, enc[i].gva[k], 8);
			put_le(buf + n + 8, enc[i].pages[k], 4);
			buf[n + 12] = enc[i].size[k];
			n += 13;
		}
		snprintf(name, sizeof(name), "desc-%02zu", i);
		write_file(argv[3], name, buf, n);
		ne++;
	}
	printf("%u encoder seeds\n", ne);
	return 0;
}
