#!/usr/bin/env bash
# Installs the Debian 12 packages hvtlb needs to build and test, if any is
# missing. Runs apt-get as root (or through sudo). Usage: scripts/deps.sh [run|test]
#   run:  meson, ninja, pkg-config, zlib (enough to build the tool; zlib
#         lets `hvtlb sim --trace FILE.gz` compress)
#   test: also cmocka, clang with its sanitizer runtimes, valgrind, gcovr,
#         scdoc (the man pages, which the tests check), rsvg-convert
#         (renders the plots the CLI tests check), zsh and fish (the
#         completion test runs the scripts in both shells), spin (the
#         proofs suite model-checks proofs/*.pml), libtracecmd-dev,
#         libtracefs-dev and libtraceevent-dev (hvtlb replay reads
#         trace.dat with them)
set -euo pipefail
mode=${1:-test}
pkgs=()
have() { command -v "$1" >/dev/null 2>&1; }
have meson || pkgs+=(meson)
have ninja || pkgs+=(ninja-build)
have pkg-config || pkgs+=(pkg-config)
have cc || pkgs+=(gcc)
pkg-config --exists zlib 2>/dev/null || pkgs+=(zlib1g-dev)
if [ "$mode" = test ]; then
    pkg-config --exists cmocka 2>/dev/null || pkgs+=(libcmocka-dev)
    have clang || pkgs+=(clang)
    ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.tsan-x86_64.a >/dev/null 2>&1 \
        || pkgs+=(libclang-rt-14-dev)
    have valgrind || pkgs+=(valgrind)
    have clang-format || pkgs+=(clang-format)
    have gcovr || pkgs+=(gcovr)
    have scdoc || pkgs+=(scdoc)
    have python3 || pkgs+=(python3)
    have rsvg-convert || pkgs+=(librsvg2-bin)
    have zsh || pkgs+=(zsh)
    have fish || pkgs+=(fish)
    have spin || pkgs+=(spin)
    # libtracecmd.pc requires libtracefs.pc, which Debian's libtracecmd-dev
    # does not pull in: without it Meson finds no libtracecmd.
    pkg-config --exists libtracecmd 2>/dev/null || pkgs+=(libtracecmd-dev)
    pkg-config --exists libtracefs 2>/dev/null || pkgs+=(libtracefs-dev)
    pkg-config --exists libtraceevent 2>/dev/null || pkgs+=(libtraceevent-dev)
fi
[ ${#pkgs[@]} -eq 0 ] && exit 0
echo "deps: installing ${pkgs[*]}" >&2
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
# Nothing on stdout: scripts/run.sh's stdout is the simulation's output.
$sudo apt-get update -qq >&2
$sudo apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null
