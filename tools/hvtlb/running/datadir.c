// SPDX-License-Identifier: MIT
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datadir.h"

/* Set by tools/hvtlb/meson.build; the fallbacks only let a lone file
 * compile (a program built so finds nothing but $HVTLB_DATA_DIR). */
#ifndef HVTLB_SOURCE_ROOT
#define HVTLB_SOURCE_ROOT ""
#endif
#ifndef HVTLB_BUILD_ROOT
#define HVTLB_BUILD_ROOT ""
#endif
#ifndef HVTLB_BINDIR
#define HVTLB_BINDIR ""
#endif
#ifndef HVTLB_DATADIR
#define HVTLB_DATADIR ""
#endif
#ifndef HVTLB_DATADIR_FROM_BINDIR
#define HVTLB_DATADIR_FROM_BINDIR ""
#endif

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The directory this program was loaded from, resolved; false when the
 * system does not say (no /proc). */
static bool exe_dir(char out[PATH_MAX])
{
	char *slash;

	if (!realpath("/proc/self/exe", out))
		return false;
	slash = strrchr(out, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return true;
}

/* @p dir lies in @p root (both resolved). */
static bool inside(const char *dir, const char *root)
{
	size_t n = strlen(root);

	return n && !strncmp(dir, root, n) && (dir[n] == '/' || !dir[n]);
}

/* This program runs from the build tree it was built in, and not from an
 * installation that happens to lie inside it. */
static bool uninstalled(const char *dir)
{
	char build[PATH_MAX], bindir[PATH_MAX];

	if (!realpath(HVTLB_BUILD_ROOT, build) || !inside(dir, build))
		return false;
	return !(realpath(HVTLB_BINDIR, bindir) && !strcmp(dir, bindir));
}

/* @p dir resolved (no "..", ".", or symbolic links), as every path the
 * tool shows should read; as given when it does not resolve (a directory
 * that is not there, whose lookups fail and say so with the path). */
static char *canonical(const char *dir)
{
	char buf[PATH_MAX];

	return strdup(realpath(dir, buf) ? buf : dir);
}

char *datadir_get(void)
{
	const char *env = getenv("HVTLB_DATA_DIR");
	char dir[PATH_MAX], moved[PATH_MAX + sizeof(HVTLB_DATADIR_FROM_BINDIR)];
	bool have_dir;

	if (env && *env)
		return canonical(env);
	have_dir = exe_dir(dir);
	if (have_dir && uninstalled(dir))
		return canonical(HVTLB_SOURCE_ROOT);
	if (have_dir && *HVTLB_DATADIR_FROM_BINDIR) {
		/* BINDIR/../share/hvtlb: shown as PREFIX/share/hvtlb */
		snprintf(moved, sizeof(moved), "%s/%s", dir,
			 HVTLB_DATADIR_FROM_BINDIR);
		if (is_dir(moved))
			return canonical(moved);
	}
	return canonical(HVTLB_DATADIR);
}

char *datadir_path(const char *sub)
{
	char *dir = datadir_get(), *path;
	size_t n;

	if (!dir)
		return NULL;
	n = strlen(dir) + strlen(sub) + 2;
	path = malloc(n);
	if (path)
		snprintf(path, n, "%s/%s", dir, sub);
	free(dir);
	return path;
}

char *datadir_find(const char *sub, const char *name)
{
	size_t len = strlen(name);
	bool ini = len > 4 && !strcmp(name + len - 4, ".ini");
	char *dir = datadir_path(sub), *path;
	struct stat st;
	size_t n;

	if (!dir) {
		errno = ENOMEM;
		return NULL;
	}
	if (strchr(name, '/')) { /* a path, not a name */
		free(dir);
		errno = ENOENT;
		return NULL;
	}
	n = strlen(dir) + len + sizeof("/.ini");
	path = malloc(n);
	if (!path) {
		free(dir);
		errno = ENOMEM;
		return NULL;
	}
	snprintf(path, n, "%s/%s%s", dir, name, ini ? "" : ".ini");
	free(dir);
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, R_OK) == 0)
		return path;
	free(path);
	errno = ENOENT;
	return NULL;
}
