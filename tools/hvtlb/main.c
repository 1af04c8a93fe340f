// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "suggest.h"

const struct cli_command *const cli_commands[] = {
	&cmd_encode,	&cmd_decode,	  &cmd_plan,	 &cmd_sim,
	&cmd_sweep,	&cmd_reproduce,	  &cmd_keys,	 &cmd_scenarios,
	&cmd_calibrate, &cmd_sensitivity, &cmd_validate, &cmd_completion,
	NULL,
};

static void usage(FILE *out)
{
	fprintf(out, "usage: hvtlb COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; cli_commands[i]; i++)
		fprintf(out, "  %-12s %s\n", cli_commands[i]->name,
			cli_commands[i]->summary);
	fprintf(out, "\n'hvtlb COMMAND --help' describes each command.\n");
}

int main(int argc, char **argv)
{
	const struct cli_command *cmd;
	struct suggest s;
	char hint[128];

	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	cmd = cli_command_find(argv[1]);
	if (cmd)
		return cmd->run(argc - 1, argv + 1);
	suggest_init(&s, argv[1]);
	for (size_t i = 0; cli_commands[i]; i++)
		suggest_add(&s, cli_commands[i]->name);
	fprintf(stderr,
		"hvtlb: unknown command '%s'%s; 'hvtlb --help' lists them\n",
		argv[1], suggest_hint(&s, hint, sizeof(hint)));
	return CLI_EXIT_USAGE;
}
