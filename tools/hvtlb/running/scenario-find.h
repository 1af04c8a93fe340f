/* SPDX-License-Identifier: MIT */
/*
 * Where scenario and profile files are found, and what to suggest when a
 * name finds none (scenario-find.c). Internal to the scenario reader.
 */
#ifndef HVTLB_TOOL_SCENARIO_FIND_H
#define HVTLB_TOOL_SCENARIO_FIND_H
#include <stddef.h>

/* @p a, @p b and @p c concatenated, to free; NULL without memory. */
char *scenario_join(const char *a, const char *b, const char *c);

/* The profile file for @p name (to free), or NULL if none is readable:
 * a path (a '/' or a name ending in .ini) relative to the directory of
 * @p scenario_path, a bare name as NAME.ini in the profiles/ folder
 * beside that directory or inside it, else the shipped profile. */
char *scenario_resolve_profile(const char *name, const char *scenario_path);

/* " (did you mean 'NAME'?)" for the profile nearest to @p name among those
 * found by name beside @p scenario_path, or "". Static storage. */
const char *scenario_suggest_profile(const char *scenario_path,
				     const char *name);

/* " (did you mean 'NAME'?)" in @p hint (@p len bytes) for the NAME.ini of
 * @p dir nearest to @p name, or "". */
void scenario_suggest_shipped(const char *dir, const char *name, char *hint,
			      size_t len);

struct scenario;
/* workload.trace = FILE (a tool key): s->trace_path resolved (a relative
 * path of a scenario file, @p ln > 0, from that file's folder) and
 * s->trace_at. 0 or -ENOMEM. */
int scenario_set_trace(struct scenario *s, const char *file, unsigned ln,
		       const char *value);

#endif
