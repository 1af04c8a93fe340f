#!/usr/bin/env bash
# Each public header compiles on its own as C99 -pedantic -Werror and as
# C++ (when a C++ compiler is installed).
set -euo pipefail
cc=$1 incdir=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cxx=
for c in c++ g++ clang++; do command -v $c >/dev/null && { cxx=$c; break; }; done
n=0
for h in "$@"; do
    name=$(basename "$h")
    printf '#include <hvtlb/%s>\n#include <hvtlb/%s>\nint main(void) { return 0; }\n' \
        "$name" "$name" >"$tmp/t.c"
    $cc -std=c99 -pedantic -Werror -Wall -Wextra -I"$incdir" -c "$tmp/t.c" -o "$tmp/t.o"
    if [ -n "$cxx" ]; then
        cp "$tmp/t.c" "$tmp/t.cc"
        $cxx -std=c++11 -pedantic -Werror -Wall -Wextra -I"$incdir" -c "$tmp/t.cc" -o "$tmp/t.o"
    fi
    n=$((n + 1))
done
echo "$n headers compile alone as C99${cxx:+ and C++ ($cxx)}"
