/* SPDX-License-Identifier: MIT */
/* The hvtlb command line: one file per subcommand (cmd-*.c). */
#ifndef HVTLB_TOOL_CLI_H
#define HVTLB_TOOL_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Exit codes: 0 done (a decode that yields a failure status is done too),
 * 1 the work itself failed, 2 a bad command line or input file. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

/** Prints "hvtlb <cmd>: <message>" as one line on stderr; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * Matches argv[*i] against "--name VALUE" or "--name=VALUE". Returns 1 with
 * *val set (and *i advanced past a separate value), 0 when argv[*i] is
 * another option, or -1 (message printed) when the value is missing.
 */
int cli_opt_value(const char *cmd, int argc, char **argv, int *i,
		  const char *name, const char **val);
/** Marks an option seen; a second time prints "NAME given twice" and
 *  returns 2. Returns 0 the first time. */
int cli_once(const char *cmd, bool *seen, const char *name);

int cmd_encode(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);
int cmd_keys(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_sensitivity(int argc, char **argv);
int cmd_validate(int argc, char **argv);

#endif
