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

enum { OPT_JSON = 256 };

static const struct option options[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static const char usage_text[] =
	"usage: hvtlb scenarios [--json]\n"
	"\n"
	"Lists the scenario files that come with hvtlb (scenarios/ in the\n"
	"data directory: $HVTLB_DATA_DIR, or the installed one, or the\n"
	"source tree when run from the build) with\n"
	"the title each gives; 'hvtlb sim FILE' runs one.\n"
	"  --json  one JSON document: {schema, hvtlb, scenarios},\n"
	"          scenarios an array of {name, file, title} objects\n";

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

static int run_scenarios(int argc, char **argv)
{
	char *data;
	char dir[4096], path[4400];
	bool json = false;
	char **names;
	size_t n;
	int c;

	while ((c = cli_getopt(&cmd_scenarios, argc, argv)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage_text, stdout);
			return CLI_EXIT_OK;
		case OPT_JSON:
			json = true;
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
	if (json) {
		putchar('{');
		json_meta(stdout, SCENARIOS_JSON_SCHEMA);
		printf(",\"scenarios\":[");
	}
	for (size_t i = 0; i < n; i++) {
		struct scenario sc;
		int len = (int)strlen(names[i]);

		snprintf(path, sizeof(path), "%s/%s.ini", dir, names[i]);
		scenario_init(&sc, NULL);
		if (scenario_load(&sc, path) && !sc.title) {
			free(sc.title);
			sc.title = NULL;
		}
		if (json) {
			printf("%s{\"name\":", i ? "," : "");
			json_string(stdout, names[i]);
			printf(",\"file\":");
			json_string(stdout, path);
			printf(",\"title\":");
			json_string(stdout, sc.title);
			putchar('}');
		} else {
			printf("%-22.*s %s\n", len, names[i],
			       sc.title ? sc.title : "(no title)");
		}
		scenario_finish(&sc);
		free(names[i]);
	}
	if (json)
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
