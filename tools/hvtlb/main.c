// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "suggest.h"
#include "version.h"

const struct cli_command *const cli_commands[] = {
	&cmd_encode,	&cmd_decode,	  &cmd_plan,	 &cmd_sim,
	&cmd_sweep,	&cmd_reproduce,	  &cmd_keys,	 &cmd_scenarios,
	&cmd_calibrate, &cmd_sensitivity, &cmd_validate, &cmd_replay,
	&cmd_record,	&cmd_completion,  NULL,
};

static void usage(FILE *out)
{
	fprintf(out, "usage: hvtlb COMMAND [ARGS]\n"
		     "       hvtlb help [COMMAND] | --help | --version\n\n"
		     "commands:\n");
	for (size_t i = 0; cli_commands[i]; i++)
		fprintf(out, "  %-12s %s\n", cli_commands[i]->name,
			cli_commands[i]->summary);
	fprintf(out, "\n'hvtlb help COMMAND' or 'hvtlb COMMAND --help' "
		     "describes a command;\n"
		     "man hvtlb, hvtlb-COMMAND and hvtlb-scenario(5) have "
		     "the full text.\n");
}

/* The options hvtlb itself takes, before any command. */
static const char *const top_options[] = { "--help", "--version", NULL };

/* The nearest of what may come first: a command, "help", or an option of
 * hvtlb itself; a name of one of those options without its dashes
 * ("version") or its short form ("-V") counts as a near miss too. */
static const char *nearest_first(const char *name)
{
	const char *bare = name + strspn(name, "-");
	struct suggest s;

	for (size_t i = 0; top_options[i]; i++) {
		const char *opt = top_options[i] + 2;

		if (*bare && (!strcasecmp(bare, opt) ||
			      (!bare[1] && (bare[0] | 0x20) == opt[0])))
			return top_options[i];
	}
	suggest_init(&s, name);
	if (*name == '-') {
		for (size_t i = 0; top_options[i]; i++)
			suggest_add(&s, top_options[i]);
	} else {
		for (size_t i = 0; cli_commands[i]; i++)
			suggest_add(&s, cli_commands[i]->name);
		suggest_add(&s, "help");
	}
	return suggest_best(&s);
}

/* Prints "unknown command" (or option) with the nearest known one;
 * returns 2. */
static int unknown(const char *who, const char *name)
{
	const char *best = nearest_first(name);
	char hint[128] = "";

	if (best && strcmp(best, name))
		snprintf(hint, sizeof(hint), " (did you mean '%s'?)", best);
	fprintf(stderr, "%s: unknown %s '%s'%s; 'hvtlb --help' lists them\n",
		who, *name == '-' ? "option" : "command", name, hint);
	return CLI_EXIT_USAGE;
}

/* hvtlb help [COMMAND]: the list of commands, or COMMAND --help. */
static int help(int argc, char **argv)
{
	char *args[] = { NULL, "--help", NULL };
	const struct cli_command *cmd;

	if (argc < 2) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (argc > 2)
		return cli_usage_error("help", "one command at a time");
	cmd = cli_command_find(argv[1]);
	if (!cmd)
		return unknown("hvtlb help", argv[1]);
	args[0] = argv[1];
	return cmd->run(2, args);
}

int main(int argc, char **argv)
{
	const struct cli_command *cmd;

	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("hvtlb %s (commit %s)\n", tool_version(), tool_commit());
		return fflush(stdout) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	}
	if (!strcmp(argv[1], "help"))
		return help(argc - 1, argv + 1);
	cmd = cli_command_find(argv[1]);
	if (cmd)
		return cmd->run(argc - 1, argv + 1);
	return unknown("hvtlb", argv[1]);
}
