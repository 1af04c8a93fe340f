#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hvtlb sim --trace-in (workload.kind = trace, docs/replay.md): the
shipped trace replayed under three strategies on one pCPU, with and
without --uncertainty, leads with what it replays and ends with the
ratios; every recorded flush request is a shootdown of each run; the
same trace named by a scenario file's relative workload.trace. Then what
is refused, each with one line naming the file and the line: a malformed
trace, a trace with no thread to replay, a raw clock, a missing file,
workload.kind = trace without a trace and workload.trace with another
kind. A trace whose threads flush nothing runs, with no shootdown.

usage: test-trace-sim.py HVTLB TRACES_DIR
"""
import json
import os
import re
import shutil
import sys
import tempfile

from replaytest import check, done, hvtlb

HVTLB, TRACES = sys.argv[1], sys.argv[2]
TRACE = os.path.join(TRACES, "tlb-churn-2t-local.txt.gz")
# flush requests of its replayed threads (tests/replay/test-replay-cli.py
# counts them from the text: 199 remote sends, 24 local-only flushes)
REQUESTS = 223


def sim(*args, cwd=None):
    return hvtlb(HVTLB, "sim", "-q", *args, timeout=240, cwd=cwd)


def row(out, label):
    m = re.search(r"^" + re.escape(label) + r"  +(.*)$", out, re.M)
    return m.group(1).split() if m else None


def refused(name, args, pattern, cwd=None):
    rc, out, err = sim(*args, cwd=cwd)
    check(name + ": exit 2, one line: " + pattern,
          rc == 2 and not out and err.count("\n") == 1 and
          re.search(pattern, err), (rc, err, out[:200]))


COMPARE = ["--trace-in", TRACE, "--compare", "ipi,hyperv,kvm-pv", "--set",
           "machine.pcpus=1"]
rc, out, err = sim(*COMPARE)
lines = out.splitlines()
check("compare run: exit 0", rc == 0, err)
check("compare run: leads with what it replays",
      lines and re.match(r"replay of tlb-churn-2t-local\.txt\.gz: 3 threads, "
                         rf"{REQUESTS} flushes \(munmap \d+, madvise \d+, "
                         r"mprotect \d+, other \d+\), recorded on 2 CPUs$",
                         lines[0]), lines[:2])
check("compare run: one column per strategy",
      row(out, "strategy") == ["ipi", "hyperv", "kvm-pv"], row(out,
                                                             "strategy"))
check("compare run: every recorded request is a shootdown of each run",
      row(out, "shootdowns") == [str(REQUESTS)] * 3, row(out, "shootdowns"))
check("compare run: ends with the ratios to ipi",
      re.search(r"^ipi / hyperv: real [\d.]+x.*\nipi / kvm-pv: real [\d.]+x",
                out, re.M), out[-300:])

rc, out, err = sim(*COMPARE, "--uncertainty", "4")
check("--uncertainty 4: exit 0", rc == 0, err)
check("--uncertainty 4: leads with the replay, then the draws",
      out.startswith("replay of tlb-churn-2t-local.txt.gz") and
      "bands: p5 / p50 / p95 over 4 draws" in out, out[:400])
check("--uncertainty 4: the requests do not depend on the costs",
      re.search(rf"^shootdowns +{REQUESTS} +{REQUESTS} / {REQUESTS} / "
                rf"{REQUESTS}\s", out, re.M), row(out, "shootdowns"))

rc, out, err = sim(*COMPARE, "--json")
try:
    doc = json.loads(out)
except ValueError:
    doc = {}
check("--json: three runs, the replay's title",
      rc == 0 and len(doc.get("runs", [])) == 3 and
      (doc.get("title") or "").startswith("replay of "), err or out[:200])

with tempfile.TemporaryDirectory() as d:
    os.makedirs(os.path.join(d, "sc", "data"))
    shutil.copy(TRACE, os.path.join(d, "sc", "data", "t.txt.gz"))
    ini = os.path.join(d, "sc", "t.ini")
    with open(ini, "w") as f:
        f.write("[workload]\nkind = trace\ntrace = data/t.txt.gz\n"
                "[vm]\nvcpus = 2\n[machine]\npcpus = 2\n")
    rc, out, err = sim(ini, cwd=d)  # no data/ here
    check("a scenario's relative workload.trace is taken from its folder",
          rc == 0 and row(out, "shootdowns") == [str(REQUESTS)], err or
          out[:300])

    def write(name, text):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    bad = write("bad.txt", "# a comment\n"
                "  a-1 [000] 1.5: sys_munmap(addr: 0, len: 0x1000)\n"
                "  a-1 [000] 1.6: tlb_flush: pages:zz reason:3\n")
    refused("a malformed trace", ["--trace-in", bad],
            r"^[^\n]*bad\.txt: line 3 \(byte \d+\): bad number in 'pages:'")
    none = write("none.txt", "  cc1-5 [000] 1.5: tlb_flush: pages:-1 "
                 "reason:flush on task switch (0)\n")
    refused("a trace with no thread to replay", ["--trace-in", none],
            r"none\.txt: no thread to replay")
    raw = write("raw.txt", "  a-1 [000] 123456: sys_munmap(addr: 0, len: "
                "0x1000)\n")
    refused("a raw clock", ["--trace-in", raw],
            r"raw\.txt: line 1: the trace's clock counts in an unknown unit")
    late = write("late.txt", "  a-1 [000] 1.5: sys_munmap(addr: 0, len: "
                 "0x1000)\n# hvtlb-clock-mhz: 1000\n")
    refused("a clock rate after the first event", ["--trace-in", late],
            r"late\.txt: line 2 \(byte \d+\): a clock rate after the first "
            r"event")
    for bad_rate in ("0", "2.1234", "fast", "1000001"):
        br = write("rate.txt", f"# hvtlb-clock-mhz: {bad_rate}\n")
        refused(f"a clock rate of '{bad_rate}'", ["--trace-in", br],
                r"rate\.txt: line 1 \(byte \d+\): bad clock rate")
    # the same counts at 1000 MHz (a count a nanosecond): the steps of
    # the same trace printed in seconds
    at = write("at.txt", "# hvtlb-clock-mhz: 1000\n"
               "  a-1 [000] 1000000000: sys_munmap(addr: 0, len: 1)\n"
               "  a-1 [000] 1000500000: sys_munmap -> 0x0\n")
    secs = write("secs.txt",
                 "  a-1 [000] 1.000000: sys_munmap(addr: 0, len: 1)\n"
                 "  a-1 [000] 1.000500: sys_munmap -> 0x0\n")
    ra, oa, ea = sim("--trace-in", at, "--json")
    rs, os_, es = sim("--trace-in", secs, "--json")
    def runs(out):
        try:
            return json.loads(out)["runs"]
        except (ValueError, KeyError, TypeError):
            return None
    check("a raw clock at 1000 MHz runs as its seconds twin",
          ra == 0 and rs == 0 and runs(oa) and runs(oa) == runs(os_),
          (ea, es, oa[:300], os_[:300]))
    refused("a missing trace", ["--trace-in", os.path.join(d, "no.txt")],
            r"--trace-in .*cannot read trace .*no\.txt: No such file")
    kind = write("kind.ini", "[vm]\nvcpus = 2\n[workload]\nkind = trace\n")
    refused("workload.kind = trace without a trace", [kind],
            r"kind\.ini:4: workload\.kind = trace needs a trace")
    other = write("other.ini", "[workload]\nkind = madvise\n"
                  f"trace = {TRACE}\n")
    refused("workload.trace with another kind", [other],
            r"other\.ini:3: workload\.trace needs workload\.kind = trace")

    quiet = write("quiet.txt",
                  "  app-1 [000] 1.000000: sys_munmap(addr: 0, len: 1)\n"
                  "  app-1 [000] 1.000500: sys_munmap -> 0x0\n"
                  "  app-1 [000] 1.000600: sched_switch: prev_comm=app "
                  "prev_pid=1 prev_prio=120 prev_state=S ==> "
                  "next_comm=x next_pid=0 next_prio=120\n")
    rc, out, err = sim("--trace-in", quiet, "--compare", "ipi,hyperv")
    check("a trace with no flush: runs, no shootdown",
          rc == 0 and row(out, "shootdowns") == ["0", "0"] and
          out.startswith("replay of quiet.txt: 1 threads, 0 flushes"),
          err or out[:300])

# Every shipped trace replays: each of its flushes becomes a shootdown of
# the run; a trace printed with a raw clock is refused, saying why.
for name in sorted(os.listdir(TRACES)):
    if not name.endswith((".txt", ".txt.gz", ".dat")):
        continue
    rc, out, err = sim("--trace-in", os.path.join(TRACES, name),
                       "--compare", "ipi,hyperv", "--set", "machine.pcpus=1")
    if "unknown unit" in err:
        check(f"{name}: a raw clock, refused in one line",
              rc == 2 and err.count("\n") == 1, err)
        continue
    if name.endswith(".dat") and "needs hvtlb built with libtracecmd" in err:
        check(f"{name}: without libtracecmd, refused in one line",
              rc == 2 and err.count("\n") == 1, err)
        print(f"skip: {name}: this hvtlb reads no trace.dat "
              "(built without libtracecmd)")
        continue
    m = re.match(r"replay of \S+: (\d+) threads, (\d+) flushes", out)
    check(f"{name}: replays, each flush a shootdown",
          rc == 0 and m and row(out, "shootdowns") == [m.group(2)] * 2,
          err or out[:300])
    check(f"{name}: the answer (ipi / hyperv) leads the table",
          0 <= out.find("the answer, for ") < out.find("ipi / hyperv: real")
          < out.find("\nstrategy "), out[:400])
done()
