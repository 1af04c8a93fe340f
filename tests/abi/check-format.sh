#!/usr/bin/env bash
# Every C file follows .clang-format (clang-format 14). Skips (77) when
# clang-format is not installed.
set -euo pipefail
cd "$1"
command -v clang-format >/dev/null || { echo "no clang-format"; exit 77; }
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find include src tools tests fuzz bench examples -name '*.[ch]')
bad=0
for f in $files; do
    clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || { echo "not formatted: $f"; bad=1; }
done
exit $bad
