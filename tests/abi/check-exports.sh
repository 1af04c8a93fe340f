#!/usr/bin/env bash
# Both libraries expose exactly the symbols listed in the version script,
# all of them named hvtlb_*: nothing private leaks from the shared library
# or from the static archive, and nothing listed is missing.
# Usage: check-exports.sh MAP LIB...
set -euo pipefail
map=$1
shift
want=$(sed -n '/global:/,/local:/p' "$map" | grep -E '^\s*[A-Za-z_][A-Za-z0-9_]*;' |
    tr -d ' \t;' | sort -u)
if echo "$want" | grep -v '^hvtlb_'; then
    echo "$map lists names without the hvtlb_ prefix (above)"
    exit 1
fi
status=0
for lib in "$@"; do
    case $lib in
    *.a) got=$(nm --defined-only --extern-only "$lib" | awk 'NF == 3 {print $3}' |
        sort -u) ;;
    *) got=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRW]$/ {print $3}' |
        sed 's/@.*//' | grep -v '^HVTLB_' | sort -u) ;;
    esac
    if [ "$want" != "$got" ]; then
        echo "$(basename "$lib"): global symbols differ from $map (< map only, > library only):"
        diff <(echo "$want") <(echo "$got") | head -n 40 || true
        status=1
    else
        echo "$(basename "$lib"): $(echo "$got" | wc -l) global symbols, as listed"
    fi
done
exit $status
