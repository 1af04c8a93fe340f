#!/usr/bin/env bash
# A plain `meson test` leaves out the fidelity suite; asking for it by name
# still runs it. Usage: check-default-suites.sh BUILD_DIR
set -euo pipefail
build=$1
plain=$(meson test -C "$build" --no-rebuild --list 2>/dev/null)
asked=$(meson test -C "$build" --no-rebuild --list --suite fidelity 2>/dev/null)
if echo "$plain" | grep ':fidelity /'; then
    echo "a plain meson test runs the fidelity suite (above)"
    exit 1
fi
if ! echo "$asked" | grep -q ':fidelity /'; then
    echo "meson test --suite fidelity lists nothing"
    exit 1
fi
echo "plain meson test: $(echo "$plain" | wc -l) tests, none of suite fidelity"
