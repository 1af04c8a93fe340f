// SPDX-License-Identifier: MIT
/* Option parsing and output files shared by every subcommand (cli.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "parse.h"
#include "progress.h"
#include "suggest.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hvtlb %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_EXIT_USAGE;
}

const struct cli_command *cli_command_find(const char *name)
{
	for (size_t i = 0; cli_commands[i]; i++)
		if (!strcmp(cli_commands[i]->name, name))
			return cli_commands[i];
	return NULL;
}

/* "--name" or "--name=value" of an unknown long option. */
static void unknown_long(const struct cli_command *cmd, const char *arg)
{
	char name[SUGGEST_MAX + 1], opt[SUGGEST_MAX + 3], hint[128];
	size_t n = strcspn(arg + 2, "=");
	struct suggest s;

	snprintf(name, sizeof(name), "%.*s", (int)n, arg + 2);
	suggest_init(&s, name);
	for (const struct option *o = cmd->options; o->name; o++)
		suggest_add(&s, o->name);
	if (suggest_best(&s)) {
		snprintf(opt, sizeof(opt), "--%s", suggest_best(&s));
		snprintf(hint, sizeof(hint), " (did you mean '%s'?)", opt);
	} else {
		hint[0] = '\0';
	}
	cli_usage_error(cmd->name, "unknown option '%.*s'%s", (int)(n + 2), arg,
			hint);
}

/* The long option named by argv element @p arg ("--name[=v]", maybe an
 * unambiguous abbreviation), or NULL; *@p nmatch counts the options
 * @p arg abbreviates (0: unknown, 2 or more: ambiguous). */
static const struct option *long_option(const struct cli_command *cmd,
					const char *arg, size_t *nmatch)
{
	size_t n = strcspn(arg + 2, "=");
	const struct option *found = NULL;

	*nmatch = 0;
	for (const struct option *o = cmd->options; o->name; o++) {
		if (strncmp(o->name, arg + 2, n))
			continue;
		if (strlen(o->name) == n) {
			*nmatch = 1;
			return o;
		}
		found = o;
		++*nmatch;
	}
	return *nmatch == 1 ? found : NULL;
}

/* "option '--se' is ambiguous: --set, --seed": every option it
 * abbreviates, in the table's order. */
static void ambiguous_long(const struct cli_command *cmd, const char *arg)
{
	size_t n = strcspn(arg + 2, "="), len = 0;
	char list[256] = "";

	for (const struct option *o = cmd->options; o->name; o++) {
		int w;

		if (strncmp(o->name, arg + 2, n) || len >= sizeof(list))
			continue;
		w = snprintf(list + len, sizeof(list) - len, "%s--%s",
			     len ? ", " : "", o->name);
		len += w > 0 ? (size_t)w : 0;
	}
	cli_usage_error(cmd->name, "option '%.*s' is ambiguous: %s",
			(int)(n + 2), arg, list);
}

/* The short options of the table: "o:q" etc., with a leading ':' so that
 * a missing value returns ':'. */
static void short_options(const struct cli_command *cmd, char *buf, size_t len)
{
	size_t n = 0;

	buf[n++] = ':';
	for (const struct option *o = cmd->options; o->name && n + 3 < len;
	     o++) {
		if (o->flag || o->val <= 0 || o->val > 127 ||
		    !strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX"
			    "YZ",
			    o->val))
			continue;
		buf[n++] = (char)o->val;
		if (o->has_arg == required_argument)
			buf[n++] = ':';
	}
	buf[n] = '\0';
}

int cli_getopt(const struct cli_command *cmd, int argc, char **argv)
{
	static const struct cli_command *current;
	static char shortopts[64];
	const char *arg;
	int c;

	if (current != cmd) {
		current = cmd;
		opterr = 0;
		optind = 0; /* GNU: a full reset */
		short_options(cmd, shortopts, sizeof(shortopts));
	}
	c = getopt_long(argc, argv, shortopts, cmd->options, NULL);
	if (c != '?' && c != ':') {
		if (c == -1)
			current = NULL;
		return c;
	}
	current = NULL;
	arg = argv[optind - 1];
	if (c == ':') {
		if (!strncmp(arg, "--", 2))
			cli_usage_error(cmd->name, "option '%s' needs a value",
					arg);
		else
			cli_usage_error(cmd->name, "option '-%c' needs a value",
					optopt);
		return '?';
	}
	if (!strncmp(arg, "--", 2)) {
		size_t nmatch;
		const struct option *o = long_option(cmd, arg, &nmatch);

		if (o && o->has_arg == no_argument && strchr(arg, '='))
			cli_usage_error(cmd->name,
					"option '--%s' takes no value",
					o->name);
		else if (nmatch > 1)
			ambiguous_long(cmd, arg);
		else if (o)
			cli_usage_error(cmd->name, "option '%s' is ambiguous",
					arg);
		else
			unknown_long(cmd, arg);
	} else {
		cli_usage_error(cmd->name, "unknown option '-%c'",
				optopt ? optopt : '?');
	}
	return '?';
}

int cli_parse_options(const struct cli_command *cmd, const char *usage,
		      int argc, char **argv, cli_take_fn *take, void *ctx)
{
	int c;

	while ((c = cli_getopt(cmd, argc, argv)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return CLI_EXIT_OK;
		}
		if (c == 'q') { /* -q, --quiet: no progress line */
			progress_quiet();
			continue;
		}
		if (c == '?' || take(ctx, c, optarg))
			return CLI_EXIT_USAGE;
	}
	return -1;
}

int cli_scenario_operand(const char *cmd, int argc, char **argv,
			 const char **path)
{
	if (optind < argc)
		*path = argv[optind++];
	if (optind < argc)
		return cli_usage_error(cmd,
				       "one scenario at a time ('%s' and '%s')",
				       *path, argv[optind]);
	if (!*path)
		return cli_usage_error(cmd, "missing SCENARIO (try "
					    "'hvtlb scenarios')");
	return -1;
}

int cli_once(const char *cmd, bool *seen, const char *name)
{
	if (*seen)
		return cli_usage_error(cmd, "%s given twice", name);
	*seen = true;
	return 0;
}

int cli_once_str(const char *cmd, const char **slot, const char *name,
		 const char *val)
{
	if (*slot)
		return cli_usage_error(cmd, "%s given twice", name);
	*slot = val;
	return 0;
}

int cli_u64(const char *cmd, const char *opt, const char *val, uint64_t min,
	    uint64_t max, uint64_t *out)
{
	uint64_t v;

	if (parse_u64(val, &v) || v < min || v > max)
		return cli_usage_error(cmd,
				       "%s '%s': want a whole number in "
				       "%llu..%llu",
				       opt, val, (unsigned long long)min,
				       (unsigned long long)max);
	*out = v;
	return 0;
}

int cli_enum_error(const char *cmd, const char *opt, const char *what,
		   const char *val, const char *const *names)
{
	char list[512] = "", hint[SUGGEST_MAX + 32];
	size_t len = 0;
	struct suggest s;

	suggest_init(&s, val);
	for (size_t i = 0; names[i]; i++) {
		int w = snprintf(list + len, sizeof(list) - len, "%s%s",
				 i ? ", " : "", names[i]);

		suggest_add(&s, names[i]);
		len += w > 0 ? (size_t)w : 0;
		if (len >= sizeof(list))
			len = sizeof(list) - 1;
	}
	return cli_usage_error(cmd, "%s: unknown %s '%s'%s; one of %s", opt,
			       what, val, suggest_hint(&s, hint, sizeof(hint)),
			       list);
}

int cli_range(const char *cmd, const char *opt, const char *val, bool allow_all,
	      struct parse_range *r)
{
	static const char *const part[] = {
		[PARSE_RANGE_START] = "START",
		[PARSE_RANGE_END] = "END",
		[PARSE_RANGE_PAGES] = "PAGES",
	};
	struct parse_range_error e;
	int rc = parse_range(val, r, &e), n = (int)e.len;
	const char *tok = val + e.at;
	char dec[32];
	uint64_t v;

	if (!rc && (!r->all || allow_all))
		return 0;
	if (!rc || e.part == PARSE_RANGE_FORM)
		return cli_usage_error(cmd,
				       "%s '%s': want START+PAGES or "
				       "START-END%s, e.g. 0x7f0000000000+16",
				       opt, val, allow_all ? " or all" : "");
	if (e.part == PARSE_RANGE_ORDER)
		return cli_usage_error(cmd,
				       "%s '%s': END '%.*s' is below START",
				       opt, val, n, tok);
	if (rc == -ERANGE)
		return cli_usage_error(cmd,
				       "%s '%s': %s '%.*s' does not fit in "
				       "64 bits",
				       opt, val, part[e.part], n, tok);
	if (rc == -EDOM) {
		/* Digits 0-9 that fit 64 bits as decimal: 20 at most. */
		snprintf(dec, sizeof(dec), "%.*s", n, tok);
		(void)parse_u64(dec, &v);
		return cli_usage_error(cmd,
				       "%s '%s': %s '%s' could be hex or "
				       "decimal: write %s%s%s0x%" PRIx64
				       " for decimal %s",
				       opt, val, part[e.part], dec,
				       n <= 16 ? "0x" : "", n <= 16 ? dec : "",
				       n <= 16 ? " for hex, or " : "", v, dec);
	}
	if (e.part == PARSE_RANGE_PAGES)
		return cli_usage_error(cmd,
				       "%s '%s': PAGES '%.*s' is not a count "
				       "of pages (1 or more)",
				       opt, val, n, tok);
	return cli_usage_error(cmd,
			       "%s '%s': %s '%.*s' is not an address (hex, "
			       "e.g. 0x7f0000000000)",
			       opt, val, part[e.part], n, tok);
}

/* ------------------------------------------------------------ -o FILE */

static struct {
	char *path, *tmp;
	int saved; /* the original stdout */
} output = { .saved = -1 };

/* -o naming what is not a regular file (/dev/null, /dev/stdout, a FIFO):
 * written in place, never replaced. */
static int output_in_place(const char *cmd, const char *path)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	if (fd < 0)
		return cli_usage_error(cmd, "-o '%s': cannot write: %s", path,
				       strerror(errno));
	fflush(stdout);
	output.saved = dup(STDOUT_FILENO);
	if (output.saved < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		close(fd);
		return cli_usage_error(cmd, "-o '%s': %s", path,
				       strerror(errno));
	}
	close(fd);
	output.path = strdup(path);
	output.tmp = NULL;
	return output.path ? 0 : cli_usage_error(cmd, "out of memory");
}

int cli_output_open(const char *cmd, const char *path)
{
	size_t n = strlen(path);
	struct stat st;
	int fd;

	if (!n)
		return cli_usage_error(cmd, "-o: empty file name");
	if (output.path)
		return cli_usage_error(cmd, "-o given twice");
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode)
			       ? cli_usage_error(cmd, "-o '%s': a directory",
						 path)
			       : output_in_place(cmd, path);
	output.tmp = malloc(n + 8);
	output.path = strdup(path);
	if (!output.tmp || !output.path)
		goto nomem;
	snprintf(output.tmp, n + 8, "%s.XXXXXX", path);
	fd = mkstemp(output.tmp);
	if (fd < 0) {
		int e = errno;

		free(output.tmp);
		free(output.path);
		output.tmp = output.path = NULL;
		return cli_usage_error(cmd, "-o '%s': cannot create: %s", path,
				       strerror(e));
	}
	/* mkstemp makes 0600; an output file is as readable as any. */
	{
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	fflush(stdout);
	output.saved = dup(STDOUT_FILENO);
	if (output.saved < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		close(fd);
		unlink(output.tmp);
		goto nomem;
	}
	close(fd);
	return 0;
nomem:
	free(output.tmp);
	free(output.path);
	output.tmp = output.path = NULL;
	return cli_usage_error(cmd, "-o '%s': %s", path, strerror(ENOMEM));
}

int cli_output_finish(const char *cmd, bool keep)
{
	int rc = 0;

	if (!output.path)
		return 0;
	errno = 0;
	if (fflush(stdout) || ferror(stdout) ||
	    (output.tmp && fsync(STDOUT_FILENO)))
		rc = errno ? -errno : -EIO;
	if (dup2(output.saved, STDOUT_FILENO) < 0 && !rc)
		rc = -errno;
	close(output.saved);
	output.saved = -1;
	if (!output.tmp) {
		/* written in place */
		if (rc)
			fprintf(stderr, "hvtlb %s: -o '%s': %s\n", cmd,
				output.path, strerror(-rc));
	} else if (rc || !keep) {
		unlink(output.tmp);
		if (rc)
			fprintf(stderr, "hvtlb %s: -o '%s': %s\n", cmd,
				output.path, strerror(-rc));
	} else if (rename(output.tmp, output.path)) {
		rc = -errno;
		fprintf(stderr, "hvtlb %s: -o '%s': %s\n", cmd, output.path,
			strerror(errno));
		unlink(output.tmp);
	}
	free(output.tmp);
	free(output.path);
	output.tmp = output.path = NULL;
	return rc;
}

void cli_shell_word(FILE *f, const char *w, size_t n)
{
	bool plain = n > 0;

	for (size_t i = 0; i < n && plain; i++)
		plain = isalnum((unsigned char)w[i]) ||
			strchr("._,:=/+-@%", w[i]);
	if (plain) {
		fprintf(f, "%.*s", (int)n, w);
		return;
	}
	fputc('\'', f);
	for (size_t i = 0; i < n; i++) {
		if (w[i] == '\'')
			fputs("'\\''", f);
		else
			fputc(w[i], f);
	}
	fputc('\'', f);
}
