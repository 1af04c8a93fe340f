#!/bin/sh
# Builds libhvtlb.a as one relocatable object in which only the public API
# is global. Usage:
#   static-archive.sh OUT.a OBJCOPY AR N LAYER1.a ... LAYERN.a CC [ARGS...]
# The layers are hidden-visibility static libraries. A partial link (-r)
# joins them and objcopy --localize-hidden turns every hidden symbol into a
# local one, so a program that links libhvtlb.a sees the names a program
# that links libhvtlb.so sees: those of src/hvtlb.sym. The names the layers
# share among themselves (tlb_init, shootdown, ...) then clash with nothing.
set -eu
[ $# -gt 5 ] || { echo "usage: $0 OUT.a OBJCOPY AR N LAYER.a... CC..." >&2; exit 2; }
out=$1 objcopy=$2 ar=$3 n=$4
shift 4
obj=$out.prelink.o
rm -f "$out" "$obj"
# Rotate the N layers behind the compiler command, between the two flags.
set -- "$@" -Wl,--whole-archive
i=0
while [ "$i" -lt "$n" ]; do
	set -- "$@" "$1"
	shift
	i=$((i + 1))
done
"$@" -Wl,--no-whole-archive -r -nostdlib -o "$obj"
"$objcopy" --localize-hidden "$obj"
"$ar" rcs "$out" "$obj"
rm -f "$obj"
