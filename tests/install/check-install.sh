#!/usr/bin/env bash
# hvtlb installs and runs anywhere, on a machine that has only what the
# tool needs. From a copy of the tracked tree, with cmocka hidden (a
# pkg-config directory holding every .pc file but cmocka.pc, and no CMake,
# through which Meson would find it too):
#   - a plain `meson setup` (the default -Dtests=auto) configures, with the
#     tests left out;
#   - the README's install lines, run exactly as written but for the
#     prefix, build only what they install and install it into a temporary
#     prefix;
# then delete the copy (source and build tree: nothing the binary was built
# from exists any more), and from another directory run the tool on its
# installed data, build the examples through pkg-config against the shared
# and the static library, and run the tool again after moving the whole
# prefix elsewhere.
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

step "hide cmocka"
mkdir "$tmp/pkgconfig"
pc_path=$(pkg-config --variable pc_path pkg-config)
IFS=: read -r -a pc_dirs <<<"${PKG_CONFIG_PATH:-}:$pc_path"
for d in "${pc_dirs[@]}"; do
    [ -n "$d" ] && [ -d "$d" ] || continue
    for f in "$d"/*.pc; do
        [ -e "$f" ] || continue
        b=${f##*/}
        if [ "$b" != cmocka.pc ] && [ ! -e "$tmp/pkgconfig/$b" ]; then
            ln -s "$f" "$tmp/pkgconfig/$b"
        fi
    done
done
export PKG_CONFIG_LIBDIR=$tmp/pkgconfig
unset PKG_CONFIG_PATH
# Meson takes $CMAKE as the CMake binary and then tries no other.
export CMAKE=$tmp/no-cmake
! pkg-config --exists cmocka || fail "pkg-config still finds cmocka"
export CC=$cc

step "meson setup with the default options configures without cmocka"
meson setup "$tmp/src/build-auto" "$tmp/src" >"$tmp/setup-auto.log" 2>&1 ||
    { tail -n 30 "$tmp/setup-auto.log"; fail "meson setup (-Dtests=auto) without cmocka"; }
grep -q 'Run-time dependency cmocka found: NO' "$tmp/setup-auto.log" ||
    { grep -i cmocka "$tmp/setup-auto.log"; fail "could not hide cmocka from Meson"; }
grep -q 'tests (meson test) *: off (cmocka not found' "$tmp/setup-auto.log" ||
    fail "the summary does not say the tests are off for want of cmocka"
tests=$(meson test -C "$tmp/src/build-auto" --no-rebuild --list 2>&1 || true)
[ "$tests" = "No tests defined." ] ||
    { echo "$tests" | head -n 5; fail "tests registered without cmocka"; }
rm -rf "$tmp/src/build-auto"

# The README's install block: the first ```sh block after its heading
# "## Installing", with /usr/local replaced by the temporary prefix.
readme_install=$(awk '/^## Installing/ { s = 1 }
    s == 1 && /^```sh$/ { s = 2; next }
    s == 2 && /^```$/ { exit }
    s == 2 { print }' "$tmp/src/README.md")
case $readme_install in
*--prefix=/usr/local*) ;;
*) echo "$readme_install"; fail "README.md: no install block with --prefix=/usr/local" ;;
esac
readme_install=${readme_install//--prefix=\/usr\/local/--prefix=$tmp/prefix}
step "the README's install lines, into $tmp/prefix:"
echo "$readme_install"
start=$(date +%s)
(cd "$tmp/src" && bash -euo pipefail -c "$readme_install") >"$tmp/install.log" 2>&1 ||
    { tail -n 30 "$tmp/install.log"; fail "the README's install lines"; }
end=$(date +%s)
build=$tmp/src/build
[ -f "$build/build.ninja" ] || fail "the README's install lines made no $build"
# Every step ninja ran is one an installed file needs: the commands of the
# default target are those of the installed outputs (the build's own
# pkg-config file is written by meson setup).
mapfile -t outs < <(meson introspect "$build" --installed |
    python3 -c 'import json, os, sys
b = os.path.realpath(sys.argv[1]) + "/"
for f in json.load(sys.stdin):
    r = os.path.realpath(f)
    if r.startswith(b) and not r.startswith(b + "meson-private/"):
        print(os.path.relpath(r, b))' "$build")
[ ${#outs[@]} -gt 0 ] || fail "meson introspect lists no installed output"
ninja -C "$build" -t commands all | sort >"$tmp/all.cmds"
ninja -C "$build" -t commands "${outs[@]}" | sort -u >"$tmp/installed.cmds"
if ! diff "$tmp/installed.cmds" <(sort -u "$tmp/all.cmds") >"$tmp/extra.cmds"; then
    echo "$(grep -c '^>' "$tmp/extra.cmds") of $(wc -l <"$tmp/all.cmds") steps" \
        "make nothing that is installed, e.g.:"
    grep '^>' "$tmp/extra.cmds" | cut -c1-160 | head -n 20
    fail "the install lines build more than they install (above)"
fi
echo "built $(wc -l <"$tmp/all.cmds") steps, all needed by what is installed;" \
    "setup, build and install took $((end - start)) s"
rm -rf "$tmp/src"

prefix=$tmp/prefix
pc=$(find "$prefix" -name hvtlb.pc | head -n 1)
[ -n "$pc" ] || fail "no hvtlb.pc installed"
libdir=$(dirname "$(dirname "$pc")")
for f in bin/hvtlb share/hvtlb/profiles/kvm-2018.ini \
    share/hvtlb/scenarios/default.ini share/hvtlb/json/sim.schema.json \
    share/hvtlb/json/tool.schema.json \
    share/hvtlb/validation/seed000-hyperv-16vcpu.ini \
    share/bash-completion/completions/hvtlb.bash \
    share/zsh/site-functions/_hvtlb \
    share/fish/vendor_completions.d/hvtlb.fish \
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
step "hvtlb --version"
"$hvtlb" --version >version.txt || fail "hvtlb --version"
grep -q '[0-9]\.[0-9]' version.txt || fail "hvtlb --version printed no version"
# The copy has no .git: the build says so rather than failing or naming
# another repository's commit.
grep -q '(commit unknown)$' version.txt ||
    fail "hvtlb --version from a tree without git: $(cat version.txt)"
step "hvtlb scenarios --json: schema, version, canonical paths"
"$hvtlb" scenarios --json >scenarios.json || fail "hvtlb scenarios --json"
python3 - "$prefix" scenarios.json <<'EOF' || fail "hvtlb scenarios --json (above)"
import json, os, sys
with open(sys.argv[2]) as f:
    d = json.load(f)
assert d["schema"] == 1 and d["hvtlb"]["commit"] == "unknown", d["hvtlb"]
share = os.path.realpath(sys.argv[1]) + "/share/hvtlb/scenarios/"
bad = [s["file"] for s in d["scenarios"] if not s["file"].startswith(share)
       or os.path.realpath(s["file"]) != s["file"]]
assert d["scenarios"] and not bad, bad
EOF
step "hvtlb sim default --set workload.iterations=3"
"$hvtlb" sim default --set workload.iterations=3 >out.txt ||
    fail "hvtlb sim default --set workload.iterations=3"
grep -q 'ipi / hyperv' out.txt || fail "hvtlb sim default printed no ratio"
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
"$tmp/moved/bin/hvtlb" scenarios --json | grep -q "\"$(realpath "$tmp/moved")/share/hvtlb/scenarios/default.ini\"" ||
    fail "a moved prefix: scenarios --json does not show PREFIX/share/hvtlb canonical"
echo "installed, ran from $tmp/elsewhere with the source tree gone, built the examples"
