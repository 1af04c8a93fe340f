#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Honest output and exact errors: bad inputs a newcomer typed, each as a
case, and the verdicts the tool used to keep to itself.

Errors: each names the token the user typed (--vary KEY, --compare and
--ratio names), an ambiguous abbreviation lists what it fits,
did-you-mean for shipped scenario names, hvtlb's own options (--versoin,
-V, version) and enumerated values (encode --call/--page-size/--vpset,
plan --hints/--set), binary and byte-order-mark scenario files named as
such, `validate` of a case that does not load prints nothing on stdout,
`completion tcsh` says which shells are supported. Each is exit 2, stdout
empty, one stderr line.

Output: a '*' and a footnote on each nominal value outside its band
(sim --uncertainty), a warning when --fault never acted (and the
scenario it names makes it act), reproduce --quick/--iterations never
bigger than published, reproduce and validate --fail-on-miss.

usage: test-honest.py HVTLB SOURCE_ROOT
"""
import json
import os
import re
import shlex
import tempfile

from clitest import DEFAULT, HVTLB, ROOT, TINY, check, finish, run


def one_error(name, args, needles, absent=(), rc_want=2):
    """Exit @rc_want, nothing on stdout, one stderr line holding every
    needle and none of @absent."""
    rc, out, err = run(*args)
    lines = err.strip().splitlines()
    check(name, rc == rc_want and out == "" and len(lines) == 1 and
          all(n in err for n in needles) and
          not any(a in err for a in absent), f"rc={rc} out={out[:80]!r} "
          f"err={err!r}")


# --- errors name the token the user typed ---------------------------
one_error("--vary with a misspelt key blames the key, not its value",
          ["sweep", "default", "--vary", "vm.vcpuz=1,2"],
          ["--vary 'vm.vcpuz=1'", "unknown key 'vm.vcpuz'",
           "did you mean 'vm.vcpus'?"], ["--vary '1'"])
one_error("--compare with a misspelt strategy blames --compare",
          ["sim", "default", "--compare", "ipi,hypervv"],
          ["--compare 'ipi,hypervv'", "'hypervv'",
           "did you mean 'hyperv'?"], ["--set"])
one_error("sweep --vary compare= with a misspelt strategy blames that value",
          ["sweep", "default", "--vary", "compare=ipi,hypervv"],
          ["--vary 'compare=hypervv'", "unknown strategy 'hypervv'",
           "did you mean 'hyperv'?"], ["--set", "unknown key"])
one_error("sensitivity --ratio with a misspelt strategy blames --ratio",
          ["sensitivity", "default", "--ratio", "ipi/hypervv"],
          ["--ratio 'ipi/hypervv'", "'hypervv'"], ["--set"])
one_error("--seed with a bad value still names --seed and the value",
          ["sim", "default", "--seed", "x"], ["--seed 'x'"])

# --- ambiguous abbreviations are listed ------------------------------
one_error("--se is ambiguous: --set and --seed listed",
          ["sim", "default", "--se", "3"],
          ["'--se' is ambiguous", "--set", "--seed"], ["unknown option"])
one_error("--trace- lists every --trace-* option",
          ["sim", "default", "--trace-"],
          ["ambiguous", "--trace-limit", "--trace-window"])

# --- did-you-mean everywhere -----------------------------------------
one_error("a misspelt shipped scenario name",
          ["sim", "defalt"], ["(did you mean 'default'?)"])
one_error("... with .ini", ["sim", "oracle-stres.ini"],
          ["(did you mean 'oracle-stress'?)"])
one_error("a path to a shipped scenario outside the source tree names it",
          ["sim", "no-such-folder/kvm-128on12.ini"],
          ["no-such-folder/kvm-128on12.ini", "no such file here",
           "shipped scenario", "('kvm-128on12')"])
one_error("... not for a file name that is no shipped scenario",
          ["sim", "no-such-folder/kvm-129on12.ini"],
          ["No such file or directory"], ["shipped"])
for arg in ["--versoin", "-V", "version", "--verison"]:
    one_error(f"hvtlb {arg}: did you mean --version", [arg],
              ["(did you mean '--version'?)"])
one_error("hvtlb --hepl: did you mean --help", ["--hepl"],
          ["unknown option '--hepl'", "(did you mean '--help'?)"])
one_error("an unknown command still suggests a command", ["simm"],
          ["unknown command 'simm'", "(did you mean 'sim'?)"])
ENUMS = [
    (["encode", "--call", "lst", "--vps", "1"], "'lst'", "list"),
    (["encode", "--call", "list", "--vps", "1", "--range", "0+1",
      "--page-size", "2k"], "'2k'", "4k"),
    (["encode", "--call", "list-ex", "--vps", "1", "--range", "0+1",
      "--vpset", "linx"], "'linx'", "linux"),
    (["plan", "--strategy", "ipi", "--cpus", "4", "--targets", "1",
      "--range", "all", "--hints", "remote-flsh"], "'remote-flsh'",
     "remote-flush"),
    (["plan", "--strategy", "ipi", "--cpus", "4", "--targets", "1",
      "--range", "all", "--set", "lazy_skp=1"], "'lazy_skp'", "lazy_skip"),
]
for args, token, best in ENUMS:
    one_error(f"{args[0]} {args[1]} {args[2]}: did you mean {best}",
              args, [token, f"(did you mean '{best}'?)", "one of"])

one_error("keys with a prefix no key has: did you mean, not an empty table",
          ["keys", "vm.vcpuz"], ["no key starts with 'vm.vcpuz'",
                                 "(did you mean 'vm.vcpus'?)"])
rc, out, err = run("keys", "cost.vmex")
check("keys: a prefix of a cost key still lists it",
      rc == 0 and "cost.vmexit" in out, f"rc={rc} {err!r}")

# --- binary and BOM scenario files -----------------------------------
with tempfile.TemporaryDirectory() as d:
    binary = os.path.join(d, "binary.ini")
    with open(binary, "wb") as f:  # 9 bytes, a NUL first, a newline
        f.write(b"\x00\x01\x02\x03\n\x05\x06\x07\x08")
    one_error("a 9-byte binary scenario is named binary",
              ["sim", binary], [f"{binary}:1: binary data",
                                "byte 0x00 at column 1"],
              ["longer than", "empty scenario"])
    nul = os.path.join(d, "nul.ini")
    with open(nul, "wb") as f:
        f.write(b"[vm]\nvcpus = 4\x00\n")
    one_error("a NUL inside a line is found", ["sim", nul],
              [f"{nul}:2: binary data", "byte 0x00 at column 10"])
    bom = os.path.join(d, "bom.ini")
    with open(bom, "wb") as f:
        f.write(b"\xef\xbb\xbf[vm]\nvcpus = 4\n")
    one_error("a UTF-8 BOM is named", ["sim", bom],
              [f"{bom}:1: starts with a UTF-8 byte order mark"],
              ["missing '='"])
    utf16 = os.path.join(d, "utf16.ini")
    with open(utf16, "wb") as f:
        f.write("[vm]\nvcpus = 4\n".encode("utf-16"))
    one_error("UTF-16 is named", ["sim", utf16],
              ["UTF-16 byte order mark"])
    rc, out, err = run("sim", "-", "--json", *TINY,
                       stdin="# é ü: UTF-8 in a comment\n[vm]\nvcpus = 4\n"
                       "[workload]\niterations = 2\n")
    check("UTF-8 text in a comment is still text", rc == 0, err)

    # --- validate: nothing on stdout before a usage error ------------
    empty = os.path.join(d, "empty.ini")
    with open(empty, "w") as f:
        f.write("# nothing\n")
    one_error("validate empty.ini: exit 2, nothing on stdout",
              ["validate", empty], [empty])
    rc, out, err = run("validate", empty,
                       os.path.join(ROOT, "tests", "scenario", "validation",
                                    "tiny-ratio.ini"), "--uncertainty", "2")
    check("validate: a good case beside one that does not load: exit 2, "
          "the good one still runs beside an ERROR row (documented)",
          rc == 2 and "tiny-ratio" in out and "ERROR" in out and
          empty in err, f"rc={rc} out={out[:80]!r} err={err!r}")

    # --- validate --fail-on-miss --------------------------------------
    cases = os.path.join(ROOT, "tests", "scenario", "validation")
    with open(os.path.join(cases, "tiny-ratio.ini")) as f:
        text = f.read()
    text = text.replace("profile = ../../../profiles/hyperv-2016.ini",
                        "profile = " + os.path.join(ROOT, "profiles",
                                                    "hyperv-2016.ini"))
    miss = os.path.join(d, "miss.ini")
    with open(miss, "w") as f:
        f.write(text.replace("published = 1.05", "published = 50"))
    rc, out, err = run("validate", miss, "--uncertainty", "4", "-q")
    check("validate: a miss without --fail-on-miss: exit 0",
          rc == 0 and "miss" in out, f"rc={rc} {err!r}")
    rc, out, err = run("validate", miss, "--uncertainty", "4", "-q",
                       "--fail-on-miss")
    check("validate --fail-on-miss: a case outside its band: exit 1, the "
          "table still printed", rc == 1 and "no" in out, f"rc={rc} {err!r}")
    rc, out, err = run("validate", os.path.join(cases, "tiny-ratio.ini"),
                       "--uncertainty", "4", "-q", "--fail-on-miss")
    check("validate --fail-on-miss: every case inside: exit 0", rc == 0,
          f"rc={rc} {out} {err!r}")

one_error("completion tcsh says which shells are supported",
          ["completion", "tcsh"],
          ["unknown shell 'tcsh'", "one of bash, zsh, fish"],
          ["say which shell"])
one_error("completion without a shell names the supported ones",
          ["completion"], ["'hvtlb completion bash', 'zsh' or 'fish'"],
          ["say which shell"])

# --- a mark on a nominal value outside its band ------------------------
NUM = r"(-?[0-9.]+(?:e[-+]?[0-9]+)?)"
rc, out, err = run("sim", DEFAULT, *TINY, "--uncertainty", "8", "-q")
marked = unmarked_outside = 0
for line in out.splitlines():
    for m in re.finditer(NUM + r"([* ])  " + NUM + " / " + NUM + " / " + NUM,
                         line):
        v, mark, p5, p95 = (float(m.group(1)), m.group(2),
                            float(m.group(3)), float(m.group(5)))
        # the band has 4 significant digits, the value a fixed number of
        # decimals: judge only where the rounding cannot decide
        dec = m.group(1).split(".")[1] if "." in m.group(1) else ""
        eps = 0.5 * 10 ** -len(dec)
        lo, hi = p5 * (1 - 1e-3) - eps, p95 * (1 + 1e-3) + eps
        outside = v < lo or v > hi
        inside = p5 * (1 + 1e-3) + eps <= v <= p95 * (1 - 1e-3) - eps
        marked += mark == "*"
        if (outside and mark != "*") or (inside and mark == "*"):
            unmarked_outside += 1
check("sim --uncertainty: some nominal value is outside its band here "
      "and carries a '*'", rc == 0 and marked > 0, out[-600:])
check("... every mark is on a value outside its band, and only there",
      unmarked_outside == 0, f"{unmarked_outside} wrong")
check("... a footnote says what the mark means",
      "* the nominal run (every uncertain parameter at its nominal value)"
      in out and "outside the p5..p95 band" in out, out[-400:])
rc, out, err = run("sim", DEFAULT, *TINY, "-q")
check("... no band, no mark and no footnote",
      rc == 0 and "*" not in out, out[-300:])

# --- --fault that never acted -----------------------------------------
FAULTS = ["no-wait", "drop-target", "lose-deferred", "skip-lazy-freed",
          "global-survives", "host-no-wait", "vp-as-cpu", "gen-zero-skip"]
for fault in FAULTS:
    rc, out, err = run("sim", DEFAULT, *TINY, "--compare", "ipi",
                       "--fault", fault, "--json")
    doc = json.loads(out) if rc == 0 else {"runs": [{}]}
    hits = sum(r.get("fault_hits", 1) for r in doc["runs"])
    m = re.search(r"it acts in 'hvtlb sim ([^']*)'", err)
    check(f"--fault {fault} with no hit: a warning names a scenario where "
          "it acts", rc == 0 and hits == 0 and
          f"--fault {fault} never acted (fault_hits 0)" in err and m,
          f"rc={rc} hits={hits} {err!r}")
    if not m:
        continue
    demo = shlex.split(m.group(1))
    rc, out, err = run("sim", *demo, "--json", "-q")
    doc = json.loads(out) if rc == 0 else {"runs": [{}]}
    hits = sum(r.get("fault_hits", 0) for r in doc["runs"])
    viol = sum(r.get("violations", {}).get("total", 0) for r in doc["runs"])
    check(f"... and there --fault {fault} acts and the oracle fires, "
          "without the warning", rc == 0 and hits > 0 and viol > 0 and
          "never acted" not in err, f"rc={rc} hits={hits} viol={viol} "
          f"{err!r}")

rc, out, err = run("sim", "oracle-stress", "--compare", "hyperv", "--fault",
                   "vp-as-cpu", "--set", "hypervisor.vp_index_offset=1",
                   "--json")
doc = json.loads(out) if out else {"runs": [{}]}
hits = sum(r.get("fault_hits", 1) for r in doc["runs"])
viol = sum(r.get("violations", {}).get("total", 0) for r in doc["runs"])
check("a fault with no hit counted but violations reported is not said to "
      "have never acted", hits == 0 and viol > 0 and
      "never acted" not in err and
      f"the oracle reported {viol} violations" in err,
      f"rc={rc} hits={hits} viol={viol} {err!r}")

# --- reproduce: sizes only ever smaller, --fail-on-miss ------------------
one_error("reproduce --quick and --iterations conflict",
          ["reproduce", "--quick", "--iterations", "5"],
          ["--quick and --iterations conflict"])
rc, out, err = run("reproduce", "--help")
check("reproduce --help gives the published sizes and durations",
      rc == 0 and "100000" in out and "(about" in out and "--quick" in out
      and "--fail-on-miss" in out, out)
with tempfile.TemporaryDirectory() as d:
    # The three experiments as tiny scenarios: what is tested is the
    # size each runs at, not the model.
    os.mkdir(os.path.join(d, "scenarios"))
    os.symlink(os.path.join(ROOT, "profiles"), os.path.join(d, "profiles"))
    for name in ["hyperv-16vcpu", "kvm-128on12", "kvm-12on12"]:
        with open(os.path.join(d, "scenarios", name + ".ini"), "w") as f:
            f.write("profile = hyperv-2016\n[machine]\npcpus = 2\n"
                    "[vm]\nvcpus = 2\n[workload]\nthreads = 2\n"
                    "iterations = 3\n")
    rc, out, err = run("reproduce", "--dir", d, "--iterations", "150",
                       "--json", "-q", "--threads", "1")
    rows = json.loads(out)["rows"] if rc == 0 else []
    its = {r["id"]: r["iterations"] for r in rows}
    check("reproduce --iterations 150: never more than published (100 for "
          "the KVM rows), 150 where published is bigger",
          its == {"hyperv-16vcpu": 150, "kvm-128on12": 100,
                  "kvm-12on12": 100}, f"rc={rc} {its} {err!r}")
    check("... stderr says which experiments were capped",
          "--iterations 150 is more than kvm-128on12's published 100" in err
          and "kvm-12on12's published 100" in err and
          "hyperv-16vcpu's" not in err, err)
    rc, out, err = run("reproduce", "--dir", d, "--quick", "--json", "-q",
                       "--threads", "1")
    rows = json.loads(out)["rows"] if rc == 0 else []
    its = {r["id"]: r["iterations"] for r in rows}
    check("reproduce --quick: a tenth of each published size",
          its == {"hyperv-16vcpu": 10000, "kvm-128on12": 10,
                  "kvm-12on12": 10} and err == "", f"rc={rc} {its} {err!r}")
    inside = all(r["in_target"] for r in rows)
    rc, out, err = run("reproduce", "--dir", d, "--iterations", "2", "-q",
                       "--threads", "1")
    check("reproduce: a target missed without --fail-on-miss: exit 0, "
          "MISS in the table", rc == 0 and "MISS" in out, f"rc={rc} {err!r}")
    rc, out, err = run("reproduce", "--dir", d, "--iterations", "2", "-q",
                       "--threads", "1", "--fail-on-miss")
    check("reproduce --fail-on-miss: a target missed: exit 1, the table "
          "still printed", rc == 1 and "MISS" in out, f"rc={rc} {err!r}")

with tempfile.TemporaryDirectory() as d:
    # seed 000's scenario under all three names, 3 rounds: its nominal real
    # ratio lies below its band there
    os.mkdir(os.path.join(d, "scenarios"))
    os.symlink(os.path.join(ROOT, "profiles"), os.path.join(d, "profiles"))
    for name in ["hyperv-16vcpu", "kvm-128on12", "kvm-12on12"]:
        with open(os.path.join(ROOT, "scenarios", "hyperv-16vcpu.ini")) as f:
            text = f.read()
        with open(os.path.join(d, "scenarios", name + ".ini"), "w") as f:
            f.write(text)
    rc, out, err = run("reproduce", "--dir", d, "--iterations", "3",
                       "--uncertainty", "8", "-q", "--threads", "2")
    ratios = [(float(m.group(1)), m.group(2)) for m in
              re.finditer(r"^\S*\s+(?:real|sys)(?:\s+[0-9.]+){5}\s+"
                          r"([0-9.]+)([* ])", out, re.M)]
    bands = [(float(m.group(1)), float(m.group(2))) for m in
             re.finditer(r"^  .{14} (?:real|sys ) ([0-9.]+) / [0-9.]+ / "
                         r"([0-9.]+)  published", out, re.M)]
    wrong = [(r, b) for r, b in zip(ratios, bands)
             if (r[1] == "*") != (not b[0] - 0.005 <= r[0] <= b[1] + 0.005)
             and not (abs(r[0] - b[0]) < 0.01 or abs(r[0] - b[1]) < 0.01)]
    check("reproduce --uncertainty: a simulated ratio outside its band is "
          "marked, one inside is not", rc == 0 and len(ratios) == 6 and
          len(bands) == 6 and any(r[1] == "*" for r in ratios) and
          not wrong, f"rc={rc} {ratios} {bands} {wrong}")
    check("... with its footnote",
          "* the simulated ratio of the nominal run lies outside" in out,
          out[-500:])

finish()
