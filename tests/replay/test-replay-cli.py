#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hvtlb replay --check on every trace shipped in traces/: its flush
counts and pages by reason equal those a separate reader (the regular
expressions here) takes from the same text, it reads every event line,
and it says that only the recorded side exists. Then its errors: a
malformed trace gives one line naming the line and byte, exit 2.

usage: test-replay-cli.py HVTLB TRACES_DIR
"""
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

HVTLB, TRACES = sys.argv[1], sys.argv[2]
failures = []


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else
                                                  f": {detail}"))
    if not cond:
        failures.append(name)


def replay(*args):
    p = subprocess.run([HVTLB, "replay", *args], capture_output=True,
                       text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def expected(text):
    """Flushes and pages by reason number, and the event lines."""
    flushes, pages, events = {}, {}, 0
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        events += 1
        m = re.search(r": tlb_flush: pages:(-?\d+) reason:.*\((\d+)\)$", line)
        if m:
            nr = int(m.group(2))
            flushes[nr] = flushes.get(nr, 0) + 1
            pages[nr] = pages.get(nr, 0) + max(int(m.group(1)), 0)
    return flushes, pages, events


def shown(out):
    rows = {}
    for m in re.finditer(r"^  \S+ \((-?\d+)\) +(\d+) +(\d+) +(\d+)$", out,
                         re.M):
        rows[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
    return rows


traces = sorted(f for f in os.listdir(TRACES) if f.endswith((".txt",
                                                             ".txt.gz")))
check("traces/ holds at least two traces", len(traces) >= 2, traces)
for name in traces:
    path = os.path.join(TRACES, name)
    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rt") as f:
        text = f.read()
    flushes, pages, events = expected(text)
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as plain:
        plain.write(text)
        plain.flush()
        rc, out, err = replay("--check", plain.name)
    check(f"{name}: replay --check reads it", rc == 0, err)
    rows = shown(out)
    check(f"{name}: flushes by reason as in the text",
          {k: v[0] for k, v in rows.items()} == flushes,
          f"{rows} vs {flushes}")
    check(f"{name}: pages by reason as in the text",
          {k: v[1] for k, v in rows.items()} == pages, f"{rows} vs {pages}")
    check(f"{name}: every event line read",
          f" {events} events read, 0 events of other kinds skipped" in out,
          out[:300])
    check(f"{name}: says only the recorded side exists",
          "replayed: not yet" in out, out[-200:])
    rc, jout, err = replay("--check", "--json", path)
    try:
        doc = json.loads(jout)
    except ValueError:
        doc = {}
    check(f"{name}: --json gives the same flushes",
          rc == 0 and {f["reason"]: f["flushes"] for f in
                       doc.get("flushes", [])} == flushes, err or jout[:200])
    if name.endswith(".gz"):
        rc2, out2, err2 = replay("--check", path)
        if rc2 == 2 and "line 1 " in err2:
            print(f"skip {name} read compressed: this hvtlb has no zlib")
        else:
            check(f"{name}: the same read compressed",
                  rc2 == 0 and out2.split("\n", 1)[1] ==
                  out.split("\n", 1)[1], err2)

with tempfile.TemporaryDirectory() as d:
    bad = os.path.join(d, "bad.txt")
    with open(bad, "w") as f:
        f.write("# a comment\n  a-1 [000] 1.5: tlb_flush: pages:1 reason:2\n"
                "  a-1 [000] 1.6: tlb_flush: pages:zz reason:2\n")
    rc, out, err = replay("--check", bad)
    check("a malformed trace: exit 2, one line naming line and byte",
          rc == 2 and not out and err.count("\n") == 1 and
          re.search(r"bad\.txt: line 3 \(byte \d+\): bad number in "
                    r"'pages:'", err), (rc, err))
rc, out, err = replay(os.path.join(TRACES, traces[0]) if traces else "x")
check("without --check: exit 2, says only --check exists",
      rc == 2 and "only --check" in err, err)
rc, out, err = replay("--check", "/nonexistent/trace.txt")
check("a missing file: exit 2 with the reason",
      rc == 2 and "No such file" in err, err)
rc, out, err = replay("--check")
check("no FILE: exit 2", rc == 2 and "one FILE" in err, err)
sys.exit(1 if failures else 0)
