#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hvtlb calibrate from the outside.

  check-calibrate.py refuse HVTLB
      Without a usable KVM device calibrate exits 2 with one line on
      stderr and nothing on stdout.
  check-calibrate.py profile HVTLB BASE.ini SCENARIO.ini
      A short calibration (exit 77 without /dev/kvm) writes a profile:
      every key of the base once, the measured ones as
      `name = value ; range LO..HI ; source: measured on ...` with
      LO <= value <= HI, the others as the base has them; and the
      simulator loads it.
"""
import os
import re
import subprocess
import sys
import tempfile

MEASURED = ["vmexit", "hypercall", "ipi_send", "ipi_latency"]
LINE = re.compile(r"^(\w+) = (\d+) ; range (\d+)\.\.(\d+) ; source: "
                  r"measured on \S+ \(.+, .+, \d{4}-\d\d-\d\d\), "
                  r"(\d+) samples: .+$")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def refuse(hvtlb):
    for args in (["--device", "/nonexistent/kvm"],
                 ["--device", "/dev/null"]):
        p = subprocess.run([hvtlb, "calibrate"] + args, capture_output=True,
                           text=True, timeout=20)
        lines = p.stderr.splitlines()
        if p.returncode != 2 or len(lines) != 1 or p.stdout:
            fail("%s: exit %d, stderr %r, stdout %r"
                 % (args, p.returncode, p.stderr, p.stdout))
        if not lines[0].startswith("hvtlb calibrate: "):
            fail("message: %r" % lines[0])
        print("ok: %s -> %s" % (" ".join(args), lines[0]))


def keys_of(text):
    keys = []
    for line in text.splitlines():
        s = line.strip()
        if s and not s.startswith("#") and "=" in s:
            keys.append(s.split("=", 1)[0].strip())
    return keys


def profile(hvtlb, base, scenario):
    try:
        fd = os.open("/dev/kvm", os.O_RDWR)
        os.close(fd)
    except OSError as e:
        print("skip: /dev/kvm: %s" % e.strerror)
        sys.exit(77)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cal.ini")
        p = subprocess.run([hvtlb, "calibrate", "--samples", "40",
                            "--vcpus", "2", "--base", base, "--out", out],
                           capture_output=True, text=True, timeout=550)
        print(p.stdout, end="")
        if p.returncode != 0:
            fail("calibrate exited %d: %s" % (p.returncode, p.stderr))
        text = open(out).read()
        base_text = open(base).read()
    if sorted(keys_of(text)) != sorted(set(keys_of(text))):
        fail("a key appears twice")
    missing = set(keys_of(base_text)) - set(keys_of(text))
    if missing:
        fail("base keys missing: %s" % sorted(missing))
    lines = {l.split("=", 1)[0].strip(): l for l in text.splitlines()
             if l.strip() and not l.startswith("#")}
    for key in MEASURED:
        m = LINE.match(lines.get(key, ""))
        if not m:
            fail("%s: not a measured line: %r" % (key, lines.get(key)))
        value, lo, hi = int(m.group(2)), int(m.group(3)), int(m.group(4))
        if not (lo < hi and lo <= value <= hi) or int(m.group(5)) < 20:
            fail("%s: bad range or sample count: %r" % (key, lines[key]))
    base_lines = {l.split("=", 1)[0].strip(): l
                  for l in base_text.splitlines()
                  if l.strip() and not l.startswith("#")}
    for key, line in lines.items():
        if "measured on" not in line and "exact:" not in line \
                and line != base_lines.get(key):
            fail("%s: neither measured nor the base's line: %r" % (key, line))
    print("ok: %d measured lines, %d copied"
          % (sum("measured on" in l for l in lines.values()),
             sum(l == base_lines.get(k) for k, l in lines.items())))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "cal.ini")
        open(path, "w").write(text)
        p = subprocess.run([hvtlb, "sim", scenario, "--set",
                            "profile=" + path, "--set",
                            "workload.iterations=5"],
                           capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        fail("hvtlb sim does not load the profile: %s" % p.stderr)
    print("ok: hvtlb sim loads it")


def main():
    if sys.argv[1] == "refuse":
        refuse(sys.argv[2])
    elif sys.argv[1] == "profile":
        profile(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        fail("unknown mode")


main()
