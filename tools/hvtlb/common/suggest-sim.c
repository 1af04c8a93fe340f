// SPDX-License-Identifier: MIT
/* Did-you-mean candidates from the library's tables (suggest.h). */
#include <stdio.h>
#include <string.h>

#include <hvtlb/sim.h>

#include "suggest.h"

void suggest_add_keys(struct suggest *s)
{
	/* "cost." + the longest cost name; static so that the best one
	 * stays valid after this returns. */
	static char costs[HVTLB_SIM_COST_SLOTS][SUGGEST_MAX + 8];
	const struct hvtlb_sim_key *k;
	const char *name;

	for (size_t i = 0; (k = hvtlb_sim_key_at(i)); i++)
		suggest_add(s, k->name);
	for (size_t i = 0;
	     i < HVTLB_SIM_COST_SLOTS && (name = hvtlb_sim_cost_name(i)); i++) {
		if (!costs[i][0])
			snprintf(costs[i], sizeof(costs[i]), "cost.%s", name);
		suggest_add(s, costs[i]);
	}
	suggest_add(s, "profile");
	suggest_add(s, "compare");
	suggest_add(s, "title");
}

void suggest_add_sections(struct suggest *s)
{
	static char names[32][SUGGEST_MAX];
	static size_t n;
	const char *key;

	if (!n) {
		for (size_t i = 0; (key = hvtlb_sim_config_key_name(i)); i++) {
			const char *dot = strchr(key, '.');
			size_t len = dot ? (size_t)(dot - key) : 0, j;

			if (!len || len >= SUGGEST_MAX)
				continue;
			for (j = 0; j < n; j++)
				if (!strncmp(names[j], key, len) &&
				    !names[j][len])
					break;
			if (j < n || n == sizeof(names) / sizeof(names[0]))
				continue;
			memcpy(names[n], key, len);
			names[n++][len] = '\0';
		}
	}
	for (size_t j = 0; j < n; j++)
		suggest_add(s, names[j]);
	suggest_add(s, "validation");
}

void suggest_add_strategies(struct suggest *s)
{
	const char *name;

	for (int k = 0;
	     (name = hvtlb_strategy_name((enum hvtlb_strategy_kind)k)); k++)
		suggest_add(s, name);
}
