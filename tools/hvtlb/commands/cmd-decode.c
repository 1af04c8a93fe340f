// SPDX-License-Identifier: MIT
/* hvtlb decode: decode and validate a hypercall as a host would. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hvtlb/hypercall.h>

#include "cli.h"
#include "fmt.h"
#include "json.h"
#include "json-read.h"
#include "parse.h"

#define CMD "decode"
#define MAX_WORDS (HVTLB_PAGE_BYTES / 8)
/* A text input file larger than this is not a list of 512 words. */
#define MAX_TEXT_FILE (1u << 20)

static const char usage_text[] =
	"usage: hvtlb decode --control HEX (--input HEX[,HEX...] |\n"
	"                    --input-file FILE [--binary]) [options]\n"
	"       hvtlb decode [options] FILE\n"
	"\n"
	"Decodes and validates one flush or IPI hypercall as a host would and\n"
	"prints the TLFS status it answers and, on success, what it flushes.\n"
	"FILE ('-' for stdin) is what `hvtlb encode --json` writes: its\n"
	"control word, fast flag and input words, so that\n"
	"`hvtlb encode ... --json | hvtlb decode -` decodes what was encoded.\n"
	"\n"
	"  --control HEX          the control word (RCX)\n"
	"  --input HEX[,HEX...]   the input's 64-bit words in order (hex, "
	"with\n"
	"                         or without 0x)\n"
	"  --input-file FILE      the same words from a file ('-' = stdin),\n"
	"                         separated by commas and/or white space; '#'\n"
	"                         starts a comment that runs to the end of "
	"line\n"
	"  --binary               FILE holds the raw little-endian input "
	"bytes\n"
	"  --gpa-offset N         offset of the input in its 4 KiB page\n"
	"                         (default 0); the host sees exactly the "
	"words\n"
	"                         given, so a short input gives status 3\n"
	"  --fast                 fast call: sets the control word's fast "
	"bit;\n"
	"                         the words are RDX, R8, XMM0 low, XMM0 high,\n"
	"                         ... (at most 14; missing registers read 0)\n"
	"  --profile NAME         the host whose rules apply (below);\n"
	"                         default strict\n"
	"  --vp-count N           VPs in the partition, 1..4096 (default "
	"4096;\n"
	"                         kvm: at most --kvm-max-vcpus, xen: at most "
	"128)\n"
	"  --kvm-max-vcpus N      kvm: the host's KVM_MAX_VCPUS build "
	"setting,\n"
	"                         1024..4096 (default 4096, as Debian's "
	"build;\n"
	"                         1024 is the Kconfig default without "
	"MAXSMP)\n"
	"  --kvm-synic            kvm, kvm-5.10: the caller's SynIC is on\n"
	"                         (PostMessage and SignalEvent go to the "
	"VMM)\n"
	"  --caller-vp N          openvmm-snp: the caller's VP index (default "
	"0)\n"
	"  --json                 one line of JSON instead of text: status,\n"
	"                         status_name, result and on success call,\n"
	"                         flags, address_space, vps (list or "
	"\"all\"),\n"
	"                         ranges ([] = the whole address space), "
	"for\n"
	"                         IPI calls vector, scope when the status is "
	"not\n"
	"                         the host's whole answer, and host_bug {id,\n"
	"                         source, effect, versions, in_profile} when "
	"the\n"
	"                         input hits a known bug of the host\n"
	"  --help                 this text\n"
	"\n"
	"Options take their value as the next argument or after '='; '--'\n"
	"ends the options.\n"
	"Exit status: 0 decoded (whatever the status), 2 bad command line or\n"
	"input file.\n"
	"\n"
	"Profiles and the host source each follows (docs/hosts.md):\n";

struct decode_opts {
	uint64_t control;
	bool have_control;
	const char *input;
	const char *input_file;
	bool binary;
	uint64_t gpa_offset;
	bool have_gpa_offset;
	bool fast;
	enum hvtlb_profile profile;
	bool have_profile;
	uint64_t vp_count;
	bool have_vp_count;
	uint64_t kvm_max_vcpus;
	bool have_kvm_max_vcpus;
	bool kvm_synic;
	uint64_t caller_vp;
	bool have_caller_vp;
	bool json;
	/* FILE operand: the JSON of `hvtlb encode --json`, or NULL */
	const char *encoded;
	/* The input, as bytes. */
	uint8_t bytes[HVTLB_PAGE_BYTES];
	size_t len;
};

static void print_help(void)
{
	fputs(usage_text, stdout);
	for (unsigned p = 0; p < HVTLB_PROFILE_COUNT_; p++)
		printf("  %-12s %s\n",
		       hvtlb_profile_name((enum hvtlb_profile)p),
		       hvtlb_profile_source((enum hvtlb_profile)p));
	printf("  %-12s the name openvmm-tdx had before\n", "openvmm");
}

/* The host the options describe; its VP count, when not given, is the
 * most its build allows. */
static void host_from_opts(const struct decode_opts *o, struct hvtlb_host *h)
{
	memset(h, 0, sizeof(*h));
	h->profile = o->profile;
	h->kvm_max_vcpus = (uint32_t)o->kvm_max_vcpus;
	h->kvm_synic = o->kvm_synic;
	h->caller_vp = (uint32_t)o->caller_vp;
	h->vp_count = o->have_vp_count ? (uint32_t)o->vp_count
				       : hvtlb_host_max_vps(h, NULL);
}

/* A host option given for a profile that does not read its @p field:
 * the error names the profiles that do. */
static int check_field(const struct decode_opts *o, bool given, unsigned field,
		       const char *opt)
{
	char who[128] = "";
	size_t n = 0;

	if (!given || (hvtlb_profile_host_fields(o->profile) & field))
		return 0;
	for (unsigned p = 0; p < HVTLB_PROFILE_COUNT_; p++)
		if (hvtlb_profile_host_fields((enum hvtlb_profile)p) & field &&
		    n < sizeof(who))
			n += (size_t)snprintf(
				who + n, sizeof(who) - n, "%s%s",
				n ? " or " : "",
				hvtlb_profile_name((enum hvtlb_profile)p));
	return cli_usage_error(CMD, "%s is for --profile %s, not %s", opt, who,
			       hvtlb_profile_name(o->profile));
}

/* The host options against the profile: a host never has more VPs than
 * its build allows, and each option is for the profiles that read it
 * (hvtlb_profile_host_fields()). */
static int check_host(const struct decode_opts *o)
{
	const char *name = hvtlb_profile_name(o->profile), *limit;
	struct hvtlb_host h;
	uint32_t max;

	if (check_field(o, o->have_kvm_max_vcpus, HVTLB_HOST_KVM_MAX_VCPUS,
			"--kvm-max-vcpus") ||
	    check_field(o, o->kvm_synic, HVTLB_HOST_KVM_SYNIC, "--kvm-synic") ||
	    check_field(o, o->have_caller_vp, HVTLB_HOST_CALLER_VP,
			"--caller-vp"))
		return 2;
	host_from_opts(o, &h);
	max = hvtlb_host_max_vps(&h, &limit);
	if (o->have_vp_count && o->vp_count > max)
		return cli_usage_error(
			CMD,
			"--vp-count: %s builds no VM of more than %" PRIu32
			" VPs (%s), not %" PRIu64,
			name, max, limit ? limit : "HVTLB_MAX_VPS",
			o->vp_count);
	return 0;
}

enum {
	OPT_CONTROL = 256,
	OPT_INPUT,
	OPT_INPUT_FILE,
	OPT_BINARY,
	OPT_GPA_OFFSET,
	OPT_FAST,
	OPT_PROFILE,
	OPT_VP_COUNT,
	OPT_KVM_MAX_VCPUS,
	OPT_KVM_SYNIC,
	OPT_CALLER_VP,
	OPT_JSON,
};

static const struct option options[] = {
	{ "control", required_argument, NULL, OPT_CONTROL },
	{ "input", required_argument, NULL, OPT_INPUT },
	{ "input-file", required_argument, NULL, OPT_INPUT_FILE },
	{ "binary", no_argument, NULL, OPT_BINARY },
	{ "gpa-offset", required_argument, NULL, OPT_GPA_OFFSET },
	{ "fast", no_argument, NULL, OPT_FAST },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "vp-count", required_argument, NULL, OPT_VP_COUNT },
	{ "kvm-max-vcpus", required_argument, NULL, OPT_KVM_MAX_VCPUS },
	{ "kvm-synic", no_argument, NULL, OPT_KVM_SYNIC },
	{ "caller-vp", required_argument, NULL, OPT_CALLER_VP },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* An unknown --profile: the nearest name as a hint, and every name the
 * profile map has. */
static int bad_profile(const char *v)
{
	const char *names[HVTLB_PROFILE_COUNT_ + 1];

	for (unsigned p = 0; p < HVTLB_PROFILE_COUNT_; p++)
		names[p] = hvtlb_profile_name((enum hvtlb_profile)p);
	names[HVTLB_PROFILE_COUNT_] = NULL;
	return cli_enum_error(CMD, "--profile", "profile", v, names);
}

/* The host options: whose rules apply and the partition it runs. */
static int take_host_option(struct decode_opts *o, int c, const char *v)
{
	int rc;

	switch (c) {
	case OPT_KVM_SYNIC:
		return cli_once(CMD, &o->kvm_synic, "--kvm-synic");
	case OPT_PROFILE:
		if (cli_once(CMD, &o->have_profile, "--profile"))
			return CLI_EXIT_USAGE;
		if (hvtlb_profile_from_name(v, &o->profile))
			return bad_profile(v);
		return 0;
	case OPT_VP_COUNT:
		if (cli_once(CMD, &o->have_vp_count, "--vp-count"))
			return CLI_EXIT_USAGE;
		rc = parse_u64_max(v, HVTLB_MAX_VPS, &o->vp_count);
		if (rc == -EINVAL)
			return cli_usage_error(
				CMD, "--vp-count: bad number '%s'", v);
		if (rc || o->vp_count == 0)
			return cli_usage_error(
				CMD, "--vp-count: %s is outside 1..%u", v,
				HVTLB_MAX_VPS);
		return 0;
	case OPT_KVM_MAX_VCPUS:
		if (cli_once(CMD, &o->have_kvm_max_vcpus, "--kvm-max-vcpus"))
			return CLI_EXIT_USAGE;
		if (parse_u64_max(v, HVTLB_MAX_VPS, &o->kvm_max_vcpus) ||
		    o->kvm_max_vcpus < HVTLB_KVM_MAX_VCPUS_MIN)
			return cli_usage_error(CMD,
					       "--kvm-max-vcpus: '%s' is not a "
					       "number in %u..%u "
					       "(CONFIG_KVM_MAX_NR_VCPUS)",
					       v, HVTLB_KVM_MAX_VCPUS_MIN,
					       HVTLB_MAX_VPS);
		return 0;
	case OPT_CALLER_VP:
		if (cli_once(CMD, &o->have_caller_vp, "--caller-vp"))
			return CLI_EXIT_USAGE;
		if (parse_u64_max(v, HVTLB_MAX_VPS - 1, &o->caller_vp))
			return cli_usage_error(CMD,
					       "--caller-vp: '%s' is not a VP "
					       "index in 0..%u",
					       v, HVTLB_MAX_VPS - 1);
		return 0;
	}
	return CLI_EXIT_USAGE;
}

/* The call options: the control word, the input and how to print. */
static int take_option(struct decode_opts *o, int c, const char *v,
		       bool *seen_input, bool *seen_file)
{
	int rc;

	switch (c) {
	case OPT_FAST:
		return cli_once(CMD, &o->fast, "--fast");
	case OPT_BINARY:
		return cli_once(CMD, &o->binary, "--binary");
	case OPT_JSON:
		return cli_once(CMD, &o->json, "--json");
	case OPT_CONTROL:
		if (cli_once(CMD, &o->have_control, "--control"))
			return CLI_EXIT_USAGE;
		if (parse_hex_u64(v, &o->control))
			return cli_usage_error(
				CMD, "--control: bad hex number '%s'", v);
		return 0;
	case OPT_INPUT:
		if (cli_once(CMD, seen_input, "--input"))
			return CLI_EXIT_USAGE;
		o->input = v;
		return 0;
	case OPT_INPUT_FILE:
		if (cli_once(CMD, seen_file, "--input-file"))
			return CLI_EXIT_USAGE;
		o->input_file = v;
		return 0;
	case OPT_GPA_OFFSET:
		if (cli_once(CMD, &o->have_gpa_offset, "--gpa-offset"))
			return CLI_EXIT_USAGE;
		rc = parse_u64_max(v, HVTLB_PAGE_BYTES - 1, &o->gpa_offset);
		if (rc == -ERANGE)
			return cli_usage_error(CMD,
					       "--gpa-offset: %s is not within "
					       "a 4 KiB page (0..4095)",
					       v);
		if (rc)
			return cli_usage_error(
				CMD, "--gpa-offset: bad number '%s'", v);
		return 0;
	}
	return take_host_option(o, c, v);
}

/* Returns 0, 1 after --help, or 2 (message printed). */
static int parse_args(int argc, char **argv, struct decode_opts *o)
{
	bool seen_input = false, seen_file = false;
	int c;

	while ((c = cli_getopt(&cmd_decode, argc, argv)) != -1) {
		if (c == 'h') {
			print_help();
			return 1;
		}
		if (c == '?' ||
		    take_option(o, c, optarg, &seen_input, &seen_file))
			return CLI_EXIT_USAGE;
	}
	if (optind < argc)
		o->encoded = argv[optind++];
	if (optind < argc)
		return cli_usage_error(CMD, "unexpected argument '%s'",
				       argv[optind]);
	if (o->encoded) {
		if (o->have_control || o->input || o->input_file)
			return cli_usage_error(
				CMD,
				"'%s' gives the control word and "
				"the input: no --control, "
				"--input or --input-file",
				o->encoded);
		if (o->fast)
			return cli_usage_error(CMD,
					       "'%s' says whether the call is "
					       "fast: no --fast",
					       o->encoded);
	} else {
		if (!o->have_control)
			return cli_usage_error(CMD, "--control is required");
		if (o->input && o->input_file)
			return cli_usage_error(
				CMD, "--input and --input-file conflict");
		if (!o->input && !o->input_file)
			return cli_usage_error(
				CMD, "--input or --input-file is required");
	}
	if (o->binary && !o->input_file)
		return cli_usage_error(CMD, "--binary needs --input-file");
	return check_host(o);
}

/* Reads all of @p f, at most @p max bytes; -E2BIG beyond, -EIO on error. */
static int read_all(FILE *f, uint8_t *buf, size_t max, size_t *len)
{
	size_t n = 0;

	errno = 0;
	for (;;) {
		size_t got = fread(buf + n, 1, max - n, f);

		n += got;
		if (ferror(f))
			return errno ? -errno : -EIO;
		if (feof(f))
			break;
		if (n == max) {
			if (fgetc(f) != EOF)
				return -E2BIG;
			break;
		}
	}
	*len = n;
	return 0;
}

static void words_to_bytes(const uint64_t *w, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i++) {
		for (unsigned b = 0; b < 8; b++)
			out[8 * i + b] = (uint8_t)(w[i] >> (8 * b));
	}
}

static int load_words(struct decode_opts *o, const char *text, const char *what)
{
	uint64_t w[MAX_WORDS];
	size_t n;
	int rc = parse_hex_words(text, w, MAX_WORDS, &n);

	if (rc == -E2BIG)
		return cli_usage_error(
			CMD, "%s: more than %u words (one 4 KiB page)", what,
			MAX_WORDS);
	if (rc == -ERANGE)
		return cli_usage_error(CMD, "%s: a word does not fit 64 bits",
				       what);
	if (rc)
		return cli_usage_error(CMD,
				       "%s: bad word list (want hex words "
				       "separated by commas)",
				       what);
	words_to_bytes(w, n, o->bytes);
	o->len = n * 8;
	return 0;
}

/*
 * The FILE operand: `hvtlb encode --json` output, {"control": HEX,
 * "fast": BOOL, "input": [HEX, ...], ...}; other members are ignored.
 */
static int load_encoded(struct decode_opts *o)
{
	const char *name = o->encoded;
	FILE *f = strcmp(name, "-") ? fopen(name, "rb") : stdin;
	char *text = malloc(MAX_TEXT_FILE + 1), err[96];
	const struct json_value *ctl, *in, *fast;
	uint64_t w[MAX_WORDS];
	struct json_doc doc = { 0 };
	size_t n = 0;
	int rc;

	if (!f || !text) {
		rc = cli_usage_error(CMD, "cannot open '%s': %s", name,
				     strerror(f ? ENOMEM : errno));
		goto out;
	}
	rc = read_all(f, (uint8_t *)text, MAX_TEXT_FILE, &n);
	if (rc) {
		rc = cli_usage_error(CMD, "cannot read '%s': %s", name,
				     strerror(-rc));
		goto out;
	}
	if (json_parse(&doc, text, n, err, sizeof(err))) {
		rc = cli_usage_error(CMD,
				     "'%s' is not the JSON of `hvtlb encode "
				     "--json`: %s",
				     name, err);
		goto out;
	}
	ctl = json_get(doc.root, "control");
	in = json_get(doc.root, "input");
	fast = json_get(doc.root, "fast");
	if (!ctl || ctl->type != JSON_STRING ||
	    parse_hex_u64(ctl->text, &o->control) || !in ||
	    in->type != JSON_ARRAY || in->n > MAX_WORDS ||
	    (fast && fast->type != JSON_BOOL)) {
		rc = cli_usage_error(CMD,
				     "'%s': want {\"control\": HEX, \"input\": "
				     "[HEX, ...]} as `hvtlb encode --json` "
				     "writes",
				     name);
		goto out;
	}
	for (size_t i = 0; i < in->n; i++) {
		if (in->child[i].type != JSON_STRING ||
		    parse_hex_u64(in->child[i].text, &w[i])) {
			rc = cli_usage_error(CMD,
					     "'%s': input[%zu] is not a hex "
					     "word",
					     name, i);
			goto out;
		}
	}
	if (fast && fast->boolean)
		o->control |= HVTLB_CTL_FAST;
	o->have_control = true;
	words_to_bytes(w, in->n, o->bytes);
	o->len = in->n * 8;
out:
	json_free(&doc);
	free(text);
	if (f && f != stdin)
		fclose(f);
	return rc;
}

static int load_input(struct decode_opts *o)
{
	FILE *f;
	char *text;
	size_t n;
	int rc;

	if (o->input)
		return load_words(o, o->input, "--input");
	if (o->encoded)
		return load_encoded(o);
	f = strcmp(o->input_file, "-") ? fopen(o->input_file, "rb") : stdin;
	if (!f)
		return cli_usage_error(CMD,
				       "--input-file: cannot open '%s': %s",
				       o->input_file, strerror(errno));
	if (o->binary) {
		rc = read_all(f, o->bytes, sizeof(o->bytes), &o->len);
		text = NULL;
	} else {
		text = malloc(MAX_TEXT_FILE + 1);
		rc = text ? read_all(f, (uint8_t *)text, MAX_TEXT_FILE, &n)
			  : -ENOMEM;
	}
	if (f != stdin)
		fclose(f);
	if (rc == -E2BIG)
		rc = cli_usage_error(
			CMD, "--input-file: '%s' is larger than %u bytes",
			o->input_file,
			o->binary ? HVTLB_PAGE_BYTES : MAX_TEXT_FILE);
	else if (rc)
		rc = cli_usage_error(CMD, "--input-file: cannot read '%s': %s",
				     o->input_file, strerror(-rc));
	else if (text && memchr(text, '\0', n))
		rc = cli_usage_error(CMD,
				     "--input-file: '%s' is not text (use "
				     "--binary for raw bytes)",
				     o->input_file);
	else if (text) {
		text[n] = '\0';
		rc = load_words(o, text, "--input-file");
	}
	free(text);
	return rc;
}

static void vps_bitmap(const struct hvtlb_decoded *d, uint64_t *bits)
{
	struct hvtlb_vp_iter it;
	uint32_t vp;

	memset(bits, 0, HVTLB_VPSET_BANKS * sizeof(*bits));
	hvtlb_vp_iter_init(&it, d);
	while (hvtlb_vp_iter_next(&it, &vp)) {
		if (vp < HVTLB_MAX_VPS)
			bits[vp / 64] |= 1ULL << (vp % 64);
	}
}

static const char *scope_name(uint8_t scope)
{
	return scope == HVTLB_SCOPE_VMM ? "vmm" : "dispatch";
}

/* Flag bit @p b by its TLFS name, or "reserved-bit-N" (in @p buf) for a
 * bit the TLFS leaves reserved: a profile may let one through. */
static const char *flag_name(unsigned b, char *buf, size_t size)
{
	const char *name = hvtlb_flush_flag_name(1ULL << b);

	if (name)
		return name;
	snprintf(buf, size, "reserved-bit-%u", b);
	return buf;
}

/* The "ranges" list: [] on a flush call: the whole address space is
 * flushed. */
static void print_json_ranges(const struct hvtlb_decoded *d)
{
	struct hvtlb_gva_iter it;
	struct hvtlb_gva_range r;
	const char *sep = "";

	fputs(",\"ranges\":[", stdout);
	if (hvtlb_call_is_rep(d->call) && !d->flush_all_gvas) {
		hvtlb_gva_iter_init(&it, d);
		while (hvtlb_gva_iter_next(&it, &r)) {
			printf("%s{\"gva\":", sep);
			json_hex64(stdout, r.gva);
			printf(",\"pages\":%" PRIu64 ",\"page_size\":%" PRIu64
			       "}",
			       r.pages,
			       (uint64_t)1 << hvtlb_page_shift(r.size));
			sep = ",";
		}
	}
	fputc(']', stdout);
}

static void print_json_host_bug(const struct hvtlb_host_bug *b)
{
	fputs(",\"host_bug\":{\"id\":", stdout);
	json_string(stdout, b->id);
	fputs(",\"source\":", stdout);
	json_string(stdout, b->source);
	fputs(",\"effect\":", stdout);
	json_string(stdout, b->effect);
	fputs(",\"versions\":", stdout);
	json_string(stdout, b->versions);
	printf(",\"in_profile\":%s}", b->in_profile ? "true" : "false");
}

static void print_json(uint64_t result, const struct hvtlb_decoded *d)
{
	hvtlb_status st = hvtlb_result_status(result);
	uint64_t bits[HVTLB_VPSET_BANKS];
	const char *sep = "";
	char buf[32];

	putchar('{');
	json_meta(stdout, DECODE_JSON_SCHEMA);
	printf(",\"status\":%u,\"status_name\":", (unsigned)st);
	json_string(stdout, hvtlb_status_name(st));
	fputs(",\"result\":", stdout);
	json_hex64(stdout, result);
	if (st != HVTLB_STATUS_SUCCESS) {
		fputs("}\n", stdout);
		return;
	}
	if (d->scope != HVTLB_SCOPE_FULL) {
		/* Beyond the six: the host hands the call on. */
		printf(",\"call\":\"0x%04x\",\"scope\":", (unsigned)d->call);
		json_string(stdout, scope_name(d->scope));
		fputs("}\n", stdout);
		return;
	}
	if (!hvtlb_call_name(d->call)) {
		/* Beyond the six, answered in full (NotifyLongSpinWait). */
		printf(",\"call\":\"0x%04x\"}\n", (unsigned)d->call);
		return;
	}
	fputs(",\"call\":", stdout);
	json_string(stdout, hvtlb_call_name(d->call));
	fputs(",\"flags\":[", stdout);
	for (unsigned b = 0; b < 64; b++) {
		if (!(d->flags & (1ULL << b)))
			continue;
		fputs(sep, stdout);
		json_string(stdout, flag_name(b, buf, sizeof(buf)));
		sep = ",";
	}
	fputs("],\"address_space\":", stdout);
	json_hex64(stdout, d->address_space);
	fputs(",\"vps\":", stdout);
	if (d->all_vps) {
		fputs("\"all\"", stdout);
	} else {
		vps_bitmap(d, bits);
		json_index_array(stdout, bits, HVTLB_MAX_VPS);
	}
	print_json_ranges(d);
	if (!hvtlb_call_is_flush(d->call))
		printf(",\"vector\":%" PRIu32, d->vector);
	if (d->host_bug)
		print_json_host_bug(hvtlb_host_bug_get(d->host_bug));
	fputs("}\n", stdout);
}

static void print_text_flags(uint64_t flags)
{
	const char *sep = "";
	char buf[32];

	printf("  flags          ");
	for (unsigned b = 0; b < 64; b++) {
		if (!(flags & (1ULL << b)))
			continue;
		printf("%s%s", sep, flag_name(b, buf, sizeof(buf)));
		sep = ",";
	}
	printf("%s\n", *sep ? "" : "none");
}

/* A flush's ranges: "all" when it flushes the whole address space, and
 * a list call's entries (labelled so when they are not the ranges). */
static void print_text_ranges(const struct hvtlb_decoded *d)
{
	struct hvtlb_gva_iter it;
	struct hvtlb_gva_range r;
	const char *label =
		d->flush_all_gvas ? "  entries        " : "  ranges         ";

	if (d->flush_all_gvas)
		printf("  ranges         all (the whole address space)\n");
	if (!hvtlb_call_is_rep(d->call))
		return;
	hvtlb_gva_iter_init(&it, d);
	while (hvtlb_gva_iter_next(&it, &r)) {
		printf("%s0x%" PRIx64 " +%" PRIu64 " pages (%s)\n", label,
		       r.gva, r.pages,
		       fmt_page_size_name(1ULL << hvtlb_page_shift(r.size)));
		label = "                 ";
	}
}

static void print_text(const struct decode_opts *o, uint64_t control,
		       uint64_t result, const struct hvtlb_decoded *d)
{
	hvtlb_status st = hvtlb_result_status(result);
	const char *sname = hvtlb_status_name(st);
	uint64_t words[MAX_WORDS] = { 0 };
	size_t n = (o->len + 7) / 8;

	memcpy(words, o->bytes, o->len);
	printf("status %s (0x%04x)\n", sname ? sname : "unknown", (unsigned)st);
	printf("result 0x%016" PRIx64 " (reps completed %u)\n", result,
	       (unsigned)hvtlb_result_reps(result));
	fmt_control(stdout, control);
	fmt_input_words(stdout, control, words, n);
	if (st != HVTLB_STATUS_SUCCESS)
		return;
	if (d->scope != HVTLB_SCOPE_FULL || !hvtlb_call_name(d->call)) {
		printf("call 0x%04x (profile %s): %s\n", (unsigned)d->call,
		       hvtlb_profile_name(o->profile),
		       d->scope == HVTLB_SCOPE_VMM
			       ? "the host passes it to the VMM, which answers"
		       : d->scope == HVTLB_SCOPE_DISPATCH
			       ? "passes the dispatcher's checks; its handler "
				 "is not modelled"
			       : "the host's whole answer");
		return;
	}
	printf("decoded (profile %s, vp count %" PRIu32 ")\n",
	       hvtlb_profile_name(o->profile), d->vp_count);
	if (d->host_bug) {
		const struct hvtlb_host_bug *b =
			hvtlb_host_bug_get(d->host_bug);

		printf("  host bug       %s (%s; %s): %s [%s]\n", b->id,
		       b->versions,
		       b->in_profile ? "the profiled version has it"
				     : "not the profiled version",
		       b->effect, b->source);
	}
	printf("  call           %s\n", hvtlb_call_name(d->call));
	if (hvtlb_call_is_flush(d->call)) {
		print_text_flags(d->flags);
		printf("  address space  0x%016" PRIx64 "\n", d->address_space);
	} else {
		printf("  vector         0x%02" PRIx32 " (%" PRIu32 ")\n",
		       d->vector, d->vector);
		printf("  target vtl     %u\n", (unsigned)d->target_vtl);
	}
	printf("  vps            ");
	if (d->all_vps) {
		printf("all\n");
	} else {
		uint64_t bits[HVTLB_VPSET_BANKS];

		vps_bitmap(d, bits);
		fmt_index_list(stdout, bits, HVTLB_MAX_VPS);
		fputc('\n', stdout);
	}
	if (hvtlb_call_is_flush(d->call))
		print_text_ranges(d);
}

static int run_decode(int argc, char **argv)
{
	struct decode_opts *o;
	struct hvtlb_decoded *d;
	struct hvtlb_host host;
	struct hvtlb_input in;
	uint8_t regs[HVTLB_FAST_BYTES];
	uint64_t control, result;
	int rc, ret = CLI_EXIT_USAGE;

	o = calloc(1, sizeof(*o));
	d = calloc(1, sizeof(*d));
	if (!o || !d) {
		fprintf(stderr, "hvtlb %s: out of memory\n", CMD);
		ret = CLI_EXIT_FAIL;
		goto out;
	}
	o->profile = HVTLB_PROFILE_STRICT;
	rc = parse_args(argc, argv, o);
	if (rc == 1)
		ret = CLI_EXIT_OK;
	if (rc || load_input(o))
		goto out;
	control = o->control;
	if (o->fast)
		control |= HVTLB_CTL_FAST;
	if (o->have_gpa_offset && (control & HVTLB_CTL_FAST)) {
		cli_usage_error(
			CMD, "--gpa-offset is for memory calls, not fast ones");
		goto out;
	}
	host_from_opts(o, &host);
	memset(&in, 0, sizeof(in));
	if (control & HVTLB_CTL_FAST) {
		if (o->len > sizeof(regs)) {
			cli_usage_error(CMD,
					"a fast call has at most %u input "
					"words (RDX, R8, XMM0..5), got %zu",
					HVTLB_FAST_WORDS, (o->len + 7) / 8);
			goto out;
		}
		/* Registers the caller did not give read as zero. */
		memset(regs, 0, sizeof(regs));
		memcpy(regs, o->bytes, o->len);
		in.data = regs;
		in.len = sizeof(regs);
	} else {
		in.data = o->bytes;
		in.len = o->len;
		in.gpa = o->gpa_offset;
	}
	result = hvtlb_decode(&host, control, &in, d);
	if (o->json)
		print_json(result, d);
	else
		print_text(o, control, result, d);
	ret = fflush(stdout) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
out:
	free(d);
	free(o);
	return ret;
}

const struct cli_command cmd_decode = {
	.name = "decode",
	.summary = "decode and validate a hypercall as a host would",
	.run = run_decode,
	.options = options,
	.operands = "file",
};
