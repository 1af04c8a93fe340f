/* SPDX-License-Identifier: MIT */
/**
 * @file
 * The Hyper-V TLB-flush hypercall ABI (TLFS): encode on the guest side,
 * decode and validate on the host side.
 *
 * Everything here is a pure function over caller-owned memory: no
 * allocation, no threads, no global state, no libc beyond memcpy/memset.
 * The implementation builds with -ffreestanding. All functions are
 * thread-safe as long as distinct threads use distinct output objects.
 *
 * Library functions return 0 or a negative error (HVTLB_E*, equal to the
 * Linux errno values). What a hypervisor answers is a TLFS status
 * (hvtlb_status), a separate type.
 */
#ifndef HVTLB_HYPERCALL_H
#define HVTLB_HYPERCALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

/* Error numbers (negated on return). Equal to Linux errno values; the
 * freestanding layer cannot rely on <errno.h>. */
#define HVTLB_E2BIG 7
#define HVTLB_EINVAL 22
#define HVTLB_ENOSPC 28
#define HVTLB_ERANGE 34
#define HVTLB_EPROTO 71

/* ------------------------------------------------------------------ */
/* Call codes: X(NAME, code, short name used by the CLI)               */
/* ------------------------------------------------------------------ */
#define HVTLB_CALL_MAP(X)                                                      \
	X(FLUSH_SPACE, 0x0002, "space")                                        \
	X(FLUSH_LIST, 0x0003, "list")                                          \
	X(SEND_IPI, 0x000b, "ipi")                                             \
	X(FLUSH_SPACE_EX, 0x0013, "space-ex")                                  \
	X(FLUSH_LIST_EX, 0x0014, "list-ex")                                    \
	X(SEND_IPI_EX, 0x0015, "ipi-ex")

enum hvtlb_call {
#define HVTLB_X_(n, c, s) HVTLB_CALL_##n = c,
	HVTLB_CALL_MAP(HVTLB_X_)
#undef HVTLB_X_
};

/** Short name ("list-ex") of a call code, or NULL if unknown. */
const char *hvtlb_call_name(uint16_t code);
/** Call code for a short name, or 0 if unknown. */
uint16_t hvtlb_call_from_name(const char *name);
/** True for the two rep calls (List, ListEx). */
bool hvtlb_call_is_rep(uint16_t code);
/** True for the three Ex calls (variable header carries the VP set). */
bool hvtlb_call_is_ex(uint16_t code);
/** True for the four flush calls. */
bool hvtlb_call_is_flush(uint16_t code);

/* ------------------------------------------------------------------ */
/* Status codes: X(NAME, value). Names print as "HV_STATUS_<NAME>".    */
/* ------------------------------------------------------------------ */
#define HVTLB_STATUS_MAP(X)                                                    \
	X(SUCCESS, 0x0000)                                                     \
	X(INVALID_HYPERCALL_CODE, 0x0002)                                      \
	X(INVALID_HYPERCALL_INPUT, 0x0003)                                     \
	X(INVALID_ALIGNMENT, 0x0004)                                           \
	X(INVALID_PARAMETER, 0x0005)                                           \
	X(ACCESS_DENIED, 0x0006)                                               \
	X(INVALID_PARTITION_STATE, 0x0007)                                     \
	X(OPERATION_DENIED, 0x0008)                                            \
	X(INSUFFICIENT_MEMORY, 0x000b)                                         \
	X(INVALID_VP_INDEX, 0x000e)                                            \
	X(INVALID_PORT_ID, 0x0011)                                             \
	X(INVALID_CONNECTION_ID, 0x0012)                                       \
	X(INSUFFICIENT_BUFFERS, 0x0013)                                        \
	X(NO_RESOURCES, 0x001d)                                                \
	X(TIME_OUT, 0x0078)                                                    \
	X(CALL_PENDING, 0x0079)                                                \
	X(VTL_ALREADY_ENABLED, 0x0086)

typedef uint16_t hvtlb_status;

enum hvtlb_status_code {
#define HVTLB_X_(n, v) HVTLB_STATUS_##n = v,
	HVTLB_STATUS_MAP(HVTLB_X_)
#undef HVTLB_X_
};

/** Number of named status codes. */
#define HVTLB_STATUS_COUNT (0 HVTLB_STATUS_MAP(HVTLB_STATUS_COUNT_ONE_))
#define HVTLB_STATUS_COUNT_ONE_(n, v) +1

/** "HV_STATUS_SUCCESS" etc., or NULL for a value without a name. */
const char *hvtlb_status_name(hvtlb_status status);

/* ------------------------------------------------------------------ */
/* Control word (hypercall input value, RCX)                           */
/* ------------------------------------------------------------------ */
#define HVTLB_CTL_CODE_MASK 0x000000000000ffffULL
#define HVTLB_CTL_FAST (1ULL << 16)
#define HVTLB_CTL_VARHEAD_SHIFT 17
#define HVTLB_CTL_VARHEAD_MASK (0x3ffULL << HVTLB_CTL_VARHEAD_SHIFT)
#define HVTLB_CTL_NESTED (1ULL << 31)
#define HVTLB_CTL_REP_COUNT_SHIFT 32
#define HVTLB_CTL_REP_COUNT_MASK (0xfffULL << HVTLB_CTL_REP_COUNT_SHIFT)
#define HVTLB_CTL_REP_START_SHIFT 48
#define HVTLB_CTL_REP_START_MASK (0xfffULL << HVTLB_CTL_REP_START_SHIFT)
/** Reserved bits when the nested bit is a defined field. */
#define HVTLB_CTL_RESERVED_MASK 0xf000f00078000000ULL
/** Reserved bits when nesting is not enabled (bit 31 included). */
#define HVTLB_CTL_RESERVED_MASK_NESTED 0xf000f000f8000000ULL
#define HVTLB_REP_MAX 4095u
#define HVTLB_VARHEAD_MAX 1023u

struct hvtlb_control {
	uint16_t code;
	bool fast;
	uint16_t varhead; /**< variable header size, 8-byte units */
	bool nested;
	uint16_t rep_count;
	uint16_t rep_start;
	uint64_t reserved; /**< reserved bits as found (unpack only) */
};

/**
 * Packs @p c into a control word. Returns 0, or -HVTLB_EINVAL when a field
 * does not fit its width or c->reserved is not zero.
 */
int hvtlb_control_pack(const struct hvtlb_control *c, uint64_t *word);
/** Unpacks every field, reserved bits included (bit 31 goes to nested).
 *  Does nothing when @p c is NULL. */
void hvtlb_control_unpack(uint64_t word, struct hvtlb_control *c);

/* ------------------------------------------------------------------ */
/* Result word (RAX)                                                   */
/* ------------------------------------------------------------------ */
#define HVTLB_RESULT_STATUS_MASK 0xffffULL
#define HVTLB_RESULT_REPS_SHIFT 32
#define HVTLB_RESULT_REPS_MASK (0xfffULL << HVTLB_RESULT_REPS_SHIFT)

static inline uint64_t hvtlb_result_pack(hvtlb_status status, uint16_t reps)
{
	return (uint64_t)status | (((uint64_t)reps << HVTLB_RESULT_REPS_SHIFT) &
				   HVTLB_RESULT_REPS_MASK);
}

static inline hvtlb_status hvtlb_result_status(uint64_t result)
{
	return (hvtlb_status)(result & HVTLB_RESULT_STATUS_MASK);
}

static inline uint16_t hvtlb_result_reps(uint64_t result)
{
	return (uint16_t)((result & HVTLB_RESULT_REPS_MASK) >>
			  HVTLB_RESULT_REPS_SHIFT);
}

/* ------------------------------------------------------------------ */
/* Flush flags: X(NAME, bit value, short name)                         */
/* ------------------------------------------------------------------ */
#define HVTLB_FLUSH_FLAG_MAP(X)                                                \
	X(ALL_PROCESSORS, 0x1, "all-processors")                               \
	X(ALL_VIRTUAL_ADDRESS_SPACES, 0x2, "all-virtual-address-spaces")       \
	X(NON_GLOBAL_MAPPINGS_ONLY, 0x4, "non-global-mappings-only")           \
	X(USE_EXTENDED_RANGE_FORMAT, 0x8, "use-extended-range-format")

enum hvtlb_flush_flag {
#define HVTLB_X_(n, v, s) HVTLB_FLUSH_##n = v,
	HVTLB_FLUSH_FLAG_MAP(HVTLB_X_)
#undef HVTLB_X_
};

#define HVTLB_FLUSH_FLAGS_VALID 0xfULL

/** Short name of one flag bit, or NULL. */
const char *hvtlb_flush_flag_name(uint64_t bit);

/* ------------------------------------------------------------------ */
/* VP sets                                                             */
/* ------------------------------------------------------------------ */
#define HVTLB_MAX_VPS 4096u
#define HVTLB_VPSET_BANKS 64u

enum hvtlb_vpset_format {
	HVTLB_VPSET_SPARSE_4K = 0,
	HVTLB_VPSET_ALL = 1,
};

/** How the encoder lays out a sparse set. */
enum hvtlb_vpset_style {
	HVTLB_VPSET_COMPACT = 0, /**< one bank per non-empty bank (default) */
	HVTLB_VPSET_LINUX = 1, /**< contiguous mask 2^n-1, at least one bank */
};

/** A set of VP indices 0..4095; bit v of bits[v / 64]. */
struct hvtlb_vpmask {
	uint64_t bits[HVTLB_VPSET_BANKS];
};

static inline void hvtlb_vpmask_set(struct hvtlb_vpmask *m, uint32_t vp)
{
	if (vp < HVTLB_MAX_VPS)
		m->bits[vp / 64] |= 1ULL << (vp % 64);
}

static inline bool hvtlb_vpmask_test(const struct hvtlb_vpmask *m, uint32_t vp)
{
	return vp < HVTLB_MAX_VPS && (m->bits[vp / 64] >> (vp % 64)) & 1;
}

/**
 * Builds a sparse VP set from @p m. Writes the valid-banks mask and the
 * bank words (ascending bank order) and returns the number of bank words
 * (0..64; Linux style returns at least 1). Does not read past m. One
 * step per 64-bit word, never per bit. @p banks must have room for 64
 * words (the compact form stores scratch words past the count). A NULL
 * @p m is the empty set.
 */
unsigned hvtlb_vpset_build(const struct hvtlb_vpmask *m,
			   enum hvtlb_vpset_style style, uint64_t *valid_mask,
			   uint64_t banks[HVTLB_VPSET_BANKS]);

/* ------------------------------------------------------------------ */
/* GVA ranges                                                          */
/* ------------------------------------------------------------------ */
enum hvtlb_page_size {
	HVTLB_PAGE_4K = 0,
	HVTLB_PAGE_2M = 1,
	HVTLB_PAGE_1G = 2,
};

/** 12, 21 or 30. */
static inline unsigned hvtlb_page_shift(enum hvtlb_page_size size)
{
	return size == HVTLB_PAGE_1G ? 30 : size == HVTLB_PAGE_2M ? 21 : 12;
}

/** @p pages pages of @p size starting at @p gva. */
struct hvtlb_gva_range {
	uint64_t gva;
	uint64_t pages;
	enum hvtlb_page_size size;
};

#define HVTLB_GVA_SIMPLE_MAX_PAGES 4096u /* 1 + 12-bit additional pages */
#define HVTLB_GVA_EXT_MAX_PAGES 2048u	 /* 1 + 11-bit additional pages */
#define HVTLB_GVA_EXT_LARGE (1ULL << 11)
#define HVTLB_GVA_EXT_1G (1ULL << 12)
#define HVTLB_GVA_EXT_RESERVED (0xffULL << 13)

/* ------------------------------------------------------------------ */
/* Sizes and capacities (docs/wire-format.md)                          */
/* ------------------------------------------------------------------ */
#define HVTLB_PAGE_BYTES 4096u
#define HVTLB_FLUSH_HDR_BYTES 24u
#define HVTLB_FLUSH_EX_HDR_BYTES 32u
#define HVTLB_IPI_HDR_BYTES 16u
#define HVTLB_IPI_EX_HDR_BYTES 24u
#define HVTLB_FAST_BYTES 112u /* RDX, R8, XMM0..5 */
#define HVTLB_FAST_WORDS 14u
#define HVTLB_LIST_CAPACITY 509u
#define HVTLB_LIST_EX_CAPACITY(banks) (508u - (banks))
#define HVTLB_FAST_LIST_CAPACITY 11u
#define HVTLB_FAST_LIST_EX_CAPACITY(banks) (10u - (banks))
#define HVTLB_IPI_VECTOR_MIN 0x10u
#define HVTLB_IPI_VECTOR_MAX 0xffu

/* ------------------------------------------------------------------ */
/* Encoder (guest side)                                                */
/* ------------------------------------------------------------------ */

/** A typed description of one of the six calls. */
struct hvtlb_call_desc {
	uint16_t call;		/**< HVTLB_CALL_* */
	uint64_t address_space; /**< CR3; PCID bits 11:0 are cleared */
	uint64_t flags;		/**< HVTLB_FLUSH_* (flush calls only) */
	/** Target VPs. Ignored (may be NULL) with ALL_PROCESSORS or
	 *  all_vps; for Ex calls those give the ALL format. */
	const struct hvtlb_vpmask *vps;
	bool all_vps; /**< Ex calls: VP set format ALL */
	enum hvtlb_vpset_style vpset_style;
	const struct hvtlb_gva_range *ranges; /**< List calls */
	size_t nranges;
	bool fast;	    /**< register (XMM fast) input */
	uint32_t vector;    /**< IPI calls: 0x10..0xff */
	uint8_t target_vtl; /**< IPI calls */
};

/**
 * An encoded call: the control word and the exact little-endian input
 * image. For fast calls input[] holds the register bytes in order RDX, R8,
 * XMM0 low, XMM0 high, ... and len <= HVTLB_FAST_BYTES.
 */
struct hvtlb_encoded {
	uint64_t control;
	size_t len; /**< bytes of input[] used, a multiple of 8 */
	uint8_t input[HVTLB_PAGE_BYTES];
};

/**
 * Encodes @p d into @p out. Unaligned ranges are rounded outwards; ranges
 * are split into entries of at most 16 MiB (simple format) or 2048 pages
 * (extended format). In the simple format 2 MiB and 1 GiB ranges are
 * listed as their 4 KiB pages; the extended format uses its large-page form.
 * With ALL_VIRTUAL_ADDRESS_SPACES the AddressSpace field is written as 0.
 * all_vps on a non-Ex flush sets ALL_PROCESSORS (the only way to say it);
 * on an Ex call it gives format ALL and leaves the flags alone. IPI calls
 * take no flags (non-zero is -HVTLB_EINVAL). An empty VP set is encoded as
 * given (hosts disagree on it, see hvtlb_decode()). input[] past len is
 * left as it was (not cleared). Pure function; @p out is owned by the
 * caller.
 *
 * Returns 0; -HVTLB_EINVAL for an unknown call, reserved or misplaced flags,
 * a bad vector, a range that wraps or a missing VP set; -HVTLB_ERANGE when a
 * non-Ex call names a VP >= 64; -HVTLB_ENOSPC when the entries or banks do
 * not fit the input (hvtlb_encode_suggest() says what to use instead).
 * On error @p out is unspecified.
 */
int hvtlb_encode(const struct hvtlb_call_desc *d, struct hvtlb_encoded *out);

/**
 * The call to use when @p d cannot be encoded as asked: the Ex form when a
 * VP >= 64 is named, Space (or SpaceEx) when a List does not fit. Returns
 * d->call when it fits as it is, 0 when nothing would help (or @p d is
 * invalid for another reason). A fast request that does not fit is answered
 * for the memory form: clear d->fast (the answer may then be d->call). When
 * the answer is a Space call, drop USE_EXTENDED_RANGE_FORMAT.
 */
uint16_t hvtlb_encode_suggest(const struct hvtlb_call_desc *d);

/**
 * Number of GVA list entries @p n ranges need (simple or extended format),
 * or SIZE_MAX if a range wraps past 2^64.
 */
size_t hvtlb_gva_entries_needed(const struct hvtlb_gva_range *r, size_t n,
				bool extended);

/** Register image of a fast call. */
struct hvtlb_fast_regs {
	uint64_t rdx;
	uint64_t r8;
	uint64_t xmm[6][2]; /**< [i][0] low qword, [i][1] high qword */
};

/** Loads @p len input bytes (at most 112 are used) into registers; the
 *  rest is zero. A NULL @p input gives all-zero registers. */
void hvtlb_fast_regs_from_input(const uint8_t *input, size_t len,
				struct hvtlb_fast_regs *regs);
/** Stores the registers as 112 little-endian input bytes (RDX, R8, XMM0
 *  low, XMM0 high, ...). */
void hvtlb_fast_regs_to_input(const struct hvtlb_fast_regs *regs,
			      uint8_t out[HVTLB_FAST_BYTES]);

/* ------------------------------------------------------------------ */
/* The rep loop (guest side)                                           */
/* ------------------------------------------------------------------ */

/** Issues one hypercall and returns the result word. */
typedef uint64_t (*hvtlb_hypercall_fn)(void *data, uint64_t control,
				       const void *input, size_t len);

#define HVTLB_REP_MAX_STALLS 16u

/**
 * Issues @p control and, for rep calls, reissues it with the rep start
 * index rewritten to the reps completed until every rep is done or a status
 * is not SUCCESS. Simple calls are issued once.
 *
 * Returns 0 with the host's last answer in @p result (its status may be a
 * failure). Returns -HVTLB_EPROTO when the host breaks the protocol: reps
 * completed going backwards or beyond the rep count, or no progress on
 * HVTLB_REP_MAX_STALLS calls in a row; @p result then holds the last answer.
 */
int hvtlb_rep_call(uint64_t control, const void *input, size_t len,
		   hvtlb_hypercall_fn fn, void *data, uint64_t *result);

/* ------------------------------------------------------------------ */
/* Decoder (host side)                                                 */
/* ------------------------------------------------------------------ */

/**
 * Validation profiles: X(NAME, short name, the host source it follows).
 * "strict" is the TLFS read strictly; every other profile reproduces one
 * host at one named version (docs/hosts.md has the per-input table).
 */
#define HVTLB_PROFILE_MAP(X)                                                   \
	X(STRICT, "strict", "Hyper-V TLFS, strictest reading where silent")    \
	X(KVM, "kvm",                                                          \
	  "Linux 6.12.117 arch/x86/kvm/hyperv.c (Debian 6.12.117-1~deb12u1)")  \
	X(XEN, "xen",                                                          \
	  "Xen c447b7308b (4.23-unstable) xen/arch/x86/hvm/viridian/"          \
	  "viridian.c")                                                        \
	X(OPENVMM_TDX, "openvmm-tdx",                                          \
	  "OpenVMM 1488a37b7c vm/hv1/hv1_hypercall + openhcl/virt_mshv_vtl "   \
	  "TDX backing")                                                       \
	X(OPENVMM_SNP, "openvmm-snp",                                          \
	  "OpenVMM 1488a37b7c vm/hv1/hv1_hypercall + openhcl/virt_mshv_vtl "   \
	  "SNP backing")                                                       \
	X(KVM_5_10, "kvm-5.10", "Linux 5.10.13 arch/x86/kvm/hyperv.c")

enum hvtlb_profile {
#define HVTLB_X_(n, s, src) HVTLB_PROFILE_##n,
	HVTLB_PROFILE_MAP(HVTLB_X_)
#undef HVTLB_X_
		HVTLB_PROFILE_COUNT_,
	/** The name before the TDX and SNP backings were told apart: the
	 *  profile it always followed, TDX. */
	HVTLB_PROFILE_OPENVMM = HVTLB_PROFILE_OPENVMM_TDX,
};

/** Short name ("openvmm-tdx"), or NULL for a value out of range. */
const char *hvtlb_profile_name(enum hvtlb_profile p);
/**
 * Returns 0 and sets *p, or -HVTLB_EINVAL. Takes every short name and the
 * alias "openvmm" (= "openvmm-tdx").
 */
int hvtlb_profile_from_name(const char *name, enum hvtlb_profile *p);
/** The host source a profile follows (file and version or commit), or
 *  NULL for a value out of range. */
const char *hvtlb_profile_source(enum hvtlb_profile p);

/** The hypervisor a profile's host is: what a guest finds in CPUID, and so
 *  which paravirtual calls beside the TLFS ones it may use. */
enum hvtlb_hypervisor {
	/** Hyper-V, or a host that presents itself as Hyper-V (OpenVMM) */
	HVTLB_HYPERVISOR_HYPERV,
	HVTLB_HYPERVISOR_KVM, /**< KVM with its Hyper-V emulation */
	HVTLB_HYPERVISOR_XEN, /**< Xen with its viridian enlightenments */
};

/** The hypervisor profile @p p follows; HVTLB_HYPERVISOR_HYPERV for a
 *  value out of range (which hvtlb_decode() reads strictly). */
enum hvtlb_hypervisor hvtlb_profile_hypervisor(enum hvtlb_profile p);

/** The fields of struct hvtlb_host that only some profiles read. */
enum hvtlb_host_field {
	HVTLB_HOST_KVM_MAX_VCPUS = 1u << 0, /**< kvm_max_vcpus */
	HVTLB_HOST_KVM_SYNIC = 1u << 1,	    /**< kvm_synic */
	HVTLB_HOST_CALLER_VP = 1u << 2,	    /**< caller_vp */
};

/** The hvtlb_host_field bits profile @p p reads (the others it ignores);
 *  0 for a value out of range. */
unsigned hvtlb_profile_host_fields(enum hvtlb_profile p);

/** KVM's KVM_MAX_VCPUS (CONFIG_KVM_MAX_NR_VCPUS): 4096 in the Debian
 *  6.12.117 amd64 build the kvm profile follows (CONFIG_MAXSMP=y). */
#define HVTLB_KVM_MAX_VCPUS_DEFAULT 4096u
/** The Kconfig default without MAXSMP, and the lowest value allowed. */
#define HVTLB_KVM_MAX_VCPUS_MIN 1024u
/** Xen's HVM_MAX_VCPUS (xen/include/public/hvm/hvm_info_table.h). */
#define HVTLB_XEN_MAX_VCPUS 128u

/** What the host knows when it decodes. Zero-initialize it: a zero in
 *  any field after va_bits is that field's default. */
struct hvtlb_host {
	enum hvtlb_profile profile;
	uint32_t vp_count;   /**< VPs in the partition (<= 4096) */
	bool nested_enabled; /**< bit 31 of the control word is defined */
	unsigned va_bits;    /**< 48 or 57; 0 means 48 */
	/** kvm: the host's KVM_MAX_VCPUS build setting, 1024..4096 (others
	 *  are taken as the nearest); 0 means
	 *  HVTLB_KVM_MAX_VCPUS_DEFAULT. KVM reads at most
	 *  ceil(max / 64) banks and never targets a VP at or above it. */
	uint32_t kvm_max_vcpus;
	/** openvmm-snp: the caller's VP index. A flush whose named set is
	 *  exactly the caller, with NON_GLOBAL_MAPPINGS_ONLY, stays local. */
	uint32_t caller_vp;
	/** kvm: the caller's SynIC is active, so KVM passes PostMessage and
	 *  SignalEvent to the VMM instead of failing them with status 3. */
	bool kvm_synic;
};

/**
 * The most VPs a VM of @p h's host can have, as its build sets it: kvm
 * h->kvm_max_vcpus as KVM reads it (KVM_MAX_VCPUS), xen
 * HVTLB_XEN_MAX_VCPUS (HVM_MAX_VCPUS), HVTLB_MAX_VPS for a host with no
 * limit below it. hvtlb_decode() never names a VP at or above it. Sets
 * *@p name (when @p name is not NULL) to the host's name for its limit,
 * or NULL for none. Returns 0 for a NULL @p h.
 */
uint32_t hvtlb_host_max_vps(const struct hvtlb_host *h, const char **name);

/** The bytes the guest supplied. */
struct hvtlb_input {
	/** Memory calls: bytes starting at the input GPA. Fast calls: the
	 *  register image (RDX, R8, XMM0 lo, hi, ...). */
	const uint8_t *data;
	/** Bytes readable at data. Nothing past it is ever read. */
	size_t len;
	/** Memory calls: the input GPA (its low 12 bits are the offset in
	 *  its page). Ignored for fast calls. */
	uint64_t gpa;
};

/** A decoded, validated call. Views point into the caller's input. */
struct hvtlb_decoded {
	struct hvtlb_control ctl;
	uint16_t call;
	uint64_t address_space;
	uint64_t flags;
	uint32_t vector;    /**< IPI calls */
	uint8_t target_vtl; /**< IPI calls */
	/** Every VP is a target (ALL_PROCESSORS, format ALL, or a profile
	 *  rule such as KVM's empty non-Ex mask). */
	bool all_vps;
	/** The whole address space is flushed (Space calls, or a profile
	 *  rule such as KVM's more than 15 entries). */
	bool flush_all_gvas;
	uint64_t valid_mask; /**< sparse set as read */
	uint32_t nbanks;
	uint64_t banks[HVTLB_VPSET_BANKS];
	uint32_t vp_count;  /**< from hvtlb_host */
	unsigned va_bits;   /**< from hvtlb_host, 48 or 57 */
	bool extended;	    /**< GVA entries use the extended format */
	const uint8_t *gva; /**< first entry not yet completed (rep start) */
	uint32_t gva_count; /**< entries from rep start to rep count */
	/** How much of the host's answer the success is (enum hvtlb_scope). */
	uint8_t scope;
	/** The known host bug this input hits in some version of the
	 *  profiled host: an index for hvtlb_host_bug_get(), or 0. */
	uint16_t host_bug;
};

/** What a successful hvtlb_decode() stands for. */
enum hvtlb_scope {
	/** The status is the host's whole answer (the six flush and IPI
	 *  calls, and the other calls the profile answers in full). */
	HVTLB_SCOPE_FULL = 0,
	/** A call beyond the six passed the host dispatcher's generic
	 *  checks and goes to a handler that hvtlb does not model. */
	HVTLB_SCOPE_DISPATCH = 1,
	/** The host passes the call to its VMM (KVM: an exit to user space),
	 *  which answers. */
	HVTLB_SCOPE_VMM = 2,
};

/** A known bug of a host that an input can hit. */
struct hvtlb_host_bug {
	const char *id;		    /**< "XSA-475", a commit, ... */
	enum hvtlb_profile profile; /**< the host it is a bug of */
	const char *versions;	    /**< the versions it affects */
	/** The version the profile follows has it. */
	bool in_profile;
	/** An input can trigger it; false for protocol and state bugs
	 *  listed for the record (hvtlb_decode() never reports them). */
	bool input_triggered;
	const char *source; /**< where it is described and fixed */
	const char *effect; /**< what happens on the host */
};

/** Number of entries in the known-bug table; valid indices are 1..it. */
unsigned hvtlb_host_bug_count(void);
/** Entry @p index of the known-bug table, or NULL outside 1..count. */
const struct hvtlb_host_bug *hvtlb_host_bug_get(unsigned index);

/**
 * Decodes and validates one call by the rules of @p host->profile.
 * Returns the result word: the TLFS status and the reps completed that
 * the profiled host answers (on success the rep count for the flush
 * calls; xen leaves reps 0 for IPIs and openvmm reports the rep start
 * index for a List it fails in its handler). On success @p out is filled
 * in; otherwise it is unspecified. Calls beyond the six get the host
 * dispatcher's answer; a success then says what out->scope says.
 * Reads nothing outside in->data[0 .. in->len); a span shorter than what
 * the profile reads is the status the host gives a guest read that fails
 * (3; 5 for xen). docs/hosts.md and the table at the top of decode.c say
 * what each profile does with each input and cite the host source. A
 * success may be a no-op (an empty set under kvm or xen): then no VP is a
 * target. out->host_bug names a known host bug the input hits. @p out
 * holds pointers into in->data. Thread-safe for distinct @p out objects.
 */
uint64_t hvtlb_decode(const struct hvtlb_host *host, uint64_t control,
		      const struct hvtlb_input *in, struct hvtlb_decoded *out);

/** Whether @p vp is a target of @p d: false for vp >= vp_count and for a
 *  NULL @p d. O(1). */
bool hvtlb_decoded_has_vp(const struct hvtlb_decoded *d, uint32_t vp);

/**
 * The bulk form, for hosts that keep VP masks: stores in @p out the target
 * VPs of @p d that are below d->vp_count (bit v of out->bits[v / 64]); every
 * bit at or above d->vp_count is clear. The same set as hvtlb_vp_iter_next()
 * returns, in one step per bank word, never per VP. Reads only d (not the
 * guest's input) and only d->banks[0 .. min(nbanks, 64)). Thread-safe for
 * distinct @p out objects.
 *
 * Returns 0, or -HVTLB_EINVAL when @p d or @p out is NULL (a non-NULL
 * @p out is then cleared).
 */
int hvtlb_decoded_vpmask(const struct hvtlb_decoded *d,
			 struct hvtlb_vpmask *out);

/** Iterates the target VPs of a decoded call in ascending order. */
struct hvtlb_vp_iter {
	const struct hvtlb_decoded *d;
	uint32_t next; /**< private: first VP of the next bank to load */
	uint32_t bank; /**< private: banks[] index of the next valid bank */
	uint64_t word; /**< private: VPs of the current bank not yet returned */
	uint32_t base; /**< private: VP index of bit 0 of word */
};

/** Starts iterating @p d (which must outlive the iteration). */
void hvtlb_vp_iter_init(struct hvtlb_vp_iter *it,
			const struct hvtlb_decoded *d);
/** Returns false when done. Only VPs < vp_count are returned. O(1)
 *  amortized per VP plus one step per valid bank. */
bool hvtlb_vp_iter_next(struct hvtlb_vp_iter *it, uint32_t *vp);
/**
 * The word-at-a-time form, for hosts that keep VP masks (as KVM does): the
 * targets among VPs *base .. *base + 63 (bit i = VP *base + i, only VPs
 * < vp_count, never 0) and true, or false when done. *base is a multiple of
 * 64. May be mixed with hvtlb_vp_iter_next(): each VP is returned once.
 */
bool hvtlb_vp_iter_next_word(struct hvtlb_vp_iter *it, uint32_t *base,
			     uint64_t *bits);

/**
 * Iterates the GVA ranges of a decoded List call, one entry (or the
 * canonical part of one) at a time. Non-canonical pages are skipped page by
 * page; a range never wraps past 2^64.
 */
struct hvtlb_gva_iter {
	const struct hvtlb_decoded *d;
	uint32_t index;
	struct hvtlb_gva_range pending; /**< upper canonical half, if any */
	bool has_pending;
};

/** Starts iterating the GVA list of @p d (empty for Space calls and when
 *  flush_all_gvas says the host flushes everything instead). @p d and the
 *  input it points into must outlive the iteration. */
void hvtlb_gva_iter_init(struct hvtlb_gva_iter *it,
			 const struct hvtlb_decoded *d);
/** Stores the next range in @p r (may be NULL) and returns true, or returns
 *  false when done. Every range returned is canonical for d->va_bits, has
 *  at least one page and ends at or below 2^64. */
bool hvtlb_gva_iter_next(struct hvtlb_gva_iter *it, struct hvtlb_gva_range *r);
/**
 * The batch form: stores up to @p max next ranges in @p out and returns how
 * many (0 when done). The same ranges, in the same order, as calls to
 * hvtlb_gva_iter_next(); the two may be mixed.
 */
size_t hvtlb_gva_iter_fill(struct hvtlb_gva_iter *it,
			   struct hvtlb_gva_range *out, size_t max);

/**
 * The raw batch form, for hosts that queue entries as the guest wrote them
 * (as KVM's per-vCPU flush FIFO does): stores up to @p max next ranges in
 * @p out as host-order entries in the call's own format (d->extended) and
 * returns how many (fewer than @p max only when done). Each entry names
 * exactly one range that hvtlb_gva_iter_fill() would return, in the same
 * order: an entry that needs clipping at the canonical hole or at 2^64 is
 * rewritten to name its canonical part, and a wholly non-canonical one is
 * skipped. Read them with hvtlb_gva_entry_gva(), _pages() and _size(). The
 * guest's bytes are read once: @p out is a copy, safe from a guest that
 * rewrites its input meanwhile.
 */
size_t hvtlb_gva_iter_fill_raw(struct hvtlb_gva_iter *it, uint64_t *out,
			       size_t max);

/** log2 of the page size an entry of either format counts in. */
static inline unsigned hvtlb_gva_entry_shift(uint64_t e, bool extended)
{
	if (!extended || !(e & HVTLB_GVA_EXT_LARGE))
		return 12;
	return (e & HVTLB_GVA_EXT_1G) ? 30 : 21;
}

/** First byte of the range an entry names (a GVA inside a large page names
 *  that whole page). */
static inline uint64_t hvtlb_gva_entry_gva(uint64_t e, bool extended)
{
	unsigned shift = hvtlb_gva_entry_shift(e, extended);

	return e >> shift << shift;
}

/** Pages (of hvtlb_gva_entry_size()) in the range an entry names. */
static inline uint64_t hvtlb_gva_entry_pages(uint64_t e, bool extended)
{
	return (e & (extended ? 0x7ffULL : 0xfffULL)) + 1;
}

static inline enum hvtlb_page_size hvtlb_gva_entry_size(uint64_t e,
							bool extended)
{
	unsigned shift = hvtlb_gva_entry_shift(e, extended);

	return shift == 30   ? HVTLB_PAGE_1G
	       : shift == 21 ? HVTLB_PAGE_2M
			     : HVTLB_PAGE_4K;
}

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* HVTLB_HYPERCALL_H */
