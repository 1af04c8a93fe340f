#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The convergence table of docs/uncertainty.md: each validation case's band
under several ways of running `hvtlb validate` (draw counts, case sizes),
side by side, and whether each way gives the verdicts of a reference.

  convergence.py [--ref LABEL] LABEL=FILE.json [LABEL=FILE.json ...]

Each FILE is the output of `hvtlb validate --json ...`. Prints one
markdown row per case: the band p5 / p50 / p95 of each LABEL ("-" where
that run lacks the case) and, for each LABEL that is not the reference,
"same" when its verdicts (inside the band, the sign decided and right)
are those of the reference, else what differs. A band's endpoints are
given to three significant digits.
"""
import json
import sys


def load(path):
    with open(path) as f:
        d = json.load(f)
    return {c["id"]: c for c in d["cases"] if c.get("simulated")}


def band(c):
    s = c["simulated"]
    return f'{s["p5"]:.3g} / {s["p50"]:.3g} / {s["p95"]:.3g}'


def verdicts(c):
    return (c["inside"], c["decides_sign"], c["sign_right"])


def differs(c, r):
    out = []
    for name, a, b in zip(("inside", "decided", "right"), verdicts(c), verdicts(r)):
        if a != b:
            out.append(f"{name} {'yes' if a else 'no'}")
    return ", ".join(out) if out else "same"


def main(argv):
    ref = None
    runs = []
    args = argv[1:]
    while args:
        a = args.pop(0)
        if a == "--ref":
            ref = args.pop(0)
            continue
        label, _, path = a.partition("=")
        if not path:
            sys.exit(f"convergence.py: '{a}' is not LABEL=FILE.json")
        runs.append((label, load(path)))
    if not runs:
        sys.exit(__doc__)
    ref = ref or runs[0][0]
    refcases = dict(runs)[ref]
    ids = sorted({i for _, cases in runs for i in cases})
    others = [label for label, _ in runs if label != ref]
    head = [label for label, _ in runs] + [f"{o} vs {ref}" for o in others]
    print("| case | " + " | ".join(head) + " |")
    print("|---" * (1 + len(runs) + len(others)) + "|")
    for i in ids:
        cells = [band(cases[i]) if i in cases else "-" for _, cases in runs]
        cmp = []
        for label, cases in runs:
            if label == ref:
                continue
            if i in cases and i in refcases:
                cmp.append(differs(cases[i], refcases[i]))
            else:
                cmp.append("-")
        print(f"| `{i}` | " + " | ".join(cells + cmp) + " |")


if __name__ == "__main__":
    main(sys.argv)
