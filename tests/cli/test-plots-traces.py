#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Plots, traces and a cluster: sweep --svg is well-formed XML that
rsvg-convert renders to a non-empty PNG, with a title of the sweep, axis
labels with units, log axes, and lines that differ in colour, dash and
marker; sim --trace has Perfetto flows from shootdowns to the flushes
they caused, writes .gz through zlib, and estimates its size before
writing; three shards merged equal the unsharded sweep, and the Slurm
and Kubernetes examples run --shard I/N and --merge.

usage: test-plots-traces.py HVTLB SOURCE_ROOT
"""
import gzip
import json
import os
import random
import re
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET

from clitest import DEFAULT, HVTLB, ROOT, check, finish, run

SVG = "{http://www.w3.org/2000/svg}"


def tornado_clashes(path):
    """Where a tornado's text would overlap, with glyphs 0.6 em wide on
    average: a label left of its bar reaching into the names' column, a
    label right of it past the picture, a title wider than the picture."""
    r = ET.parse(path).getroot()
    width = float(r.get("width"))
    out = []
    for t in r.iter(SVG + "text"):
        if t.get("font-size") == "16" and \
                0.6 * 16 * len("".join(t.itertext())) > width:
            out.append("title wider than the picture")
    for g in r.iter(SVG + "g"):
        if g.get("class") != "bar":
            continue
        name, *labels = list(g.iter(SVG + "text"))
        names_end = float(name.get("x"))
        for t in labels:
            x = float(t.get("x"))
            w = 0.6 * 10 * len("".join(t.itertext()))
            if t.get("text-anchor") == "end" and x - w < names_end + 2:
                out.append(f"{''.join(name.itertext())}: label into the names")
            if t.get("text-anchor") == "start" and x + w > width:
                out.append(f"{''.join(name.itertext())}: label off the right")
    return out


def texts(root):
    return {t.get("class"): "".join(t.itertext())
            for t in root.iter(SVG + "text") if t.get("class")}


def render(svg, png):
    """rsvg-convert (Debian librsvg2-bin): exit 0 and a PNG with pixels."""
    rsvg = shutil.which("rsvg-convert")
    if not rsvg:
        return False, "rsvg-convert is not installed (scripts/deps.sh)"
    p = subprocess.run([rsvg, "-o", png, svg], capture_output=True,
                       text=True, timeout=60)
    if p.returncode or not os.path.exists(png):
        return False, p.stderr
    with open(png, "rb") as f:
        data = f.read()
    ok = data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000
    w, h = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24],
                                                             "big")
    return ok and w >= 900 and h >= 500, f"{len(data)} bytes {w}x{h}"


with tempfile.TemporaryDirectory() as d:
    # --- the line plot ----------------------------------------------
    lin = os.path.join(d, "lin.svg")
    rc, out, err = run("sweep", DEFAULT, "--vary", "vm.vcpus=2,4,8,16",
                       "--vary", "hypervisor.ipiv=0,1", "--set",
                       "workload.iterations=3", "--uncertainty", "3",
                       "--svg", lin, "--metric", "sys_s")
    try:
        root = ET.parse(lin).getroot()
    except (OSError, ET.ParseError) as e:
        root = None
        check("sweep --svg parses as XML", False, str(e))
    if root is not None:
        t = texts(root)
        check("title says what was swept, not the scenario's title",
              t.get("title") == "guest sys time (s) against vm.vcpus: "
              "ipi, hyperv, each hypervisor.ipiv; default.ini, p5..p95 of "
              "3 draws shaded", t.get("title"))
        check("axis labels with units",
              t.get("xlabel") == "vm.vcpus (vCPUs)" and
              t.get("ylabel") == "guest sys time (s)", t)
        series = [g for g in root.iter(SVG + "g") if g.get("class") == "line"]
        styles = []
        for g in series:
            pl = g.find(SVG + "polyline")
            mk = [m.get("class") for m in g
                  if "marker" in m.get("class", "").split()]
            styles.append((pl.get("stroke"), pl.get("stroke-dasharray"),
                           mk[0] if mk else None))
        check("4 series, each with 4 markers",
              len(series) == 4 and all(
                  len([m for m in g
                       if "marker" in m.get("class", "").split()]) == 4
                  for g in series), len(series))
        check("every two series differ in colour, dash and marker",
              all(a[i] != b[i] for k, a in enumerate(styles)
                  for b in styles[k + 1:] for i in range(3)), styles)
        bands = [p for p in root.iter(SVG + "polygon")
                 if p.get("class") == "band"]
        check("--uncertainty: one shaded band per series",
              len(bands) == 4 and all(float(b.get("fill-opacity")) < 1
                                      for b in bands), len(bands))
        ok, why = render(lin, os.path.join(d, "lin.png"))
        check("rsvg-convert renders it to a non-empty PNG", ok, why)

    # --- log axes -----------------------------------------------------
    log = os.path.join(d, "log.svg")
    rc, out, err = run("sweep", DEFAULT, "--vary", "vm.vcpus=2,20,200",
                       "--set", "workload.iterations=2", "--svg", log,
                       "--log-x", "--log-y", "--metric", "vm_exits")
    root = ET.parse(log).getroot() if rc == 0 else None
    if root is not None:
        xt = [t.text for g in root.iter(SVG + "g")
              if g.get("class") == "xticks" for t in g.iter(SVG + "text")]
        pts = [tuple(map(float, p.split(","))) for g in root.iter(SVG + "g")
               if g.get("class") == "line"
               for p in g.find(SVG + "polyline").get("points").split()]
        xs = sorted({x for x, _ in pts})
        check("--log-x: ticks at decades, equal steps for 2, 20, 200",
              xt == ["1", "10", "100", "1000"] and
              len(xs) == 3 and abs((xs[1] - xs[0]) - (xs[2] - xs[1])) < 0.5,
              f"{xt} {xs}")
        check("--log-y: the label says so",
              texts(root).get("ylabel") == "VM exits, log scale",
              texts(root))
        ok, why = render(log, os.path.join(d, "log.png"))
        check("rsvg-convert renders the log plot", ok, why)
    else:
        check("sweep --log-x --log-y runs", False, err)
    rc, out, err = run("sweep", DEFAULT, "--vary", "vm.vcpus=1,2",
                       "--set", "workload.iterations=2", "--svg",
                       os.path.join(d, "bad.svg"), "--log-y", "--metric",
                       "violations")
    check("--log-y of a metric that is 0 everywhere: a clear error",
          rc == 1 and "--log-y needs positive numbers" in err and
          not os.path.exists(os.path.join(d, "bad.svg")), err)
    rc, out, err = run("sweep", DEFAULT, "--vary", "vm.vcpus=1,2", "--log-x")
    check("--log-x without --svg", rc == 2 and "needs --svg" in err, err)
    rc, out, err = run("sweep", DEFAULT, "--vary", "vm.vcpus=1,2",
                       "--metric", "sys_s")
    check("--metric without --svg", rc == 2 and
          err == "hvtlb sweep: --metric needs --svg FILE\n", err)

    # --- sensitivity's tornado renders too ----------------------------
    tor = os.path.join(d, "tornado.svg")
    rc, out, err = run("sensitivity", DEFAULT, "--set",
                       "workload.iterations=2", "--svg", tor, "-q")
    ok, why = (render(tor, os.path.join(d, "tornado.png"))
               if rc == 0 else (False, err))
    check("sensitivity --svg: XML that rsvg-convert renders",
          ok and ET.parse(tor).getroot().tag == SVG + "svg", why)
    if rc == 0:
        clashes = tornado_clashes(tor)
        check("tornado: no value label runs into the names or off the "
              "picture, the title fits", not clashes, clashes[:3])

    # --- traces: flows, .gz, the size estimate -------------------------
    small = ["--set", "workload.iterations=3", "--set", "vm.vcpus=8",
             "--set", "machine.pcpus=4"]
    plain = os.path.join(d, "t.json")
    rc, out, err = run("sim", DEFAULT, *small, "--trace", plain,
                       "--trace-warn-mb", "0", "-o", os.devnull)
    docs = {}
    for st in ("ipi", "hyperv"):
        path = os.path.join(d, f"t.{st}.json")
        docs[st] = json.load(open(path)) if os.path.exists(path) else None
    check("--trace with compare: one file per strategy",
          rc == 0 and all(docs.values()), err)
    m = re.findall(r"t\.(\w+)\.json: about ([0-9.]+) MB of trace", err)
    sizes = {st: os.path.getsize(os.path.join(d, f"t.{st}.json"))
             for st in docs if docs[st]}
    check("the size estimate, before writing, within 10% of the file",
          len(m) == 2 and all(abs(float(mb) * 1e6 - sizes[st]) <
                              0.1 * sizes[st] for st, mb in m),
          f"{m} {sizes}")
    rc2, _, err2 = run("sim", DEFAULT, *small, "--trace",
                       os.path.join(d, "u.json"), "-o", os.devnull)
    check("no warning under --trace-warn-mb (default 100)",
          rc2 == 0 and "warning" not in err2, err2)
    for st, doc in docs.items():
        if not doc:
            continue
        ev = doc["traceEvents"]
        outs = {e["bind_id"]: e for e in ev if e.get("flow_out")}
        ins = [e for e in ev if e.get("flow_in")]
        check(f"{st}: flows start on shootdowns, end on target flushes",
              ins and all(e["cat"] == "shootdown" and e["ph"] == "X"
                          for e in outs.values()) and
              all(e["cat"] == "flush" and e["ph"] == "X" and
                  e["dur"] == 0 and e["bind_id"] in outs for e in ins),
              f"{len(outs)} out {len(ins)} in")
        check(f"{st}: each arrow points forward in time, from another vCPU",
              all(outs[e["bind_id"]]["ts"] <= e["ts"] and
                  outs[e["bind_id"]]["args"]["vcpu"] != e["tid"] - 1
                  for e in ins))
        check(f"{st}: otherData counts the flows",
              doc["otherData"]["flows"] == len(ins), doc["otherData"])
    if docs["ipi"]:
        ev = docs["ipi"]["traceEvents"]
        ipi_flushes = [e for e in ev if e.get("cat") == "flush" and
                       e["args"]["kind"] == "ipi"]
        check("ipi: every flush an IPI caused has its arrow",
              ipi_flushes and all(e.get("flow_in") for e in ipi_flushes),
              len(ipi_flushes))
    gz = os.path.join(d, "g.json.gz")
    rc, out, err = run("sim", DEFAULT, *small, "--compare", "hyperv",
                       "--trace", gz, "-o", os.devnull)
    rc2, out2, err2 = run("sim", DEFAULT, *small, "--compare", "hyperv",
                          "--trace", os.path.join(d, "g.json"), "-o",
                          os.devnull)
    raw = open(gz, "rb").read() if os.path.exists(gz) else b""
    check("--trace FILE.gz: gzip, the same JSON as the plain file, smaller",
          rc == rc2 == 0 and raw[:2] == b"\x1f\x8b" and
          gzip.decompress(raw) == open(os.path.join(d, "g.json"),
                                       "rb").read() and
          len(raw) * 5 < os.path.getsize(os.path.join(d, "g.json")),
          err + err2)
    rc, out, err = run("sim", DEFAULT, *small, "--trace",
                       os.path.join(d, "c.json.gz"), "-o", os.devnull)
    check("compare with FILE.json.gz: FILE.STRATEGY.json.gz",
          rc == 0 and os.path.exists(os.path.join(d, "c.ipi.json.gz")) and
          os.path.exists(os.path.join(d, "c.hyperv.json.gz")), os.listdir(d))

    # --- shards and merge ----------------------------------------------
    grid = ["--vary", "vm.vcpus=2,4,8", "--vary", "hypervisor.ipiv=0,1",
            "--set", "workload.iterations=2"]
    for extra in ([], ["--uncertainty", "2"]):
        rc, whole, err = run("sweep", DEFAULT, *grid, *extra)
        shards = []
        for i in range(3):
            path = os.path.join(d, f"s{i}.jsonl")
            r, _, e = run("sweep", DEFAULT, *grid, *extra, "--shard",
                          f"{i}/3", "-o", path)
            shards.append(path)
        random.Random(1).shuffle(shards)
        rc2, merged, err2 = run("sweep", "--merge", *shards)
        check(f"3 shards merged == the unsharded sweep {extra}",
              rc == rc2 == 0 and merged == whole and
              len(whole.splitlines()) == 13, err + err2)
    rc, out, err = run("sweep", "--merge", *shards[:2])
    check("--merge without a shard: exit 2, names the missing point",
          rc == 2 and re.search(r"point \d+ of 6 is missing", err) and
          out == "", err)
    rc, out, err = run("sweep", "--merge", shards[0], shards[0], shards[1],
                       shards[2])
    check("--merge of a shard given twice: exit 2",
          rc == 2 and "twice" in err and out == "", err)
    with open(shards[0]) as f:
        other = f.read().replace('"points":6', '"points":7', 1)
    bad = os.path.join(d, "other.jsonl")
    with open(bad, "w") as f:
        f.write(other)
    rc, out, err = run("sweep", "--merge", bad, *shards[1:])
    check("--merge of lines of another sweep: exit 2",
          rc == 2 and "another sweep" in err, err)
    msvg = os.path.join(d, "merged.svg")
    rc, out, err = run("sweep", "--merge", *shards, "--svg", msvg)
    ok, why = render(msvg, os.path.join(d, "merged.png")) if rc == 0 \
        else (False, err)
    check("--merge --svg plots the merged CSV", ok, why)

    # --- the cluster examples -----------------------------------------
    # A stand-in hvtlb records its arguments: the Slurm scripts must shard
    # by the array index and merge every shard.
    fake = os.path.join(d, "bin")
    os.mkdir(fake)
    log = os.path.join(d, "calls")
    with open(os.path.join(fake, "hvtlb"), "w") as f:
        f.write(f"#!/bin/sh\necho \"$@\" >> {log}\n")
    os.chmod(os.path.join(fake, "hvtlb"), 0o755)
    env = dict(os.environ, PATH=fake + ":" + os.environ["PATH"],
               OUT=os.path.join(d, "out"), SLURM_ARRAY_TASK_MAX="3",
               SLURM_CPUS_PER_TASK="2")
    for i in range(4):
        subprocess.run(["bash", os.path.join(ROOT, "examples", "slurm",
                                             "sweep.sbatch")],
                       env=dict(env, SLURM_ARRAY_TASK_ID=str(i)), check=False)
    subprocess.run(["bash", os.path.join(ROOT, "examples", "slurm",
                                         "merge.sbatch")], env=env)
    calls = open(log).read().splitlines() if os.path.exists(log) else []
    check("slurm: task I of 4 runs sweep --shard I/4 -j 2 into its file",
          len(calls) == 5 and all(
              f"--shard {i}/4 -j 2" in calls[i] and
              f"shard-{i}-of-4.jsonl" in calls[i] for i in range(4)),
          calls)
    check("slurm: the merge job joins every shard",
          len(calls) == 5 and calls[4].startswith("sweep --merge "),
          calls[-1:])
    for name in ("sweep-job.yaml", "merge-job.yaml"):
        text = open(os.path.join(ROOT, "examples", "kubernetes", name)).read()
        try:
            import yaml
            doc = yaml.safe_load(text)
            spec = doc["spec"]
            args = " ".join(spec["template"]["spec"]["containers"][0]["args"])
        except ImportError:
            spec, args = {"completionMode": "Indexed"} if "Indexed" in text \
                else {}, text
        if name == "sweep-job.yaml":
            check("kubernetes: an Indexed Job sharding by its index",
                  spec.get("completionMode") == "Indexed" and
                  '--shard "$JOB_COMPLETION_INDEX/$SHARDS"' in args, args)
        else:
            check("kubernetes: the merge job", "sweep --merge" in args, args)

finish()
