#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The cost of the oracle's latent check: `hvtlb sim` on the seed scenarios
with engine.latent_check on and off, one engine thread, CPU time (user +
sys of the child), the variants interleaved run by run, medians.

usage: oracle-cost.py HVTLB SRCDIR [--reps N] [--base HVTLB2] [--quick]

--base adds a third variant: another hvtlb binary (e.g. the engine before
the oracle changes), check off. --quick runs the seed scenarios at 1/10 of
their operations. Exits 1 when the check costs more than 10 % of the
engine's time (check off) on a scenario.
"""
import argparse
import importlib
import os
import statistics
import sys

# The CPU-time timer of the interleaved benchmarks (cpu-interleaved.py).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
cpu_of = importlib.import_module("cpu-interleaved").cpu_of

SCENARIOS = ["default", "hyperv-16vcpu", "kvm-12on12", "kvm-128on12"]
BUDGET = 0.10


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("hvtlb")
    ap.add_argument("srcdir")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--base")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()

    variants = [("off", a.hvtlb, ["--set", "engine.latent_check=0"]),
                ("on", a.hvtlb, ["--set", "engine.latent_check=1"])]
    if a.base:
        variants.insert(0, ("base", a.base, []))
    bad = 0
    print(f"{'scenario':16} " + " ".join(f"{v[0]:>9}" for v in variants) +
          "   check")
    for sc in SCENARIOS:
        path = os.path.join(a.srcdir, "scenarios", sc + ".ini")
        extra = []
        if a.quick and sc != "default":
            extra = ["--set", "workload.iterations=" +
                     ("10000" if sc == "hyperv-16vcpu" else "10")]
        times = {v[0]: [] for v in variants}
        for _ in range(a.reps):
            for name, exe, args in variants:
                cmd = [exe, "sim", path, "--threads", "1", "--json"]
                times[name].append(cpu_of(cmd + args + extra))
        med = {k: statistics.median(t) for k, t in times.items()}
        over = med["on"] / med["off"] - 1
        bad += over > BUDGET
        print(f"{sc:16} " + " ".join(f"{med[v[0]]:8.2f}s" for v in variants)
              + f"  {over * 100:+5.1f} %")
    print(f"medians of {a.reps} interleaved runs, CPU s; budget "
          f"{BUDGET * 100:.0f} %: {'met' if not bad else 'MISSED'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
