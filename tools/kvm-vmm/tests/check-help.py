#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hvtlb-kvm --help prints the usage on stdout and exits 0 (no /dev/kvm
needed); a bad command exits 2 with the usage on stderr and nothing on
stdout. usage: check-help.py HVTLB_KVM"""
import subprocess
import sys

exe = sys.argv[1]
h = subprocess.run([exe, "--help"], capture_output=True, text=True,
                   timeout=20)
b = subprocess.run([exe, "nonsense"], capture_output=True, text=True,
                   timeout=20)
ok = (h.returncode == 0 and h.stdout.startswith("usage: hvtlb-kvm") and
      "bench KIND" in h.stdout and not h.stderr and b.returncode == 2 and
      "unknown command 'nonsense'" in b.stderr and not b.stdout)
print("--help:", h.returncode, repr(h.stdout[:40]), repr(h.stderr[:80]))
print("nonsense:", b.returncode, repr(b.stdout[:40]), repr(b.stderr[:80]))
sys.exit(0 if ok else 1)
