#!/usr/bin/env bash
# The main job: build the tool and simulate the default scenario (IPI
# shootdown vs the Hyper-V hypercall flush), every figure with its
# p5 / p50 / p95 band over 64 draws of the uncertain costs (about 10 s of
# CPU). Extra arguments go to `hvtlb sim`, e.g. scripts/run.sh --json,
# --set vm.vcpus=64 or --uncertainty 16 (fewer draws).
# Progress (packages, configuring, ninja's [N/M] steps: one line that
# rewrites itself on a terminal, a line per step otherwise) goes to stderr,
# so stdout holds only the simulation's output.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh run >&2
if [ ! -f build-run/build.ninja ]; then
    echo "run: configuring build-run (meson setup)" >&2
    log=$(mktemp)
    meson setup build-run --buildtype=release -Dtests=false -Dbenchmarks=false \
        >"$log" 2>&1 || { cat "$log" >&2; rm -f "$log"; exit 1; }
    rm -f "$log"
fi
echo "run: building hvtlb (ninja -C build-run)" >&2
ninja -C build-run >&2
bands=(--uncertainty 64)
for a in "$@"; do
    case $a in --uncertainty | --uncertainty=*) bands=() ;; esac
done
exec build-run/tools/hvtlb/hvtlb sim scenarios/default.ini "${bands[@]}" "$@"
