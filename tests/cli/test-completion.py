#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Shell completion: `hvtlb scenarios --names` lists the scenario names
alone (from the data directory in use); `hvtlb completion bash|zsh|fish`
each print a script that completes commands, each command's options,
the values of --fault, --set and the like, and scenario names from
`scenarios --names`. Each script is run by its shell where that shell is
installed (zsh -n and fish -n, then a completion); a shell that is not
installed is skipped, and the skip printed.

usage: test-completion.py HVTLB SOURCE_ROOT
"""
import json
import os
import shutil
import subprocess
import tempfile

from clitest import HVTLB, ROOT, check, finish, run

# `hvtlb` as a user types it: the build's binary first on PATH.
ENV = {**os.environ,
       "PATH": os.path.dirname(os.path.abspath(HVTLB)) + os.pathsep +
       os.environ.get("PATH", "")}

# --- scenarios --names --------------------------------------------------
shipped = sorted(n[:-4] for n in os.listdir(os.path.join(ROOT, "scenarios"))
                 if n.endswith(".ini"))
rc, out, err = run("scenarios", "--names")
check("scenarios --names: the shipped names, one a line",
      rc == 0 and out.splitlines() == shipped and err == "", out[:200])
rc, js, err = run("scenarios", "--json")
check("scenarios --names: the names of --json",
      [s["name"] for s in json.loads(js)["scenarios"]] == out.splitlines())
rc, out, err = run("scenarios", "--names", "--json")
check("scenarios --names --json conflict", rc == 2 and out == "" and
      "--json and --names conflict" in err, err)
with tempfile.TemporaryDirectory() as d:
    os.mkdir(os.path.join(d, "scenarios"))
    open(os.path.join(d, "scenarios", "mine.ini"), "w").close()
    p = subprocess.run([HVTLB, "scenarios", "--names"], capture_output=True,
                       text=True, timeout=60,
                       env={**os.environ, "HVTLB_DATA_DIR": d})
    check("scenarios --names follows the data directory",
          p.returncode == 0 and p.stdout == "mine\n", p.stdout + p.stderr)

# --- the scripts ---------------------------------------------------------
scripts = {}
commands = [line.split()[0] for line in
            run("--help")[1].split("commands:\n", 1)[1].splitlines()
            if line.startswith("  ")]
for shell in ("bash", "zsh", "fish"):
    rc, out, err = run("completion", shell)
    scripts[shell] = out
    check(f"completion {shell}: a script naming every command and "
          "asking scenarios --names",
          rc == 0 and err == "" and "scenarios --names" in out and
          all(c in out for c in commands), err)


def script_file(shell):
    f = tempfile.NamedTemporaryFile("w", suffix="." + shell, delete=False)
    f.write(scripts[shell])
    f.close()
    return f.name


def shell_run(argv, stdin=None):
    p = subprocess.run(argv, capture_output=True, text=True, timeout=60,
                       env=ENV, input=stdin)
    return p.returncode, p.stdout, p.stderr


# Each shell: what `hvtlb WORDS` completes to (the last word being typed),
# as a list of candidates.
def bash_complete(path, words):
    cmd = (f"source {path}; COMP_WORDS=(hvtlb {' '.join(map(repr, words))});"
           f" COMP_CWORD={len(words)}; _hvtlb;"
           " printf '%s\\n' \"${COMPREPLY[@]}\"")
    return shell_run(["bash", "-c", cmd])[1].split()


# zsh completes only inside its line editor: the script's function runs
# with compadd, _describe and _files standing in, each printing what it
# was given (compadd's words after --; zsh itself filters by prefix).
ZSH_STUBS = r"""
compadd() { while (( $# )); do [[ $1 == -- ]] && { shift; print -rl -- "$@";
    return; }; shift; done; }
_describe() { local a; for a in ${(P)${@[-1]}}; do print -r -- ${a%%:*};
    done; }
_files() { print -r -- "<files>"; }
compdef() { :; }
source "$1"; shift
words=("$@"); CURRENT=$#
_hvtlb
"""


def zsh_complete(path, words):
    return shell_run(["zsh", "-f", "-c", ZSH_STUBS, "zsh", path, "hvtlb",
                      *words])[1].split()


def fish_complete(path, words):
    line = " ".join(["hvtlb", *words])
    out = shell_run(["fish", "--no-config", "-c",
                     f"source {path}; complete -C {line!r}"])[1]
    return [w.split("\t")[0] for w in out.splitlines()]


COMPLETE = {"bash": bash_complete, "zsh": zsh_complete,
            "fish": fish_complete}
# (words, what must be among the candidates)
CASES = [
    (["sc"], ["scenarios"]),
    (["sim", "mm"], ["mmap-search"]),
    (["sweep", "ora"], ["oracle-stress"]),
    (["sim", "x.ini", "--fault", "dr"], ["drop-target"]),
    (["sim", "x.ini", "--compare", "kv"], ["kvm-pv"]),
    (["sim", "x.ini", "--set", "vm.vcp"], ["vm.vcpus="]),
    (["sweep", "--met"], ["--metric"]),
    (["encode", "--ra"], ["--range"]),
    (["help", "sw"], ["sweep"]),
]
for shell in ("bash", "zsh", "fish"):
    if not shutil.which(shell):
        print(f"skip {shell}: not installed")
        continue
    path = script_file(shell)
    if shell != "bash":
        rc, out, err = shell_run([shell, "-n", path])
        check(f"{shell} -n: the script parses", rc == 0, err)
    for words, want in CASES:
        got = COMPLETE[shell](path, words)
        if shell == "zsh" and words[-1] == "vm.vcp":
            got = [w + "=" for w in got]  # compadd -S =
        check(f"{shell}: hvtlb {' '.join(words)} offers {want}",
              all(w in got for w in want), got[:20])
    os.unlink(path)

finish()
