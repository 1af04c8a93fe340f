#!/bin/sh
# SPDX-License-Identifier: MIT
# Prints the commit the source tree SOURCE_ROOT is checked out at, with
# "-dirty" when tracked files differ from it; fails (and Meson's vcs_tag
# falls back to "unknown") when SOURCE_ROOT is not the top of a git work
# tree: a tarball, or a copy that happens to lie inside another repository.
# Usage: vcs-commit.sh SOURCE_ROOT
set -eu
root=$(cd "$1" && pwd -P)
top=$(git -C "$root" rev-parse --show-toplevel 2>/dev/null)
[ "$(cd "$top" && pwd -P)" = "$root" ]
git -C "$root" describe --always --dirty --abbrev=40 --exclude='*'
