#!/usr/bin/env python3
"""Sums Meson testlog.json files into one closing line 'N passed, N failed'.

--broken-builds N first adds N failures, one per build that did not
configure or compile (so a broken build never reads as all green).

Skipped tests (exit 77) are counted apart; a log with no test at all, or a
missing log, counts as a failure so that CI never passes on nothing."""
import json
import sys

args = sys.argv[1:]
passed = failed = skipped = 0
if args[:1] == ["--broken-builds"]:
    broken = int(args[1])
    args = args[2:]
    if broken:
        print(f"FAILED: {broken} build(s) did not configure or compile")
        failed += broken
for path in args:
    n = 0
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            n += 1
            res = r.get("result")
            if res in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif res == "SKIP":
                skipped += 1
            else:
                failed += 1
                print(f"FAILED: {path}: {r.get('name')} ({res})")
    if n == 0:
        print(f"FAILED: {path}: no test ran")
        failed += 1
if not args:
    print("FAILED: no test log")
    failed += 1
line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
sys.exit(1 if failed else 0)
