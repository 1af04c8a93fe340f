#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""docs/oracle.md, section 6, against the tool: the table has a column
for every fault `hvtlb keys fault` lists (those of
scripts/oracle-table.py, in its order) and a row for each of its
configurations, and the row of the shipped oracle-stress scenario (the
cheap one: eight runs of a second or so) says what the tool does now:
in each column whether the fault was caught, never hit, or hit without
a hit counted. The counts may move with the model; a verdict that moves
means the table must be produced again.

usage: test-oracle-table.py HVTLB SOURCE_ROOT
"""
import importlib.util
import json
import os
import re

from clitest import HVTLB, ROOT, check, finish, run

spec = importlib.util.spec_from_file_location(
    "oracle_table", os.path.join(ROOT, "scripts", "oracle-table.py"))
table = importlib.util.module_from_spec(spec)
spec.loader.exec_module(table)

with open(os.path.join(ROOT, "docs", "oracle.md")) as f:
    doc = f.read()
section = doc.split("\n## 6.", 1)[1].split("\n## 7.", 1)[0]
lines = [line for line in section.splitlines()
         if line.startswith("| configuration |")]
header = lines[0] if lines else ""
rows = {}
for line in section.split(header, 1)[-1].splitlines()[2:]:
    if not line.startswith("| "):
        break
    cells = [c.strip() for c in line.strip("|").split("|")]
    rows[cells[0]] = cells[1:]

rc, out, err = run("keys", "fault", "--json")
faults = [v for v in json.loads(out)["keys"][0]["values"] if v != "none"]
check("the script has every fault of 'hvtlb keys fault', and no other",
      sorted(f for f, _, _ in table.FAULTS) == sorted(faults),
      f"{[f for f, _, _ in table.FAULTS]} / {faults}")
columns = [c.strip() for c in header.strip("|").split("|")][1:]
check("docs/oracle.md section 6: a column per fault, as the script has",
      columns == [f"{f} ({s})" for f, s, _ in table.FAULTS], columns)
check("docs/oracle.md section 6: a row per configuration of the script",
      list(rows) == [name for name, _, _ in table.CONFIGS], list(rows))


def verdict(cell):
    """caught, missed, no hit, or no hit with violations."""
    if cell.startswith("caught"):
        return "caught"
    if "MISSED" in cell:
        return "missed"
    return "no hit, violations" if re.search(r"\(\d+/\d+\)", cell) \
        else "no hit"


NAME = "oracle-stress (shipped)"
config = [c for c in table.CONFIGS if c[0] == NAME]
doc_row = rows.get(NAME, [])
for i, (fault, strategy, need) in enumerate(table.FAULTS):
    if not config or i >= len(doc_row):
        check(f"{NAME}: a row in the table and the script", False)
        break
    _, scen, extra = config[0]
    text, cmd, missed = table.cell(HVTLB, ROOT, scen, extra, fault,
                                   strategy, need)
    check(f"{NAME}, {fault}: the table says {verdict(doc_row[i])!r}",
          verdict(text) == verdict(doc_row[i]) and not missed,
          f"the tool now gives {text!r}, the table {doc_row[i]!r}")

finish()
