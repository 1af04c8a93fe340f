#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Shows that the core tests can fail: each mutant breaks one invariant of
src/core (one small source edit), and the core unit tests plus the `hvtlb
plan` test must catch every one.

Usage: tests/core/mutants.py [SOURCE-ROOT]

Works on a scratch copy (git archive HEAD with this checkout's src/core and
tests/core laid over it), never on the checkout itself, and rebuilds the
core tests once per mutant (about a minute in all). The meson test
core-mutants (suite mutants) runs it; outside a git checkout it exits 77,
which meson counts as skipped."""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                       os.path.join(os.path.dirname(__file__), "..", ".."))

# (invariant, file, original text, broken text)
MUTANTS = [
    ("early ack refused when page tables are freed", "src/core/flusher.c",
     ".early_ack = f->cfg.early_ack && !w->req->freed_tables,",
     ".early_ack = f->cfg.early_ack,"),
    ("lazy CPUs are reached when page tables are freed", "src/core/flusher.c",
     "bool skip_lazy = f->cfg.lazy_skip && !req->freed_tables;",
     "bool skip_lazy = f->cfg.lazy_skip;"),
    ("offline CPUs get no IPI", "src/core/flusher.c",
     "if (st == HVTLB_CPU_OFFLINE ||", "if (0 ||"),
    ("ceiling: 33 pages stay a range, 34 do not", "src/core/flusher.c",
     "if (w.pages > f->cfg.full_flush_ceiling) {",
     "if (w.pages >= f->cfg.full_flush_ceiling) {"),
    ("serial vs concurrent order", "src/core/flusher.c",
     "if (local && !f->cfg.concurrent)", "if (local && f->cfg.concurrent)"),
    ("IPIs are waited for", "src/core/flusher.c",
     "\t\tf->ops->wait_acks(f->user, targets);", "\t\t(void)0;"),
    ("invalid requests make no backend call", "src/core/flusher.c",
     "if (!f || hvtlb_request_validate(req))", "if (!f || !req)"),
    ("a target >= ncpus is invalid", "src/core/request.c",
     "if (hvtlb_cpumask_next(&req->targets, req->ncpus) < HVTLB_MAX_CPUS)",
     "if (0)"),
    ("end before start is invalid", "src/core/request.c",
     "if (r->end < r->start)\n\t\treturn -EINVAL;", ""),
    ("the fallback IPIs exactly the remote targets", "src/core/flusher.c",
     "return core_ipi_shootdown(f, w, &w->remote, false);",
     "return core_ipi_shootdown(f, w, &w->req->targets, true);"),
    ("hyperv: a failure status falls back", "src/core/strategy-hyperv.c",
     "hvtlb_result_status(result) != HVTLB_STATUS_SUCCESS)", "0)"),
    ("hyperv: no Ex hint, no Ex call", "src/core/strategy-hyperv.c",
     "if (ex && !hints.ex_available)", "if (0)"),
    ("hyperv: a VP >= 4096 falls back", "src/core/strategy-hyperv.c",
     "if (max >= HVTLB_MAX_VPS)\n\t\t\treturn core_fall_back(f, w);", ""),
    ("hyperv: ALL_PROCESSORS only for every present CPU",
     "src/core/strategy-hyperv.c",
     "return core_cpumask_weight_n(&req->targets, req->ncpus) == req->ncpus;",
     "return core_cpumask_weight_n(&req->targets, req->ncpus) + 1 >= "
     "req->ncpus;"),
    ("CPU-mask scans see CPUs in a word's top bits", "src/core/cpumask.c",
     "w = m->bits[i] & (~0ULL << (from % 64));",
     "w = m->bits[i] & (~0ULL << (from % 64)) & 0x7fffffffffffffffULL;"),
    ("hyperv: NON_GLOBAL for a full flush", "src/core/strategy-hyperv.c",
     "d.flags |= HVTLB_FLUSH_NON_GLOBAL_MAPPINGS_ONLY;", "(void)0;"),
    ("hyperv: a List over capacity becomes Space",
     "src/core/strategy-hyperv.c",
     "if (hvtlb_encode_suggest(&d) != d.call) {", "if (0) {"),
    ("hyperv: not recommended means IPIs", "src/core/strategy-hyperv.c",
     "if (!hints.remote_flush_recommended || !f->ops->hypercall)",
     "if (!f->ops->hypercall)"),
    ("hyperv: the compact_vpset knob", "src/core/strategy-hyperv.c",
     "f->cfg.compact_vpset ? HVTLB_VPSET_COMPACT", "0 ? HVTLB_VPSET_COMPACT"),
    ("kvm-pv: a lost CAS keeps its IPI", "src/core/strategy-kvm-pv.c",
     "if (!ops->cmpxchg_preempted(f->user, cpu, &state,\n"
     "\t\t\t\t\t    state | HVTLB_KVM_VCPU_FLUSH_TLB))\n\t\t\tcontinue;",
     "ops->cmpxchg_preempted(f->user, cpu, &state,\n"
     "\t\t\t\t\t    state | HVTLB_KVM_VCPU_FLUSH_TLB);"),
    ("kvm-pv: the CAS sets FLUSH_TLB", "src/core/strategy-kvm-pv.c",
     "state | HVTLB_KVM_VCPU_FLUSH_TLB))", "state))"),
    ("lazy: freed page tables are never lazy", "src/core/strategy-lazy.c",
     "if (!f->ops->lazy_post || w->req->freed_tables)",
     "if (!f->ops->lazy_post)"),
    ("vmm-assist, xen-pv: an error falls back", "src/core/flusher.c",
     "if (rc < 0)\n\t\treturn core_fall_back(f, w);", ""),
    ("vmm-assist, xen-pv: no hint, no host call", "src/core/flusher.c",
     "if (!f->ops->vmm_flush || !hints.vmm_assist)",
     "if (!f->ops->vmm_flush)"),
    ("xen-pv: one page stays MMUEXT_INVLPG_MULTI",
     "src/core/strategy-xen-pv.c",
     "range.end - range.start > XEN_PV_PAGE",
     "range.end - range.start >= XEN_PV_PAGE"),
    ("xen-pv: a wider range is MMUEXT_TLB_FLUSH_MULTI",
     "src/core/strategy-xen-pv.c",
     "\t\trange.all = true;", "\t\trange.all = false;"),
    ("broadcast: chunks of at most broadcast_max_pages",
     "src/core/strategy-broadcast.c",
     "uint64_t n = left < f->cfg.broadcast_max_pages",
     "uint64_t n = left <= f->cfg.broadcast_max_pages + 1"),
    ("broadcast: one TLBSYNC", "src/core/strategy-broadcast.c",
     "\tf->ops->broadcast_sync(f->user);", ""),
    ("recorder: a CAS can lose", "src/core/backend-recording.c",
     "\tif (r->cas_lose[cpu]) {", "\tif (0) {"),
    ("recorder: partial completion", "src/core/backend-recording.c",
     "if (r->reps_per_call && c.rep_start + r->reps_per_call < done)",
     "if (0)"),
    ("config: booleans are strict", "src/core/config.c",
     "\treturn -EINVAL;\n}\n\n/* Decimal",
     "\t*out = true;\n\treturn 0;\n}\n\n/* Decimal"),
]

TESTS = ["tests/core/test-core-strategies", "tests/core/test-core-recorder"]
TOOL = "tools/hvtlb/hvtlb"


def run(cmd, **kw):
    kw.setdefault("text", True)
    return subprocess.run(cmd, capture_output=True, **kw)


def main():
    if run(["git", "-C", ROOT, "rev-parse", "HEAD"]).returncode:
        print(f"{ROOT} is not a git checkout: nothing to mutate")
        return 77
    scratch = tempfile.mkdtemp(prefix="hvtlb-mutants-")
    try:
        src = os.path.join(scratch, "src-tree")
        os.mkdir(src)
        arch = run(["git", "-C", ROOT, "archive", "--format=tar", "HEAD"],
                   check=True, text=False)
        subprocess.run(["tar", "xf", "-", "-C", src], input=arch.stdout,
                       check=True)
        for d in ("src/core", "tests/core"):
            shutil.rmtree(os.path.join(src, d))
            shutil.copytree(os.path.join(ROOT, d), os.path.join(src, d))
        bld = os.path.join(scratch, "build")
        run(["meson", "setup", bld, src], check=True)
        tool = run(["ninja", "-C", bld, TOOL]).returncode == 0
        if run(["ninja", "-C", bld] + TESTS).returncode:
            print("the unmutated core tests do not build")
            return 1
        caught = 0
        for name, path, old, new in MUTANTS:
            p = os.path.join(src, path)
            orig = open(p).read()
            if orig.count(old) != 1:
                print(f"STALE  {name}: the original text is not found once")
                continue
            open(p, "w").write(orig.replace(old, new))
            try:
                targets = TESTS + ([TOOL] if tool else [])
                b = run(["ninja", "-C", bld] + targets)
                if b.returncode:
                    print(f"NOBUILD {name}")
                    continue
                failed = []
                for t in TESTS:
                    r = run([os.path.join(bld, t)], timeout=120)
                    failed += [l.split("]", 1)[1].strip()
                               for l in r.stdout.splitlines()
                               if l.startswith("[  FAILED  ]") and
                               "test(s)" not in l]
                    if r.returncode and not failed:
                        failed.append(os.path.basename(t))
                if tool:
                    r = run([sys.executable,
                             os.path.join(src, "tests/core/test-plan.py"),
                             os.path.join(bld, TOOL)], timeout=300)
                    if r.returncode:
                        failed.append("test-plan.py")
                failed = sorted(set(failed))
                print(f"{'CAUGHT' if failed else 'MISSED'} {name}: "
                      f"{', '.join(failed[:4])}"
                      f"{' ...' if len(failed) > 4 else ''}")
                caught += bool(failed)
            finally:
                open(p, "w").write(orig)
        print(f"{caught}/{len(MUTANTS)} mutants caught"
              f"{'' if tool else ' (hvtlb plan not built: unit tests only)'}")
        return 0 if caught == len(MUTANTS) else 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
