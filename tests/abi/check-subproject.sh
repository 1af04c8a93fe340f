#!/usr/bin/env bash
# hvtlb builds as a Meson subproject and dependency('hvtlb') finds it.
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
ninja -C "$tmp/b" >"$tmp/build.log" 2>&1 || { tail -n 40 "$tmp/build.log"; exit 1; }
"$tmp/b/consumer"
echo "built and ran a consumer of hvtlb as a subproject"
