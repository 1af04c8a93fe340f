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
#include "parse.h"

#define CMD "decode"
#define MAX_WORDS (HVTLB_PAGE_BYTES / 8)
/* A text input file larger than this is not a list of 512 words. */
#define MAX_TEXT_FILE (1u << 20)

static const char usage_text[] =
	"usage: hvtlb decode --control HEX (--input HEX[,HEX...] |\n"
	"                    --input-file FILE [--binary]) [options]\n"
	"\n"
	"Decodes and validates one flush or IPI hypercall as a host would and\n"
	"prints the TLFS status it answers and, on success, what it flushes.\n"
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
	"  --profile NAME         strict (default), kvm, xen or openvmm\n"
	"  --vp-count N           VPs in the partition, 1..4096 (default "
	"4096)\n"
	"  --json                 one line of JSON instead of text: status,\n"
	"                         status_name, result and on success call,\n"
	"                         flags, address_space, vps (list or "
	"\"all\"),\n"
	"                         ranges ([] = the whole address space) and\n"
	"                         for IPI calls vector\n"
	"  --help                 this text\n"
	"\n"
	"Options take their value as the next argument or after '='.\n"
	"Exit status: 0 decoded (whatever the status), 2 bad command line or\n"
	"input file.\n";

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
	bool json;
	/* The input, as bytes. */
	uint8_t bytes[HVTLB_PAGE_BYTES];
	size_t len;
};

static int parse_args(int argc, char **argv, struct decode_opts *o)
{
	bool seen_input = false, seen_file = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int m;

		if (!strcmp(a, "--fast")) {
			if (cli_once(CMD, &o->fast, a))
				return CLI_EXIT_USAGE;
		} else if (!strcmp(a, "--binary")) {
			if (cli_once(CMD, &o->binary, a))
				return CLI_EXIT_USAGE;
		} else if (!strcmp(a, "--json")) {
			if (cli_once(CMD, &o->json, a))
				return CLI_EXIT_USAGE;
		} else if ((m = cli_opt_value(CMD, argc, argv, &i, "--control",
					      &v))) {
			if (m < 0 ||
			    cli_once(CMD, &o->have_control, "--control"))
				return CLI_EXIT_USAGE;
			if (parse_hex_u64(v, &o->control))
				return cli_usage_error(
					CMD, "--control: bad hex number '%s'",
					v);
		} else if ((m = cli_opt_value(CMD, argc, argv, &i, "--input",
					      &v))) {
			if (m < 0 || cli_once(CMD, &seen_input, "--input"))
				return CLI_EXIT_USAGE;
			o->input = v;
		} else if ((m = cli_opt_value(CMD, argc, argv, &i,
					      "--input-file", &v))) {
			if (m < 0 || cli_once(CMD, &seen_file, "--input-file"))
				return CLI_EXIT_USAGE;
			o->input_file = v;
		} else if ((m = cli_opt_value(CMD, argc, argv, &i,
					      "--gpa-offset", &v))) {
			int rc;

			if (m < 0 ||
			    cli_once(CMD, &o->have_gpa_offset, "--gpa-offset"))
				return CLI_EXIT_USAGE;
			rc = parse_u64_max(v, HVTLB_PAGE_BYTES - 1,
					   &o->gpa_offset);
			if (rc == -ERANGE)
				return cli_usage_error(
					CMD,
					"--gpa-offset: %s is not within a 4 "
					"KiB page (0..4095)",
					v);
			if (rc)
				return cli_usage_error(
					CMD, "--gpa-offset: bad number '%s'",
					v);
		} else if ((m = cli_opt_value(CMD, argc, argv, &i, "--profile",
					      &v))) {
			if (m < 0 ||
			    cli_once(CMD, &o->have_profile, "--profile"))
				return CLI_EXIT_USAGE;
			if (hvtlb_profile_from_name(v, &o->profile))
				return cli_usage_error(
					CMD,
					"--profile: '%s' is not strict, kvm, "
					"xen or openvmm",
					v);
		} else if ((m = cli_opt_value(CMD, argc, argv, &i, "--vp-count",
					      &v))) {
			int rc;

			if (m < 0 ||
			    cli_once(CMD, &o->have_vp_count, "--vp-count"))
				return CLI_EXIT_USAGE;
			rc = parse_u64_max(v, HVTLB_MAX_VPS, &o->vp_count);
			if (rc == -EINVAL)
				return cli_usage_error(
					CMD, "--vp-count: bad number '%s'", v);
			if (rc || o->vp_count == 0)
				return cli_usage_error(
					CMD, "--vp-count: %s is outside 1..%u",
					v, HVTLB_MAX_VPS);
		} else if (!strncmp(a, "--", 2)) {
			return cli_usage_error(CMD, "unknown option '%s'", a);
		} else {
			return cli_usage_error(CMD, "unexpected argument '%s'",
					       a);
		}
	}
	if (!o->have_control)
		return cli_usage_error(CMD, "--control is required");
	if (o->input && o->input_file)
		return cli_usage_error(CMD,
				       "--input and --input-file conflict");
	if (!o->input && !o->input_file)
		return cli_usage_error(CMD,
				       "--input or --input-file is required");
	if (o->binary && !o->input_file)
		return cli_usage_error(CMD, "--binary needs --input-file");
	return 0;
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

static int load_input(struct decode_opts *o)
{
	FILE *f;
	char *text;
	size_t n;
	int rc;

	if (o->input)
		return load_words(o, o->input, "--input");
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

static void print_json(uint64_t result, const struct hvtlb_decoded *d)
{
	hvtlb_status st = hvtlb_result_status(result);
	uint64_t bits[HVTLB_VPSET_BANKS];
	const char *sep = "";

	printf("{\"status\":%u,\"status_name\":", (unsigned)st);
	json_string(stdout, hvtlb_status_name(st));
	fputs(",\"result\":", stdout);
	json_hex64(stdout, result);
	if (st != HVTLB_STATUS_SUCCESS) {
		fputs("}\n", stdout);
		return;
	}
	fputs(",\"call\":", stdout);
	json_string(stdout, hvtlb_call_name(d->call));
	fputs(",\"flags\":[", stdout);
	for (unsigned b = 0; b < 64; b++) {
		uint64_t bit = 1ULL << b;
		const char *name = hvtlb_flush_flag_name(bit);

		if (!(d->flags & bit))
			continue;
		fputs(sep, stdout);
		if (name)
			json_string(stdout, name);
		else
			printf("\"reserved-bit-%u\"", b);
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
	/* [] on a flush call: the whole address space is flushed. */
	fputs(",\"ranges\":[", stdout);
	if (hvtlb_call_is_rep(d->call) && !d->flush_all_gvas) {
		struct hvtlb_gva_iter it;
		struct hvtlb_gva_range r;

		sep = "";
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
	if (!hvtlb_call_is_flush(d->call))
		printf(",\"vector\":%" PRIu32, d->vector);
	fputs("}\n", stdout);
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
	printf("decoded (profile %s, vp count %" PRIu32 ")\n",
	       hvtlb_profile_name(o->profile), d->vp_count);
	printf("  call           %s\n", hvtlb_call_name(d->call));
	if (hvtlb_call_is_flush(d->call)) {
		const char *sep = "";

		printf("  flags          ");
		for (unsigned b = 0; b < 64; b++) {
			uint64_t bit = 1ULL << b;
			const char *name = hvtlb_flush_flag_name(bit);

			if (!(d->flags & bit))
				continue;
			if (name)
				printf("%s%s", sep, name);
			else
				printf("%sreserved-bit-%u", sep, b);
			sep = ",";
		}
		printf("%s\n", *sep ? "" : "none");
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
	if (!hvtlb_call_is_flush(d->call))
		return;
	if (d->flush_all_gvas)
		printf("  ranges         all (the whole address space)\n");
	if (hvtlb_call_is_rep(d->call)) {
		struct hvtlb_gva_iter it;
		struct hvtlb_gva_range r;
		const char *label = d->flush_all_gvas ? "  entries        "
						      : "  ranges         ";

		hvtlb_gva_iter_init(&it, d);
		while (hvtlb_gva_iter_next(&it, &r)) {
			printf("%s0x%" PRIx64 " +%" PRIu64 " pages (%s)\n",
			       label, r.gva, r.pages,
			       fmt_page_size_name(1ULL
						  << hvtlb_page_shift(r.size)));
			label = "                 ";
		}
	}
}

int cmd_decode(int argc, char **argv)
{
	struct decode_opts *o;
	struct hvtlb_decoded *d;
	struct hvtlb_host host;
	struct hvtlb_input in;
	uint8_t regs[HVTLB_FAST_BYTES];
	uint64_t control, result;
	int ret = CLI_EXIT_USAGE;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return CLI_EXIT_OK;
		}
	}
	o = calloc(1, sizeof(*o));
	d = calloc(1, sizeof(*d));
	if (!o || !d) {
		fprintf(stderr, "hvtlb %s: out of memory\n", CMD);
		ret = CLI_EXIT_FAIL;
		goto out;
	}
	o->profile = HVTLB_PROFILE_STRICT;
	o->vp_count = HVTLB_MAX_VPS;
	if (parse_args(argc, argv, o) || load_input(o))
		goto out;
	control = o->control;
	if (o->fast)
		control |= HVTLB_CTL_FAST;
	if (o->have_gpa_offset && (control & HVTLB_CTL_FAST)) {
		cli_usage_error(
			CMD, "--gpa-offset is for memory calls, not fast ones");
		goto out;
	}
	memset(&host, 0, sizeof(host));
	host.profile = o->profile;
	host.vp_count = (uint32_t)o->vp_count;
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
