// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

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

int cli_opt_value(const char *cmd, int argc, char **argv, int *i,
		  const char *name, const char **val)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	if (strncmp(a, name, n))
		return 0;
	if (a[n] == '=') {
		*val = a + n + 1;
		return 1;
	}
	if (a[n])
		return 0;
	if (*i + 1 >= argc || !strncmp(argv[*i + 1], "--", 2)) {
		cli_usage_error(cmd, "%s needs a value", name);
		return -1;
	}
	*val = argv[++*i];
	return 1;
}

int cli_once(const char *cmd, bool *seen, const char *name)
{
	if (*seen)
		return cli_usage_error(cmd, "%s given twice", name);
	*seen = true;
	return 0;
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "encode", cmd_encode,
	  "encode a flush or IPI hypercall (TLFS wire format)" },
	{ "decode", cmd_decode,
	  "decode and validate a hypercall as a host would" },
	{ "plan", cmd_plan,
	  "run a flush request through a strategy, print the actions" },
	{ "sim", cmd_sim, "simulate a scenario" },
	{ "sweep", cmd_sweep, "simulate a grid of scenarios" },
	{ "reproduce", cmd_reproduce,
	  "published results beside simulated ones" },
	{ "keys", cmd_keys, "every scenario key: default, range, meaning" },
	{ "calibrate", cmd_calibrate, "measure this host's costs on KVM" },
	{ "sensitivity", cmd_sensitivity,
	  "which uncertain parameters move a ratio most" },
	{ "validate", cmd_validate,
	  "simulated bands against published measurements" },
};

#ifndef HVTLB_VERSION
#define HVTLB_VERSION "unknown"
#endif

static void usage(FILE *out)
{
	fprintf(out, "usage: hvtlb COMMAND [ARGS]\n"
		     "       hvtlb help [COMMAND] | --help | --version\n\n"
		     "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name,
			commands[i].help);
	fprintf(out, "\n'hvtlb help COMMAND' or 'hvtlb COMMAND --help' "
		     "describes a command;\n"
		     "man hvtlb, hvtlb-COMMAND and hvtlb-scenario(5) have "
		     "the full text.\n");
}

/* hvtlb help [COMMAND]: the list of commands, or COMMAND --help. */
static int help(int argc, char **argv)
{
	char *args[] = { NULL, "--help", NULL };

	if (argc < 2) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (argc > 2)
		return cli_usage_error("help", "one command at a time");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			args[0] = argv[1];
			return commands[i].run(2, args);
		}
	}
	return cli_usage_error("help", "unknown command '%s'", argv[1]);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("hvtlb %s\n", HVTLB_VERSION);
		return fflush(stdout) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	}
	if (!strcmp(argv[1], "help"))
		return help(argc - 1, argv + 1);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	}
	fprintf(stderr, "hvtlb: unknown command '%s'\n", argv[1]);
	return CLI_EXIT_USAGE;
}
