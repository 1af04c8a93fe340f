#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The man pages follow the tool: every command in `hvtlb --help` has its
page hvtlb-COMMAND.1 and a paragraph in hvtlb(1), and there is no page for
a command that does not exist; each page documents every option the
command's --help mentions and no option --help does not know; `hvtlb help
COMMAND` prints what `hvtlb COMMAND --help` prints; `hvtlb --version`
prints the project's version and the commit. When the build made the pages
(scdoc found), each also renders with man(1) without a warning.

hvtlb-kvm(1), the page of the KVM prototype's program, is checked the same
way against `hvtlb-kvm --help` when the build made that program
(--kvm=PATH; only where <linux/kvm.h> exists); without it the check says
it skipped.

usage: check-man.py HVTLB MAN_SOURCE_DIR VERSION [--kvm=HVTLB_KVM]
                    [BUILT_PAGE...]
"""
import os
import re
import shutil
import subprocess
import sys

HVTLB, MANDIR, VERSION = sys.argv[1], sys.argv[2], sys.argv[3]
KVM = [a[len("--kvm="):] for a in sys.argv[4:] if a.startswith("--kvm=")]
BUILT = [a for a in sys.argv[4:] if not a.startswith("--kvm=")]
failures = []
OPTION = re.compile(r"--[a-z][a-z0-9-]*")


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else
                                                  f": {detail}"))
    if not cond:
        failures.append(name)


def hvtlb(*args, exe=HVTLB):
    p = subprocess.run([exe, *args], capture_output=True, text=True,
                       timeout=60)
    return p.returncode, p.stdout, p.stderr


def check_options(name, how, text, usage, rc):
    """The page @text, @name(1), documents every option the --help of
    @how (@usage, exit @rc) mentions, and none --help does not."""
    in_help = set(OPTION.findall(usage))
    in_page = set(OPTION.findall(text))
    terms = set(re.findall(r"^\*(--[a-z][a-z0-9-]*)\*", text, re.M))
    check(f"{name}(1) has every option of '{how} --help'",
          rc == 0 and in_help <= in_page,
          f"missing {sorted(in_help - in_page)}")
    check(f"{name}(1) documents no option --help does not know",
          terms <= in_help | {"--help"},
          f"extra {sorted(terms - in_help - {'--help'})}")


def commands():
    rc, out, _ = hvtlb("--help")
    body = out.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in body.splitlines() if line.strip()]


def page(name):
    path = os.path.join(MANDIR, name + ".scd")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return f.read()


cmds = commands()
check("hvtlb --help lists commands", len(cmds) >= 5, cmds)
main = page("hvtlb.1") or ""
# hvtlb-kvm(1) is a program of its own, not a command of hvtlb.
pages = {f[len("hvtlb-"):-len(".1.scd")] for f in os.listdir(MANDIR)
         if f.startswith("hvtlb-") and f.endswith(".1.scd")} - {"kvm"}
check("a page per command, and no page without a command",
      pages == set(cmds), f"pages {sorted(pages)}, commands {sorted(cmds)}")

for cmd in cmds:
    text = page(f"hvtlb-{cmd}.1")
    check(f"hvtlb(1) describes {cmd}", f"\n*{cmd}*\n" in main)
    if text is None:
        continue
    rc, usage, err = hvtlb(cmd, "--help")
    check_options(f"hvtlb-{cmd}", f"hvtlb {cmd}", text, usage, rc)
    rc2, out2, err2 = hvtlb("help", cmd)
    check(f"hvtlb help {cmd} = hvtlb {cmd} --help",
          rc2 == rc and out2 == usage, err2)

kvm_page = page("hvtlb-kvm.1")
check("hvtlb-kvm(1) exists", kvm_page is not None)
if KVM and kvm_page is not None:
    rc, usage, err = hvtlb("--help", exe=KVM[0])
    check_options("hvtlb-kvm", "hvtlb-kvm", kvm_page, usage, rc)
    check("hvtlb-kvm(1) names every bench KIND of --help",
          all(f"\n*{k}*\n" in kvm_page for k in re.findall(
              r"[a-z][a-z-]*", usage.split("bench ", 1)[1].split("[", 1)[0])),
          usage)
else:
    print("skip hvtlb-kvm(1) against hvtlb-kvm --help: not built here")

rc, out, err = hvtlb("help", "no-such-command")
check("hvtlb help of an unknown command fails", rc == 2 and
      "no-such-command" in err, err)
rc, out, err = hvtlb("--version")
check("hvtlb --version", rc == 0 and
      re.fullmatch(rf"hvtlb {re.escape(VERSION)} \(commit \S+\)\n", out), out)

man = shutil.which("man")
for built in BUILT:
    if not man:
        break
    p = subprocess.run([man, "--warnings", "-l", built], capture_output=True,
                       text=True, env=dict(os.environ, MANWIDTH="80"),
                       timeout=60)
    check(f"{os.path.basename(built)} renders without warnings",
          p.returncode == 0 and not p.stderr.strip() and p.stdout.strip(),
          p.stderr[:400])

sys.exit(1 if failures else 0)
