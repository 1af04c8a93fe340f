#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Order-free bundles: `guest.os` and `strategy` written after the keys
they set give the same run as written before, in a file or with --set;
`cost.X = default` takes the library's value before or after the profile
that sets X, in a file or with --set.

usage: test-order-free.py HVTLB ROOT
"""
import os
import re
import tempfile

from clitest import run, check, finish

KEYS = ["workload.iterations = 20", "strategy.lazy_skip = false",
        "strategy.full_flush_ceiling = 7", "guest.tick_accounting = false"]
BUNDLES = ["guest.os = windows", "strategy = hyperv"]


def sim(lines, *sets):
    with tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False) as f:
        f.write("title = order\n" + "\n".join(lines) + "\n")
    try:
        rc, out, err = run("sim", f.name, "--json", *sets)
    finally:
        os.unlink(f.name)
    return rc, re.sub(r'"(scenario|commit)":"[^"]*"', "", out), err


rc, before, err = sim(BUNDLES + KEYS)
check("bundles first: runs", rc == 0 and before, f"rc={rc} {err!r}")
rc, after, err = sim(KEYS + BUNDLES)
check("bundles last: the same run", rc == 0 and after == before, err)
rc, sets, err = sim(KEYS, "--set", "guest.os=windows",
                    "--set", "strategy=hyperv")
check("bundles by --set after the file: the same run",
      rc == 0 and sets == before, err)
rc, plain, err = sim(BUNDLES + KEYS[:1])
check("the keys count", rc == 0 and plain != before, err)

# kvm-ipiv sets cost.ipi_latency to 3645; the library's value is 4338
PROF = ["profile = kvm-ipiv", "workload.iterations = 20"]
rc, prof, err = sim(PROF)
check("the profile alone: runs", rc == 0 and prof, err)
rc, lib, err = sim(PROF, "--set", "cost.ipi_latency=4338")
check("the library's value differs from the profile's",
      rc == 0 and lib != prof, err)
for name, lines, sets in (
        ("default after the profile", PROF + ["cost.ipi_latency = default"],
         ()),
        ("default before the profile", ["cost.ipi_latency = default"] + PROF,
         ()),
        ("default with --set", PROF, ("--set", "cost.ipi_latency=default"))):
    rc, out, err = sim(lines, *sets)
    check(f"{name}: the library's value", rc == 0 and out == lib, err)
finish()
