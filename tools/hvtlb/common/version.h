/* SPDX-License-Identifier: MIT */
/* What built this program: its version and commit, as `hvtlb --version`
 * and every JSON document's "hvtlb" member say them. */
#ifndef HVTLB_TOOL_VERSION_H
#define HVTLB_TOOL_VERSION_H

/** The project's version (meson.build), e.g. "0.1.0". */
const char *tool_version(void);
/** The commit the tool was built from: 40 hex digits, with "-dirty" when
 *  tracked files had changes, or "unknown" when built outside git. */
const char *tool_commit(void);

#endif
