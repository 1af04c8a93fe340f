// SPDX-License-Identifier: MIT
/* hvtlb keys: every scenario key with its default, unit, range and
 * meaning, from the library's tables (HVTLB_SIM_KEY_MAP and the costs). */
#include <stdio.h>
#include <string.h>

#include <hvtlb/sim.h>

#include "cli.h"
#include "json.h"
#include "suggest.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hvtlb keys [--json] [PREFIX]\n\n"
		"Lists every key a scenario file or --set takes "
		"(section.key),\n"
		"with its default, range or values, unit and meaning; cost.*\n"
		"keys with their source. PREFIX keeps the keys that start "
		"with\n"
		"it (e.g. workload. or cost.).\n"
		"  --json  one JSON document: {schema, hvtlb, keys}, keys an\n"
		"          array of {name, type, default, min, max, values,\n"
		"          unit, meaning} objects (docs/json.md)\n");
}

/* What a key accepts: its values, or its range. */
static void accepts(const struct hvtlb_sim_key *k, char *buf, size_t len)
{
	const char *v;
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; (v = hvtlb_sim_key_value(k, i)); i++)
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s",
				      i ? "|" : "", v);
	if (!n && !strcmp(k->type, "DOUBLE"))
		snprintf(buf, len, "%.10g..%.10g", k->min, k->max);
	else if (!n && strcmp(k->type, "KNOB"))
		snprintf(buf, len, "%.0f..%.0f%s", k->min, k->max,
			 strcmp(k->type, "POW2") ? "" : " (power of 2)");
	if (!n && !strcmp(k->type, "KNOB"))
		snprintf(buf, len, "count");
	if (!strcmp(k->type, "U64") && k->max >= 1.8e19)
		snprintf(buf, len, "%.10g..2^64-1", k->min);
	if (!strcmp(k->type, "KVER"))
		snprintf(buf, len, "any|MAJOR.MINOR");
}

static void print_json(const struct hvtlb_sim_config *c, const char *prefix)
{
	const struct hvtlb_sim_key *k;
	char def[64];
	const char *name, *v;
	bool first = true;

	putchar('{');
	json_meta(stdout, KEYS_JSON_SCHEMA);
	printf(",\"keys\":[");
	for (size_t i = 0; (k = hvtlb_sim_key_at(i)); i++) {
		if (prefix && strncmp(k->name, prefix, strlen(prefix)))
			continue;
		hvtlb_sim_config_get(c, k->name, def, sizeof(def));
		printf("%s{\"name\":", first ? "" : ",");
		first = false;
		json_string(stdout, k->name);
		printf(",\"type\":");
		json_string(stdout, k->type);
		printf(",\"default\":");
		json_string(stdout, def);
		if (!hvtlb_sim_key_value(k, 0) && strcmp(k->type, "KNOB") &&
		    strcmp(k->type, "KVER"))
			printf(",\"min\":%.17g,\"max\":%.17g", k->min, k->max);
		printf(",\"values\":[");
		for (size_t j = 0; (v = hvtlb_sim_key_value(k, j)); j++) {
			printf("%s", j ? "," : "");
			json_string(stdout, v);
		}
		printf("],\"unit\":");
		json_string(stdout, k->unit);
		printf(",\"meaning\":");
		json_string(stdout, k->meaning);
		printf("}");
	}
	for (size_t i = 0; (name = hvtlb_sim_cost_name(i)); i++) {
		snprintf(def, sizeof(def), "cost.%s", name);
		if (prefix && strncmp(def, prefix, strlen(prefix)))
			continue;
		printf("%s{\"name\":", first ? "" : ",");
		first = false;
		json_string(stdout, def);
		printf(",\"type\":\"DOUBLE\",\"default\":");
		hvtlb_sim_config_get(c, def, def, sizeof(def));
		json_string(stdout, def);
		printf(",\"min\":0,\"values\":[],\"unit\":");
		json_string(stdout, hvtlb_sim_cost_unit(i));
		printf(",\"meaning\":");
		json_string(stdout, hvtlb_sim_cost_source(i));
		printf("}");
	}
	printf("]}\n");
}

static void print_text(const struct hvtlb_sim_config *c, const char *prefix)
{
	const struct hvtlb_sim_key *k;
	char def[64], acc[256], key[128];
	const char *name;

	printf("%-30s %-10s %-28s %-12s %s\n", "KEY", "DEFAULT", "ACCEPTS",
	       "UNIT", "MEANING");
	for (size_t i = 0; (k = hvtlb_sim_key_at(i)); i++) {
		if (prefix && strncmp(k->name, prefix, strlen(prefix)))
			continue;
		hvtlb_sim_config_get(c, k->name, def, sizeof(def));
		accepts(k, acc, sizeof(acc));
		printf("%-30s %-10s %-28s %-12s %s\n", k->name, def, acc,
		       k->unit, k->meaning);
	}
	for (size_t i = 0; (name = hvtlb_sim_cost_name(i)); i++) {
		snprintf(key, sizeof(key), "cost.%s", name);
		if (prefix && strncmp(key, prefix, strlen(prefix)))
			continue;
		hvtlb_sim_config_get(c, key, def, sizeof(def));
		printf("%-30s %-10s %-28s %-12s %s\n", key, def, ">= 0",
		       hvtlb_sim_cost_unit(i), hvtlb_sim_cost_source(i));
	}
}

/* Whether a key (or cost.NAME) starts with @p prefix. */
static bool any_key(const char *prefix)
{
	const struct hvtlb_sim_key *k;
	const char *name;
	size_t n = strlen(prefix);

	for (size_t i = 0; (k = hvtlb_sim_key_at(i)); i++)
		if (!strncmp(k->name, prefix, n))
			return true;
	for (size_t i = 0; (name = hvtlb_sim_cost_name(i)); i++)
		if (!strncmp("cost.", prefix, n < 5 ? n : 5) &&
		    (n <= 5 || !strncmp(name, prefix + 5, n - 5)))
			return true;
	return false;
}

enum { OPT_JSON = 256 };

static const struct option options[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static int run_keys(int argc, char **argv)
{
	struct hvtlb_sim_config c;
	const char *prefix = NULL;
	bool json = false;
	int opt;

	while ((opt = cli_getopt(&cmd_keys, argc, argv)) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return CLI_EXIT_OK;
		case OPT_JSON:
			json = true;
			break;
		default:
			return CLI_EXIT_USAGE;
		}
	}
	if (optind < argc)
		prefix = argv[optind++];
	if (optind < argc)
		return cli_usage_error("keys", "one PREFIX at most");
	if (prefix && !any_key(prefix)) {
		struct suggest sg;
		char hint[SUGGEST_MAX + 32];

		suggest_init(&sg, prefix);
		suggest_add_keys(&sg);
		suggest_add_sections(&sg);
		return cli_usage_error(
			"keys",
			"no key starts with '%s'%s; 'hvtlb keys' "
			"lists them all",
			prefix, suggest_hint(&sg, hint, sizeof(hint)));
	}
	hvtlb_sim_config_init(&c);
	if (json)
		print_json(&c, prefix);
	else
		print_text(&c, prefix);
	return fflush(stdout) ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const struct cli_command cmd_keys = {
	.name = "keys",
	.summary = "every scenario key: default, range, meaning",
	.run = run_keys,
	.options = options,
	.operands = "prefix",
};
