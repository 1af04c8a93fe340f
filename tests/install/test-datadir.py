#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where the uninstalled tool finds its data (tools/hvtlb/running/datadir.h): a
path as given; $HVTLB_DATA_DIR first; the source tree when it runs from
its build tree; a scenario named without a path is a shipped one unless
a file of that name is here; a profile beside the scenario wins over the
shipped one of the same name; an unknown name says where it looked.

usage: test-datadir.py HVTLB SOURCE_ROOT
"""
import os
import shutil
import subprocess
import sys
import tempfile

HVTLB, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
failures = []
SMALL = ["--set", "workload.iterations=5", "--set", "compare=ipi"]


def run(args, cwd, env_dir=None):
    env = dict(os.environ)
    env.pop("HVTLB_DATA_DIR", None)
    if env_dir is not None:
        env["HVTLB_DATA_DIR"] = env_dir
    p = subprocess.run([HVTLB, *args], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else
                                                  f": {detail}"))
    if not cond:
        failures.append(name)


def scenario(title, profile):
    return (f"title = {title}\nprofile = {profile}\nstrategy = ipi\n"
            "[machine]\npcpus = 2\n[vm]\nvcpus = 2\n"
            "[workload]\nthreads = 2\niterations = 5\n")


def profile(vmexit):
    return f"vmexit = {vmexit} ; source: test-datadir.py\n"


with tempfile.TemporaryDirectory() as tmp:
    here = os.path.join(tmp, "here")
    data = os.path.join(tmp, "data")
    mine = os.path.join(tmp, "mine")
    for d in (here, data + "/scenarios", data + "/profiles",
              mine + "/scenarios", mine + "/profiles"):
        os.makedirs(d)
    with open(data + "/scenarios/t.ini", "w") as f:
        f.write(scenario("from HVTLB_DATA_DIR", "p"))
    with open(data + "/profiles/p.ini", "w") as f:
        f.write(profile(1111))

    rc, out, err = run(["sim", "t", *SMALL], here, data)
    check("$HVTLB_DATA_DIR: a scenario by name", rc == 0 and
          "from HVTLB_DATA_DIR" in out, err)

    rc, out, err = run(["sim", "default", *SMALL], here)
    check("uninstalled: 'default' is the source tree's scenario",
          rc == 0 and "seed 000 shape" in out, err)
    rc, out, err = run(["sim", "default", *SMALL], here, data)
    check("$HVTLB_DATA_DIR comes before the source tree",
          rc != 0 and os.path.join(data, "scenarios") in err, err)

    with open(os.path.join(here, "default"), "w") as f:
        f.write(scenario("a file named default", "hyperv-2016"))
    rc, out, err = run(["sim", "default", *SMALL], here)
    check("a file of that name here wins over the shipped scenario",
          rc == 0 and "a file named default" in out, err)
    os.unlink(os.path.join(here, "default"))

    rc, out, err = run(["sim", "no-such-scenario", *SMALL], here)
    check("an unknown name is an error that says where it looked",
          rc == 2 and "no-such-scenario" in err and
          os.path.join(ROOT, "scenarios") in err, err)

    # A scenario of one's own: `profile = hyperv-2016` with no profiles/
    # beside it is the shipped profile; with one beside it, that one.
    own = os.path.join(mine, "scenarios", "own.ini")
    with open(own, "w") as f:
        f.write(scenario("own scenario", "hyperv-2016"))
    rc, out, err = run(["sim", own, *SMALL, "--json"], here)
    check("a scenario elsewhere finds the shipped profile", rc == 0, err)
    with open(os.path.join(mine, "profiles", "hyperv-2016.ini"), "w") as f:
        f.write(profile(2222) + "not a profile line\n")
    rc, out, err = run(["sim", own, *SMALL], here)
    # named by its canonical path, not .../scenarios/../profiles/...
    check("a profile beside the scenario wins over the shipped one",
          rc == 2 and os.path.join(os.path.realpath(mine), "profiles",
                                   "hyperv-2016.ini") + ":2:" in err and
          "/../" not in err, err)
    os.unlink(os.path.join(mine, "profiles", "hyperv-2016.ini"))
    rc, out, err = run(["sim", own, *SMALL, "--set", "profile=kvm-2018"],
                       here)
    check("--set profile=NAME falls back to the shipped profile",
          rc == 0, err)
    # The scenario's own `profile = hyperv-2016` must load first.
    shutil.copy(os.path.join(ROOT, "profiles", "hyperv-2016.ini"),
                os.path.join(data, "profiles"))
    rc, out, err = run(["sim", own, *SMALL, "--set", "profile=p"], here,
                       data)
    check("... the one of $HVTLB_DATA_DIR when set",
          rc == 0 and "profile p," in out, err)

    shutil.copytree(os.path.join(ROOT, "tests", "scenario", "validation"),
                    os.path.join(data, "validation"))
    rc, out, err = run(["validate", "--quick", "--uncertainty", "2"], here,
                       data)
    # Their relative profile paths do not load from there: what counts is
    # that validate read these files (named on stderr when none loads).
    check("validate: the validation/ of $HVTLB_DATA_DIR",
          all(os.path.join(data, "validation", f) in out + err
              for f in ("tiny-ratio.ini", "tiny-value.ini")), err)

sys.exit(1 if failures else 0)
