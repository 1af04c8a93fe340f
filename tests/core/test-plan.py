#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""hvtlb plan: exit codes, one-line errors and the JSON shape, one case per
strategy. Usage: test-plan.py PATH-TO-hvtlb"""
import json
import os
import subprocess
import sys
import tempfile

HVTLB = sys.argv[1]
failures = []


def plan(*args):
    p = subprocess.run([HVTLB, "plan", *args], capture_output=True, text=True,
                       timeout=30)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def plan_json(*args):
    rc, out, err = plan(*args, "--json")
    check(rc == 0, f"{args}: exit {rc}, stderr {err!r}")
    try:
        doc = json.loads(out)
    except ValueError as e:
        check(False, f"{args}: not JSON ({e}): {out!r}")
        return None, None
    check(set(doc) == {"schema", "hvtlb", "actions", "strategy", "outcome"},
          f"{args}: members {sorted(doc)}")
    return doc, [a["op"] for a in doc["actions"]]


BASE = ["--cpus", "4", "--targets", "0-3", "--range", "0x1000-0x3000"]

# ipi: concurrent by default; serial with --set concurrent=0.
doc, ops = plan_json("--strategy", "ipi", *BASE)
check(ops == ["ipi", "local_flush", "wait"], f"ipi ops {ops}")
ipi = doc["actions"][0]
check(ipi["targets"] == [1, 2, 3] and ipi["pages"] == 2 and
      ipi["early_ack"] is False and ipi["start"] == "0x1000",
      f"ipi action {ipi}")
check(doc["actions"][1] == {"op": "local_flush", "cpu": 0, "start": "0x1000",
                            "end": "0x3000", "stride": "4k", "pages": 2},
      f"local_flush action {doc['actions'][1]}")
check(doc["outcome"]["ipis"] == 3, f"ipi outcome {doc['outcome']}")
doc, ops = plan_json("--strategy", "ipi", *BASE, "--set", "concurrent=0",
                     "--set", "early_ack=1")
check(ops == ["local_flush", "ipi", "wait"], f"serial ipi ops {ops}")
check(doc["actions"][1]["early_ack"] is True, "early ack")
doc, ops = plan_json("--strategy", "ipi", *BASE, "--set", "early_ack=1",
                     "--freed-tables")
check(doc["actions"][0]["early_ack"] is False, "early ack with freed tables")

# ceiling 33 / 34
doc, _ = plan_json("--strategy", "ipi", "--cpus", "2", "--targets", "0-1",
                   "--range", "0-0x21000")
check(doc["actions"][0]["pages"] == 33, "33 pages stay a range")
doc, _ = plan_json("--strategy", "ipi", "--cpus", "2", "--targets", "0-1",
                   "--range", "0-0x22000")
check(doc["actions"][0]["pages"] == "all" and doc["outcome"]["full_flush"],
      "34 pages become a full flush")

# hyperv: ListEx with a VP above 64 via --vp-map.
with tempfile.NamedTemporaryFile("w", suffix=".map", delete=False) as f:
    f.write("# cpu vp\n1 1\n2 70\n\n3 3  # trailing comment\n")
    vpmap = f.name
doc, ops = plan_json("--strategy", "hyperv", "--cpus", "8", "--targets", "0-3",
                     "--range", "0x1000-0x3000", "--vp-map", vpmap,
                     "--address-space", "0x5000")
check(ops == ["local_flush", "hypercall"], f"hyperv ops {ops}")
hc = doc["actions"][1]
check(hc["call"] == "list-ex" and hc["control"] == "0x0000000100040014",
      f"hyperv call {hc}")
check(hc["input"][:2] == ["0x0000000000005000", "0x0000000000000000"],
      f"hyperv input {hc['input']}")
check(hc["vps"] == [1, 3, 70] and hc["flags"] == [] and
      hc["ranges"] == [{"gva": "0x1000", "pages": 2, "size": "4k"}] and
      hc["result"] == "0x0000000100000000" and
      hc["status"] == "HV_STATUS_SUCCESS", f"hyperv decoded {hc}")
for k in ("control", "call", "input", "result"):
    check(k in hc, f"hypercall member {k}")
# all present CPUs, everything: Space + ALL_PROCESSORS + NON_GLOBAL
doc, ops = plan_json("--strategy", "hyperv", "--cpus", "4", "--targets", "0-3",
                     "--range", "all")
hc = doc["actions"][1]
check(hc["call"] == "space" and hc["vps"] == "all" and
      hc["flags"] == ["all-processors", "non-global-mappings-only"],
      f"hyperv space {hc}")
# failure status: IPI fallback to exactly the remote targets
doc, ops = plan_json("--strategy", "hyperv", *BASE, "--cpus", "8",
                     "--hypercall-status", "0x5")
check(ops == ["local_flush", "hypercall", "ipi", "wait"],
      f"hyperv fallback ops {ops}")
check(doc["actions"][2]["targets"] == [1, 2, 3] and
      doc["outcome"]["fell_back"], "hyperv fallback targets")
# no hints: native
doc, ops = plan_json("--strategy", "hyperv", *BASE, "--hints", "none")
check(ops == ["ipi", "local_flush", "wait"], f"hyperv without hints {ops}")
os.unlink(vpmap)

# kvm-pv: CPU 2 deferred, CPU 3 loses the CAS and keeps its IPI.
doc, ops = plan_json("--strategy", "kvm-pv", *BASE, "--hints", "kvm-pv",
                     "--preempted", "2,3", "--cas-lose", "3")
check(ops == ["mark_deferred", "mark_deferred", "ipi", "local_flush", "wait"],
      f"kvm ops {ops}")
check(doc["actions"][0] == {"op": "mark_deferred", "cpu": 2, "won": True},
      f"kvm mark {doc['actions'][0]}")
check(doc["actions"][2]["targets"] == [1, 3], "kvm ipi targets")
check(doc["outcome"]["deferred"] == 1, "kvm deferred count")

# Without --hints the host offers what the strategy needs.
for strat, first in (("kvm-pv", "mark_deferred"), ("vmm-assist", "local_flush"),
                     ("broadcast", "broadcast")):
    doc, ops = plan_json("--strategy", strat, *BASE, "--preempted", "2")
    check(ops[0] == first and "ipi" not in ops[:1],
          f"{strat} default hints {ops}")
doc, ops = plan_json("--strategy", "kvm-pv", *BASE, "--preempted", "2",
                     "--hints", "none")
check("mark_deferred" not in ops, f"kvm-pv without the hint {ops}")

# vmm-assist
doc, ops = plan_json("--strategy", "vmm-assist", *BASE, "--hints",
                     "vmm-assist")
check(ops == ["local_flush", "vmm_flush"], f"vmm ops {ops}")
check(doc["actions"][1]["targets"] == [1, 2, 3] and
      doc["actions"][1]["result"] == 0, f"vmm action {doc['actions'][1]}")

# broadcast: 20 pages in chunks of 8, then one sync, no IPIs
doc, ops = plan_json("--strategy", "broadcast", "--cpus", "4", "--targets",
                     "0-3", "--range", "0-0x14000", "--hints", "broadcast")
check(ops == ["broadcast"] * 3 + ["broadcast_sync"], f"broadcast ops {ops}")
check([a["pages"] for a in doc["actions"][:3]] == [8, 8, 4], "chunks")

# lazy: post, local flush, no wait; freed tables: synchronous IPIs
doc, ops = plan_json("--strategy", "lazy", *BASE)
check(ops == ["lazy_post", "local_flush"], f"lazy ops {ops}")
check(doc["actions"][0]["epoch"] == 1 and doc["outcome"]["reuse_epoch"] == 1,
      "lazy epoch")
doc, ops = plan_json("--strategy", "lazy", *BASE, "--freed-tables")
check(ops == ["ipi", "local_flush", "wait"], f"lazy freed tables {ops}")

# text output
rc, out, err = plan("--strategy", "hyperv", *BASE, "--cpus", "8")
check(rc == 0 and out.startswith("local_flush cpu=0 range=0x1000-0x3000") and
      "decoded flags=none vps=1-3 ranges=0x1000+2/4k" in out and
      out.endswith("reuse_epoch=0\n"), f"text output {out!r}")
rc, out, err = plan("--help")
check(rc == 0 and out.startswith("usage: hvtlb plan"), "--help")

# bad command lines and invalid requests: exit 2, one line naming it
BAD = [
    ([], "--strategy"),
    (["--strategy", "nope", *BASE], "--strategy"),
    (["--strategy", "ipi", "--cpus", "4", "--targets", "0-4", "--range",
      "all"], "--targets"),
    (["--strategy", "ipi", "--cpus", "4", "--targets", "0", "--range",
      "0x2000-0x1000"], "--range"),
    (["--strategy", "ipi", "--cpus", "4097", "--targets", "0", "--range",
      "all"], "--cpus"),
    (["--strategy", "ipi", *BASE, "--initiator", "4"], "--initiator"),
    (["--strategy", "ipi", *BASE, "--stride", "8k"], "--stride"),
    (["--strategy", "ipi", *BASE, "--hints", "remote-flush,bogus"], "bogus"),
    (["--strategy", "ipi", *BASE, "--set", "bogus=1"], "bogus"),
    (["--strategy", "ipi", *BASE, "--set", "full_flush_ceiling=0"],
     "full_flush_ceiling"),
    (["--strategy", "ipi", *BASE, "--vp-map", "/nonexistent/map"],
     "--vp-map"),
    (["--strategy", "ipi", *BASE, "--hypercall-status", "xyz"],
     "--hypercall-status"),
    (["--strategy", "ipi", *BASE, "--preempted", "9"], "--preempted"),
    (["--strategy", "ipi", *BASE, "--frobnicate"], "--frobnicate"),
    (["--strategy", "ipi", *BASE, "extra"], "extra"),
    (["--strategy", "ipi", *BASE, "--cpus"], "--cpus"),
]
for args, name in BAD:
    rc, out, err = plan(*args)
    check(rc == 2, f"{args}: exit {rc}, want 2")
    check(err.count("\n") == 1 and name in err,
          f"{args}: stderr {err!r} should be one line naming {name}")
    check(out == "", f"{args}: stdout {out!r}")

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("hvtlb plan: all checks passed")
