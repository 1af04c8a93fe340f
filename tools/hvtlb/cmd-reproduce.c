// SPDX-License-Identifier: MIT
#include "cli.h"

/* Placeholder until the subcommand lands. */
int cmd_reproduce(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_usage_error("reproduce", "not available in this build yet");
}
