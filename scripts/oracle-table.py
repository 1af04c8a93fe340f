#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every fault switch on a fixed set of configurations, with the strategy
whose protocol it breaks: did the faulty path withhold a flush a vCPU
needed (fault_hits, "hits"), and did the oracle report it? A cell reads
"caught HITS/LATENT/USED", "no hit" (the fault never did harm there), or
"MISSED HITS/0/USED" (harm and no latent violation). Prints a Markdown
table and the exact command of every cell; docs/oracle.md keeps the
result.

usage: oracle-table.py HVTLB SRCDIR [--quick]

--quick runs the seed scenarios at 1/10 of their size. Exits 1 when a
fault did harm on a configuration and the latent check stayed silent.
"""
import json
import os
import shlex
import subprocess
import sys

# (name, scenario file, extra settings)
CONFIGS = [
    ("mix, 1 VM", "mix.ini", ["machine.vms=1"]),
    ("shared madvise, 8 on 8", "madvise.ini",
     ["workload.shared=1", "workload.pages=4", "workload.threads=8",
      "vm.vcpus=8", "machine.pcpus=8"]),
    ("shared madvise, 16 on 3", "madvise.ini",
     ["workload.shared=1", "workload.pages=4", "workload.threads=16",
      "vm.vcpus=16", "machine.pcpus=3"]),
    # chunks of 2 MiB (512 pages): an munmap frees a page-table page.
    # The report's "ebizzy" was the map/search/unmap workload that is
    # called mmap-search now; ebizzy itself (malloc, trimmed by madvise)
    # frees no page table, and gets a row of its own.
    ("mmap-search 2 MiB, 16 on 8, lazy skip", "mmap-search.ini",
     ["vm.vcpus=16", "machine.pcpus=8", "strategy.lazy_skip=1",
      "workload.pages=512", "workload.sleep_ns_max=20000"]),
    ("ebizzy -M, 16 on 8, lazy skip", "ebizzy.ini",
     ["vm.vcpus=16", "machine.pcpus=8", "workload.threads=32",
      "strategy.lazy_skip=1"]),
    ("mix, 2 VMs (shipped)", "mix.ini", []),
    ("oracle-stress (shipped)", "oracle-stress.ini", []),
    ("seed 000 (hyperv-16vcpu)", "hyperv-16vcpu.ini", []),
    ("seed 001, 128 on 12", "kvm-128on12.ini", []),
    ("seed 001, 12 on 12", "kvm-12on12.ini", []),
]

# (fault, strategy whose protocol it breaks, extra settings it needs to
# exist at all: global pages, VP indexes other than CPU numbers).
# gen-zero-skip needs flushes without a tlb generation, which only the
# page reclaim of oracle-stress issues.
FAULTS = [
    ("no-wait", "hyperv", []),
    ("drop-target", "hyperv", []),
    ("skip-lazy-freed", "ipi", []),
    ("lose-deferred", "kvm-pv", []),
    ("global-survives", "ipi", ["workload.kernel_pages=16"]),
    ("host-no-wait", "hyperv", []),
    ("vp-as-cpu", "hyperv", ["hypervisor.vp_index_offset=1"]),
    ("gen-zero-skip", "ipi", []),
]

SEEDS = {"hyperv-16vcpu.ini": "10000", "kvm-128on12.ini": "10",
         "kvm-12on12.ini": "10"}


def cell(exe, src, scen, extra, fault, strategy, need, quick=False):
    """One cell: the run of @fault with @strategy on scenario file @scen
    with settings @extra and @need. Returns (text, command, missed)."""
    sets = extra + need
    if quick and scen in SEEDS:
        sets = sets + ["workload.iterations=" + SEEDS[scen]]
    cmd = [exe, "sim", os.path.join(src, "scenarios", scen),
           "--compare", strategy, "--fault", fault, "--json"]
    for kv in sets:
        cmd += ["--set", kv]
    out = subprocess.run(cmd, check=True, capture_output=True,
                         text=True).stdout
    r = json.loads(out)["runs"][0]
    v = r["violations"]
    hits = r["fault_hits"]
    if not hits:
        text = "no hit" + (f" ({v['latent']}/{v['used']})"
                           if v["total"] else "")
    elif v["latent"]:
        text = f"caught {hits}/{v['latent']}/{v['used']}"
    else:
        text = f"**MISSED** {hits}/0/{v['used']}"
    return text, cmd, bool(hits) and not v["latent"]


def main():
    exe, src = sys.argv[1], sys.argv[2]
    quick = "--quick" in sys.argv[3:]
    cmds, bad = [], 0
    print("| configuration | " + " | ".join(
        f"{f} ({s})" for f, s, _ in FAULTS) + " |")
    print("|---|" + "---|" * len(FAULTS))
    for name, scen, extra in CONFIGS:
        row = []
        for fault, strategy, need in FAULTS:
            text, cmd, missed = cell(exe, src, scen, extra, fault,
                                     strategy, need, quick)
            bad += missed
            row.append(text)
            cmds.append(" ".join(shlex.quote(
                c if c != exe else "hvtlb") for c in cmd).replace(
                    src + "/", ""))
        print(f"| {name} | " + " | ".join(row) + " |")
    print()
    print("Commands (from the source tree, `hvtlb` = "
          "build/tools/hvtlb/hvtlb):")
    print()
    for c in cmds:
        print("    " + c)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
