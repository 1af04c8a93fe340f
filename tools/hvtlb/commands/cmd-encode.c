// SPDX-License-Identifier: MIT
/* hvtlb encode: a flush or IPI hypercall in the TLFS wire format. */
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

#define CMD "encode"
/* More ranges than this can never fit one input page anyway. */
#define MAX_RANGES 1024u

static const char usage_text[] =
	"usage: hvtlb encode (--call CALL | --auto) [options]\n"
	"\n"
	"Encodes one Hyper-V flush or IPI hypercall: the control word and the\n"
	"input's 64-bit words (memory page image, or with --fast the register\n"
	"image RDX, R8, XMM0 low, XMM0 high, ...).\n"
	"\n"
	"  --call CALL            space, list, space-ex, list-ex, ipi, ipi-ex\n"
	"  --auto                 choose the flush call as Linux does: non-Ex\n"
	"                         with --all-processors or when every VP < "
	"64,\n"
	"                         Ex otherwise; Space + NON_GLOBAL without\n"
	"                         --range; Space when the ranges do not fit "
	"one\n"
	"                         List; List otherwise\n"
	"  --vps LIST             target VPs, e.g. 0,5,64-127 (each < 4096)\n"
	"  --all-processors       every VP (ALL_PROCESSORS / VP set format "
	"ALL)\n"
	"  --address-space HEX    CR3 of the address space (default 0)\n"
	"  --all-address-spaces   ALL_VIRTUAL_ADDRESS_SPACES\n"
	"  --non-global           NON_GLOBAL_MAPPINGS_ONLY (Space calls)\n"
	"  --range START+PAGES    PAGES pages of --page-size from START, or\n"
	"  --range START-END      the pages the bytes START..END touch (END\n"
	"                         excluded); addresses are hex, 0x needed\n"
	"                         unless the number has a-f or is one digit;\n"
	"                         PAGES decimal or 0x hex; may be given\n"
	"                         several times (List calls)\n"
	"  --page-size SIZE       4k (default), 2m or 1g\n"
	"  --extended             extended GVA range format (List calls; with\n"
	"                         --auto it applies only when a List is "
	"chosen)\n"
	"  --vpset STYLE          compact (default) or linux (Ex calls)\n"
	"  --fast                 register (XMM fast) input\n"
	"  --vector N             IPI vector, 16..255 (ipi, ipi-ex)\n"
	"  --json                 one line of JSON instead of text\n"
	"  --help                 this text\n"
	"\n"
	"Options take their value as the next argument or after '='; '--'\n"
	"ends the options.\n"
	"Exit status: 0 done, 2 bad command line or a call that cannot be\n"
	"encoded (the message names the call to use instead).\n";

struct encode_opts {
	uint16_t call;
	bool auto_call;
	struct hvtlb_vpmask vps;
	bool have_vps;
	bool all_processors;
	uint64_t address_space;
	bool have_address_space;
	bool all_address_spaces;
	bool non_global;
	struct hvtlb_gva_range ranges[MAX_RANGES];
	struct parse_range typed[MAX_RANGES]; /* as on the command line */
	const char *typed_text[MAX_RANGES];
	size_t nranges;
	unsigned page_shift;
	bool have_page_size;
	bool extended;
	enum hvtlb_vpset_style style;
	bool have_style;
	bool fast;
	uint64_t vector;
	bool have_vector;
	bool json;
};

enum {
	OPT_CALL = 256,
	OPT_AUTO,
	OPT_VPS,
	OPT_ALL_PROCESSORS,
	OPT_ADDRESS_SPACE,
	OPT_ALL_ADDRESS_SPACES,
	OPT_NON_GLOBAL,
	OPT_RANGE,
	OPT_PAGE_SIZE,
	OPT_EXTENDED,
	OPT_VPSET,
	OPT_FAST,
	OPT_VECTOR,
	OPT_JSON,
};

static const struct option options[] = {
	{ "call", required_argument, NULL, OPT_CALL },
	{ "auto", no_argument, NULL, OPT_AUTO },
	{ "vps", required_argument, NULL, OPT_VPS },
	{ "all-processors", no_argument, NULL, OPT_ALL_PROCESSORS },
	{ "address-space", required_argument, NULL, OPT_ADDRESS_SPACE },
	{ "all-address-spaces", no_argument, NULL, OPT_ALL_ADDRESS_SPACES },
	{ "non-global", no_argument, NULL, OPT_NON_GLOBAL },
	{ "range", required_argument, NULL, OPT_RANGE },
	{ "page-size", required_argument, NULL, OPT_PAGE_SIZE },
	{ "extended", no_argument, NULL, OPT_EXTENDED },
	{ "vpset", required_argument, NULL, OPT_VPSET },
	{ "fast", no_argument, NULL, OPT_FAST },
	{ "vector", required_argument, NULL, OPT_VECTOR },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* A flag option: set once. */
static bool *flag_of(struct encode_opts *o, int c)
{
	switch (c) {
	case OPT_AUTO:
		return &o->auto_call;
	case OPT_ALL_PROCESSORS:
		return &o->all_processors;
	case OPT_ALL_ADDRESS_SPACES:
		return &o->all_address_spaces;
	case OPT_NON_GLOBAL:
		return &o->non_global;
	case OPT_EXTENDED:
		return &o->extended;
	case OPT_FAST:
		return &o->fast;
	case OPT_JSON:
		return &o->json;
	}
	return NULL;
}

/* The values of --call, --page-size and --vpset, for their errors. */
static const char *const call_names[] = { "space",   "list", "space-ex",
					  "list-ex", "ipi",  "ipi-ex",
					  NULL };
static const char *const page_size_names[] = { "4k", "2m", "1g", NULL };
static const char *const vpset_names[] = { "compact", "linux", NULL };

static int take_vps(struct encode_opts *o, const char *v)
{
	int rc;

	if (cli_once(CMD, &o->have_vps, "--vps"))
		return CLI_EXIT_USAGE;
	rc = parse_index_list(v, o->vps.bits, HVTLB_MAX_VPS);
	if (rc == -ERANGE)
		return cli_usage_error(CMD, "--vps: VP index >= %u in '%s'",
				       HVTLB_MAX_VPS, v);
	if (rc)
		return cli_usage_error(CMD,
				       "--vps: bad VP list '%s' (want e.g. "
				       "0,5,64-127)",
				       v);
	return 0;
}

/* A --range as typed; resolve_ranges() turns it into pages once
 * --page-size is known. */
static int take_range(struct encode_opts *o, const char *v)
{
	if (o->nranges == MAX_RANGES)
		return cli_usage_error(CMD, "--range: more than %u ranges",
				       MAX_RANGES);
	if (cli_range(CMD, "--range", v, false, &o->typed[o->nranges]))
		return CLI_EXIT_USAGE;
	o->typed_text[o->nranges++] = v;
	return 0;
}

static int take_option(struct encode_opts *o, int c, const char *v,
		       bool *seen_call, bool *seen_vector)
{
	const char *name = NULL;
	bool *flag = flag_of(o, c);

	for (const struct option *op = options; op->name; op++)
		if (op->val == c)
			name = op->name;
	if (flag) {
		char dashed[32];

		snprintf(dashed, sizeof(dashed), "--%s", name);
		return cli_once(CMD, flag, dashed);
	}
	switch (c) {
	case OPT_CALL:
		if (cli_once(CMD, seen_call, "--call"))
			return CLI_EXIT_USAGE;
		o->call = hvtlb_call_from_name(v);
		if (!o->call)
			return cli_enum_error(CMD, "--call", "call", v,
					      call_names);
		return 0;
	case OPT_VPS:
		return take_vps(o, v);
	case OPT_ADDRESS_SPACE:
		if (cli_once(CMD, &o->have_address_space, "--address-space"))
			return CLI_EXIT_USAGE;
		if (parse_hex_u64(v, &o->address_space))
			return cli_usage_error(
				CMD, "--address-space: bad hex number '%s'", v);
		return 0;
	case OPT_RANGE:
		return take_range(o, v);
	case OPT_PAGE_SIZE:
		if (cli_once(CMD, &o->have_page_size, "--page-size"))
			return CLI_EXIT_USAGE;
		if (parse_page_size(v, &o->page_shift))
			return cli_enum_error(CMD, "--page-size", "page size",
					      v, page_size_names);
		return 0;
	case OPT_VPSET:
		if (cli_once(CMD, &o->have_style, "--vpset"))
			return CLI_EXIT_USAGE;
		if (!strcmp(v, "compact"))
			o->style = HVTLB_VPSET_COMPACT;
		else if (!strcmp(v, "linux"))
			o->style = HVTLB_VPSET_LINUX;
		else
			return cli_enum_error(CMD, "--vpset", "VP set style", v,
					      vpset_names);
		return 0;
	case OPT_VECTOR:
		if (cli_once(CMD, seen_vector, "--vector"))
			return CLI_EXIT_USAGE;
		if (parse_u64(v, &o->vector))
			return cli_usage_error(CMD, "--vector: bad number '%s'",
					       v);
		if (o->vector < HVTLB_IPI_VECTOR_MIN ||
		    o->vector > HVTLB_IPI_VECTOR_MAX)
			return cli_usage_error(CMD,
					       "--vector: %s is outside "
					       "16..255 (0x10..0xff)",
					       v);
		o->have_vector = true;
		return 0;
	}
	return CLI_EXIT_USAGE;
}

/* Returns 0, 1 after --help, or 2 (message printed). */
static int parse_args(int argc, char **argv, struct encode_opts *o)
{
	bool seen_call = false, seen_vector = false;
	int c;

	while ((c = cli_getopt(&cmd_encode, argc, argv)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return 1;
		}
		if (c == '?' ||
		    take_option(o, c, optarg, &seen_call, &seen_vector))
			return CLI_EXIT_USAGE;
	}
	if (optind < argc)
		return cli_usage_error(CMD, "unexpected argument '%s'",
				       argv[optind]);
	return 0;
}

/* Checks the options against each other once the call is known. */
static int check_combination(const struct encode_opts *o)
{
	bool flush = o->auto_call || hvtlb_call_is_flush(o->call);
	bool rep = hvtlb_call_is_rep(o->call);
	const char *name = o->auto_call ? "--auto" : hvtlb_call_name(o->call);

	if (o->have_vps && o->all_processors)
		return cli_usage_error(CMD,
				       "--vps and --all-processors conflict");
	if (!o->have_vps && !o->all_processors)
		return cli_usage_error(CMD,
				       "--vps or --all-processors is required");
	if (o->have_address_space && o->all_address_spaces)
		return cli_usage_error(
			CMD,
			"--address-space and --all-address-spaces conflict");
	if (!flush) {
		const char *bad = o->have_address_space ? "--address-space"
				  : o->all_address_spaces
					  ? "--all-address-spaces"
				  : o->non_global     ? "--non-global"
				  : o->nranges	      ? "--range"
				  : o->have_page_size ? "--page-size"
				  : o->extended	      ? "--extended"
						      : NULL;

		if (bad)
			return cli_usage_error(CMD,
					       "%s is for flush calls, not %s",
					       bad, name);
		if (!o->have_vector)
			return cli_usage_error(CMD, "%s needs --vector", name);
		if (o->all_processors && o->call == HVTLB_CALL_SEND_IPI)
			return cli_usage_error(CMD, "ipi has no all-processors "
						    "form; use --call ipi-ex");
		return 0;
	}
	if (o->have_vector)
		return cli_usage_error(
			CMD, "--vector is for ipi and ipi-ex, not %s", name);
	if (o->auto_call)
		return 0;
	if (rep && !o->nranges)
		return cli_usage_error(CMD, "%s needs at least one --range",
				       name);
	if (!rep && o->nranges)
		return cli_usage_error(CMD,
				       "--range needs a list call; %s flushes "
				       "the whole address space",
				       name);
	if (!rep && o->extended)
		return cli_usage_error(
			CMD, "--extended is for list calls, not %s", name);
	if (rep && o->non_global)
		return cli_usage_error(CMD,
				       "--non-global is invalid on %s (TLFS); "
				       "use a space call",
				       name);
	return 0;
}

static void build_desc(struct encode_opts *o, struct hvtlb_call_desc *d)
{
	bool flush = hvtlb_call_is_flush(o->call);

	memset(d, 0, sizeof(*d));
	d->call = o->call;
	d->address_space = o->address_space;
	if (flush && o->all_processors)
		d->flags |= HVTLB_FLUSH_ALL_PROCESSORS;
	if (o->all_address_spaces)
		d->flags |= HVTLB_FLUSH_ALL_VIRTUAL_ADDRESS_SPACES;
	if (o->non_global)
		d->flags |= HVTLB_FLUSH_NON_GLOBAL_MAPPINGS_ONLY;
	if (o->extended && hvtlb_call_is_rep(o->call))
		d->flags |= HVTLB_FLUSH_USE_EXTENDED_RANGE_FORMAT;
	d->vps = o->have_vps ? &o->vps : NULL;
	d->all_vps = o->all_processors && hvtlb_call_is_ex(o->call);
	d->vpset_style = o->style;
	if (hvtlb_call_is_rep(o->call)) {
		d->ranges = o->ranges;
		d->nranges = o->nranges;
	}
	d->fast = o->fast;
	d->vector = (uint32_t)o->vector;
}

static bool any_vp_above_63(const struct hvtlb_vpmask *m)
{
	for (unsigned b = 1; b < HVTLB_VPSET_BANKS; b++) {
		if (m->bits[b])
			return true;
	}
	return false;
}

/* Entries one List of this kind can hold. */
static size_t list_capacity(const struct encode_opts *o, bool ex)
{
	uint64_t mask, banks[HVTLB_VPSET_BANKS];
	unsigned nb = 0;

	if (ex && !o->all_processors)
		nb = hvtlb_vpset_build(&o->vps, o->style, &mask, banks);
	if (!ex)
		return o->fast ? HVTLB_FAST_LIST_CAPACITY : HVTLB_LIST_CAPACITY;
	if (o->fast)
		return nb < 10 ? HVTLB_FAST_LIST_EX_CAPACITY(nb) : 0;
	return HVTLB_LIST_EX_CAPACITY(nb);
}

/* --auto: the choice Linux makes (docs/wire-format.md, "What the guest
 * chooses"). */
static void choose_call(struct encode_opts *o)
{
	bool ex = !o->all_processors && any_vp_above_63(&o->vps);
	size_t need;

	if (!o->nranges) {
		o->call =
			ex ? HVTLB_CALL_FLUSH_SPACE_EX : HVTLB_CALL_FLUSH_SPACE;
		o->non_global = true;
		o->extended = false;
		return;
	}
	need = hvtlb_gva_entries_needed(o->ranges, o->nranges, o->extended);
	if (need > list_capacity(o, ex)) {
		o->call =
			ex ? HVTLB_CALL_FLUSH_SPACE_EX : HVTLB_CALL_FLUSH_SPACE;
		o->nranges = 0;
		o->extended = false;
		return;
	}
	o->call = ex ? HVTLB_CALL_FLUSH_LIST_EX : HVTLB_CALL_FLUSH_LIST;
}

static int explain_failure(const struct encode_opts *o,
			   const struct hvtlb_call_desc *d, int rc)
{
	const char *name = hvtlb_call_name(o->call);
	uint16_t s = hvtlb_encode_suggest(d);
	const char *sname = hvtlb_call_name(s);

	if (rc == -HVTLB_ERANGE)
		return cli_usage_error(CMD,
				       "cannot encode %s: a VP >= 64 needs an "
				       "Ex call; use --call %s",
				       name, sname ? sname : "an Ex call");
	if (rc == -HVTLB_ENOSPC) {
		if (o->fast && s == o->call)
			return cli_usage_error(
				CMD,
				"cannot encode %s: the input does not fit the "
				"fast registers (112 bytes); drop --fast",
				name);
		if (sname && s != o->call)
			return cli_usage_error(
				CMD,
				"cannot encode %s: the input does not fit one "
				"page; use --call %s",
				name, sname);
		return cli_usage_error(
			CMD, "cannot encode %s: the input does not fit", name);
	}
	return cli_usage_error(
		CMD,
		"cannot encode %s: the library rejects this description (%s)",
		name, strerror(-rc));
}

static void print_json(const struct hvtlb_encoded *e)
{
	uint16_t code = (uint16_t)(e->control & HVTLB_CTL_CODE_MASK);
	size_t n = e->len / 8;

	putchar('{');
	json_meta(stdout, ENCODE_JSON_SCHEMA);
	fputs(",\"control\":", stdout);
	json_hex64(stdout, e->control);
	fputs(",\"call\":", stdout);
	json_string(stdout, hvtlb_call_name(code));
	printf(",\"fast\":%s", e->control & HVTLB_CTL_FAST ? "true" : "false");
	printf(",\"rep_count\":%" PRIu64,
	       (uint64_t)(e->control & HVTLB_CTL_REP_COUNT_MASK) >>
		       HVTLB_CTL_REP_COUNT_SHIFT);
	printf(",\"varhead\":%" PRIu64,
	       (uint64_t)(e->control & HVTLB_CTL_VARHEAD_MASK) >>
		       HVTLB_CTL_VARHEAD_SHIFT);
	fputs(",\"input\":[", stdout);
	for (size_t i = 0; i < n; i++) {
		uint64_t w;

		memcpy(&w, e->input + 8 * i, 8);
		if (i)
			fputc(',', stdout);
		json_hex64(stdout, w);
	}
	fputs("]}\n", stdout);
}

static void print_text(const struct hvtlb_encoded *e)
{
	uint64_t words[HVTLB_PAGE_BYTES / 8];
	size_t n = e->len / 8;

	memcpy(words, e->input, n * 8);
	fmt_control(stdout, e->control);
	fmt_input_words(stdout, e->control, words, n);
}

/* The ranges in pages of --page-size, known only once every option is
 * read. 0, or 2 after the message. */
static int resolve_ranges(struct encode_opts *o)
{
	for (size_t i = 0; i < o->nranges; i++) {
		struct hvtlb_gva_range *g = &o->ranges[i];

		g->size = o->page_shift == 30	? HVTLB_PAGE_1G
			  : o->page_shift == 21 ? HVTLB_PAGE_2M
						: HVTLB_PAGE_4K;
		if (parse_range_pages(&o->typed[i], o->page_shift, &g->gva,
				      &g->pages))
			return cli_usage_error(CMD,
					       "--range '%s': an empty range "
					       "(encode needs a page at least)",
					       o->typed_text[i]);
		if (hvtlb_gva_entries_needed(g, 1, o->extended) == SIZE_MAX)
			return cli_usage_error(CMD,
					       "--range '%s': the range wraps "
					       "past 2^64",
					       o->typed_text[i]);
	}
	return 0;
}

static int run_encode(int argc, char **argv)
{
	struct encode_opts *o;
	struct hvtlb_encoded *e;
	struct hvtlb_call_desc d;
	int rc, ret = CLI_EXIT_USAGE;

	o = calloc(1, sizeof(*o));
	e = calloc(1, sizeof(*e));
	if (!o || !e) {
		fprintf(stderr, "hvtlb %s: out of memory\n", CMD);
		ret = CLI_EXIT_FAIL;
		goto out;
	}
	o->page_shift = 12;
	rc = parse_args(argc, argv, o);
	if (rc) {
		if (rc == 1)
			ret = CLI_EXIT_OK;
		goto out;
	}
	if (o->call && o->auto_call) {
		cli_usage_error(CMD, "--call and --auto conflict");
		goto out;
	}
	if (!o->call && !o->auto_call) {
		cli_usage_error(CMD, "--call or --auto is required");
		goto out;
	}
	if (o->auto_call && o->non_global) {
		cli_usage_error(CMD, "--auto and --non-global conflict (--auto "
				     "sets NON_GLOBAL itself)");
		goto out;
	}
	if (o->auto_call && o->have_vector) {
		cli_usage_error(CMD, "--auto and --vector conflict (--auto "
				     "chooses a flush call)");
		goto out;
	}
	if (resolve_ranges(o) || check_combination(o))
		goto out;
	if (o->auto_call)
		choose_call(o);
	build_desc(o, &d);
	rc = hvtlb_encode(&d, e);
	if (rc) {
		explain_failure(o, &d, rc);
		goto out;
	}
	if (o->json)
		print_json(e);
	else
		print_text(e);
	ret = fflush(stdout) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
out:
	free(e);
	free(o);
	return ret;
}

const struct cli_command cmd_encode = {
	.name = "encode",
	.summary = "encode a flush or IPI hypercall (TLFS wire format)",
	.run = run_encode,
	.options = options,
	.operands = "",
};
