#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One --range syntax for encode and plan: START+PAGES and START-END on
both, the two spellings of one range give the same bytes (encode) and
the same plan, an input either command took before keeps its meaning,
and a bad range is refused naming the part typed: a bare address of
digits 0-9 alone (hex to encode, decimal to plan before) with both
spellings that mean it.

usage: test-ranges.py HVTLB SOURCE_ROOT
"""
import json

from clitest import check, finish, run

ENCODE = ["encode", "--call", "list-ex", "--vps", "0,5,130", "--json"]
PLAN = ["plan", "--strategy", "hyperv", "--cpus", "256", "--targets",
        "0,5,130", "--json"]


def output(args, rng):
    rc, out, err = run(*args, "--range", rng)
    if rc:
        return f"exit {rc}: {err.strip()}"
    doc = json.loads(out)
    doc.pop("hvtlb", None)
    return doc


def same(name, args, a, b):
    x, y = output(args, a), output(args, b)
    check(f"{name}: '{a}' = '{b}'", isinstance(x, dict) and x == y,
          f"{x} / {y}")


def one_error(name, args, needles):
    rc, out, err = run(*args)
    lines = err.strip().splitlines()
    check(name, rc == 2 and out == "" and len(lines) == 1 and
          all(n in err for n in needles), f"rc={rc} {out[:80]!r} {err!r}")


# --- both forms on both commands, the same range either way --------------
for cmd, args in (("encode", ENCODE), ("plan", PLAN)):
    same(cmd, args, "0x7f0000000000+16", "0x7f0000000000-0x7f0000010000")
    same(cmd, args, "7f0000000000+1", "0x7f0000000000-0x7f0000001000")
    # a start inside a page: both cover the page after it too
    same(cmd, args, "0x1800+1", "0x1800-0x2800")
size2m = ["--page-size", "2m"]
same("encode --page-size 2m", ENCODE + size2m, "0x40000000+3",
     "0x40000000-0x40600000")
same("plan --stride 2m", PLAN + ["--stride", "2m"], "0x40000000+3",
     "0x40000000-0x40600000")
# encode: START-END is every page it touches
same("encode: an unaligned START-END", ENCODE, "0x1000+2", "0x1fff-0x2001")

# --- inputs accepted before keep their meaning -----------------------------
words = output(ENCODE, "0x7f0000000000+1")
check("encode: bare hex GVA as before",
      isinstance(words, dict) and output(ENCODE, "7f0000000000+1") == words
      and words["input"][-1] == "0x00007f0000000000", words)
same("plan: 0 and 0x, as before", PLAN, "0-0x21000", "0x0-0x21000")
check("plan --range all as before", isinstance(output(PLAN, "all"), dict),
      output(PLAN, "all"))
plan = output(PLAN, "0x1000-0x1000")
check("plan: START-END empty, as before",
      isinstance(plan, dict) and plan["outcome"]["hypercalls"] == 0, plan)

# --- refusals name the part typed ----------------------------------------
REFUSED = [  # (what, --range, what the one line says)
    ("a bare 1000 is refused with both spellings", "1000+1",
     ["--range '1000+1'", "START '1000'", "could be hex or decimal",
      "0x1000 for hex", "0x3e8 for decimal 1000"]),
    ("a bare END 4096", "0x0-4096",
     ["END '4096'", "0x4096 for hex", "0x1000 for decimal 4096"]),
    ("PAGES not a number", "0x1000+x", ["--range '0x1000+x'", "PAGES 'x'"]),
    ("PAGES 0", "0x1000+0", ["PAGES '0'", "1 or more"]),
    ("END below START", "0x2000-0x1000",
     ["--range '0x2000-0x1000'", "END '0x1000' is below START"]),
    ("a bad address", "0xg-0x1000", ["START '0xg'", "not an address"]),
    ("neither form", "0x1000",
     ["--range '0x1000'", "START+PAGES or START-END"]),
    ("a range past 2^64", "0xfffffffffffff000+2",
     ["--range '0xfffffffffffff000+2'", "wraps past 2^64"]),
]
for cmd, args in (("encode", ENCODE), ("plan", PLAN)):
    for what, rng, needles in REFUSED:
        one_error(f"{cmd}: {what}", args + ["--range", rng], needles)
one_error("encode: 'all' is plan's", ENCODE + ["--range", "all"],
          ["--range 'all'", "START+PAGES or START-END"])
one_error("encode: an empty START-END", ENCODE + ["--range",
                                                   "0x1000-0x1000"],
          ["--range '0x1000-0x1000'", "empty"])
one_error("plan: a START+PAGES past 2^64",
          PLAN + ["--range", "0xffffffffffffffff+1"],
          ["--range '0xffffffffffffffff+1'", "wraps past 2^64"])

# --- the help of both says both forms and the rule -------------------------
for cmd in ("encode", "plan"):
    rc, out, err = run(cmd, "--help")
    check(f"{cmd} --help: both forms and the rule for 0x",
          rc == 0 and "START+PAGES" in out and "START-END" in out and
          "0x needed" in out, out)

finish()
