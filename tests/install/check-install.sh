#!/usr/bin/env bash
# hvtlb installs and runs anywhere. From a copy of the tracked tree: build,
# install into a temporary prefix, delete the copy (source and build tree:
# nothing the binary was built from exists any more), then from another
# directory run the tool on its installed data, build the examples through
# pkg-config against the shared and the static library, and run the tool
# again after moving the whole prefix elsewhere.
# Usage: check-install.sh SOURCE_ROOT CC
set -euo pipefail
src=$1 cc=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset HVTLB_DATA_DIR

step() { echo "== $*"; }
fail() { echo "FAIL: $*"; exit 1; }

mkdir "$tmp/src"
(cd "$src" && git ls-files -z | xargs -0 cp --parents -t "$tmp/src") ||
    fail "could not copy the tracked tree"
cp -r "$tmp/src/examples" "$tmp/examples"
step "build and install into $tmp/prefix"
CC=$cc meson setup "$tmp/build" "$tmp/src" --prefix="$tmp/prefix" \
    -Dtests=false -Dbenchmarks=false -Dkvm=disabled >"$tmp/setup.log" 2>&1 ||
    { tail -n 30 "$tmp/setup.log"; fail "meson setup"; }
ninja -C "$tmp/build" >"$tmp/build.log" 2>&1 ||
    { tail -n 30 "$tmp/build.log"; fail "ninja"; }
meson install -C "$tmp/build" >"$tmp/install.log" 2>&1 ||
    { tail -n 30 "$tmp/install.log"; fail "meson install"; }
rm -rf "$tmp/src" "$tmp/build"

prefix=$tmp/prefix
pc=$(find "$prefix" -name hvtlb.pc | head -n 1)
[ -n "$pc" ] || fail "no hvtlb.pc installed"
libdir=$(dirname "$(dirname "$pc")")
for f in bin/hvtlb share/hvtlb/profiles/kvm-2018.ini \
    share/hvtlb/scenarios/default.ini \
    share/hvtlb/validation/seed000-hyperv-16vcpu.ini \
    include/hvtlb/sim.h; do
    [ -f "$prefix/$f" ] || fail "not installed: $f"
done
for f in libhvtlb.a libhvtlb.so; do
    [ -e "$libdir/$f" ] || fail "not installed: $libdir/$f"
done
if command -v scdoc >/dev/null; then # the build makes man pages with it
    for f in share/man/man1/hvtlb.1 share/man/man1/hvtlb-sim.1 \
        share/man/man5/hvtlb-scenario.5; do
        [ -f "$prefix/$f" ] || fail "not installed: $f"
    done
fi
[ ! -e "$prefix/share/hvtlb/validation/passing.txt" ] ||
    fail "installed the CI ratchet validation/passing.txt"

mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere"
hvtlb=$prefix/bin/hvtlb
step "hvtlb sim default (a shipped scenario by name)"
"$hvtlb" sim default --set workload.iterations=20 >out.txt ||
    fail "hvtlb sim default"
grep -q 'ipi / hyperv' out.txt || fail "hvtlb sim default printed no ratio"
step "a scenario copied here finds the installed profile"
cp "$prefix/share/hvtlb/scenarios/kvm-12on12.ini" mine.ini
"$hvtlb" sim mine.ini --set workload.iterations=5 >/dev/null ||
    fail "hvtlb sim on a copied scenario"
"$hvtlb" sim mine.ini --set profile=hyperv-2016 --set workload.iterations=5 \
    >/dev/null || fail "--set profile=NAME on a copied scenario"
step "hvtlb reproduce --iterations 5"
"$hvtlb" reproduce --iterations 5 >/dev/null || fail "hvtlb reproduce"
step "hvtlb validate --quick --uncertainty 2"
"$hvtlb" validate --quick --uncertainty 2 >validate.txt ||
    fail "hvtlb validate"
grep -q 'seed000-hyperv-16vcpu' validate.txt ||
    fail "hvtlb validate did not run the installed cases"

step "the examples through pkg-config"
export PKG_CONFIG_PATH=$libdir/pkgconfig
read -r -a cflags <<<"$(pkg-config --cflags hvtlb)"
read -r -a libs <<<"$(pkg-config --libs hvtlb)"
# What libhvtlb.a needs besides itself.
read -r -a static_libs <<<"$(pkg-config --static --libs-only-l hvtlb |
    sed 's/-lhvtlb//')"
for ex in guest-flush host-decode; do
    "$cc" -std=c11 "${cflags[@]}" -o "$ex" "$tmp/examples/$ex.c" "${libs[@]}" \
        -Wl,-rpath,"$libdir" || fail "$ex does not build against libhvtlb.so"
    "./$ex" >/dev/null || fail "$ex (shared) failed"
    "$cc" -std=c11 "${cflags[@]}" -o "$ex-static" "$tmp/examples/$ex.c" \
        "$libdir/libhvtlb.a" "${static_libs[@]}" ||
        fail "$ex does not build against libhvtlb.a"
    "./$ex-static" >/dev/null || fail "$ex (static) failed"
done

step "the whole prefix moved elsewhere"
mv "$prefix" "$tmp/moved"
"$tmp/moved/bin/hvtlb" sim default --set workload.iterations=20 >/dev/null ||
    fail "hvtlb sim default from a moved prefix"
echo "installed, ran from $tmp/elsewhere with the source tree gone, built the examples"
