#!/usr/bin/env bash
# The main job: build the tool and simulate the default scenario (IPI
# shootdown vs the Hyper-V hypercall flush), every figure with its
# p5 / p50 / p95 band over 64 draws of the uncertain costs (about 10 s of
# CPU). Extra arguments go to `hvtlb sim`, e.g. scripts/run.sh --json,
# --set vm.vcpus=64 or --uncertainty 16 (fewer draws).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh run
[ -f build-run/build.ninja ] ||
    meson setup build-run --buildtype=release -Dtests=false -Dbenchmarks=false >/dev/null
ninja -C build-run >/dev/null
bands=(--uncertainty 64)
for a in "$@"; do
    case $a in --uncertainty | --uncertainty=*) bands=() ;; esac
done
exec build-run/tools/hvtlb/hvtlb sim scenarios/default.ini "${bands[@]}" "$@"
