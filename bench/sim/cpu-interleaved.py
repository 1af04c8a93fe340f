#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Host CPU time of several hvtlb binaries on the same arguments: the
binaries run one after the other, the order rotating each round, and each
run is timed by the user + sys CPU time of the child (getrusage), which on
a shared machine does not count the time other jobs hold the core.
Prints the median of each binary and its speed-up over the first.

usage: cpu-interleaved.py REPS ARGS... -- HVTLB1 HVTLB2 ...
e.g.   cpu-interleaved.py 3 sim scenarios/hyperv-16vcpu.ini --threads 1 \\
           -- old/hvtlb new/hvtlb
"""
import resource
import statistics
import subprocess
import sys


def cpu_of(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime -
                                                  before.ru_stime)


def main():
    if len(sys.argv) < 4 or "--" not in sys.argv[2:]:
        sys.exit(__doc__)
    reps = int(sys.argv[1])
    cut = sys.argv.index("--", 2)
    args, bins = sys.argv[2:cut], sys.argv[cut + 1:]
    secs = {b: [] for b in bins}
    for r in range(reps):
        k = r % len(bins)
        for b in bins[k:] + bins[:k]:
            secs[b].append(cpu_of([b] + args))
    first = statistics.median(secs[bins[0]])
    for b in bins:
        m = statistics.median(secs[b])
        runs = " ".join(f"{x:.3f}" for x in secs[b])
        print(f"{b}: median {m:.3f} s, {first / m:.3f}x the first "
              f"(runs {runs})")


if __name__ == "__main__":
    main()
