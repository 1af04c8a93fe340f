#!/usr/bin/env bash
# Every test, from a fresh Debian 12 machine: installs what is missing, then
# builds and runs
#   build-test/normal   gcc, all suites (unit, sim, fuzz corpus replay, abi,
#                       install: an installed copy run with the source tree
#                       gone, mutants, proofs: the Spin models in proofs/),
#                       then the unit suite again under
#                       valgrind
#   build-test/asan     clang, ASan+UBSan, all suites but abi, install,
#                       mutants and proofs (no library code in them);
#                       also builds the libFuzzer targets (-Dlibfuzzer=true)
#   build-test/tsan     clang, TSan, the threaded (sim) suite
#   build-test/release  gcc, -Db_ndebug=true, unit suite
# and ends with one line "N passed, N failed" summed over all of them.
# Every build has -Dwerror=true: a compiler warning fails it, and
# -Dtests=true: without cmocka a build fails to configure rather than
# quietly leaving its tests out (the default, auto, would); the normal
# build also has -Dbenchmarks=true, so the benchmarks always compile.
# The `fidelity` suite (published results, hvtlb reproduce) is not run here:
# see tests/scenario/meson.build.
# HVTLB_TEST_BUILDS="normal asan" limits the builds.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh test || { echo "0 passed, 1 failed"; exit 1; }

builds=${HVTLB_TEST_BUILDS:-normal asan tsan release}
root=build-test
logs=()
status=0
broken=0 # builds that did not configure or compile: each counts as a failure

setup() { # dir, compiler, meson args...
    local dir=$1 compiler=$2
    shift 2
    # An existing build directory gets the options too (an old one may
    # predate -Dwerror=true).
    if [ ! -f "$root/$dir/build.ninja" ]; then
        CC=$compiler meson setup "$root/$dir" -Dwerror=true -Dtests=true "$@" \
            >"$root/$dir.setup.log" 2>&1
    else
        meson configure "$root/$dir" -Dwerror=true -Dtests=true "$@" \
            >"$root/$dir.setup.log" 2>&1
    fi || { cat "$root/$dir.setup.log"; return 1; }
    ninja -C "$root/$dir" >"$root/$dir.build.log" 2>&1 ||
        { tail -n 60 "$root/$dir.build.log"; return 1; }
}

run() { # dir, meson test args... (--setup NAME first, if any)
    local dir=$1 log=testlog.json
    shift
    [ "${1:-}" = --setup ] && log=testlog-$2.json
    rm -f "$root/$dir/meson-logs/$log" # never count a stale log
    echo "== $dir: meson test $*"
    meson test -C "$root/$dir" --print-errorlogs --num-processes 2 "$@" | tail -n 25 ||
        status=1
    [ -f "$root/$dir/meson-logs/$log" ] && logs+=("$root/$dir/meson-logs/$log")
}

mkdir -p "$root"
for b in $builds; do
    case $b in
    normal)
        if setup normal gcc -Dbenchmarks=true; then
            run normal --no-suite fidelity
            run normal --setup valgrind --suite unit
        else
            broken=$((broken + 1))
        fi ;;
    asan)
        # Timeouts are set for the normal build; under ASan+UBSan the
        # engine runs about 5x slower (validation-ratchet: 592 s of its
        # 1200 on an idle 2-core machine, a timeout when another job
        # shared it), hence the multiplier.
        setup asan clang -Db_sanitize=address,undefined -Db_lundef=false \
            -Dbenchmarks=false -Dlibfuzzer=true &&
            run asan --timeout-multiplier 3 --no-suite abi --no-suite install \
                --no-suite fidelity --no-suite mutants --no-suite proofs ||
            broken=$((broken + 1)) ;;
    tsan)
        setup tsan clang -Db_sanitize=thread -Db_lundef=false \
            -Dbenchmarks=false -Dstress_threads=64 && run tsan --suite sim ||
            broken=$((broken + 1)) ;;
    release)
        setup release gcc --buildtype=release -Db_ndebug=true \
            -Dbenchmarks=false && run release --suite unit || broken=$((broken + 1)) ;;
    *) echo "unknown build $b"; status=1 ;;
    esac
done

python3 scripts/count-tests.py --broken-builds "$broken" "${logs[@]}" || status=1
exit $status
