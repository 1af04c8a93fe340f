#!/usr/bin/env bash
# src/hypercall builds with -ffreestanding and needs nothing from libc but
# memcpy and memset, and includes no header but the freestanding ones.
set -euo pipefail
lib=$1 srcdir=$2
# What the objects need from outside the archive (one object may use
# another's hidden symbols: the decoder keeps each host in its own file).
defined=$(nm --defined-only "$lib" | awk 'NF == 3 {print $3}' | sort -u)
undef=$(nm -u "$lib" | awk 'NF {print $2}' | sort -u | grep -vxE 'memcpy|memset' |
    comm -23 - <(echo "$defined") || true)
if [ -n "$undef" ]; then
    echo "src/hypercall needs symbols beyond memcpy/memset:"
    echo "$undef"
    exit 1
fi
bad=$(grep -hE '^\s*#\s*include\s*<' "$srcdir"/*.c "$srcdir"/*.h 2>/dev/null |
    grep -vE '<(stdint|stddef|stdbool)\.h>|<hvtlb/hypercall\.h>' || true)
if [ -n "$bad" ]; then
    echo "src/hypercall includes non-freestanding headers:"
    echo "$bad"
    exit 1
fi
echo "freestanding: only memcpy/memset, only freestanding headers"
