#!/usr/bin/env bash
# The main job: build the tool and simulate the default scenario (IPI
# shootdown vs the Hyper-V hypercall flush). Extra arguments go to
# `hvtlb sim`, e.g. scripts/run.sh --json or --set vm.vcpus=64.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh run
[ -f build-run/build.ninja ] ||
    meson setup build-run --buildtype=release -Dtests=false -Dbenchmarks=false >/dev/null
ninja -C build-run >/dev/null
exec build-run/tools/hvtlb/hvtlb sim scenarios/default.ini "$@"
