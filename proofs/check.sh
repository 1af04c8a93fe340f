#!/bin/sh
# Model-checks every Promela model in proofs/ with Spin.
#
# For each model M.pml: the model as written must verify (no assertion
# violation, no invalid end state; then its LTL claim `live` under weak
# fairness, pan -a -f: no acceptance cycle), and each fault variant
# listed on the model's "Variants:" line (spin -DFAULT_... ) must yield at
# least one error, and so must each variant on its "Liveness variants:"
# line under the claim `live` (pan -a -f). Prints one line per run with
# pan's figures.
#
# Usage: proofs/check.sh [--trails] [MODEL.pml...]
#   --trails  also search each variant's shortest counterexample
#             (pan -i) and print it with spin -t -p
# Exit status: 0 all as expected, 1 some run was not, 77 Spin missing.
# Needs spin and cc. Runs pan with nice and a memory bound (MEMLIM, MiB);
# PAN_OPT sets the optimisation of pan (default -O0).
set -u
if ! command -v spin >/dev/null 2>&1; then
    echo "SKIP: spin is not installed (Debian package spin)"
    exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
trails=0
[ "${1:-}" = --trails ] && { trails=1; shift; }
cc=${CC:-cc}
memlim=${MEMLIM:-2048}
# pan compiles 5 times faster unoptimised and the runs here are short
popt=${PAN_OPT:--O0}
work=$(mktemp -d "${TMPDIR:-/tmp}/hvtlb-proofs.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ $# -gt 0 ] || set -- "$here"/*.pml
bad=0

# figures FILE: "states=S depth=D time=T" from pan's output
figures() {
    [ -f "$1" ] || { echo "(no output)"; return; }
    s=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$1" | head -1)
    d=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' "$1" | head -1)
    t=$(sed -n 's/^pan: elapsed time \([0-9.e+]*\).*/\1/p' "$1" | head -1)
    e=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$1" | head -1)
    echo "states=${s:-?} depth=${d:-?} time=${t:-?}s errors=${e:-?}"
}

# run NAME PML DEFINE MODE: builds and runs pan in its own directory;
# MODE safety or live. Leaves pan's output in $dir/out.
run() {
    dir=$work/$1
    mkdir -p "$dir"
    cp "$2" "$dir/model.pml"
    (
        cd "$dir" || exit 2
        spin $3 -a model.pml >spin.out 2>&1 || { cat spin.out >&2; exit 2; }
        if [ "$4" = live ]; then
            nice -n 10 "$cc" -w $popt -DMEMLIM="$memlim" -DNFAIR=3 \
                -o pan pan.c || exit 2
            nice -n 10 ./pan -m1000000 -a -f -N live >out 2>&1
        else
            nice -n 10 "$cc" -w $popt -DMEMLIM="$memlim" -DNOCLAIM \
                -DSAFETY -o pan pan.c || exit 2
            nice -n 10 ./pan -m1000000 >out 2>&1
        fi
    ) || { echo "$1: could not build pan" >&2; return 2; }
    grep -q 'errors: ' "$dir/out" || { cat "$dir/out" >&2; return 2; }
    sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$dir/out" | head -1
}

for pml in "$@"; do
    m=$(basename "$pml" .pml)
    # The correct model: safety, then liveness if it states one.
    e=$(run "$m" "$pml" "" safety)
    if [ "$e" = 0 ]; then
        echo "ok   $m safety: $(figures "$work/$m/out")"
    else
        echo "FAIL $m safety: $(figures "$work/$m/out")"
        grep -E 'assertion|invalid end|error' "$work/$m/out" | head -5
        bad=1
    fi
    if grep -q '^ltl live' "$pml"; then
        e=$(run "$m-live" "$pml" "" live)
        if [ "$e" = 0 ]; then
            echo "ok   $m liveness (weak fairness): $(figures "$work/$m-live/out")"
        else
            echo "FAIL $m liveness: $(figures "$work/$m-live/out")"
            bad=1
        fi
    fi
    # Each liveness variant must be refuted under weak fairness.
    for v in $(sed -n 's/^ \* Liveness variants: *//p' "$pml"); do
        e=$(run "$m-$v" "$pml" "-D$v" live)
        if [ -n "$e" ] && [ "$e" -gt 0 ] 2>/dev/null; then
            echo "ok   $m -D$v refuted (liveness): $(figures "$work/$m-$v/out")"
        else
            echo "FAIL $m -D$v: no liveness counterexample: $(figures "$work/$m-$v/out")"
            bad=1
        fi
    done
    # Each variant must be refuted.
    for v in $(sed -n 's/^ \* Variants: *//p' "$pml"); do
        e=$(run "$m-$v" "$pml" "-D$v" safety)
        if [ -n "$e" ] && [ "$e" != 0 ] && [ "$e" -gt 0 ] 2>/dev/null; then
            echo "ok   $m -D$v refuted: $(figures "$work/$m-$v/out")"
        else
            echo "FAIL $m -D$v: no counterexample: $(figures "$work/$m-$v/out")"
            bad=1
            continue
        fi
        if [ $trails = 1 ]; then
            d=$work/$m-$v
            (cd "$d" && nice -n 10 "$cc" -w $popt -DMEMLIM="$memlim" -DNOCLAIM \
                -DSAFETY -DREACH -o pan-short pan.c &&
                nice -n 10 ./pan-short -m1000000 -i >short 2>&1 &&
                echo "---- shortest trail of $m -D$v" &&
                spin -D"$v" -t -p model.pml | grep -vE '^ *$|^spin: trail ends|^[0-9]+ processes created')
        fi
    done
done
exit $bad
