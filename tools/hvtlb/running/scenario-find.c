// SPDX-License-Identifier: MIT
/* Where scenario and profile files are found, and the hints when a name
 * finds none (scenario-find.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datadir.h"
#include "scenario-find.h"
#include "scenario.h"
#include "suggest.h"

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

char *scenario_join(const char *a, const char *b, const char *c)
{
	size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
	char *r = malloc(n);

	if (r)
		snprintf(r, n, "%s%s%s", a, b, c);
	return r;
}

/* A regular file we may read (not a directory, device or pipe). */
static bool is_readable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, R_OK) == 0;
}

/* @p path (to free) resolved, so that messages name the profile as
 * PREFIX/share/hvtlb/profiles/x.ini, not .../scenarios/../profiles/x.ini;
 * as it was when it does not resolve. */
static char *canonical_path(char *path)
{
	char buf[PATH_MAX], *c;

	if (!path || !realpath(path, buf) || !(c = strdup(buf)))
		return path;
	free(path);
	return c;
}

/*
 * Finds the profile file for @p name; NULL if none is readable. A path
 * (a '/' or a name ending in .ini) is taken relative to the scenario's
 * directory. A bare name is NAME.ini in the profiles/ folder beside the
 * scenario's folder or inside it (a tree of one's own, laid out like the
 * shipped one), else the shipped profile of that name (datadir.h).
 */
char *scenario_resolve_profile(const char *name, const char *scenario_path)
{
	size_t n = strlen(name);
	char *dir = scenario_path ? dir_of(scenario_path) : strdup(".");
	char *cand[2] = { NULL };
	char *found = NULL;

	if (!dir)
		return NULL;
	if (strchr(name, '/') || (n > 4 && !strcmp(name + n - 4, ".ini"))) {
		cand[0] = name[0] == '/' ? strdup(name)
					 : scenario_join(dir, "/", name);
		cand[1] = strdup(name);
	} else {
		char *file = scenario_join(name, ".ini", "");

		if (file) {
			cand[0] = scenario_join(dir, "/../profiles/", file);
			cand[1] = scenario_join(dir, "/profiles/", file);
		}
		free(file);
	}
	for (size_t i = 0; i < 2; i++) {
		if (!found && cand[i] && is_readable_file(cand[i]))
			found = cand[i];
		else
			free(cand[i]);
	}
	free(dir);
	if (!found && !strchr(name, '/'))
		found = datadir_find("profiles", name);
	return canonical_path(found);
}

/* " (did you mean 'NAME'?)" for the profile nearest to @p name among those
 * scenario_resolve_profile() would find by name, or "". Static storage. */
const char *scenario_suggest_profile(const char *scenario_path,
				     const char *name)
{
	static char names[64][SUGGEST_MAX], hint[SUGGEST_MAX + 32];
	char *dir = scenario_path ? dir_of(scenario_path) : strdup(".");
	char *dirs[3] = { NULL };
	struct suggest sg;
	size_t n = 0;

	if (!dir)
		return "";
	dirs[0] = scenario_join(dir, "/../profiles", "");
	dirs[1] = scenario_join(dir, "/profiles", "");
	dirs[2] = strdup("profiles");
	suggest_init(&sg, name);
	for (size_t i = 0; i < 3; i++) {
		DIR *d = dirs[i] ? opendir(dirs[i]) : NULL;
		struct dirent *de;

		while (d && (de = readdir(d)) && n < 64) {
			size_t len = strlen(de->d_name);

			if (len < 5 || len - 4 >= SUGGEST_MAX ||
			    strcmp(de->d_name + len - 4, ".ini"))
				continue;
			snprintf(names[n], SUGGEST_MAX, "%.*s", (int)(len - 4),
				 de->d_name);
			suggest_add(&sg, names[n++]);
		}
		if (d)
			closedir(d);
		free(dirs[i]);
	}
	free(dir);
	if (!suggest_best(&sg))
		return "";
	snprintf(hint, sizeof(hint), " (did you mean '%s'?)",
		 suggest_best(&sg));
	return hint;
}

/* " (did you mean 'NAME'?)" for the shipped scenario (a NAME.ini of
 * @p dir) nearest to @p name, or "". */
void scenario_suggest_shipped(const char *dir, const char *name, char *hint,
			      size_t len)
{
	char names[64][SUGGEST_MAX + 1];
	size_t n = 0, want = strcspn(name, ".");
	char word[SUGGEST_MAX + 1];
	struct dirent *de;
	struct suggest sg;
	DIR *d;

	hint[0] = '\0';
	d = dir ? opendir(dir) : NULL;
	if (!d)
		return;
	/* "defalt.ini" is compared as "defalt" */
	snprintf(word, sizeof(word), "%.*s", (int)want, name);
	suggest_init(&sg, word);
	while (n < 64 && (de = readdir(d))) {
		size_t k = strlen(de->d_name);

		if (k <= 4 || k - 4 > SUGGEST_MAX ||
		    strcmp(de->d_name + k - 4, ".ini"))
			continue;
		snprintf(names[n], sizeof(names[n]), "%.*s", (int)(k - 4),
			 de->d_name);
		suggest_add(&sg, names[n++]);
	}
	suggest_hint(&sg, hint, len);
	closedir(d);
}

/* workload.trace = FILE: a relative path written in a scenario file is
 * taken from that file's folder, one from the command line (@p ln 0) as
 * it is. The trace is read only when a run needs it (trace-in.c). */
int scenario_set_trace(struct scenario *s, const char *file, unsigned ln,
		       const char *value)
{
	const char *slash = file && ln ? strrchr(file, '/') : NULL;
	char *path, *dir;

	if (value[0] != '/' && slash) {
		dir = strndup(file, (size_t)(slash - file) + 1);
		path = dir ? scenario_join(dir, "", value) : NULL;
		free(dir);
	} else {
		path = strdup(value);
	}
	free(s->trace_path);
	free(s->trace_at.key);
	free(s->trace_at.value);
	free(s->trace_at.file);
	s->trace_path = path;
	s->trace_at = (struct scenario_setting){
		.key = strdup("workload.trace"),
		.value = strdup(value),
		/* --set 'workload.trace=F' is named as --set names keys */
		.file = strdup(!ln && !strncmp(file, "--set", 5) ? "--set"
								 : file),
		.line = ln,
	};
	return path && s->trace_at.key && s->trace_at.value && s->trace_at.file
		       ? 0
		       : -ENOMEM;
}
