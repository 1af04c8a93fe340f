/* SPDX-License-Identifier: MIT */
/*
 * The hvtlb command line: one file per subcommand (cmd-*.c), each with a
 * struct cli_command naming its getopt_long() option table, so that every
 * subcommand parses options the same way (--opt=value, --opt value,
 * unique abbreviations, '--' ends the options, options and operands in
 * any order) and the tables also drive did-you-mean and shell completion.
 */
#ifndef HVTLB_TOOL_CLI_H
#define HVTLB_TOOL_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes: 0 done (a decode that yields a failure status is done too),
 * 1 the work itself failed, 2 a bad command line or input file, 130
 * interrupted (SIGINT; what was finished has been written). */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2
#define CLI_EXIT_INTERRUPTED 130

/** A subcommand. */
struct cli_command {
	const char *name;
	const char *summary; /**< one line for `hvtlb --help` */
	int (*run)(int argc, char **argv);
	/** getopt_long() table, { 0 }-terminated; never NULL */
	const struct option *options;
	/** What its operands are, for completion: "scenario", "file",
	 *  "prefix", or "" for none. */
	const char *operands;
};

/** The subcommands, NULL-terminated (main.c). */
extern const struct cli_command *const cli_commands[];

/** The subcommand called @p name, or NULL. */
const struct cli_command *cli_command_find(const char *name);

/** Prints "hvtlb <cmd>: <message>" as one line on stderr; returns 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * getopt_long() for subcommand @p cmd (its options table). Prints the
 * error itself: an unknown option (with the nearest known one), a missing
 * value, a value given to an option that takes none. Returns the option's
 * val, -1 when the options end (optind: the first operand; GNU getopt
 * permutes, so every operand is in argv[optind .. argc)), or '?' after an
 * error was printed. Call with the same arguments until it returns -1 or
 * '?'; the first call of a process, or after -1/'?', starts over.
 */
int cli_getopt(const struct cli_command *cmd, int argc, char **argv);

/** Takes option @p c (its value @p v, or NULL) into the options @p ctx
 *  of a subcommand. Returns 0, or nonzero after printing why not. */
typedef int cli_take_fn(void *ctx, int c, const char *v);

/**
 * The options of subcommand @p cmd (cli_getopt()), each given to @p take
 * with @p ctx in command-line order; --help prints @p usage, -q (--quiet)
 * turns the progress line off (progress_quiet()). Returns -1
 * when the options are taken (optind: the first operand), 0 after --help,
 * or 2 when an option was refused (message printed).
 */
int cli_parse_options(const struct cli_command *cmd, const char *usage,
		      int argc, char **argv, cli_take_fn *take, void *ctx);

/**
 * The one SCENARIO operand of subcommand @p cmd, from argv[optind] on,
 * into *@p path (kept when already set). Returns -1, or prints "one
 * scenario at a time ('A' and 'B')" or "missing SCENARIO (try 'hvtlb
 * scenarios')" and returns 2.
 */
int cli_scenario_operand(const char *cmd, int argc, char **argv,
			 const char **path);

/** Marks an option seen; a second time prints "NAME given twice" and
 *  returns 2. Returns 0 the first time. */
int cli_once(const char *cmd, bool *seen, const char *name);

/** Takes the value @p val of a string option into *@p slot; a second
 *  time (the slot already set) prints "NAME given twice" and returns 2.
 *  Returns 0 the first time. */
int cli_once_str(const char *cmd, const char **slot, const char *name,
		 const char *val);

/**
 * Parses the value @p val of option @p opt ("--seed") as a whole number
 * (decimal or 0x hex) in [@p min, @p max]. Returns 0, or prints
 * "--seed '-1': want a whole number in 0..18446744073709551615" and
 * returns 2.
 */
int cli_u64(const char *cmd, const char *opt, const char *val, uint64_t min,
	    uint64_t max, uint64_t *out);

struct parse_range;

/**
 * Parses the value @p val of option @p opt ("--range") as a range of
 * addresses (parse_range(): START+PAGES or START-END, and "all" where
 * @p allow_all). Returns 0, or prints what is wrong with which part, as
 * "--range '1000+4': START '1000' could be hex or decimal: write 0x1000
 * for hex, or 0x3e8 for decimal 1000", and returns 2.
 */
int cli_range(const char *cmd, const char *opt, const char *val, bool allow_all,
	      struct parse_range *r);

/**
 * Reports that @p val, given to option @p opt ("--call"), is none of the
 * @p what ("call") names @p names (NULL-terminated), with the nearest one
 * and all of them: "--call: unknown call 'lst' (did you mean 'list'?);
 * one of space, list, ...". Returns 2.
 */
int cli_enum_error(const char *cmd, const char *opt, const char *what,
		   const char *val, const char *const *names);

/* Writes the @p n bytes of @p w as one word of a POSIX shell command
 * line: as they are when every character is safe, else in single
 * quotes. */
void cli_shell_word(FILE *f, const char *w, size_t n);

/**
 * `-o FILE`: from here on stdout goes to a new file beside @p path (its
 * name plus a random suffix), which cli_output_finish() renames to
 * @p path, so that @p path is never seen half written. A @p path that
 * exists and is not a regular file (/dev/null, /dev/stdout, a FIFO) is
 * written in place, never replaced. Returns 0, or prints why the file
 * cannot be created and returns 2.
 */
int cli_output_open(const char *cmd, const char *path);

/**
 * Ends `-o FILE`: flushes stdout into the file and, with @p keep, renames
 * it to its final name; without (nothing worth keeping was written),
 * removes it. Does nothing without cli_output_open(). Returns 0, or -errno
 * (message printed) when the output could not be written.
 */
int cli_output_finish(const char *cmd, bool keep);

/** The subcommands. */
extern const struct cli_command cmd_encode, cmd_decode, cmd_plan, cmd_sim,
	cmd_sweep, cmd_reproduce, cmd_keys, cmd_calibrate, cmd_sensitivity,
	cmd_validate, cmd_scenarios, cmd_completion, cmd_replay, cmd_record;

#endif
