#!/usr/bin/env bash
# Every global symbol a layer's archive defines carries the public prefix
# (hvtlb_) or one of the layer's own: a program that links the static
# library beside its own tlb_init() or touch() must not collide with an
# internal name, and a name must say which layer it belongs to.
# Arguments: pairs ARCHIVE 'PREFIX|PREFIX...'.
set -euo pipefail
bad=0
while [ $# -ge 2 ]; do
    lib=$1 prefixes=$2
    shift 2
    # nm prints "VALUE TYPE NAME"; uppercase types are global definitions
    names=$(nm --defined-only "$lib" | awk 'NF == 3 && $2 ~ /^[A-Z]$/ {print $3}' | sort -u)
    stray=$(echo "$names" | grep -vE "^(hvtlb_|HVTLB_|$prefixes)" || true)
    if [ -n "$stray" ]; then
        echo "$(basename "$lib"): globals without the prefix (${prefixes}):"
        echo "$stray" | sed 's/^/  /'
        bad=1
    fi
done
[ $# -eq 0 ] || { echo "usage: check-prefixes.sh (ARCHIVE PREFIXES)..."; exit 2; }
[ $bad -eq 0 ] && echo "every internal global carries its layer's prefix"
exit $bad
