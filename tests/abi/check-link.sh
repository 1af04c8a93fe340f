#!/usr/bin/env bash
# A program that defines tlb_init (QEMU does) and runs a simulation links
# against libhvtlb.a and against libhvtlb.so, and runs.
# Usage: check-link.sh CC INCLUDE_DIR PROGRAM.c LIB...
set -euo pipefail
cc=$1 inc=$2 prog=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for lib in "$@"; do
    name=$(basename "$lib")
    case $lib in
    *.a) link=("$lib") ;;
    *) link=(-L"$(dirname "$lib")" -l:"$name" -Wl,-rpath,"$(dirname "$lib")") ;;
    esac
    if ! "$cc" -std=c11 -I"$inc" -o "$tmp/prog" "$prog" "${link[@]}" -lpthread -lm \
        >"$tmp/log" 2>&1; then
        echo "$name: a program that defines tlb_init does not link:"
        head -n 20 "$tmp/log"
        status=1
    elif ! "$tmp/prog"; then
        echo "$name: the program linked but failed"
        status=1
    else
        echo "$name: linked and ran a program that defines tlb_init"
    fi
done
exit $status
