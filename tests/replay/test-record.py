#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hvtlb record (tools/hvtlb/commands/cmd-record.c).

usage: test-record.py HVTLB errors
       test-record.py HVTLB live TLB_CHURN

errors: the command lines it refuses and the failures it reports, each
one line, none needing tracefs (HVTLB_TRACEFS points at a missing
directory, or at a plain directory that has instances/ but none of
tracefs's files); COMMAND never runs then, and nothing is left behind.

live: a real recording of tlb-churn (traces/tlb-churn.c) in a shell that
exits 3: the tool exits 3, hvtlb replay --check reads the text and the
.gz, the flushes of tlb-churn's threads (children of the shell: the
event-fork filter) are in it, the tracefs instance is gone afterwards,
and SIGINT stops it with 130, the instance gone and the text written.
Skips (77) when tracefs is not writable here (not root, or no tracefs).
"""
import gzip
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from replaytest import check, done, hvtlb

HVTLB, MODE = sys.argv[1], sys.argv[2]


def record(*args, env=None, cwd=None):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run([HVTLB, "record", *args], capture_output=True,
                       text=True, timeout=60, env=e, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def one_line(err, text):
    return err.count("\n") == 1 and err.startswith("hvtlb record: ") and \
        text in err


def errors(tmp):
    marker = os.path.join(tmp, "ran")
    cmd = ["--", "sh", "-c", f"touch {marker}"]
    out = os.path.join(tmp, "t.txt")

    rc, _, err = record("-o", out)
    check("no COMMAND: exit 2, one line", rc == 2 and
          one_line(err, "no COMMAND"), err)
    rc, _, err = record(*cmd)
    check("no -o: exit 2, one line", rc == 2 and
          one_line(err, "-o FILE is required"), err)
    rc, _, err = record("-o", out, "--bogus", *cmd)
    check("an unknown option: exit 2, named", rc == 2 and
          "unknown option '--bogus'" in err, err)
    rc, _, err = record("-o", out, "-b", "0", *cmd)
    check("-b 0: exit 2, the range said", rc == 2 and "-b '0'" in err, err)
    rc, _, err = record("-o", out, "-d", "t.dat", *cmd,
                        env={"PATH": os.path.join(tmp, "empty")})
    check("-d without trace-cmd: exit 2, one line", rc == 2 and
          one_line(err, "-d needs trace-cmd"), err)
    rc, _, err = record("-o", out, *cmd,
                        env={"HVTLB_TRACEFS": "/nonexistent"})
    check("no tracefs: exit 1, one line naming it", rc == 1 and
          one_line(err, "no tracefs at /nonexistent"), err)

    # A directory that looks like tracefs (instances/) but is not: the
    # instance is made, its first file cannot be written.
    fake = os.path.join(tmp, "fake")
    os.makedirs(os.path.join(fake, "instances"))
    rc, _, err = record("-o", out, *cmd, env={"HVTLB_TRACEFS": fake})
    check("a tracefs file not writable: exit 1, one line with the path",
          rc == 1 and one_line(err, f"cannot write {fake}/instances/hvtlb-")
          and "tracing_on: No such file or directory (needs root and "
          "tracefs)" in err, err)
    check("... and the instance it made is removed",
          os.listdir(os.path.join(fake, "instances")) == [],
          os.listdir(os.path.join(fake, "instances")))
    check("COMMAND never ran, no FILE written",
          not os.path.exists(marker) and not os.path.exists(out),
          os.listdir(tmp))


def tracefs_writable():
    for d in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"):
        inst = os.path.join(d, "instances")
        if os.path.isdir(inst):
            return (os.access(inst, os.W_OK), d)
    return (False, None)


def instances(tracefs):
    return [n for n in os.listdir(os.path.join(tracefs, "instances"))
            if n.startswith("hvtlb-")]


def live(tmp, churn):
    ok, tracefs = tracefs_writable()
    if not ok or os.geteuid() != 0:
        print("SKIP: tracefs not writable here (needs root and tracefs "
              "mounted at /sys/kernel/tracing)")
        sys.exit(77)
    before = instances(tracefs)
    txt = os.path.join(tmp, "t.txt")
    rc, _, err = record("-o", txt, "--", "sh", "-c",
                        f"{churn} 2 20 4; exit 3")
    check("the command's exit status (3) is the tool's", rc == 3, err)
    check("one summary line", re.search(r"\d+ events to .*exit 3", err),
          err)
    check("the tracefs instance is removed", instances(tracefs) == before,
          instances(tracefs))
    rc, out, err = hvtlb(HVTLB, "replay", "--check", txt)
    check("replay --check reads it", rc == 0, err)
    m = re.search(r"TLB_LOCAL_MM_SHOOTDOWN \(3\) +(\d+)", out)
    check("tlb-churn's flushes are in it (its threads are children of "
          "the shell: event-fork)", m and int(m.group(1)) > 0, out[:600])
    text = open(txt).read()
    check("madvise and munmap of tlb-churn recorded",
          "sys_madvise(" in text and "sys_munmap(" in text, text[:300])

    gz = os.path.join(tmp, "t.txt.gz")
    rc, _, err = record("-o", gz, "--", churn, "2", "5", "4")
    check(".gz: exit 0, a gzip file", rc == 0 and
          open(gz, "rb").read(2) == b"\x1f\x8b", err)
    check(".gz: the text inside", "tlb_flush" in
          gzip.open(gz, "rt").read())
    rc, _, err = hvtlb(HVTLB, "replay", "--check", gz)
    check(".gz: replay --check reads it", rc == 0, err)

    if platform.machine() in ("x86_64", "i686", "i386"):
        tsc = os.path.join(tmp, "tsc.txt")
        rc, _, err = record("-o", tsc, "-c", "x86-tsc", "--", churn, "2",
                            "5", "4")
        first = open(tsc).readline()
        m = re.match(r"# hvtlb-clock-mhz: (\d+\.\d{3})\n$", first)
        check("x86-tsc: the first line gives the TSC's rate, measured",
              rc == 0 and m and 100 < float(m.group(1)) < 10000, first)
        rc, out, err = hvtlb(HVTLB, "replay", "--check", tsc)
        check("x86-tsc: replay --check converts the counts at that rate",
              rc == 0 and m and f"raw counts at {m.group(1)} MHz" in out
              and "replayed (hvtlb sim" in out, out[:400])
    rc, _, err = record("-o", txt, "-c", "no-such-clock", "--", "true")
    check("a clock the kernel refuses: exit 1, one line naming it",
          rc == 1 and one_line(err, "trace_clock: the kernel refused "
                               "'no-such-clock'"), err)
    check("... and the instance is removed", instances(tracefs) == before,
          instances(tracefs))

    if shutil.which("trace-cmd"):
        dat = os.path.join(tmp, "t.dat")
        rc, _, err = record("-o", txt, "-d", dat, "--", churn, "2", "5", "4")
        check("-d: exit 0, a trace.dat written", rc == 0 and
              open(dat, "rb").read(3) == b"\x17\x08D", err)
        check("-d: the instance is removed", instances(tracefs) == before,
              instances(tracefs))

    # SIGINT to the tool alone: it passes it on, writes what it has,
    # removes the instance and says 130.
    sig = os.path.join(tmp, "s.txt")
    p = subprocess.Popen([HVTLB, "record", "-o", sig, "--", "sleep", "20"],
                         stderr=subprocess.PIPE, text=True)
    time.sleep(1)
    p.send_signal(signal.SIGINT)
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
    check("SIGINT: exit 130", p.returncode == 130, p.returncode)
    check("SIGINT: the instance is removed", instances(tracefs) == before,
          instances(tracefs))
    check("SIGINT: the text is written", os.path.exists(sig))


with tempfile.TemporaryDirectory() as tmp:
    if MODE == "errors":
        errors(tmp)
    else:
        live(tmp, sys.argv[3])
done()
