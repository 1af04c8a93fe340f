// SPDX-License-Identifier: MIT
/*
 * Vectors read off each host's source at the version its profile follows,
 * one per host decision, each citing the file and line it comes from:
 *
 *   hyperv.c      Linux 6.12.117 arch/x86/kvm/hyperv.c
 *   5.10:         Linux 5.10.13 arch/x86/kvm/hyperv.c (kvm-5.10)
 *   viridian.c    Xen c447b7308b xen/arch/x86/hvm/viridian/viridian.c
 *   support.rs    OpenVMM 1488a37b7c vm/hv1/hv1_hypercall/src/support.rs
 *   imp.rs        .../hv1_hypercall/src/imp.rs
 *   hvdef.rs      .../vm/hv1/hvdef/src/lib.rs
 *   proc_mask.rs  .../vm/hv1/hv1_structs/src/proc_mask.rs
 *   cvm.rs        .../openhcl/virt_mshv_vtl/src/processor/hardware_cvm/mod.rs
 *   proc.rs       .../openhcl/virt_mshv_vtl/src/processor/mod.rs
 *   tdx.rs, snp.rs  .../processor/tdx/mod.rs, .../processor/snp/mod.rs
 *
 * Every input is handed to the decoder in an allocation of exactly its
 * size (fast calls: the 112-byte register image), so ASan sees any read
 * past it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "hc-test.h"

#define AS 0x1234000ULL
#define FAST HVTLB_CTL_FAST
#define VH(n) ((uint64_t)(n) << HVTLB_CTL_VARHEAD_SHIFT)
#define REPS(n) ((uint64_t)(n) << HVTLB_CTL_REP_COUNT_SHIFT)
#define START(n) ((uint64_t)(n) << HVTLB_CTL_REP_START_SHIFT)

enum {
	X_ALLGVA = 1 << 0, /* flush_all_gvas */
	X_LIST = 1 << 1,   /* a GVA list of .nlist entries */
	X_ALLVP = 1 << 2,  /* all_vps */
	X_VP = 1 << 3,	   /* .vp is a target, and the only one */
	X_NOVP = 1 << 4,   /* no target */
	X_VMM = 1 << 5,	   /* scope: the VMM answers */
	X_DISP = 1 << 6,   /* scope: a handler hvtlb does not model */
};

struct vec {
	const char *cite;
	enum hvtlb_profile prof;
	uint64_t ctl;
	uint64_t w[24];
	unsigned nw;
	int len;	 /* bytes given; 0: the words */
	unsigned fill;	 /* pad with entries 0x1000 * k to this many words */
	unsigned gpa;	 /* offset of the input in its page */
	uint32_t vps;	 /* vp_count; 0: 64 */
	uint32_t kmax;	 /* kvm_max_vcpus */
	bool synic;	 /* kvm_synic */
	uint32_t caller; /* caller_vp */
	uint16_t status;
	uint16_t reps;
	uint8_t fx;
	uint32_t vp;
	unsigned nlist;
	const char *bug; /* expected host_bug id, or NULL for none */
};

#define K HVTLB_PROFILE_KVM
#define X HVTLB_PROFILE_XEN
#define T HVTLB_PROFILE_OPENVMM_TDX
#define S HVTLB_PROFILE_OPENVMM_SNP
#define K5 HVTLB_PROFILE_KVM_5_10
#define W(...)                                                                 \
	.w = { __VA_ARGS__ }, .nw = sizeof((uint64_t[]){ __VA_ARGS__ }) / 8
#define OK(...) .status = 0, __VA_ARGS__
#define ST(s) .status = (s)

/* Inputs that name VP 1. */
#define SPACE1 W(AS, 0, 0x2)
#define LIST1 W(AS, 0, 0x2, 0x1000, 0x2000)
#define SPEX1 W(AS, 0, 0, 1, 0x2)
#define IPI1 W(0x20, 0x2)

static const struct vec vecs[] = {
	/* ---- kvm: Linux 6.12.117 arch/x86/kvm/hyperv.c ---- */
	{ "hyperv.c:2591", K, 0x2 | 1ULL << 27, SPACE1, ST(3) },
	{ "hyperv.c:2591 (bit 31)", K, 0x2 | 1ULL << 31, SPACE1, ST(3) },
	{ "hyperv.c:2591 (bit 63, code unknown)", K, 0x4 | 1ULL << 63, SPACE1,
	  ST(3) },
	{ "hyperv.c:2697", K, 0x4, SPACE1, ST(2) },
	{ "hyperv.c:2608-2614", K, 0x8, W(0), OK(.fx = X_NOVP) },
	{ "hyperv.c:2609 (rep count)", K, 0x8 | REPS(1), W(0), ST(3) },
	{ "hyperv.c:2609 (varhead)", K, 0x8 | VH(1), W(0), ST(3) },
	{ "hyperv.c:2626 (no SynIC)", K, 0x5c, W(0, 0), ST(3) },
	{ "hyperv.c:2630 (SynIC)", K, 0x5c, W(0, 0), .synic = true,
	  OK(.fx = X_VMM) },
	{ "hyperv.c:2439-2441", K, 0x5d, W(1), .gpa = 4, ST(4) },
	{ "hyperv.c:2443-2446 (read fails)", K, 0x5d, W(1), .len = 4, ST(4) },
	{ "hyperv.c:2454 then 2621-2627", K, 0x5d, W(0x100000001ULL), ST(3) },
	{ "hyperv.c:2457", K, 0x5d, W(1ULL << 24), .synic = true, ST(3) },
	{ "hyperv.c:2464 then 2630", K, 0x5d, W(1), .synic = true,
	  OK(.fx = X_VMM) },
	{ "hyperv.c:2672", K, 0x69 | FAST, W(0), ST(5) },
	{ "hyperv.c:2680", K, 0x69, W(0), ST(2) },
	{ "hyperv.c:2680 (reset)", K, 0x6b | FAST, W(0), ST(2) },
	{ "hyperv.c:2692", K, 0x8001 | FAST, W(0), ST(5) },
	{ "hyperv.c:2691-2696 (0x8041)", K, 0x8041, W(0), OK(.fx = X_VMM) },
	{ "hyperv.c:63, 2697 (0x8042)", K, 0x8042, W(0), ST(2) },
	{ "hyperv.c:2645", K, 0x2 | VH(1), W(AS, 0, 0x2, 0), ST(3) },
	{ "hyperv.c:2638 (rep count 0)", K, 0x3, SPACE1, ST(3) },
	{ "hyperv.c:2638 (rep start)", K, 0x3 | REPS(2) | START(1), LIST1,
	  ST(3) },
	{ "hyperv.c:2651", K, 0x2 | REPS(1), W(AS, 0, 0x2, 0), ST(3) },
	{ "hyperv.c:2119", K, 0x13 | VH(2), W(AS, 0, 0, 1, 0x2, 0), ST(3) },
	{ "hyperv.c:2116-2117", K, 0x13 | VH(1), W(AS, 0, 2, 1, 0x2),
	  OK(.fx = X_ALLVP | X_ALLGVA) },
	{ "hyperv.c:2123-2124", K, 0x13, W(AS, 0, 0, 0), OK(.fx = X_NOVP) },
	{ "hyperv.c:2094-2095", K, 0x2, W(AS, 0, 0),
	  OK(.fx = X_ALLVP | X_ALLGVA) },
	{ "hyperv.c:2145", K, 0x3 | REPS(16), LIST1, .fill = 19,
	  OK(.reps = 16, .fx = X_ALLGVA | X_VP, .vp = 1) },
	{ "hyperv.c:1917", K, 0x3 | FAST | REPS(12), LIST1, .fill = 15, ST(3) },
	{ "hyperv.c:2311", K, 0xb, W(0xf, 0x2), ST(3) },
	{ "hyperv.c:2263", K, 0xb | FAST, W(0x100000020ULL, 0x2), ST(3) },
	{ "hyperv.c:2297-2298", K, 0x15, W(0xf, 0, 0), OK(.fx = X_NOVP) },
	{ "hyperv.c:2294; 3244867af8c0", K, 0x15, W(0x20, 1, 0),
	  OK(.fx = X_ALLVP, .bug = "linux-3244867af8c0") },
	/* KVM_MAX_VCPUS 1024: 16 of 20 banks are read (1941). */
	{ "hyperv.c:1941 (1024)", K, 0x13 | VH(20),
	  W(AS, 0, 0, 0xfffff, 0x2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0),
	  .vps = 1024, .kmax = 1024, OK(.fx = X_VP | X_ALLGVA, .vp = 1) },
	{ "hyperv.c:1941 (4096)", K, 0x13 | VH(20),
	  W(AS, 0, 0, 0xfffff, 0x2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	    0),
	  ST(3) },
	{ "hyperv.c:1835-1837 (VP 1500 past 1024)", K, 0x13 | VH(1),
	  W(AS, 0, 0, 1ULL << 23, 1ULL << 28), .vps = 4096, .kmax = 1024,
	  OK(.fx = X_NOVP | X_ALLGVA) },
	{ "hyperv.c:2001; fa787ac07b3c", K, 0x3 | REPS(1),
	  W(AS, 0, 0x2, 0x0000800000000000ULL),
	  OK(.reps = 1, .fx = X_LIST | X_VP, .vp = 1, .nlist = 1,
	     .bug = "linux-fa787ac07b3c") },
	{ "hyperv.c:2001, 2008-2010", K, 0x3 | REPS(1),
	  W(AS, 0, 0x2, 0x00007ffffffff001ULL),
	  OK(.reps = 1, .fx = X_LIST | X_VP, .vp = 1, .nlist = 1,
	     .bug = "linux-noncanonical-gva-range") },

	/* ---- xen: Xen c447b7308b viridian.c ---- */
	{ "viridian.c:937-946", X, 0x8, W(0), OK(.fx = X_NOVP) },
	{ "viridian.c:913, 937 (reps stay 0)", X, 0x8 | REPS(5) | FAST, W(0),
	  OK(.fx = X_NOVP) },
	{ "viridian.c:990-997, 1010", X, 0x8001, W(0), ST(2) },
	{ "viridian.c:986-998", X, 0x4, SPACE1, ST(2) },
	{ "viridian.c:664-675 (reserved bits)", X,
	  0x2 | 1ULL << 27 | 1ULL << 63, SPACE1,
	  OK(.fx = X_VP | X_ALLGVA, .vp = 1) },
	{ "viridian.c:701", X, 0x2 | FAST, SPACE1, ST(5) },
	{ "viridian.c:749", X, 0x13 | FAST | VH(1), SPEX1, ST(5) },
	{ "viridian.c:877", X, 0x15 | FAST | VH(1), W(0x20, 0, 1, 2), ST(5) },
	{ "viridian.c:818-825", X, 0xb | FAST, IPI1, OK(.fx = X_VP, .vp = 1) },
	{ "viridian.c:820", X, 0xb | FAST, W(0x100000020ULL, 0x2), ST(5) },
	{ "viridian.c:705, 1017", X, 0x2, W(AS, 0), ST(5) },
	{ "viridian.c:635, 1017", X, 0x13 | VH(1), W(AS, 0, 0, 1), ST(5) },
	{ "viridian.c:718-720 (mask 0)", X, 0x2, W(AS, 0, 0),
	  OK(.fx = X_NOVP | X_ALLGVA) },
	{ "viridian.c:714", X, 0x2, W(AS, 1, 0), OK(.fx = X_ALLVP | X_ALLGVA) },
	{ "viridian.c:730 (rep count 0)", X, 0x3, SPACE1,
	  OK(.fx = X_VP | X_ALLGVA, .vp = 1) },
	{ "viridian.c:730 (list never read)", X, 0x3 | REPS(3), SPACE1,
	  OK(.reps = 3, .fx = X_VP | X_ALLGVA, .vp = 1) },
	{ "viridian.c:626 (varhead not read)", X, 0x13, SPEX1,
	  OK(.fx = X_VP | X_ALLGVA, .vp = 1) },
	{ "viridian.c:655-659", X, 0x13 | VH(1), W(AS, 0, 2, 1, 0x2), ST(5) },
	{ "viridian.c:757-758 (format ALL)", X, 0x13, W(AS, 0, 1, 0),
	  OK(.fx = X_ALLVP | X_ALLGVA) },
	{ "viridian.c:757 (ALL_PROCESSORS first)", X, 0x13, W(AS, 1, 7, 0),
	  OK(.fx = X_ALLVP | X_ALLGVA) },
	{ "viridian.c:839", X, 0xb, W(0x100000020ULL, 0x2), ST(5) },
	{ "viridian.c:840-842", X, 0xb, W(0x1000000000020ULL, 0x2), ST(5) },
	{ "viridian.c:849", X, 0xb, W(0xf, 0x2), ST(5) },
	{ "viridian.c:808-858 (reps stay 0)", X, 0xb | REPS(1), IPI1,
	  OK(.fx = X_VP, .vp = 1) },
	{ "viridian.c:885", X, 0x15 | VH(1), W(0x200000020ULL, 0, 1, 0x2),
	  ST(5) },
	{ "viridian.c:891", X, 0x15 | VH(1), W(0x0f, 0, 1, 0x2), ST(5) },
	{ "viridian.c:655 (IPI Ex)", X, 0x15 | VH(1), W(0x20, 2, 1, 0x2),
	  ST(5) },
	{ "viridian.c:618; cc64c24502", X, 0x15, W(0x20, 1, 0), .vps = 4,
	  OK(.fx = X_ALLVP, .bug = "XSA-475/CVE-2025-58148") },
	{ "viridian.c:618 (128 vCPUs)", X, 0x15, W(0x20, 1, 0), .vps = 128,
	  OK(.fx = X_ALLVP) },
	{ "viridian.c:796; cc64c24502", X, 0xb, W(0x20, 0x20), .vps = 4,
	  OK(.fx = X_NOVP, .bug = "XSA-475/CVE-2025-58148") },
	{ "viridian.c:565; 36e90c4ef1", X, 0x13 | VH(1),
	  W(0xc1fb853803000ULL, 4, 0, 0x1000, 0x80000),
	  OK(.fx = X_NOVP | X_ALLGVA, .bug = "XSA-475/CVE-2025-58147") },
	{ "viridian.c:565 (VP 127)", X, 0x13 | VH(1),
	  W(AS, 0, 0, 2, 1ULL << 63), .vps = 128,
	  OK(.fx = X_VP | X_ALLGVA, .vp = 127) },
	{ "viridian.c:565 (4096 asked, 128 built)", X, 0x13 | VH(1),
	  W(AS, 0, 0, 4, 4), .vps = 4096,
	  OK(.fx = X_NOVP | X_ALLGVA, .bug = "XSA-475/CVE-2025-58147") },

	/* ---- openvmm: OpenVMM 1488a37b7c ---- */
	{ "support.rs:130-133, 772", T, 0x4, SPACE1, ST(2) },
	{ "support.rs:130; tdx.rs:3719-3747", T, 0x8, W(0), ST(2) },
	{ "snp.rs:1111-1139 (0x0008)", S, 0x8, W(0), ST(2) },
	{ "support.rs:208 (GetVpRegisters)", S, 0x50, W(0, 0), ST(3) },
	{ "support.rs:202-221 (GetVpRegisters)", S, 0x50 | REPS(1), W(0, 0),
	  OK(.fx = X_DISP) },
	{ "support.rs:192 (PostMessage)", T, 0x5c | REPS(1), W(0), ST(3) },
	{ "support.rs:175-186 (VtlCall)", T, 0x11 | REPS(9), W(0),
	  OK(.fx = X_DISP) },
	{ "support.rs:194 (Retarget, variable)", T, 0x7e | VH(2), W(0),
	  OK(.fx = X_DISP) },
	{ "hvdef.rs:1331-1353 (reserved bits)", T, 0x2 | 1ULL << 27, SPACE1,
	  OK(.fx = X_VP | X_ALLGVA, .vp = 1) },
	{ "hvdef.rs:1342 (nested bit)", S, 0x2 | 1ULL << 31, SPACE1,
	  OK(.fx = X_ALLVP | X_ALLGVA) },
	{ "support.rs:194", T, 0x2 | VH(1), W(AS, 0, 0x2, 0), ST(3) },
	{ "support.rs:208", T, 0x3, SPACE1, ST(3) },
	{ "support.rs:210", T, 0x3 | REPS(2) | START(2), LIST1, ST(3) },
	{ "support.rs:571 (resumed List)", T, 0x3 | REPS(2) | START(1), LIST1,
	  OK(.reps = 2, .fx = X_LIST | X_VP, .vp = 1, .nlist = 1) },
	{ "support.rs:291", T, 0x2, SPACE1, .gpa = 4088, ST(3) },
	{ "support.rs:296", T, 0x2, SPACE1, .gpa = 4, ST(4) },
	{ "support.rs:230", T, 0x3 | FAST | REPS(12), LIST1, .fill = 15,
	  ST(3) },
	{ "support.rs:311-313", T, 0x3 | REPS(2), LIST1, .len = 32, ST(3) },
	{ "support.rs:594-602; cvm.rs:1426", T, 0x3 | REPS(2) | START(1),
	  W(AS, 0x10, 0x2, 0x1000, 0x2000), ST(5), .reps = 1 },
	{ "support.rs:658-666; imp.rs:823", T,
	  0x14 | VH(1) | REPS(2) | START(1),
	  W(AS, 0, 1, 1, 0x2, 0x1000, 0x2000), ST(5), .reps = 1 },
	{ "proc_mask.rs:28; imp.rs:828", S, 0x14 | VH(2) | REPS(1),
	  W(AS, 0, 0, 1, 0x2, 0, 0x1000), ST(5) },
	{ "cvm.rs:1424 (extended flag on Space)", T, 0x2, W(AS, 8, 0x2),
	  ST(5) },
	{ "cvm.rs:1420-1424 (NON_GLOBAL on List)", T, 0x3 | REPS(2),
	  W(AS, 4, 0x2, 0x1000, 0x2000),
	  OK(.reps = 2, .fx = X_LIST | X_VP, .vp = 1, .nlist = 2) },
	{ "cvm.rs:1429", S, 0x2, W(AS, 0, 0), ST(5) },
	{ "cvm.rs:1429 (ALL_PROCESSORS)", T, 0x2, W(AS, 1, 0),
	  OK(.fx = X_ALLVP | X_ALLGVA) },
	{ "tdx.rs:4503; tlb_flush.rs:23", T, 0x3 | REPS(33), LIST1, .fill = 36,
	  OK(.reps = 33, .fx = X_ALLGVA | X_VP, .vp = 1) },
	{ "tdx.rs:4503 (32 fit)", T, 0x3 | REPS(32), LIST1, .fill = 35,
	  OK(.reps = 32, .fx = X_LIST | X_VP, .vp = 1, .nlist = 32) },
	{ "tdx.rs:4507-4514", T, 0x3 | REPS(1),
	  W(AS, 8, 0x2, 0x200000 | HVTLB_GVA_EXT_LARGE),
	  OK(.reps = 1, .fx = X_ALLGVA | X_VP, .vp = 1) },
	{ "tdx.rs:4557-4558", T, 0x2, W(AS, 0, 0x100), .vps = 4,
	  OK(.fx = X_NOVP | X_ALLGVA, .bug = "openvmm-tdx-flush-vp-index") },
	{ "tdx.rs:4536-4539 (ALL_PROCESSORS)", T, 0x2, W(AS, 1, 0x100),
	  .vps = 4, OK(.fx = X_ALLVP | X_ALLGVA) },
	{ "snp.rs:3368-3375", S, 0x2, SPACE1, OK(.fx = X_ALLVP | X_ALLGVA) },
	{ "snp.rs:3364-3366", S, 0x2, W(AS, 4, 0x2), .caller = 1,
	  OK(.fx = X_VP | X_ALLGVA, .vp = 1) },
	{ "snp.rs:3364 (not the caller)", S, 0x2, W(AS, 4, 0x2), .caller = 0,
	  OK(.fx = X_ALLVP | X_ALLGVA) },
	{ "snp.rs:3267 (17 ranges)", S, 0x3 | REPS(17), LIST1, .fill = 20,
	  OK(.reps = 17, .fx = X_ALLVP | X_ALLGVA) },
	{ "snp.rs:3267 (17 additional pages)", S, 0x3 | REPS(2),
	  W(AS, 0, 0x2, 0x1000, 0x2011),
	  OK(.reps = 2, .fx = X_ALLVP | X_ALLGVA) },
	{ "snp.rs:3270, 3310-3357", S, 0x3 | REPS(2),
	  W(AS, 0, 0x2, 0x1000, 0x2010),
	  OK(.reps = 2, .fx = X_ALLVP | X_LIST, .nlist = 2) },
	{ "snp.rs:3359-3378 (VP 8 of 4)", S, 0x2, W(AS, 0, 0x100), .vps = 4,
	  OK(.fx = X_ALLVP | X_ALLGVA) },
	{ "imp.rs:962", T, 0xb, W(0x1000000000020ULL, 0x2), ST(5) },
	{ "cvm.rs:3162", T, 0xb, W(0x10000000020ULL, 0x2), ST(5) },
	{ "hvdef.rs:1551", S, 0xb, W(0x2000000020ULL, 0x2), ST(5) },
	{ "hvdef.rs:1555, 1087", T, 0xb, W(0x1300000020ULL, 0x2), ST(5) },
	{ "proc.rs:1231", T, 0xb, W(0x1100000020ULL, 0x2), ST(6) },
	{ "proc.rs:1231 (before the vector)", S, 0xb, W(0x1100000000ULL, 0x2),
	  ST(6) },
	{ "hvdef.rs:1554-1557 (bit 4 clear)", T, 0xb, W(0x0500000020ULL, 0x2),
	  OK(.fx = X_VP, .vp = 1) },
	{ "cvm.rs:2711", T, 0xb, W(0xf, 0x2), ST(5) },
	{ "imp.rs:1002", T, 0x15, W(0x20, 1, 0), ST(5) },
	/* ---- kvm-5.10: Linux 5.10.13 arch/x86/kvm/hyperv.c; "(6.12: x)"
	 * marks an answer the kvm profile gives differently ---- */
	{ "5.10:1769-1773 (bit 27 not read; 6.12: 3)", K5, 0x2 | 1ULL << 27,
	  SPACE1, OK(.fx = X_ALLGVA | X_VP, .vp = 1) },
	{ "5.10:1769-1773 (bit 31 not read; 6.12: 3)", K5, 0x2 | 1ULL << 31,
	  SPACE1, OK(.fx = X_ALLGVA | X_VP, .vp = 1) },
	{ "5.10:1878 (bit 63, code unknown; 6.12: 3)", K5, 0x4 | 1ULL << 63,
	  SPACE1, ST(2) },
	{ "5.10:1878", K5, 0x4, SPACE1, ST(2) },
	{ "5.10:1778-1784", K5, 0x8, W(0), OK(.fx = X_NOVP) },
	{ "5.10:1779 (rep count)", K5, 0x8 | REPS(1), W(0), ST(3) },
	{ "5.10:1779 (varhead not read; 6.12: 3)", K5, 0x8 | VH(1), W(0),
	  OK(.fx = X_NOVP) },
	{ "5.10:1796 (no SynIC)", K5, 0x5c, W(0, 0), ST(3) },
	{ "5.10:1800-1807 (SynIC)", K5, 0x5c, W(0, 0), .synic = true,
	  OK(.fx = X_VMM) },
	{ "5.10:1796 (varhead not read; 6.12: 3)", K5, 0x5c | VH(1), W(0, 0),
	  .synic = true, OK(.fx = X_VMM) },
	{ "5.10:1707-1709", K5, 0x5d, W(1), .gpa = 4, ST(4) },
	{ "5.10:1711-1713 (read fails)", K5, 0x5d, W(1), .len = 4, ST(4) },
	{ "5.10:1721-1722 then 1796", K5, 0x5d, W(0x100000001ULL), ST(3) },
	{ "5.10:1724-1725", K5, 0x5d, W(1ULL << 24), .synic = true, ST(3) },
	{ "5.10:1731-1732 then 1800", K5, 0x5d, W(1), .synic = true,
	  OK(.fx = X_VMM) },
	{ "5.10:1852-1853", K5, 0x69 | FAST, W(0), ST(5) },
	{ "5.10:1860-1861", K5, 0x69, W(0), ST(2) },
	{ "5.10:1857-1861 (reset)", K5, 0x6b | FAST, W(0), ST(2) },
	{ "5.10:1878 (0x8001 fast; 6.12: 5)", K5, 0x8001 | FAST, W(0), ST(2) },
	{ "5.10:1878 (0x8041; 6.12: VMM)", K5, 0x8041, W(0), ST(2) },
	{ "5.10:1815-1820 (varhead not read; 6.12: 3)", K5, 0x2 | VH(1),
	  W(AS, 0, 0x2, 0), OK(.fx = X_ALLGVA | X_VP, .vp = 1) },
	{ "5.10:1809 (rep count 0)", K5, 0x3, SPACE1, ST(3) },
	{ "5.10:1809 (rep start)", K5, 0x3 | REPS(2) | START(1), LIST1, ST(3) },
	{ "5.10:1816 (rep count)", K5, 0x2 | REPS(1), W(AS, 0, 0x2, 0), ST(3) },
	{ "5.10:1816 (fast Space; 6.12: XMM input)", K5, 0x2 | FAST, SPACE1,
	  ST(3) },
	{ "5.10:1809 (fast List; 6.12: XMM input)", K5, 0x3 | FAST | REPS(2),
	  LIST1, ST(3) },
	{ "5.10:1830 (fast SpaceEx; 6.12: XMM input)", K5, 0x13 | FAST | VH(1),
	  SPEX1, ST(3) },
	{ "5.10:1823 (fast ListEx; 6.12: XMM input)", K5,
	  0x14 | FAST | VH(1) | REPS(1), W(AS, 0, 0, 1, 0x2, 0x1000), ST(3) },
	{ "5.10:1844 (fast SendIpiEx; 6.12: XMM input)", K5,
	  0x15 | FAST | VH(1), W(0x20, 0, 1, 0x2), ST(3) },
	{ "5.10:1837 (rep count on SendIpi)", K5, 0xb | REPS(1), IPI1, ST(3) },
	{ "5.10:1541-1554 (varhead 2 not read; 6.12: 3)", K5, 0x13 | VH(2),
	  W(AS, 0, 0, 1, 0x2, 0), OK(.fx = X_ALLGVA | X_VP, .vp = 1) },
	{ "5.10:1541-1554 (varhead 0; 6.12: 3)", K5, 0x13, SPEX1,
	  OK(.fx = X_ALLGVA | X_VP, .vp = 1) },
	{ "5.10:1548-1554 (a bank short)", K5, 0x13 | VH(1),
	  W(AS, 0, 0, 3, 0x2), ST(3) },
	{ "5.10:1538-1539", K5, 0x13 | VH(1), W(AS, 0, 2, 1, 0x2),
	  OK(.fx = X_ALLVP | X_ALLGVA) },
	{ "5.10:1545-1546", K5, 0x13, W(AS, 0, 0, 0), OK(.fx = X_NOVP) },
	{ "5.10:1525-1526", K5, 0x2, W(AS, 0, 0),
	  OK(.fx = X_ALLVP | X_ALLGVA) },
	{ "5.10:39, 1475-1477 (bank 5 dropped; 6.12: VP 320)", K5, 0x13 | VH(1),
	  W(AS, 0, 0, 1ULL << 5, 0x1), .vps = 400,
	  OK(.fx = X_ALLGVA | X_NOVP) },
	{ "5.10:1509, 1571-1573 (entries not read; 6.12: 3)", K5, 0x3 | REPS(3),
	  LIST1, OK(.reps = 3, .fx = X_ALLGVA | X_VP, .vp = 1) },
	{ "5.10:1571 (non-canonical entry, no bug; 6.12: bug)", K5,
	  0x3 | REPS(1), W(AS, 0, 0x2, 0x800000000000ULL),
	  OK(.reps = 1, .fx = X_ALLGVA | X_VP, .vp = 1) },
	{ "5.10:1612-1616 (reserved not read)", K5, 0xb, W(0x100000020ULL, 0x2),
	  OK(.fx = X_VP, .vp = 1) },
	{ "5.10:1619-1620", K5, 0xb | FAST, W(0x100000020ULL, 0x2), ST(3) },
	{ "5.10:1621-1622", K5, 0xb | FAST, IPI1, OK(.fx = X_VP, .vp = 1) },
	{ "5.10:1656-1657", K5, 0xb, W(0xf, 0x2), ST(3) },
	{ "5.10:1637-1653 (varhead 0; 6.12: 3)", K5, 0x15, W(0x20, 0, 1, 0x2),
	  OK(.fx = X_VP, .vp = 1) },
	{ "5.10:1644-1645 (ALL, no bank; 6.12: all VPs)", K5, 0x15,
	  W(0x20, 1, 0), OK(.fx = X_NOVP),
	  .bug = "linux-5.10-ipi-all-skipped" },
	{ "5.10:1644-1645 (no vector check; 6.12: 3)", K5, 0x15, W(0xf, 1, 0),
	  OK(.fx = X_NOVP), .bug = "linux-5.10-ipi-all-skipped" },
	{ "5.10:1644-1645 (sparse, no bank)", K5, 0x15, W(0xf, 0, 0),
	  OK(.fx = X_NOVP) },
	{ "5.10:1642, 1647 (ALL reads no bank)", K5, 0x15 | VH(1),
	  W(0x20, 1, 1), OK(.fx = X_ALLVP) },
	{ "5.10:1642 (format 2 read sparse)", K5, 0x15 | VH(1),
	  W(0x20, 2, 1, 0x2), OK(.fx = X_VP, .vp = 1) },
	{ "5.10:1647-1653 (bank missing)", K5, 0x15 | VH(1), W(0x20, 0, 1),
	  ST(3) },
	{ "5.10:1656-1657 (Ex)", K5, 0x15 | VH(1), W(0x100, 0, 1, 0x2), ST(3) },
	{ "imp.rs:1010; proc_mask.rs:28", S, 0x15, W(0x20, 0, 1), ST(5) },
	{ "cvm.rs:2715-2719 (empty set)", T, 0xb, W(0x20, 0),
	  OK(.fx = X_NOVP) },
};

static unsigned count_targets(const struct hvtlb_decoded *d)
{
	struct hvtlb_vp_iter it;
	unsigned n = 0;

	hvtlb_vp_iter_init(&it, d);
	while (hvtlb_vp_iter_next(&it, NULL) && n <= HVTLB_MAX_VPS)
		n++;
	return n;
}

/* Returns NULL when @p d matches @p v, else what differs. */
static const char *check_success(const struct vec *v,
				 const struct hvtlb_decoded *d)
{
	const struct hvtlb_host_bug *b = hvtlb_host_bug_get(d->host_bug);
	uint8_t scope = v->fx & X_VMM	 ? HVTLB_SCOPE_VMM
			: v->fx & X_DISP ? HVTLB_SCOPE_DISPATCH
					 : HVTLB_SCOPE_FULL;

	if (d->scope != scope)
		return "scope";
	if (v->bug ? !b || strcmp(b->id, v->bug) : d->host_bug != 0)
		return "host bug";
	if (scope != HVTLB_SCOPE_FULL)
		return NULL;
	if (!!(v->fx & X_ALLGVA) != d->flush_all_gvas)
		return "flush all GVAs";
	if ((v->fx & X_LIST) && d->gva_count != v->nlist)
		return "GVA list length";
	if (!!(v->fx & X_ALLVP) != d->all_vps)
		return "all VPs";
	if ((v->fx & X_VP) &&
	    (!hvtlb_decoded_has_vp(d, v->vp) || count_targets(d) != 1))
		return "the one target";
	if ((v->fx & X_NOVP) && count_targets(d) != 0)
		return "no target";
	return NULL;
}

static unsigned run_host(enum hvtlb_profile prof)
{
	static uint8_t buf[HVTLB_PAGE_BYTES];
	unsigned n = 0, failures = 0;

	for (size_t i = 0; i < sizeof(vecs) / sizeof(vecs[0]); i++) {
		const struct vec *v = &vecs[i];
		struct hvtlb_host h = {
			.profile = v->prof,
			.vp_count = v->vps ? v->vps : 64,
			.kvm_max_vcpus = v->kmax,
			.kvm_synic = v->synic,
			.caller_vp = v->caller,
		};
		struct hvtlb_decoded d;
		const char *why = NULL;
		unsigned k, e;
		size_t len;
		uint64_t res;

		if (v->prof != prof && !(prof == HVTLB_PROFILE_OPENVMM_TDX &&
					 v->prof == HVTLB_PROFILE_OPENVMM_SNP))
			continue;
		memset(buf, 0, sizeof(buf));
		for (k = 0; k < v->nw; k++)
			le64_put(buf + 8 * k, v->w[k]);
		for (e = 0; k < v->fill; k++, e++)
			le64_put(buf + 8 * k, 0x1000ULL * (e + 3));
		len = v->len ? (size_t)v->len : 8 * k;
		if (v->ctl & FAST)
			len = HVTLB_FAST_BYTES;
		res = decode_exact(&h, v->ctl, buf, len, 0x7000 + v->gpa, &d);
		if (hvtlb_result_status(res) != v->status)
			why = "status";
		else if (hvtlb_result_reps(res) != v->reps)
			why = "reps completed";
		else if (v->status == 0)
			why = check_success(v, &d);
		if (why) {
			print_error("%s %s: %s wrong (result %#llx)\n",
				    hvtlb_profile_name(v->prof), v->cite, why,
				    (unsigned long long)res);
			failures++;
		}
		n++;
	}
	if (failures)
		fail_msg("%u of %u vectors wrong", failures, n);
	return n;
}

static void test_kvm(void **state)
{
	/* The brief: at least 30 vectors per host. */
	assert_true(run_host(HVTLB_PROFILE_KVM) >= 30);
}

static void test_kvm_5_10(void **state)
{
	assert_true(run_host(HVTLB_PROFILE_KVM_5_10) >= 30);
}

static void test_xen(void **state)
{
	assert_true(run_host(HVTLB_PROFILE_XEN) >= 30);
}

static void test_openvmm(void **state)
{
	assert_true(run_host(HVTLB_PROFILE_OPENVMM_TDX) >= 30);
}

/* The known-bug table: every entry complete, ids unique, each reported
 * bug input-triggered and of the profile that reports it. */
static void test_bug_table(void **state)
{
	unsigned n = hvtlb_host_bug_count();

	assert_true(n >= 5);
	assert_null(hvtlb_host_bug_get(0));
	assert_null(hvtlb_host_bug_get(n + 1));
	for (unsigned i = 1; i <= n; i++) {
		const struct hvtlb_host_bug *b = hvtlb_host_bug_get(i);

		assert_non_null(b);
		assert_true(b->id && b->versions && b->source && b->effect);
		assert_non_null(hvtlb_profile_name(b->profile));
		for (unsigned j = 1; j < i; j++)
			assert_string_not_equal(hvtlb_host_bug_get(j)->id,
						b->id);
	}
}

/* Each host's VP limit and its name for it, as the profiles' sources
 * set them (hyperv.c: KVM_MAX_VCPUS, read between 1024 and 4096, 288 in
 * Linux 5.10; hvm_info_table.h: HVM_MAX_VCPUS 128). */
static void test_max_vps(void **state)
{
	struct hvtlb_host h = { .profile = HVTLB_PROFILE_KVM };
	const char *name = "x";

	assert_int_equal(hvtlb_host_max_vps(&h, &name), 4096);
	assert_string_equal(name, "KVM_MAX_VCPUS");
	h.kvm_max_vcpus = 1024;
	assert_int_equal(hvtlb_host_max_vps(&h, NULL), 1024);
	h.kvm_max_vcpus = 100; /* KVM_MAX_VCPUS is never below 1024 */
	assert_int_equal(hvtlb_host_max_vps(&h, NULL), 1024);
	h.kvm_max_vcpus = 9000;
	assert_int_equal(hvtlb_host_max_vps(&h, NULL), HVTLB_MAX_VPS);
	h = (struct hvtlb_host){ .profile = HVTLB_PROFILE_XEN };
	assert_int_equal(hvtlb_host_max_vps(&h, &name), 128);
	assert_string_equal(name, "HVM_MAX_VCPUS");
	/* 5.10: KVM_MAX_VCPUS 288, a constant (kvm_host.h:40) */
	h = (struct hvtlb_host){ .profile = HVTLB_PROFILE_KVM_5_10,
				 .kvm_max_vcpus = 4096 };
	assert_int_equal(hvtlb_host_max_vps(&h, &name), 288);
	assert_string_equal(name, "KVM_MAX_VCPUS");
	for (unsigned p = 0; p < HVTLB_PROFILE_COUNT_ + 2; p++) {
		if (p == HVTLB_PROFILE_KVM || p == HVTLB_PROFILE_XEN ||
		    p == HVTLB_PROFILE_KVM_5_10)
			continue;
		/* openvmm, strict and values out of range: no limit below
		 * the TLFS's 4096 */
		h = (struct hvtlb_host){ .profile = (enum hvtlb_profile)p,
					 .kvm_max_vcpus = 1024 };
		name = "x";
		assert_int_equal(hvtlb_host_max_vps(&h, &name), HVTLB_MAX_VPS);
		assert_null(name);
	}
	name = "x";
	assert_int_equal(hvtlb_host_max_vps(NULL, &name), 0);
	assert_null(name);
}

/* Each profile's hypervisor, as the simulator's IPI delivery reads it. */
static void test_profile_hypervisor(void **state)
{
	static const enum hvtlb_hypervisor want[] = {
		[HVTLB_PROFILE_STRICT] = HVTLB_HYPERVISOR_HYPERV,
		[HVTLB_PROFILE_KVM] = HVTLB_HYPERVISOR_KVM,
		[HVTLB_PROFILE_XEN] = HVTLB_HYPERVISOR_XEN,
		[HVTLB_PROFILE_OPENVMM_TDX] = HVTLB_HYPERVISOR_HYPERV,
		[HVTLB_PROFILE_OPENVMM_SNP] = HVTLB_HYPERVISOR_HYPERV,
		[HVTLB_PROFILE_KVM_5_10] = HVTLB_HYPERVISOR_KVM,
	};

	(void)state;
	assert_int_equal(sizeof(want) / sizeof(want[0]), HVTLB_PROFILE_COUNT_);
	for (unsigned p = 0; p < HVTLB_PROFILE_COUNT_; p++)
		assert_int_equal(
			hvtlb_profile_hypervisor((enum hvtlb_profile)p),
			want[p]);
	assert_int_equal(hvtlb_profile_hypervisor(HVTLB_PROFILE_COUNT_),
			 HVTLB_HYPERVISOR_HYPERV);
	assert_int_equal(hvtlb_profile_host_fields(HVTLB_PROFILE_COUNT_), 0);
}

/* What a profile's decode gives for @p h on a probe that depends on
 * @p field: a status and the bits that field can change. */
static uint64_t field_probe(const struct hvtlb_host *h, unsigned field)
{
	uint8_t in[24] = { 0 };
	struct hvtlb_input i = { in, sizeof(in), 0x10000 };
	struct hvtlb_decoded d;
	uint64_t r;

	switch (field) {
	case HVTLB_HOST_KVM_MAX_VCPUS:
		return hvtlb_host_max_vps(h, NULL);
	case HVTLB_HOST_KVM_SYNIC:
		/* HvCallPostMessage, 0x005c: KVM fails it without a SynIC
		 * and hands it to the VMM with one. */
		return hvtlb_decode(h, 0x005c, &i, &d);
	default:
		/* A flush of the whole space naming VP 1 alone, non-global
		 * entries only: OpenVMM SNP keeps it local for caller 1. */
		in[8] = HVTLB_FLUSH_NON_GLOBAL_MAPPINGS_ONLY;
		in[16] = 1u << 1;
		r = hvtlb_decode(h, HVTLB_CALL_FLUSH_SPACE, &i, &d);
		return r << 1 | d.all_vps;
	}
}

/* A profile reads a field (hvtlb_profile_host_fields()) exactly when
 * changing it changes what the profile decodes: the tool refuses an
 * option for the profiles that would ignore it. */
static void test_profile_host_fields(void **state)
{
	static const unsigned fields[] = { HVTLB_HOST_KVM_MAX_VCPUS,
					   HVTLB_HOST_KVM_SYNIC,
					   HVTLB_HOST_CALLER_VP };

	(void)state;
	for (unsigned p = 0; p < HVTLB_PROFILE_COUNT_; p++)
		for (unsigned k = 0; k < 3; k++) {
			struct hvtlb_host a = { .profile = p, .vp_count = 8 };
			struct hvtlb_host b = a;
			unsigned f = fields[k];
			bool reads = hvtlb_profile_host_fields(p) & f;

			b.kvm_max_vcpus = f == fields[0] ? 1024 : 0;
			b.kvm_synic = f == fields[1];
			b.caller_vp = f == fields[2] ? 1 : 0;
			if (reads != (field_probe(&a, f) != field_probe(&b, f)))
				fail_msg("profile %s, field %#x: reads %d",
					 hvtlb_profile_name(p), f, reads);
		}
}

/* The decoder caps a partition at its host's limit: a Xen VM of 200 VPs
 * has 128, and VP 130 of a flush is not a target (viridian.c ignores
 * VPs past the domain's). */
static void test_vp_count_capped(void **state)
{
	struct hvtlb_host h = { .profile = HVTLB_PROFILE_XEN, .vp_count = 200 };
	uint8_t in[24] = { 0 };
	struct hvtlb_input i = { in, sizeof(in), 0x10000 };
	struct hvtlb_decoded d;

	in[8] = 1; /* flags: ALL_PROCESSORS */
	assert_int_equal(hvtlb_result_status(hvtlb_decode(
				 &h, HVTLB_CALL_FLUSH_SPACE, &i, &d)),
			 HVTLB_STATUS_SUCCESS);
	assert_true(d.all_vps);
	assert_int_equal(d.vp_count, 128);
	assert_false(hvtlb_decoded_has_vp(&d, 130));
	h.profile = HVTLB_PROFILE_STRICT;
	assert_int_equal(hvtlb_result_status(hvtlb_decode(
				 &h, HVTLB_CALL_FLUSH_SPACE, &i, &d)),
			 HVTLB_STATUS_SUCCESS);
	assert_int_equal(d.vp_count, 200);
	assert_true(hvtlb_decoded_has_vp(&d, 130));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kvm),
		cmocka_unit_test(test_kvm_5_10),
		cmocka_unit_test(test_xen),
		cmocka_unit_test(test_openvmm),
		cmocka_unit_test(test_bug_table),
		cmocka_unit_test(test_max_vps),
		cmocka_unit_test(test_profile_hypervisor),
		cmocka_unit_test(test_profile_host_fields),
		cmocka_unit_test(test_vp_count_capped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
