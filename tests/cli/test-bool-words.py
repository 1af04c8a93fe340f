#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every boolean key, strategy.* knobs included, takes every boolean word
in any case, and refuses another word with a message listing them.

usage: test-bool-words.py HVTLB ROOT
"""
import json

from clitest import DEFAULT, run, check, finish

WORDS = ["true", "false", "on", "off", "yes", "no", "1", "0"]
LIST = "|".join(WORDS)

rc, out, err = run("keys", "--json")
keys = [k["name"] for k in json.loads(out)["keys"]
        if k.get("values") == ["false", "true"]]
check("boolean keys found", rc == 0 and "guest.tlb_gen" in keys and
      "strategy.lazy_skip" in keys, keys)

# One run per word sets every boolean key (cut short at once: only the
# configuration is under test; some mixes are impossible machines).
for w in WORDS + ["TRUE", "Off", "Yes"]:
    sets = [a for k in keys for a in ("--set", f"{k}={w}")]
    rc, out, err = run("sim", DEFAULT, "--compare", "ipi", *sets,
                       "--set", "engine.max_virtual_s=0.000001")
    check(f"every boolean key takes '{w}'", "bad value" not in err and
          (rc in (0, 1) or "impossible machine" in err), f"rc={rc} {err!r}")

for k in keys:
    rc, out, err = run("sim", DEFAULT, "--set", f"{k}=maybe")
    check(f"{k} refuses 'maybe' with the words", rc == 2 and
          f"bad value 'maybe' for '{k}'; it takes {LIST}" in err,
          f"rc={rc} {err!r}")

rc, out, err = run("plan", "--strategy", "ipi", "--cpus", "4",
                   "--targets", "1", "--range", "all",
                   "--set", "lazy_skip=on", "--set", "early_ack=YES")
check("plan --set takes the same words", rc == 0, f"rc={rc} {err!r}")
finish()
