// SPDX-License-Identifier: MIT
/* hvtlb scenarios: the shipped scenario files with their titles. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "datadir.h"
#include "json.h"
#include "scenario.h"

enum { OPT_JSON = 256, OPT_NAMES };

static const struct option options[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "names", no_argument, NULL, OPT_NAMES },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static const char usage_text[] =
	"usage: hvtlb scenarios [--json | --names]\n"
	"\n"
	"Lists the scenario files that come with hvtlb (scenarios/ in the\n"
	"data directory: $HVTLB_DATA_DIR, or the installed one, or the\n"
	"source tree when run from the build) with\n"
	"the title each gives; 'hvtlb sim FILE' runs one.\n"
	"  --json  one JSON document: {schema, hvtlb, scenarios},\n"
	"          scenarios an array of {name, file, title} objects\n"
	"  --names the names alone, one a line, without reading the files\n"
	"          (what shell completion offers after sim, sweep and\n"
	"          sensitivity)\n";

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.ini files of @p dir, sorted; NULL-terminated, or NULL (errno). */
static char **list_ini(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char **nv;

		if (len < 5 || strcmp(de->d_name + len - 4, ".ini"))
			continue;
		if (*n + 1 >= cap) {
			cap = cap ? 2 * cap : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[*n] = strndup(de->d_name, len - 4); /* sorted without .ini */
		if (v[*n])
			(*n)++;
	}
	closedir(d);
	if (!v)
		v = calloc(1, sizeof(*v));
	if (v) {
		qsort(v, *n, sizeof(*v), by_name);
		v[*n] = NULL;
	}
	return v;
}

enum format { FMT_TEXT, FMT_JSON, FMT_NAMES };

/* One line of the list, or one object of --json (@p i: its index). */
static void print_one(const char *dir, const char *name, size_t i,
		      enum format fmt)
{
	char path[4400];
	struct scenario sc;
	int len = (int)strlen(name);

	if (fmt == FMT_NAMES) {
		printf("%s\n", name);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s.ini", dir, name);
	scenario_init(&sc, NULL);
	if (scenario_load(&sc, path) && !sc.title) {
		free(sc.title);
		sc.title = NULL;
	}
	if (fmt == FMT_JSON) {
		printf("%s{\"name\":", i ? "," : "");
		json_string(stdout, name);
		printf(",\"file\":");
		json_string(stdout, path);
		printf(",\"title\":");
		json_string(stdout, sc.title);
		putchar('}');
	} else {
		printf("%-22.*s %s\n", len, name,
		       sc.title ? sc.title : "(no title)");
	}
	scenario_finish(&sc);
}

static enum format want_format(int opt)
{
	return opt == OPT_JSON ? FMT_JSON : FMT_NAMES;
}

static int run_scenarios(int argc, char **argv)
{
	enum format fmt = FMT_TEXT;
	char *data;
	char dir[4096];
	char **names;
	size_t n;
	int c;

	while ((c = cli_getopt(&cmd_scenarios, argc, argv)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage_text, stdout);
			return CLI_EXIT_OK;
		case OPT_JSON:
		case OPT_NAMES:
			if (fmt != FMT_TEXT && fmt != want_format(c))
				return cli_usage_error("scenarios",
						       "--json and --names "
						       "conflict");
			fmt = want_format(c);
			break;
		default:
			return CLI_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return cli_usage_error("scenarios", "unexpected argument '%s'",
				       argv[optind]);
	data = datadir_path("scenarios");
	if (!data)
		return CLI_EXIT_FAIL;
	snprintf(dir, sizeof(dir), "%s", data);
	free(data);
	names = list_ini(dir, &n);
	if (!names) {
		fprintf(stderr, "hvtlb scenarios: %s: %s\n", dir,
			strerror(errno));
		return CLI_EXIT_FAIL;
	}
	if (fmt == FMT_JSON) {
		putchar('{');
		json_meta(stdout, SCENARIOS_JSON_SCHEMA);
		printf(",\"scenarios\":[");
	}
	for (size_t i = 0; i < n; i++) {
		print_one(dir, names[i], i, fmt);
		free(names[i]);
	}
	if (fmt == FMT_JSON)
		printf("]}\n");
	free(names);
	return fflush(stdout) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const struct cli_command cmd_scenarios = {
	.name = "scenarios",
	.summary = "the shipped scenarios and their titles",
	.run = run_scenarios,
	.options = options,
	.operands = "",
};
