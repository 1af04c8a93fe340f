/* SPDX-License-Identifier: MIT */
/*
 * Where the tool finds the files it ships: profiles/, scenarios/ and
 * validation/ (installed under PREFIX/share/hvtlb, at the top of the
 * source tree).
 *
 * A path the user gives is used as given. For everything else the data
 * directory is the first of
 *   1. $HVTLB_DATA_DIR, when set and not empty;
 *   2. the source tree, when this program runs from the build tree it was
 *      built in (so an uninstalled build never reads an installed copy
 *      of another version, and an installed one never reads the tree);
 *   3. the installed data directory: first as found from the program's own
 *      location (bindir/../share/hvtlb, so a moved installation keeps
 *      working), then the configured PREFIX/share/hvtlb.
 * Nothing here keeps state: every call looks again, from any thread.
 */
#ifndef HVTLB_TOOL_DATADIR_H
#define HVTLB_TOOL_DATADIR_H

/**
 * Returns the data directory as a string to free(), or NULL (out of
 * memory): canonical (no "..", "." or symbolic link: PREFIX/share/hvtlb,
 * never PREFIX/bin/../share/hvtlb) when it exists, as given when it does
 * not, since callers report what they fail to open.
 */
char *datadir_get(void);

/**
 * Returns DATA/@p sub (e.g. "validation") as a string to free(), or NULL
 * (out of memory).
 */
char *datadir_path(const char *sub);

/**
 * Finds the shipped file @p name in DATA/@p sub: "sub/name" when @p name
 * ends in ".ini", else "sub/name.ini". Returns its path, to free(), if it is
 * a readable regular file; NULL otherwise (errno ENOENT, or ENOMEM). A
 * @p name with a '/' is a path, never looked up here (ENOENT).
 */
char *datadir_find(const char *sub, const char *name);

#endif
