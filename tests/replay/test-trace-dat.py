#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hvtlb replay --check on trace-cmd's trace.dat (src/replay/trace-dat.c).

1. Each traces/NAME.dat recorded beside a text twin (traces/NAME.txt.gz,
   the same buffer saved by scripts/record-trace.sh -o ... -d ...) gives
   the same result as the twin: flushes and pages by reason, events,
   threads, syscalls, mmap_lock events, context switches, lost events.
   Only the time span may differ, by the text's microsecond rounding.
2. Damaged files never take the tool down: the file cut at many lengths
   and seeded random byte changes each end with exit 0 or with exit 2 and
   one line on stderr naming the file, never a signal or a traceback.

Skips (77) when this hvtlb was built without libtracecmd, after checking
that it says so in one line.

usage: test-trace-dat.py HVTLB TRACES_DIR
"""
import json
import os
import random
import sys
import tempfile

from replaytest import check, done, failures, hvtlb

HVTLB, TRACES = sys.argv[1], sys.argv[2]


def replay(*args):
    return hvtlb(HVTLB, "replay", "--check", *args)


dats = sorted(f for f in os.listdir(TRACES) if f.endswith(".dat"))
check("traces/ holds a trace.dat", dats, os.listdir(TRACES))
if not dats:
    sys.exit(1)
first = os.path.join(TRACES, dats[0])
rc, out, err = replay(first)
if rc == 2 and "needs hvtlb built with libtracecmd" in err:
    check("without libtracecmd: one line saying how to read it",
          err.count("\n") == 1 and "trace-cmd report" in err, err)
    print("skip: this hvtlb reads no trace.dat (built without libtracecmd)")
    sys.exit(77 if not failures else 1)

SAME = ("events", "skipped", "clock", "threads", "syscalls",
        "mmap_lock_events", "sched_switches", "lost", "flushes",
        "shootdowns")
for name in dats:
    path = os.path.join(TRACES, name)
    twin = os.path.join(TRACES, name[:-len(".dat")] + ".txt.gz")
    rc, jout, err = replay("--json", path)
    check(f"{name}: read", rc == 0, err)
    if rc != 0:
        continue
    if not os.path.exists(twin):
        print(f"skip {name}: no text twin {os.path.basename(twin)}")
        continue
    rc2, jout2, err2 = replay("--json", twin)
    if rc2 == 2 and "line 1 " in err2:
        print(f"skip {name}: this hvtlb cannot read the gzipped twin")
        continue
    a, b = json.loads(jout), json.loads(jout2)
    for key in SAME:
        check(f"{name}: {key} as in its text twin",
              a.get(key) == b.get(key), f"{a.get(key)} vs {b.get(key)}")
    check(f"{name}: some flushes read", sum(
        f["flushes"] for f in a.get("flushes", [])) > 0, a.get("flushes"))
    # Replayed by the simulator, both describe the same recording: the
    # same threads, flushes and CPUs (the head line of hvtlb sim).
    heads = []
    for p in (path, twin):
        rc, out, err = hvtlb(HVTLB, "sim", "--trace-in", p, timeout=120)
        heads.append(out.split("\n", 1)[0].split(":", 1)[-1]
                     if rc == 0 else err)
    check(f"{name}: sim --trace-in reads it as its twin",
          heads[0] == heads[1] and "recorded on" in heads[0], heads)
    # The text prints microseconds: the span differs by the rounding.
    check(f"{name}: span within 1 us of its text twin's",
          abs(a.get("span", 0) - b.get("span", 0)) <= 1000,
          f"{a.get('span')} vs {b.get('span')}")

with open(first, "rb") as f:
    data = f.read()


def damaged(label, blob, tmp):
    path = os.path.join(tmp, "damaged.dat")
    with open(path, "wb") as f:
        f.write(blob)
    rc, out, err = replay(path)
    ok = rc == 0 or (rc == 2 and not out and err.count("\n") == 1 and
                     "damaged.dat" in err)
    check(f"{label}: exit 0, or 2 with one line", ok, (rc, err[:300]))
    return rc


with tempfile.TemporaryDirectory() as tmp:
    cuts = sorted({10, 11, 64, 100, 1000, 4096, 10000, 100000,
                   len(data) // 2, len(data) - 4096, len(data) - 100,
                   len(data) - 1})
    refused = sum(damaged(f"cut at {n} of {len(data)} bytes", data[:n], tmp)
                  == 2 for n in cuts if 0 < n < len(data))
    print(f"# {refused} of {len(cuts)} cut files refused, the rest read")
    check("a file cut inside its header is refused",
          damaged("cut at 64 bytes (again)", data[:64], tmp) == 2)
    rng = random.Random(1)
    for i in range(24):
        blob = bytearray(data)
        for _ in range(rng.choice((1, 8, 64))):
            at = rng.randrange(10, len(blob))
            blob[at] = rng.randrange(256)
        damaged(f"random bytes changed, draw {i}", bytes(blob), tmp)
    rc, out, err = replay(os.path.join(tmp, "none.dat"))
    check("a missing trace.dat: exit 2", rc == 2 and "No such file" in err,
          err)
done()
