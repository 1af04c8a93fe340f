#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes fuzz/corpus/trace-dat from the shipped trace.dat:

  fuzz/gen-corpus-dat.py traces/tlb-churn-2t-pair.dat \\
      traces/tlb-churn-2t-pair.txt.gz fuzz/corpus/trace-dat

real-*: the file made small (1.1 MiB to 24 KiB) with the same text: the
kallsyms keep only the symbols its text twin names (and the next of each,
which bounds their addresses), the event formats only the events the text
reader reads; the rest of the file is moved by whole pages, its
offsets with it. page-*: that file with only the first page of each
CPU's events (a faster seed: 8 ms a read against 0.3 for a refusal).
cut-*: that file cut short at the start of each part.
byte-*: it changed at seeded random bytes of one part each.

Knows trace-cmd's file version 7 with zstd (trace-cmd 3.1.6); needs the
zstd command."""
import gzip
import random
import re
import struct
import subprocess
import sys
from pathlib import Path

PAGE = 0x1000
OPTOFF_AT = 29  # after magic, "7", endianness, long size, page size, zstd
# The events the text reader reads (docs/replay.md), by system.
KEEP = re.compile(rb"^(tlb:tlb_flush|ipi:ipi_send_cpu(mask)?|"
                  rb"csd:csd_(queue_cpu|function_entry|function_exit)|"
                  rb"irq_vectors:call_function(_single)?_(entry|exit)|"
                  rb"sched:sched_(switch|wakeup)|mmap_lock:.*|"
                  rb"syscalls:sys_(enter|exit)_(munmap|madvise|mprotect|mmap))$")


def zstd(b, decompress=False):
    args = ["zstd", "-q", "-c"] + (["-d"] if decompress else ["-19"])
    return subprocess.run(args, input=b, check=True,
                          capture_output=True).stdout


def section(d, off):
    """id, flags, string id, size of the section at off."""
    return struct.unpack_from("<HHIQ", d, off)


def body(d, off):
    sid, fl, strid, sz = section(d, off)
    raw = d[off + 16:off + 16 + sz]
    if fl & 1:
        csz, usz = struct.unpack_from("<II", raw, 0)
        raw = zstd(raw[8:8 + csz], True)
        assert len(raw) == usz
    return raw


def make(sid, strid, raw):
    z = zstd(raw)
    data = struct.pack("<II", len(z), len(raw)) + z
    return struct.pack("<HHIQ", sid, 1, strid, len(data)) + data


def formats(raw):
    """The formats of the events the reader reads."""
    n, = struct.unpack_from("<I", raw, 0)
    i, out = 4, []
    for _ in range(n):
        e = raw.index(b"\0", i)
        name = raw[i:e]
        c, = struct.unpack_from("<I", raw, e + 1)
        i = e + 5
        evs = []
        for _ in range(c):
            sz, = struct.unpack_from("<Q", raw, i)
            fmt = raw[i + 8:i + 8 + sz]
            i += 8 + sz
            ev = re.search(rb"^name: (\S+)", fmt, re.M).group(1)
            if KEEP.match(name + b":" + ev):
                evs.append(struct.pack("<Q", sz) + fmt)
        if evs:
            out.append(name + b"\0" + struct.pack("<I", len(evs)) +
                       b"".join(evs))
    return struct.pack("<I", len(out)) + b"".join(out)


def kallsyms(raw, words):
    n, = struct.unpack_from("<I", raw, 0)
    lines = raw[4:4 + n].split(b"\n")
    keep = set()
    for k, ln in enumerate(lines):
        f = ln.split()
        if len(f) >= 3 and f[2] in words:
            keep.update((k, k + 1))
    text = b"".join(lines[k] + b"\n" for k in sorted(keep)
                    if k < len(lines) and lines[k])
    return struct.pack("<I", len(text)) + text


def options(d, off):
    """(position, id, size) of each option of the section at off."""
    j, end = off + 16, off + 16 + section(d, off)[3]
    while j < end:
        oid, osz = struct.unpack_from("<HI", d, j)
        yield j + 6, oid, osz
        j += 6 + osz


def trim(d, words):
    """The small file, and where its parts start."""
    optoff, = struct.unpack_from("<Q", d, OPTOFF_AT)
    secs = {oid: struct.unpack_from("<Q", d, b)[0]
            for b, oid, _ in options(d, optoff) if 16 <= oid <= 21}
    out = bytearray(d[:0x25])
    newoff = {}
    for oid in sorted(secs, key=secs.get):
        off = secs[oid]
        sid, fl, strid, sz = section(d, off)
        newoff[oid] = len(out)
        if oid == 18:
            out += make(sid, strid, formats(body(d, off)))
        elif oid == 19:
            out += make(sid, strid, kallsyms(body(d, off), words))
        else:
            out += d[off:off + 16 + sz]
    out += b"\0" * ((optoff - len(out)) % PAGE)
    delta = optoff - len(out)
    out += d[optoff:]
    struct.pack_into("<Q", out, OPTOFF_AT, optoff - delta)
    parts = sorted(newoff.values())
    off = optoff - delta
    while off:
        parts.append(off)
        nxt = 0
        for b, oid, osz in list(options(out, off)):
            if 16 <= oid <= 21:
                struct.pack_into("<Q", out, b, newoff[oid])
            elif oid == 0:
                nxt, = struct.unpack_from("<Q", out, b)
                if nxt:
                    nxt -= delta
                    struct.pack_into("<Q", out, b, nxt)
            elif oid == 3:
                moved(out, b, delta, parts)
        off = nxt
    return bytes(out), sorted(set(parts))


def moved(out, b, delta, parts):
    """A buffer option: its section's and its CPUs' offsets."""
    o, = struct.unpack_from("<Q", out, b)
    struct.pack_into("<Q", out, b, o - delta)
    parts.append(o - delta)
    k = out.index(b"\0", b + 8) + 1  # name
    k = out.index(b"\0", k) + 1 + 4  # clock, page size
    ncpu, = struct.unpack_from("<I", out, k)
    k += 4
    for _ in range(ncpu):
        o, = struct.unpack_from("<Q", out, k + 4)
        struct.pack_into("<Q", out, k + 4, o - delta)
        parts.append(o - delta)
        k += 20


def first_pages(d, pages=1):
    """The file with each CPU's data cut to its first pages, in place."""
    out = bytearray(d)
    optoff, = struct.unpack_from("<Q", d, OPTOFF_AT)
    off = optoff
    while off:
        nxt = 0
        for b, oid, osz in list(options(out, off)):
            if oid == 0:
                nxt, = struct.unpack_from("<Q", out, b)
            elif oid == 3:
                k = out.index(b"\0", b + 8) + 1
                k = out.index(b"\0", k) + 1 + 4
                ncpu, = struct.unpack_from("<I", out, k)
                for c in range(ncpu):
                    at = k + 4 + 20 * c
                    cut_cpu(out, at, pages)
        off = nxt
    return bytes(out)


def cut_cpu(out, at, pages):
    """One CPU of a buffer option (cpu, offset, size at at)."""
    o, sz = struct.unpack_from("<QQ", out, at + 4)
    n, = struct.unpack_from("<I", out, o)
    raw, j = b"", o + 4
    for _ in range(n):
        csz, usz = struct.unpack_from("<II", out, j)
        raw += zstd(bytes(out[j + 8:j + 8 + csz]), True)
        j += 8 + csz
    raw = raw[:pages * PAGE]
    z = zstd(raw)
    data = struct.pack("<III", 1, len(z), len(raw)) + z
    assert len(data) <= sz
    out[o:o + sz] = data + b"\0" * (sz - len(data))
    struct.pack_into("<Q", out, at + 12, len(data))


def main():
    dat, text, outdir = sys.argv[1:4]
    d = Path(dat).read_bytes()
    words = set(re.findall(rb"[A-Za-z_][A-Za-z0-9_.]*",
                           gzip.open(text).read()))
    small, parts = trim(d, words)
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    name = Path(dat).name
    (out / f"real-{name}").write_bytes(small)
    (out / f"page-{name}").write_bytes(first_pages(small))
    cuts = sorted({0, 10, 11, 12, 20, OPTOFF_AT, OPTOFF_AT + 4,
                   len(small) - 1} | {p + k for p in parts for k in (0, 20)})
    for c in cuts:
        if c < len(small):
            (out / f"cut-{c:06d}").write_bytes(small[:c])
    rnd = random.Random(24)
    bounds = [0] + parts + [len(small)]
    for k in range(len(bounds) - 1):
        lo, hi = bounds[k], bounds[k + 1]
        if hi <= lo:
            continue
        b = bytearray(small)
        for _ in range(rnd.randint(1, 4)):
            b[rnd.randrange(max(lo, 10), hi)] = rnd.randrange(256)
        (out / f"byte-{lo:06d}").write_bytes(b)


if __name__ == "__main__":
    main()
