#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hvtlb replay --check on every trace shipped in traces/: its flush
counts and pages by reason equal those a separate reader (the regular
expressions here) takes from the same text, it reads every event line,
and its replayed side (docs/replay.md, "Fidelity") sets the run beside
the recording: the flush requests of the replayed threads, those with a
remote target and those made while no other CPU ran a thread of the
process (threads grouped by the mm= of their mmap_lock lines), as this
reader counts them, every request a shootdown of the run; a trace with a
raw clock is not replayed, and says why. Then its errors: a malformed
trace gives one line naming the line and byte, exit 2.

usage: test-replay-cli.py HVTLB TRACES_DIR
"""
import gzip
import json
import os
import re
import sys
import tempfile

from replaytest import check, done, hvtlb

HVTLB, TRACES = sys.argv[1], sys.argv[2]


def replay(*args):
    return hvtlb(HVTLB, "replay", *args)


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


LINE = re.compile(r"^\s*(.+)-(\d+)\s+(?:\(\s*\d+\)\s+)?\[(\d+)\]"
                  r"(?:\s+\S{4,5})?\s+[\d.]+: (\w+)(.*)$")
CALLS = ("sys_munmap", "sys_madvise", "sys_mprotect")


def processes(lines, mine):
    """Each thread's address space: the mm= of the mmap_lock lines inside
    its last munmap/madvise/mprotect, else of its last mmap_lock line
    (a withheld "(____ptrval____)" says nothing, as no line)."""
    last, in_call, call_mm = {}, {}, {}
    for _comm, pid, _cpu, ev, body in lines:
        pid = int(pid)
        if ev in CALLS:
            in_call[pid] = body.startswith("(")
        elif ev.startswith("mmap_lock"):
            mm = re.search(r"mm=(\S+)", body).group(1)
            if mm == "(____ptrval____)":  # withheld: no identity
                continue
            last[pid] = mm
            if in_call.get(pid):
                call_mm[pid] = mm
    return {pid: call_mm.get(pid, last.get(pid)) for pid in mine}


def requests(text):
    """The flush requests of the threads with a syscall or mmap_lock event:
    (requests, remote, remote while no other CPU ran a thread of its
    process), one per flushing call, one per reason-3/4 flush outside a
    call (a reason 3 in the thread's own flush_tlb_func run is the local
    half of a remote one). A flush on task switch (reason 0) is raised in
    the switched-out task's name: it says nothing of what a CPU runs."""
    lines = [m.groups() for m in map(LINE.match, text.splitlines()) if m]
    mine = {int(g[1]) for g in lines
            if g[3].startswith(("sys_", "mmap_lock"))}
    proc = processes(lines, mine)
    cpus = {int(g[2]) for g in lines}
    cur, call, own, n, remote, elsewhere = {}, {}, {}, 0, 0, 0
    for _comm, pid, cpu, ev, body in lines:
        pid, cpu = int(pid), int(cpu)
        if ev == "tlb_flush" and body.endswith("(0)"):
            continue
        nxt = re.search(r"next_pid=(\d+)", body)
        cur[cpu] = int(nxt.group(1)) if ev == "sched_switch" else pid
        if pid not in mine:
            continue
        if ev in CALLS and body.startswith("("):
            call[pid] = [False, 0]  # flushed, remote (0, 1, 2 far)
        elif ev in CALLS and pid in call:
            flushed, far = call.pop(pid)
            n += flushed
            remote += flushed and far > 0
            elsewhere += flushed and far == 2
        elif ev == "csd_function_entry" and "csd=0000000000000000" in body:
            own[pid] = True
        elif ev == "csd_function_exit" and "csd=0000000000000000" in body:
            own[pid] = False
        elif ev == "tlb_flush":
            r = int(re.search(r"\((\d+)\)$", body).group(1))
            far = 1 + (not any(cur.get(c) in mine
                               and proc[cur[c]] == proc[pid]
                               for c in cpus if c != cpu))
            st = call.get(pid)
            if st is not None and r in (3, 4):
                st[0] = True
                if r == 4 and not st[1]:
                    st[1] = far
            elif r == 4:
                n, remote, elsewhere = n + 1, remote + 1, elsewhere + (far == 2)
            elif r == 3 and not own.get(pid):
                n += 1
    return n, remote, elsewhere


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
    rate = re.search(r"^# hvtlb-clock-mhz: ([\d.]+)$", text, re.M)
    if rate:
        check(f"{name}: a raw clock at its rate, converted",
              f"clock: raw counts at {float(rate.group(1)):.3f} MHz" in out,
              out[:300])
    if not rate and re.search(r"^\s*\S+-\d+\s.*\] (\S+ )?\d+:", text,
                              re.M):
        check(f"{name}: a raw clock is not replayed, and says why",
              re.search(r"^replayed: not possible: line \d+: the trace's "
                        r"clock counts in an unknown unit", out, re.M),
              out[-300:])
        got = None
    else:
        n, remote, far = requests(text)
        m = re.search(r"^  requests \(of the replayed threads\) +(\d+) +"
                      r"(\d+)  shootdowns\n    with a remote target "
                      r"\(reason 4\) +(\d+) +(\d+)  (?:hypercalls|flush IPIs)"
                      r"\n    no "
                      r"other CPU ran the process +(\d+)\n    local only +"
                      r"(\d+) +(\d+)$", out, re.M)
        got = tuple(map(int, m.groups())) if m else None
        check(f"{name}: replayed beside recorded: {n} requests, {remote} "
              f"remote, {far} while no other CPU ran the process",
              got and got[0] == n and got[2] == remote and got[4] == far
              and got[5] == n - remote, (got, out[-700:]))
        check(f"{name}: every recorded request is a shootdown of the run",
              got and got[1] == n and got[6] == n - got[3], got)
        # the threads run on both vCPUs at times: some requests of the
        # run have a remote target (a hypercall or an IPI each), not all
        check(f"{name}: the run's remote requests are its hypercalls "
              "or IPIs",
              got and 0 < got[3] < n, got)
    rc, jout, err = replay("--check", "--json", path)
    try:
        doc = json.loads(jout)
    except ValueError:
        doc = {}
    check(f"{name}: --json gives the same flushes",
          rc == 0 and {f["reason"]: f["flushes"] for f in
                       doc.get("flushes", [])} == flushes, err or jout[:200])
    rep = doc.get("replayed")
    if rep is None:
        check(f"{name}: --json: replayed null, with the reason",
              "unknown unit" in doc.get("replay_error", ""), jout[-300:])
    else:
        ipi = doc["shootdowns"]["paired"] > 0
        check(f"{name}: replayed with {'ipi' if ipi else 'hyperv'}",
              rep["strategy"] == ("ipi" if ipi else "hyperv"), rep)
        tl = doc["shootdowns"]["target_latency"]
        check(f"{name}: a target latency per target exit",
              (tl is None) == (not ipi) and
              (tl is None or tl["n"] >= doc["shootdowns"]["paired"]), tl)
        check(f"{name}: --json: the same replayed side",
              got and (rep["requests"]["recorded"], rep["remote"]["recorded"],
                       rep["remote_elsewhere"], rep["requests"]["replayed"])
              == (got[0], got[2], got[4], got[1]), rep)
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
# The flush IPIs' latency beside the replay's band (--uncertainty): the
# IPI trace's per-target figures, the run's, and a verdict for each.
IPI = os.path.join(TRACES, "tlb-churn-2t-ipi.txt.gz")
rc, out, err = replay("--check", "--uncertainty", "3", IPI)
rows = re.findall(r"^    (p50|p99) +([\d.]+) +([\d.]+)  band ([\d.]+) / "
                  r"([\d.]+) / ([\d.]+) \(3 draws\): (inside|outside)$",
                  out, re.M)
check("--uncertainty 3: p50 and p99 beside their bands, with a verdict",
      rc == 0 and [r[0] for r in rows] == ["p50", "p99"] and
      all(float(r[3]) <= float(r[4]) <= float(r[5]) and
          (r[6] == "inside") == (float(r[3]) <= float(r[1]) <= float(r[5]))
          for r in rows), err or out[-600:])
rc, jout, err = replay("--check", "--json", "--uncertainty", "3", "--set",
                       "cost.ipi_latency=20000", IPI)
try:
    a = json.loads(jout)["replayed"]["ipi_ack_us"]
except (ValueError, KeyError, TypeError):
    a = None
check("--json --uncertainty 3: the bands of p50 and p99",
      a and a["draws"] == 3 and a["targets"] > 0 and
      a["bands"]["p50"]["p5"] <= a["bands"]["p50"]["p95"], jout[-400:])
check("--set reaches the replayed machine: a slower IPI, a later handler",
      a and rows and a["p50"] > float(rows[0][2]), (a, rows))
# Shootdowns with several targets (a 4-CPU guest of Linux 6.12): each
# flush_tlb_func queued to a CPU is one target, each finished by its exit.
QEMU = os.path.join(TRACES, "tlb-churn-3t-qemu4.txt.gz")
with gzip.open(QEMU, "rt") as f:
    qtext = f.read()
masks = [bin(int(m.replace(",", ""), 16)).count("1") for m in
         re.findall(r"ipi_send_cpumask: cpumask=([0-9a-f,]+)", qtext)]
queued = len(re.findall(r"csd_queue_cpu: .*func=flush_tlb_func", qtext))
rc, jout, err = replay("--check", "--json", QEMU)
try:
    sd = json.loads(jout)["shootdowns"]
except (ValueError, KeyError, TypeError):
    sd = None
check("the 4-CPU trace: masks of two or more CPUs in it",
      masks and min(masks) >= 2, masks[:10])
check("the 4-CPU trace: every shootdown paired, one exit per queued target",
      sd and sd["source"] == "csd" and sd["paired"] == sd["started"] > 0
      and sd["target_latency"]["n"] == queued > sd["paired"]
      and sd["stray_exits"] == 0, (sd, queued))
rc, out, err = replay("--check", "--set", "bogus=1", IPI)
check("--set with an unknown key: exit 2, one line saying why",
      rc == 2 and not out and err.count("\n") == 1 and
      "--set 'bogus=1': unknown key" in err, (rc, out[-200:], err))
done()
