// SPDX-License-Identifier: MIT
/*
 * hvtlb completion bash|zsh|fish: a completion script generated from the
 * tool's own tables: the subcommands and their getopt_long() options
 * (cli_commands), the scenario keys (the library's key and cost tables,
 * as `hvtlb keys --json` lists them), the strategies, metrics, faults and
 * decoder profiles. Scenario names are asked of `hvtlb scenarios --names`
 * when the shell completes, so that they follow the data directory. The
 * build runs it to install the scripts, so that completion never lags
 * behind the tool.
 */
#include <ctype.h>
#include <string.h>

#include <hvtlb/sim.h>

#include "cli.h"
#include "metrics.h"

static const struct option options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static const char usage_text[] =
	"usage: hvtlb completion bash|zsh|fish\n"
	"\n"
	"Prints a completion script for hvtlb in the shell's language:\n"
	"subcommands, options, scenario keys after --set and --vary,\n"
	"strategies, metrics, faults, profiles, and the scenario names of\n"
	"'hvtlb scenarios --names' where a command takes a scenario. Load\n"
	"one with 'source <(hvtlb completion bash)' (zsh: the same with zsh;\n"
	"fish: 'hvtlb completion fish | source'); installed builds put each\n"
	"where its shell finds it.\n";

/* Options whose value is a file or directory name. */
static bool file_valued(const char *name)
{
	static const char *const names[] = {
		"output", "svg", "trace", "input-file", "vp-map",
		"out",	  "dir", "base",  "device",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* The short form of an option (as cli_getopt() accepts it), or 0. */
static char short_name(const struct option *o)
{
	if (o->flag || o->val <= 0 || o->val > 127 || !isalpha(o->val))
		return 0;
	return (char)o->val;
}

static const char *command_at(size_t i)
{
	return cli_commands[i] ? cli_commands[i]->name : NULL;
}

static const char *key_at(size_t i)
{
	static char buf[128];
	size_t nkeys = hvtlb_sim_key_count();
	const char *cost;

	if (i < nkeys)
		return hvtlb_sim_key_at(i)->name;
	cost = hvtlb_sim_cost_name(i - nkeys);
	if (!cost)
		return NULL;
	snprintf(buf, sizeof(buf), "cost.%s", cost);
	return buf;
}

static const char *strategy_at(size_t i)
{
	return hvtlb_strategy_name((enum hvtlb_strategy_kind)i);
}

/* The metrics, then the two times reproduce and sensitivity also take. */
static const char *metric_name_at(size_t i)
{
	static const char *const times[] = { "real", "sys" };
	size_t n = 0;

	while (metric_at(n))
		n++;
	if (i < n)
		return metric_at(i)->name;
	return i - n < 2 ? times[i - n] : NULL;
}

static const char *fault_at(size_t i)
{
	return hvtlb_sim_fault_name((enum hvtlb_sim_fault)i);
}

static const char *profile_at(size_t i)
{
	return i < HVTLB_PROFILE_COUNT_
		       ? hvtlb_profile_name((enum hvtlb_profile)i)
		       : NULL;
}

/* Option values completed from a list: the options it serves, by name. */
static const struct value_list {
	const char *name; /* _hvtlb_NAME in the scripts */
	const char *(*at)(size_t);
	const char *suffix; /* typed after the word: "=" before a value */
	const char *opts;   /* the options, as a case pattern */
} value_lists[] = {
	{ "keys", key_at, "=", "--set|--vary" },
	{ "strategies", strategy_at, "", "--compare|--strategy" },
	{ "metrics", metric_name_at, "", "--metric" },
	{ "faults", fault_at, "", "--fault" },
	{ "profiles", profile_at, "", "--profile" },
};
#define NLISTS (sizeof(value_lists) / sizeof(value_lists[0]))

/* The list that completes the value of --@p name, or NULL. */
static const struct value_list *value_list_of(const char *name)
{
	for (size_t i = 0; i < NLISTS; i++) {
		const char *p = strstr(value_lists[i].opts, name);
		size_t n = strlen(name);

		if (p && p >= value_lists[i].opts + 2 && p[-1] == '-' &&
		    (p[n] == '\0' || p[n] == '|'))
			return &value_lists[i];
	}
	return NULL;
}

/* The words of @p at, separated by spaces, each followed by @p suffix. */
static void put_words(const char *(*at)(size_t), const char *suffix)
{
	const char *w;

	for (size_t i = 0; (w = at(i)); i++)
		printf("%s%s%s", i ? " " : "", w, suffix);
}

/* @p s in single quotes: for sh and zsh a quote is '\'', for fish \'. */
static void put_quoted(const char *s, bool fish)
{
	putchar('\'');
	for (; *s; s++) {
		if (*s == '\'')
			fputs(fish ? "\\'" : "'\\''", stdout);
		else if (fish && *s == '\\')
			fputs("\\\\", stdout);
		else
			putchar(*s);
	}
	putchar('\'');
}

/* The options of @p c, long ones, or those taking a file with their short
 * forms too, separated by spaces. */
static void put_options(const struct cli_command *c, bool files)
{
	const char *sep = "";

	for (const struct option *o = c->options; o->name; o++) {
		if (files && !file_valued(o->name))
			continue;
		printf("%s--%s", sep, o->name);
		if (files && short_name(o))
			printf(" -%c", short_name(o));
		sep = " ";
	}
}

/* How a script spells its variables (bash, zsh). */
struct syntax {
	const char *var;	  /* of (what, command): "_hvtlb_%s_%s" */
	const char *list;	  /* before a list's name: "typeset -ga " */
	const char *open, *close; /* around a list's words: "'", "'" */
};

/* Per command its options, those that take a file and its operands; then
 * each value list. */
static void print_variables(const struct syntax *sx)
{
	for (size_t i = 0; cli_commands[i]; i++) {
		const struct cli_command *c = cli_commands[i];

		printf(sx->var, "opts", c->name);
		printf("='");
		put_options(c, false);
		printf("'\n");
		printf(sx->var, "files", c->name);
		printf("='");
		put_options(c, true);
		printf("'\n");
		printf(sx->var, "operands", c->name);
		printf("='%s'\n", c->operands);
	}
	for (size_t i = 0; i < NLISTS; i++) {
		printf("%s_hvtlb_%s=%s", sx->list, value_lists[i].name,
		       sx->open);
		put_words(value_lists[i].at, "");
		printf("%s\n", sx->close);
	}
}

static void print_header(const char *shell)
{
	printf("# %s completion for hvtlb: generated by `hvtlb completion "
	       "%s`\n# from the tool's tables; do not edit.\n",
	       shell, shell);
}

/* ---------------------------------------------------------------- bash */

static const char bash_start[] =
	"\n"
	"_hvtlb()\n"
	"{\n"
	"    local cur=${COMP_WORDS[COMP_CWORD]}\n"
	"    local prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	"    local cmd=${COMP_WORDS[1]} v\n"
	"    COMPREPLY=()\n"
	"    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	"        COMPREPLY=($(compgen -W \"$_hvtlb_commands help --help "
	"--version\" -- \"$cur\"))\n"
	"        return\n"
	"    fi\n"
	"    if [ \"$cmd\" = help ]; then\n"
	"        [ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W "
	"\"$_hvtlb_commands\" -- \"$cur\"))\n"
	"        return\n"
	"    fi\n"
	"    case \" $_hvtlb_commands \" in\n"
	"    *\" $cmd \"*) ;;\n"
	"    *) return ;;\n"
	"    esac\n"
	"    v=_hvtlb_files_$cmd\n"
	"    case \" ${!v} \" in\n"
	"    *\" $prev \"*)\n"
	"        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
	"        return ;;\n"
	"    esac\n"
	"    case $prev in\n";

static const char bash_end[] =
	"    esac\n"
	"    if [[ $cur == -* ]]; then\n"
	"        v=_hvtlb_opts_$cmd\n"
	"        COMPREPLY=($(compgen -W \"${!v}\" -- \"$cur\"))\n"
	"        return\n"
	"    fi\n"
	"    v=_hvtlb_operands_$cmd\n"
	"    case ${!v} in\n"
	"    scenario)\n"
	"        COMPREPLY=($(compgen -W \"$(\"${COMP_WORDS[0]}\" scenarios "
	"--names 2>/dev/null)\" -- \"$cur\")\n"
	"                   $(compgen -f -X '!*.ini' -- \"$cur\") "
	"$(compgen -d -- \"$cur\")) ;;\n"
	"    prefix)\n"
	"        COMPREPLY=($(compgen -W \"$_hvtlb_keys\" -- \"$cur\")) ;;\n"
	"    file)\n"
	"        COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
	"    esac\n"
	"}\n"
	"complete -F _hvtlb hvtlb\n";

static void print_bash(void)
{
	static const struct syntax bash = { "_hvtlb_%s_%s", "", "'", "'" };

	print_header("bash");
	printf("_hvtlb_commands='");
	put_words(command_at, "");
	printf("'\n");
	print_variables(&bash);
	fputs(bash_start, stdout);
	for (size_t i = 0; i < NLISTS; i++) {
		const struct value_list *l = &value_lists[i];

		printf("    %s)\n", l->opts);
		if (*l->suffix)
			printf("        compopt -o nospace 2>/dev/null\n"
			       "        COMPREPLY=($(compgen -W \"$(printf "
			       "'%%s%s ' $_hvtlb_%s)\" -- \"$cur\"))\n",
			       l->suffix, l->name);
		else
			printf("        COMPREPLY=($(compgen -W \"$_hvtlb_%s\" "
			       "-- \"$cur\"))\n",
			       l->name);
		printf("        return ;;\n");
	}
	fputs(bash_end, stdout);
}

/* ----------------------------------------------------------------- zsh */

static const char zsh_start[] =
	"\n"
	"_hvtlb()\n"
	"{\n"
	"    local cmd=${words[2]} cur=${words[CURRENT]} "
	"prev=${words[CURRENT-1]}\n"
	"    local -a names\n"
	"    if (( CURRENT == 2 )); then\n"
	"        _describe -t commands 'hvtlb command' _hvtlb_commands\n"
	"        compadd -- help --help --version\n"
	"        return\n"
	"    fi\n"
	"    if [[ $cmd == help ]]; then\n"
	"        (( CURRENT == 3 )) &&\n"
	"            _describe -t commands 'hvtlb command' _hvtlb_commands\n"
	"        return\n"
	"    fi\n"
	"    (( ${+_hvtlb_opts[$cmd]} )) || return 1\n"
	"    if [[ \" ${_hvtlb_files[$cmd]} \" == *\" $prev \"* ]]; then\n"
	"        _files\n"
	"        return\n"
	"    fi\n"
	"    case $prev in\n";

static const char zsh_end[] =
	"    esac\n"
	"    if [[ $cur == -* ]]; then\n"
	"        compadd -- ${=_hvtlb_opts[$cmd]}\n"
	"        return\n"
	"    fi\n"
	"    case ${_hvtlb_operands[$cmd]} in\n"
	"    scenario)\n"
	"        names=(${(f)\"$(${words[1]} scenarios --names "
	"2>/dev/null)\"})\n"
	"        compadd -- $names\n"
	"        _files -g '*.ini' ;;\n"
	"    prefix)\n"
	"        compadd -- $_hvtlb_keys ;;\n"
	"    file)\n"
	"        _files ;;\n"
	"    esac\n"
	"}\n"
	"\n"
	"if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n"
	"    _hvtlb \"$@\"\n"
	"else\n"
	"    compdef _hvtlb hvtlb\n"
	"fi\n";

static void print_zsh(void)
{
	static const struct syntax zsh = { "_hvtlb_%s[%s]", "typeset -ga ", "(",
					   ")" };

	printf("#compdef hvtlb\n");
	print_header("zsh");
	printf("typeset -ga _hvtlb_commands=(");
	for (size_t i = 0; cli_commands[i]; i++) {
		char buf[256];

		snprintf(buf, sizeof(buf), "%s:%s", cli_commands[i]->name,
			 cli_commands[i]->summary);
		printf("\n    ");
		put_quoted(buf, false);
	}
	printf(")\ntypeset -gA _hvtlb_opts _hvtlb_files _hvtlb_operands\n");
	print_variables(&zsh);
	fputs(zsh_start, stdout);
	for (size_t i = 0; i < NLISTS; i++) {
		const struct value_list *l = &value_lists[i];

		printf("    %s)\n        compadd%s%s -- $_hvtlb_%s\n"
		       "        return ;;\n",
		       l->opts, *l->suffix ? " -S " : "", l->suffix, l->name);
	}
	fputs(zsh_end, stdout);
}

/* ---------------------------------------------------------------- fish */

static const char fish_start[] =
	"\n"
	"# The subcommand is always the first word after hvtlb.\n"
	"function __hvtlb_using\n"
	"    set -l words (commandline -opc)\n"
	"    test (count $words) -ge 2; and test \"$words[2]\" = \"$argv[1]\"\n"
	"end\n"
	"function __hvtlb_scenarios\n"
	"    set -l words (commandline -opc)\n"
	"    command $words[1] scenarios --names 2>/dev/null\n"
	"end\n"
	"complete -c hvtlb -f\n"
	"complete -c hvtlb -n __fish_use_subcommand -l help "
	"-d 'the usage and the commands'\n"
	"complete -c hvtlb -n __fish_use_subcommand -l version "
	"-d 'version and commit'\n"
	"complete -c hvtlb -n __fish_use_subcommand -a help "
	"-d \"a command's usage\"\n";

/* One option of subcommand @p cmd, with what its value completes to. */
static void print_fish_option(const char *cmd, const struct option *o)
{
	const struct value_list *l = value_list_of(o->name);

	printf("complete -c hvtlb -n '__hvtlb_using %s'", cmd);
	if (short_name(o))
		printf(" -s %c", short_name(o));
	printf(" -l %s", o->name);
	if (o->has_arg == no_argument) {
		printf("\n");
	} else if (file_valued(o->name)) {
		printf(" -r -F\n");
	} else if (l) {
		printf(" -x -a '");
		put_words(l->at, l->suffix);
		printf("'\n");
	} else {
		printf(" -x\n");
	}
}

static void print_fish(void)
{
	print_header("fish");
	fputs(fish_start, stdout);
	printf("complete -c hvtlb -n '__hvtlb_using help' -a '");
	put_words(command_at, "");
	printf("'\n");
	for (size_t i = 0; cli_commands[i]; i++) {
		const struct cli_command *c = cli_commands[i];

		printf("\ncomplete -c hvtlb -n __fish_use_subcommand -a %s -d ",
		       c->name);
		put_quoted(c->summary, true);
		printf("\n");
		for (const struct option *o = c->options; o->name; o++)
			print_fish_option(c->name, o);
		if (!*c->operands)
			continue;
		printf("complete -c hvtlb -n '__hvtlb_using %s'", c->name);
		if (!strcmp(c->operands, "scenario")) {
			printf(" -F -a '(__hvtlb_scenarios)'\n");
		} else if (!strcmp(c->operands, "prefix")) {
			printf(" -a '");
			put_words(key_at, "");
			printf("'\n");
		} else {
			printf(" -F\n");
		}
	}
}

static const struct {
	const char *name;
	void (*print)(void);
} shells[] = {
	{ "bash", print_bash },
	{ "zsh", print_zsh },
	{ "fish", print_fish },
};

static int run_completion(int argc, char **argv)
{
	int c;

	while ((c = cli_getopt(&cmd_completion, argc, argv)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return CLI_EXIT_OK;
		}
		return CLI_EXIT_USAGE;
	}
	if (optind == argc)
		return cli_usage_error("completion",
				       "name the shell: 'hvtlb completion "
				       "bash', 'zsh' or 'fish'");
	if (optind + 1 != argc)
		return cli_usage_error("completion",
				       "unexpected argument '%s' (one shell "
				       "at a time)",
				       argv[optind + 1]);
	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++) {
		if (strcmp(argv[optind], shells[i].name))
			continue;
		shells[i].print();
		return fflush(stdout) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	}
	return cli_usage_error("completion",
			       "unknown shell '%s': one of bash, zsh, fish "
			       "('hvtlb completion bash')",
			       argv[optind]);
}

const struct cli_command cmd_completion = {
	.name = "completion",
	.summary = "a bash, zsh or fish completion script for hvtlb",
	.run = run_completion,
	.options = options,
	.operands = "",
};
