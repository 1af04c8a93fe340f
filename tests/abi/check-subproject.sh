#!/usr/bin/env bash
# hvtlb builds as a Meson subproject, dependency('hvtlb') finds it, and the
# parent gets nothing it did not ask for: no hvtlb test, benchmark or fuzz
# target, and no lookup of cmocka.
set -euo pipefail
src=$1 consumer=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$consumer" "$tmp/consumer"
mkdir -p "$tmp/consumer/subprojects"
# A copy of the tracked tree (a symlink would make Meson see build dirs).
(cd "$src" && git ls-files -z 2>/dev/null | xargs -0 -I{} cp --parents {} "$tmp/consumer/subprojects/" ) ||
    true
if [ ! -f "$tmp/consumer/subprojects/meson.build" ]; then
    echo "could not copy the source tree"; exit 1
fi
mkdir "$tmp/consumer/subprojects/hvtlb"
(cd "$tmp/consumer/subprojects" && find . -mindepth 1 -maxdepth 1 ! -name hvtlb \
    -exec mv {} hvtlb/ \;)
meson setup "$tmp/b" "$tmp/consumer" >"$tmp/setup.log" 2>&1 || { cat "$tmp/setup.log"; exit 1; }
if grep -i cmocka "$tmp/setup.log"; then
    echo "the subproject looked for cmocka (above) though the parent asked for no tests"
    exit 1
fi
ninja -C "$tmp/b" >"$tmp/build.log" 2>&1 || { tail -n 40 "$tmp/build.log"; exit 1; }
"$tmp/b/consumer"
tests=$(meson test -C "$tmp/b" --no-rebuild --list 2>/dev/null)
if [ "$tests" != consumer ]; then
    echo "the parent's meson test lists more than its own test:"
    echo "$tests" | head -n 20
    exit 1
fi
benchmarks=$(meson test -C "$tmp/b" --no-rebuild --benchmark --list 2>/dev/null |
    grep -v '^No tests defined' || true)
if [ -n "$benchmarks" ]; then
    echo "the parent's meson test --benchmark lists hvtlb's benchmarks:"
    echo "$benchmarks" | head -n 20
    exit 1
fi
echo "built and ran a consumer of hvtlb as a subproject; it registers nothing of hvtlb's"
