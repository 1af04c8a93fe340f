#!/usr/bin/env bash
# The shared library exports exactly the symbols listed in the version
# script: nothing private leaks, nothing listed is missing.
set -euo pipefail
so=$1 map=$2
want=$(sed -n '/global:/,/local:/p' "$map" | grep -E '^\s*[A-Za-z_][A-Za-z0-9_]*;' |
    tr -d ' \t;' | sort -u)
got=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRW]$/ {print $3}' | sed 's/@.*//' |
    grep -v '^HVTLB_' | sort -u)
if [ "$want" != "$got" ]; then
    echo "exported symbols differ from $map (< map only, > .so only):"
    diff <(echo "$want") <(echo "$got") || true
    exit 1
fi
echo "$(echo "$got" | wc -l) symbols exported, as listed"
