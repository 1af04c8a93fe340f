/* SPDX-License-Identifier: MIT */
/*
 * Scenario files for `hvtlb sim` and `hvtlb reproduce`.
 *
 * A scenario is an INI file: `[section]` headers, `key = value` lines, and
 * comments starting with '#' or ';' (at the start of a line or after a
 * value). A key inside [section] becomes the library key "section.key"; a
 * key before the first section keeps its name. Three top-level keys belong
 * to the tool and never reach the library:
 *
 *   profile = NAME     cost profile: NAME.ini in the profiles/ folder beside
 *                      or inside the scenario's folder, else the shipped
 *                      profile NAME (datadir.h); or a path (with a '/' or
 *                      ending in .ini), relative to the scenario file, then
 *                      as given. Each of its lines becomes "cost.name"
 *                      (see below)
 *   compare = A,B,...  run once per listed strategy ("strategy" key)
 *   title = TEXT       a line of text printed above the results
 *
 * A profile line is one of
 *
 *   name = default                                 the library's value,
 *                                                  range and source
 *   name = VALUE ; source: TEXT                    exact, TEXT says why
 *   name = VALUE ; range LO..HI [log] ; source: TEXT
 *
 * and a scenario line may carry the same "; source: ..." or
 * "; range LO..HI [log] ; source: ..." after its value (any other text
 * after ';' is a comment). A range must contain the value; "log" needs
 * LO > 0. The section [validation] (a validation case, see validation.h)
 * is kept apart, unparsed: its values run to the end of the line.
 *
 * Settings are applied in this order: profile lines, then the scenario's own
 * lines (so a [cost] line in a scenario overrides its profile), then --set
 * overrides. Every setting remembers the file and line it came from so that
 * the tool can print `file:line: message` for any error found later.
 *
 * Thread rules: a struct scenario is used by one thread at a time. Nothing
 * here prints; errors are returned as -errno with a message in
 * scenario->err.
 */
#ifndef HVTLB_TOOL_SCENARIO_H
#define HVTLB_TOOL_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define SCENARIO_ERR_MAX 512
#define SCENARIO_LINE_MAX 1024
#define SCENARIO_COMPARE_MAX 8

/**
 * What a line says about its value after the first ';':
 * "source: TEXT" (an exact value and why), or
 * "range LO..HI [log] ; source: TEXT" (the value lies in [LO, HI], drawn
 * log-uniformly with "log", uniformly without; TEXT says where the value
 * and the range come from).
 */
struct scenario_annot {
	const char *source; /**< TEXT, or NULL: the line has no source */
	bool ranged;
	bool log;
	double lo, hi;
};

/** One key = value setting and where it came from. */
struct scenario_setting {
	char *key; /**< library key, e.g. "vm.vcpus" or "cost.vmcall" */
	char *value;
	char *file;    /**< file name, or "--set" */
	unsigned line; /**< 1-based line; 0 for --set */
	char *source;  /**< the line's "source:" text, or NULL */
	bool ranged;   /**< the line gave "range LO..HI" */
	bool log;      /**< ... drawn log-uniformly */
	double lo, hi; /**< the range, if ranged */
};

/** A list of settings. */
struct scenario_list {
	struct scenario_setting *v;
	size_t n, cap;
};

/** A parsed scenario. Initialise with scenario_init(). */
struct scenario {
	struct scenario_list profile; /**< cost.* lines of the profile */
	struct scenario_list file;    /**< the scenario's own lines */
	struct scenario_list set;     /**< --set overrides */
	/** [validation] lines, raw: the value runs to the end of the line
	 *  (no comments), see validation.h. Never applied to the library. */
	struct scenario_list validation;
	char *path;	       /**< the scenario file */
	char *profile_name;    /**< value of `profile`, or NULL */
	char *profile_path;    /**< resolved profile file, or NULL */
	unsigned profile_line; /**< and its line (0 = --set) */
	char *title;
	char *compare[SCENARIO_COMPARE_MAX]; /**< strategies, or none */
	size_t ncompare;
	struct scenario_setting compare_at; /**< where compare was set */
	/** workload.trace: the trace's path as resolved (a relative path
	 *  of a scenario file against the file's folder), or NULL; and
	 *  where it was set (key, value, file, line). */
	char *trace_path;
	struct scenario_setting trace_at;
	/** NULL-terminated list of valid [section] names; NULL accepts all. */
	const char *const *sections;
	char err[SCENARIO_ERR_MAX]; /**< "file:line: message" of the last error */
};

/** Zeroes @p s; @p sections (may be NULL) lists the valid section names. */
void scenario_init(struct scenario *s, const char *const *sections);
/** Frees everything @p s owns; @p s may be reused after scenario_init(). */
void scenario_finish(struct scenario *s);

/**
 * Reads the scenario at @p path and the profile it names. A bare @p path
 * (no '/') that names no file is the shipped scenario of that name
 * (scenarios/NAME.ini in the data directory, datadir.h). A profile must be
 * a regular file (a directory or device of that name is "not found").
 * Returns 0, -ENOENT/-EACCES/-EISDIR/-EIO (unreadable file, or a scenario
 * path that is a directory), -EINVAL (syntax: a line
 * without '=', an empty key or value, a bad section header, an unknown
 * section, a profile line without a source, a bad range, a range without a
 * source or that misses its value), -E2BIG (a line too long) or -ENOMEM,
 * with the message in s->err.
 */
int scenario_load(struct scenario *s, const char *path);

/**
 * Reads a scenario from the open stream @p f (not closed) as if it were the
 * file @p path: messages name @p path, and a `profile` is resolved against
 * its directory. Same returns as scenario_load(). Used by the fuzz target.
 */
int scenario_load_stream(struct scenario *s, FILE *f, const char *path);

/**
 * Adds a --set override "key=value" (the key is a library key or one of the
 * tool keys above). A `profile` override reloads the profile (found as the
 * `profile` key's value is).
 * Returns 0 or -EINVAL (no '=', empty key or value) / -ENOMEM / a profile
 * load error, with the message in s->err.
 */
int scenario_add_override(struct scenario *s, const char *arg);

/**
 * Adds an override "key=value" as scenario_add_override() does, but one
 * that comes from line @p line of @p file (a validation case's a, b or ci
 * list): errors about it are reported as "file:line: message".
 */
int scenario_add_override_at(struct scenario *s, const char *arg,
			     const char *file, unsigned line);

/**
 * Sets the `compare` list to @p list ("ipi,hyperv") for the command-line
 * option the user typed, @p label ("--compare 'ipi,hyperv'", "--ratio
 * 'ipi/hyperv'"): errors about a name of the list are then reported as
 * "<label>: ...", never as a --set the user did not type. Returns 0,
 * -EINVAL (message in s->err) or -ENOMEM.
 */
int scenario_add_compare(struct scenario *s, const char *label,
			 const char *list);

/** Forgets the `compare` list (one run with the scenario's strategy). */
void scenario_clear_compare(struct scenario *s);

/**
 * Adds the override @p key = @p value that the command-line option @p option
 * (e.g. "--seed") stands for; errors about it are then reported as
 * "<option> '<value>': ...", or "<option> '<key>=<value>': ..." when the
 * option's name is not the key's (--vary). The tool's own keys (compare,
 * profile, title) take effect as they do in a --set, their messages worded
 * the same way. Returns 0, -EINVAL or -ENOMEM.
 */
int scenario_add_option(struct scenario *s, const char *option, const char *key,
			const char *value);

/** Called by scenario_apply() for each setting; returns 0 or -errno. */
typedef int (*scenario_set_fn)(void *ctx, const char *key, const char *value);

/**
 * Calls @p set for every setting in order (profile, file, --set). Stops at
 * the first error and returns it; @p bad (if not NULL) then points at the
 * offending setting.
 */
int scenario_apply(const struct scenario *s, scenario_set_fn set, void *ctx,
		   const struct scenario_setting **bad);

/**
 * Finds the last setting of @p key (in apply order), or NULL. Used to point
 * at the line that set a value the library later rejects as a whole.
 */
const struct scenario_setting *scenario_find(const struct scenario *s,
					     const char *key);

/**
 * Formats "file:line: " (or "--set 'key=value': " for an override, or
 * "--option 'value': " for one added by scenario_add_option()) followed by
 * @p fmt into s->err. @p at may be NULL (no prefix).
 */
void scenario_error_at(struct scenario *s, const struct scenario_setting *at,
		       const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
