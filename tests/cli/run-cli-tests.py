#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs the built hvtlb binary: `hvtlb encode` and `hvtlb decode`.

usage: run-cli-tests.py HVTLB [GOLDEN_DIR]

Checks exit codes, stdout and stderr: the TLFS example, golden text output,
encode -> decode round trips for every call through the JSON, --auto
choosing each flush call, bad command lines (exit 2, one stderr line naming
the argument) and decodes that answer a failure status (exit 0).
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

HVTLB = sys.argv[1]
GOLDEN = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), 'golden')
failures = []
checks = 0


def run(*args, stdin=None):
    p = subprocess.run([HVTLB] + list(args), capture_output=True, text=True,
                       input=stdin, timeout=30)
    return p.returncode, p.stdout, p.stderr


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print('FAIL: ' + what, file=sys.stderr)


def ok_json(*args):
    """Runs a command that must succeed with one line of JSON."""
    rc, out, err = run(*args)
    check(rc == 0, '%s: exit %d, want 0 (stderr %r)' % (args, rc, err))
    check(err == '', '%s: unexpected stderr %r' % (args, err))
    lines = out.splitlines()
    check(len(lines) == 1, '%s: %d stdout lines, want 1' % (args, len(lines)))
    try:
        return json.loads(out)
    except ValueError:
        check(False, '%s: stdout is not JSON: %r' % (args, out))
        return {}


def hex64(v):
    return '0x%016x' % v


# ---------------------------------------------------------------------------
# The TLFS example (docs/wire-format.md, "VP sets"): VPs {0, 5, 130} ->
# mask 0x5, banks
# 0x21 and 0x4, variable header size 2. The exact line is the contract.
TLFS_ARGS = ['encode', '--call', 'list-ex', '--vps', '0,5,130',
             '--range', '0x7f0000000000+1', '--json']
rc, out, err = run(*TLFS_ARGS)
want = ('{"control":"0x0000000100040014","call":"list-ex","fast":false,'
        '"rep_count":1,"varhead":2,"input":["0x0000000000000000",'
        '"0x0000000000000000","0x0000000000000000","0x0000000000000005",'
        '"0x0000000000000021","0x0000000000000004","0x00007f0000000000"]}\n')
check(rc == 0 and err == '', 'TLFS example: exit %d stderr %r' % (rc, err))
# Every document starts with its schema and what built the tool
# (docs/json.md); the commit changes with every build, the rest may not.
META = re.compile(r'\{"schema":1,"hvtlb":\{"version":"[^"]+","commit":"[^"]+"\},')
check(META.match(out), 'TLFS example: no schema and hvtlb first: %r' % out)
check(META.sub('{', out, count=1) == want,
      'TLFS example: got %r, want %r' % (out, want))

# ---------------------------------------------------------------------------
# Golden text output (tests/cli/golden/NAME.args holds the arguments, one a
# line; NAME.out the exact stdout).
for name in sorted(os.listdir(GOLDEN)):
    if not name.endswith('.args'):
        continue
    base = name[:-5]
    with open(os.path.join(GOLDEN, name)) as f:
        args = [a for a in f.read().splitlines() if a]
    with open(os.path.join(GOLDEN, base + '.out')) as f:
        want = f.read()
    rc, out, err = run(*args)
    check(rc == 0, 'golden %s: exit %d (%r)' % (base, rc, err))
    check(out == want, 'golden %s: stdout differs:\n%s\n--- want ---\n%s' %
          (base, out, want))


# ---------------------------------------------------------------------------
# Round trips: encode --json, feed the words to decode --json, compare.
def page_bytes(size):
    return {'4k': 1 << 12, '2m': 1 << 21, '1g': 1 << 30}[size]


def spans(ranges):
    """[(gva, pages, page_size)] -> merged [start, end) byte intervals."""
    iv = sorted((g - g % ps, -(-(g + n * ps) // ps) * ps)
                for g, n, ps in ranges)
    out = []
    for s, e in iv:
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def vp_list(spec):
    vps = set()
    for item in spec.split(','):
        lo, _, hi = item.partition('-')
        lo = int(lo, 0)
        hi = int(hi, 0) if hi else lo
        vps.update(range(lo, hi + 1))
    return sorted(vps)


ROUND_TRIPS = [
    # (encode arguments, expected decode fields)
    (['--call', 'space', '--vps', '0,5,63', '--address-space', '0x1234000',
      '--non-global'],
     dict(call='space', flags=['non-global-mappings-only'],
          address_space=0x1234000, vps='0,5,63', ranges=[])),
    (['--call', 'space', '--all-processors', '--all-address-spaces'],
     dict(call='space', flags=['all-processors', 'all-virtual-address-spaces'],
          address_space=0, vps='all', ranges=[])),
    (['--call', 'list', '--vps', '1-3', '--range', '0x7f0000000000+16',
      '--range', '0x1000+1'],
     dict(call='list', flags=[], address_space=0, vps='1-3',
          ranges=[(0x7f0000000000, 16, '4k'), (0x1000, 1, '4k')])),
    (['--call', 'list', '--vps', '7', '--range', '0x40000000+5000'],
     dict(call='list', flags=[], address_space=0, vps='7',
          ranges=[(0x40000000, 5000, '4k')])),
    (['--call', 'list', '--vps', '0-63', '--fast', '--range',
      '0x200000+3'],
     dict(call='list', flags=[], address_space=0, vps='0-63',
          ranges=[(0x200000, 3, '4k')])),
    (['--call', 'space-ex', '--vps', '0,5,130,4095', '--address-space',
      '0xabc000'],
     dict(call='space-ex', flags=[], address_space=0xabc000,
          vps='0,5,130,4095', ranges=[])),
    (['--call', 'space-ex', '--vps', '64-127,200', '--vpset', 'linux'],
     dict(call='space-ex', flags=[], address_space=0, vps='64-127,200',
          ranges=[])),
    (['--call', 'space-ex', '--vps', '100', '--fast', '--non-global'],
     dict(call='space-ex', flags=['non-global-mappings-only'],
          address_space=0, vps='100', ranges=[])),
    (['--call', 'list-ex', '--vps', '0,5,130', '--range',
      '0x7f0000000000+1'],
     dict(call='list-ex', flags=[], address_space=0, vps='0,5,130',
          ranges=[(0x7f0000000000, 1, '4k')])),
    (['--call', 'list-ex', '--vps', '1000-1100', '--extended',
      '--page-size', '2m', '--range', '0x40000000+3'],
     dict(call='list-ex', flags=['use-extended-range-format'],
          address_space=0, vps='1000-1100',
          ranges=[(0x40000000, 3, '2m')])),
    (['--call', 'list-ex', '--vps', '4095', '--extended', '--page-size',
      '1g', '--range', '0x80000000+2', '--fast'],
     dict(call='list-ex', flags=['use-extended-range-format'],
          address_space=0, vps='4095', ranges=[(0x80000000, 2, '1g')])),
    (['--call', 'list-ex', '--vps', '70', '--extended', '--range',
      '0x10000+3000'],
     dict(call='list-ex', flags=['use-extended-range-format'],
          address_space=0, vps='70', ranges=[(0x10000, 3000, '4k')])),
    (['--call', 'ipi', '--vps', '0,1,63', '--vector', '0x30'],
     dict(call='ipi', vps='0,1,63', vector=0x30)),
    (['--call', 'ipi', '--vps', '2', '--vector', '255', '--fast'],
     dict(call='ipi', vps='2', vector=255)),
    (['--call', 'ipi-ex', '--vps', '0,64-127,4095', '--vector', '16'],
     dict(call='ipi-ex', vps='0,64-127,4095', vector=16)),
    (['--call', 'ipi-ex', '--all-processors', '--vector', '0xef'],
     dict(call='ipi-ex', vps='all', vector=0xef)),
]

for enc_args, want in ROUND_TRIPS:
    tag = ' '.join(enc_args)
    e = ok_json('encode', *enc_args, '--json')
    if not e:
        continue
    check(e.get('call') == want['call'], '%s: call %r' % (tag, e.get('call')))
    check(e.get('fast') == ('--fast' in enc_args),
          '%s: fast %r' % (tag, e.get('fast')))
    words = e.get('input', [])
    check(all(len(w) == 18 and w.startswith('0x') and w == w.lower()
              for w in words + [e.get('control', '')]),
          '%s: words not 0x + 16 lowercase digits' % tag)
    ctl = int(e['control'], 16)
    check((ctl >> 32) & 0xfff == e['rep_count'], '%s: rep_count' % tag)
    check((ctl >> 17) & 0x3ff == e['varhead'], '%s: varhead' % tag)
    dec = ['decode', '--control', e['control'], '--input',
           ','.join(words), '--json']
    if e['fast']:
        dec.append('--fast')
    d = ok_json(*dec)
    check(d.get('status') == 0 and
          d.get('status_name') == 'HV_STATUS_SUCCESS',
          '%s: decode status %r' % (tag, d))
    check(d.get('result') == hex64(e['rep_count'] << 32),
          '%s: result %r' % (tag, d.get('result')))
    check(d.get('call') == want['call'], '%s: decoded call %r' %
          (tag, d.get('call')))
    wvps = 'all' if want['vps'] == 'all' else vp_list(want['vps'])
    check(d.get('vps') == wvps, '%s: vps %r want %r' %
          (tag, d.get('vps'), wvps))
    if 'vector' in want:
        check(d.get('vector') == want['vector'], '%s: vector %r' %
              (tag, d.get('vector')))
        check(d.get('flags') == [] and d.get('ranges') == [],
              '%s: IPI flags/ranges %r' % (tag, d))
        continue
    check('vector' not in d, '%s: flush call has a vector' % tag)
    check(sorted(d.get('flags', [])) == sorted(want['flags']),
          '%s: flags %r' % (tag, d.get('flags')))
    check(d.get('address_space') == hex64(want['address_space']),
          '%s: address space %r' % (tag, d.get('address_space')))
    got = [(int(r['gva'], 16), r['pages'], r['page_size'])
           for r in d.get('ranges', [])]
    exp = [(g, n, page_bytes(s)) for g, n, s in want['ranges']]
    check(spans(got) == spans(exp), '%s: ranges %r want %r' %
          (tag, got, exp))
    # the same input from a file, text and binary
    with tempfile.TemporaryDirectory() as tmp:
        txt = os.path.join(tmp, 'in.txt')
        with open(txt, 'w') as f:
            f.write('# words\n' + '\n'.join(words) + '\n')
        binf = os.path.join(tmp, 'in.bin')
        with open(binf, 'wb') as f:
            for w in words:
                f.write(int(w, 16).to_bytes(8, 'little'))
        base = ['decode', '--control', e['control'], '--json'] + \
            (['--fast'] if e['fast'] else [])
        d2 = ok_json(*base, '--input-file', txt)
        check(d2 == d, '%s: --input-file differs: %r' % (tag, d2))
        d3 = ok_json(*base, '--input-file', binf, '--binary')
        check(d3 == d, '%s: --binary differs: %r' % (tag, d3))

# Seeded random round trips: whatever encode accepts, the strict decoder
# accepts, naming the same VPs and covering the same pages; whatever encode
# refuses, it refuses with exit 2 and one line.
rng = random.Random(20261130)
random_ok = 0
for _ in range(150):
    call = rng.choice(['space', 'list', 'space-ex', 'list-ex', 'ipi',
                       'ipi-ex', None])
    args = ['--auto'] if call is None else ['--call', call]
    flush = call not in ('ipi', 'ipi-ex')
    listy = call in ('list', 'list-ex', None)
    if rng.random() < 0.15:
        args.append('--all-processors')
        want_vps = 'all'
    else:
        vps = set()
        for _ in range(rng.choice([1, 2, 3, 8])):
            lo = rng.choice([0, 1, 63, 64, 128, 4095, rng.randrange(4096)])
            hi = min(4095, lo + rng.choice([0, 0, 1, 5, 64, 300]))
            vps.update(range(lo, hi + 1))
        args += ['--vps', ','.join(str(v) for v in sorted(vps))]
        want_vps = sorted(vps)
    if not flush:
        args += ['--vector', str(rng.choice([16, 48, 255]))]
    want_ranges = []
    if listy:
        ps = rng.choice(['4k', '2m', '1g'])
        args += ['--page-size', ps]
        if rng.random() < 0.5:
            args.append('--extended')
        for _ in range(rng.choice([1, 1, 2, 4])):
            # canonical, low half, far from the hole: every page survives
            g = rng.randrange(1 << 44)
            n = rng.choice([1, 2, 511, 513, 2049, 4097, 70000])
            if ps == '1g':
                n = min(n, 3)
            args += ['--range', '0x%x+%d' % (g, n)]
            want_ranges.append((g, n, page_bytes(ps)))
    if rng.random() < 0.3:
        args += ['--vpset', 'linux']
    if rng.random() < 0.3:
        args.append('--fast')
    tag = 'random ' + ' '.join(args)
    rc, out, err = run('encode', *args, '--json')
    if rc == 2:
        check(out == '' and len(err.splitlines()) == 1,
              '%s: refusal %r %r' % (tag, out, err))
        continue
    check(rc == 0 and err == '', '%s: exit %d %r' % (tag, rc, err))
    if rc:
        continue
    e = json.loads(out)
    d = ok_json('decode', '--control', e['control'], '--input',
                ','.join(e['input']), '--json',
                *(['--fast'] if e['fast'] else []))
    check(d.get('status') == 0, '%s: decode %r' % (tag, d))
    if d.get('status') != 0:
        continue
    random_ok += 1
    check(d['vps'] == want_vps, '%s: vps %r' % (tag, d['vps']))
    if e['call'] in ('list', 'list-ex'):
        got = [(int(r['gva'], 16), r['pages'], r['page_size'])
               for r in d['ranges']]
        check(spans(got) == spans(want_ranges), '%s: ranges %r' %
              (tag, spans(got)))

check(random_ok >= 50, 'only %d random round trips encoded' % random_ok)

# A round trip through the text output: every input word is printed once.
rc, out, err = run('encode', '--call', 'list-ex', '--vps', '0,5,130',
                   '--range', '0x7f0000000000+16')
check(rc == 0, 'text encode exit %d' % rc)
for needle in ['control 0x0000000100040014', 'bank 0 (VPs 0..63)',
               'bank 2 (VPs 128..191)', 'valid banks mask',
               'gva 0x7f0000000000 +16 pages (4k)', 'address space']:
    check(needle in out, 'text encode lacks %r:\n%s' % (needle, out))

# ---------------------------------------------------------------------------
# --auto chooses as Linux does (docs/wire-format.md, "What the guest chooses").
AUTO = [
    (['--vps', '0,5'], 'space', ['non-global-mappings-only']),
    (['--vps', '0,64'], 'space-ex', ['non-global-mappings-only']),
    (['--all-processors'], 'space',
     ['all-processors', 'non-global-mappings-only']),
    (['--all-processors', '--vps', '1'], None, None),  # conflict
    (['--vps', '3', '--range', '0x1000+1'], 'list', []),
    (['--vps', '3,200', '--range', '0x1000+1'], 'list-ex', []),
    (['--all-processors', '--range', '0x1000+1'], 'list',
     ['all-processors']),
    # 509 entries of 16 MiB fit a non-Ex List; 510 do not.
    (['--vps', '3', '--range', '0x0+%d' % (509 * 4096)], 'list', []),
    (['--vps', '3', '--range', '0x0+%d' % (509 * 4096 + 1)], 'space', []),
    # ListEx with one bank holds 507 entries.
    (['--vps', '64', '--range', '0x0+%d' % (507 * 4096)], 'list-ex', []),
    (['--vps', '64', '--range', '0x0+%d' % (507 * 4096 + 1)], 'space-ex',
     []),
    # Linux-style VP set {64, 200}: banks 0..3, so 508 - 4 = 504 entries.
    (['--vps', '64,200', '--vpset', 'linux', '--range',
      '0x0+%d' % (504 * 4096)], 'list-ex', []),
    (['--vps', '64,200', '--vpset', 'linux', '--range',
      '0x0+%d' % (504 * 4096 + 1)], 'space-ex', []),
    # fast ListEx with one bank: 10 - 1 = 9 entries
    (['--vps', '64', '--fast', '--range', '0x0+%d' % (9 * 4096)],
     'list-ex', []),
    (['--vps', '64', '--fast', '--range', '0x0+%d' % (9 * 4096 + 1)],
     'space-ex', []),
    # fast: 11 entries non-Ex
    (['--vps', '3', '--fast', '--range', '0x0+%d' % (11 * 4096)], 'list',
     []),
    (['--vps', '3', '--fast', '--range', '0x0+%d' % (11 * 4096 + 1)],
     'space', []),
    # extended format applies only when a List is chosen
    (['--vps', '3', '--extended'], 'space', ['non-global-mappings-only']),
    (['--vps', '3', '--extended', '--range', '0x0+2048'], 'list',
     ['use-extended-range-format']),
]
for args, call, flags in AUTO:
    tag = 'auto ' + ' '.join(args)
    if call is None:
        rc, out, err = run('encode', '--auto', *args, '--json')
        check(rc == 2, '%s: exit %d, want 2' % (tag, rc))
        continue
    e = ok_json('encode', '--auto', *args, '--json')
    check(e.get('call') == call, '%s: chose %r, want %r' %
          (tag, e.get('call'), call))
    if not e:
        continue
    d = ok_json('decode', '--control', e['control'], '--input',
                ','.join(e['input']), '--json',
                *(['--fast'] if e['fast'] else []))
    check(d.get('status') == 0, '%s: decode status %r' % (tag, d))
    check(sorted(d.get('flags', [])) == sorted(flags),
          '%s: flags %r want %r' % (tag, d.get('flags'), flags))

# ---------------------------------------------------------------------------
# Bad command lines: exit 2, nothing on stdout, exactly one stderr line that
# names the offending argument.
BAD = [
    (['encode', '--bogus'], '--bogus'),
    (['encode', '--call'], '--call'),
    (['encode', '--call', 'list', '--vps'], '--vps'),
    (['encode', '--call', 'space', '--vps', '--json'], '--vps'),
    (['encode', '--call', 'flush', '--vps', '1'], 'flush'),
    (['encode', '--vps', '1'], '--call'),
    (['encode', '--call', 'space', '--auto', '--vps', '1'], '--auto'),
    (['encode', '--call', 'space', '--vps', '4096'], '4096'),
    (['encode', '--call', 'space', '--vps', '0-5000'], '--vps'),
    (['encode', '--call', 'space', '--vps', '1,,2'], '1,,2'),
    (['encode', '--call', 'space', '--vps', '9-3'], '9-3'),
    (['encode', '--call', 'space', '--vps', 'x'], "'x'"),
    (['encode', '--call', 'space', '--vps', ''], '--vps'),
    (['encode', '--call', 'space'], '--vps'),
    (['encode', '--call', 'space', '--vps', '1', '--all-processors'],
     '--all-processors'),
    (['encode', '--call', 'space', '--vps', '1', '--vps', '2'], '--vps'),
    (['encode', '--call', 'space', '--vps', '1', '--address-space', 'zz'],
     'zz'),
    (['encode', '--call', 'space', '--vps', '1', '--address-space', '0x'],
     '--address-space'),
    (['encode', '--call', 'space', '--vps', '1', '--address-space',
      '0x10000000000000000'], '--address-space'),
    (['encode', '--call', 'space', '--vps', '1', '--address-space', '0x1000',
      '--all-address-spaces'], '--all-address-spaces'),
    (['encode', '--call', 'list', '--vps', '1', '--range', '0x1000'],
     '0x1000'),
    (['encode', '--call', 'list', '--vps', '1', '--range', '0x1000+0'],
     '0x1000+0'),
    (['encode', '--call', 'list', '--vps', '1', '--range', '0x1000+x'],
     '0x1000+x'),
    (['encode', '--call', 'list', '--vps', '1', '--range',
      '0xfffffffffffff000+2'], '0xfffffffffffff000'),
    (['encode', '--call', 'list', '--vps', '1', '--range', '0x1000+1',
      '--page-size', '8k'], '8k'),
    (['encode', '--call', 'list', '--vps', '1', '--range', '0x1000+1',
      '--page-size', '4k', '--page-size', '2m'], '--page-size'),
    (['encode', '--call', 'list', '--vps', '1'], '--range'),
    (['encode', '--call', 'space', '--vps', '1', '--range', '0x1000+1'],
     '--range'),
    (['encode', '--call', 'space', '--vps', '1', '--extended'],
     '--extended'),
    (['encode', '--call', 'list', '--vps', '1', '--range', '0x1000+1',
      '--non-global'], '--non-global'),
    (['encode', '--call', 'space', '--vps', '1', '--vpset', 'sparse'],
     'sparse'),
    (['encode', '--call', 'ipi', '--vps', '1'], '--vector'),
    (['encode', '--call', 'ipi', '--vps', '1', '--vector', '15'], '15'),
    (['encode', '--call', 'ipi', '--vps', '1', '--vector', '256'], '256'),
    (['encode', '--call', 'ipi', '--vps', '1', '--vector', 'ten'], 'ten'),
    (['encode', '--call', 'ipi', '--vps', '1', '--vector', '18446744073709551616'],
     '--vector'),
    (['encode', '--call', 'ipi', '--all-processors', '--vector', '32'],
     'ipi-ex'),
    (['encode', '--call', 'ipi', '--vps', '1', '--vector', '32',
      '--range', '0x1000+1'], '--range'),
    (['encode', '--call', 'space', '--vps', '1', '--vector', '32'],
     '--vector'),
    (['encode', '--auto', '--vps', '1', '--vector', '32'], '--vector'),
    (['encode', '--auto', '--vps', '1', '--non-global'], '--non-global'),
    (['encode', '--call', 'space', '--vps', '1', 'extra'], 'extra'),
    (['encode', '--call', 'space', '--vps', '1', '--json', '--json'],
     '--json'),
    # calls that cannot be encoded: the message names the call to use
    (['encode', '--call', 'space', '--vps', '64'], 'space-ex'),
    (['encode', '--call', 'list', '--vps', '0,100', '--range', '0x1000+1'],
     'list-ex'),
    (['encode', '--call', 'ipi', '--vps', '64', '--vector', '32'],
     'ipi-ex'),
    (['encode', '--call', 'list', '--vps', '1', '--range',
      '0x0+%d' % (509 * 4096 + 1)], '--call space'),
    (['encode', '--call', 'list-ex', '--vps', '64', '--range',
      '0x0+%d' % (507 * 4096 + 1)], '--call space-ex'),
    (['encode', '--call', 'list', '--vps', '1', '--fast', '--range',
      '0x0+%d' % (12 * 4096)], '--fast'),
    # decode
    (['decode', '--input', '0'], '--control'),
    (['decode', '--control', '0x2'], '--input'),
    (['decode', '--control', 'xyz', '--input', '0'], 'xyz'),
    (['decode', '--control', '0x2', '--input', '0,,1'], '--input'),
    (['decode', '--control', '0x2', '--input', '0,1g'], '--input'),
    (['decode', '--control', '0x2', '--input', '1' * 17], '--input'),
    (['decode', '--control', '0x2', '--input', ','.join(['0'] * 513)],
     '--input'),
    (['decode', '--control', '0x2', '--input', '0', '--input-file',
      '/dev/null'], '--input-file'),
    (['decode', '--control', '0x2', '--input-file',
      '/nonexistent/words.txt'], '/nonexistent/words.txt'),
    (['decode', '--control', '0x2', '--input', '0', '--binary'], '--binary'),
    (['decode', '--control', '0x2', '--input', '0', '--profile', 'hyperv'],
     'hyperv'),
    (['decode', '--control', '0x2', '--input', '0', '--vp-count', '0'],
     '--vp-count'),
    (['decode', '--control', '0x2', '--input', '0', '--vp-count', '4097'],
     '4097'),
    (['decode', '--control', '0x2', '--input', '0', '--gpa-offset', '4096'],
     '4096'),
    (['decode', '--control', '0x2', '--input', '0', '--gpa-offset', '-1'],
     '--gpa-offset'),
    (['decode', '--control', '0x2', '--input', ','.join(['0'] * 15),
      '--fast'], 'fast'),
    (['decode', '--control', '0x2', '--input', '0', '--frobnicate'],
     '--frobnicate'),
]
for args, needle in BAD:
    tag = ' '.join(args)[:120]
    rc, out, err = run(*args)
    check(rc == 2, '%s: exit %d, want 2' % (tag, rc))
    check(out == '', '%s: stdout %r, want nothing' % (tag, out))
    lines = err.splitlines()
    check(len(lines) == 1 and err.endswith('\n'),
          '%s: stderr %r, want one line' % (tag, err))
    check(needle in err, '%s: stderr %r does not name %r' %
          (tag, err, needle))

# --help: usage on stdout, exit 0
for cmd in ['encode', 'decode']:
    rc, out, err = run(cmd, '--help')
    check(rc == 0 and out.startswith('usage: hvtlb ' + cmd) and err == '',
          '%s --help: exit %d out %r' % (cmd, rc, out[:40]))

# ---------------------------------------------------------------------------
# Decodes that answer a failure status: exit 0, the status is the answer.
LIST1 = 0x0000000100000003
FAILS = [
    # (args, status) under the default strict profile
    (['--control', '0x99', '--input', '0,0,1'], 2),           # unknown call
    (['--control', hex(0x0000000000000003), '--input', '0,0,1'], 3),  # rep 0
    (['--control', hex(LIST1 | 1 << 27), '--input', '0,0,1,0'], 3),   # rsvd
    (['--control', hex(LIST1), '--input', '0,0,1'], 3),       # short input
    (['--control', '0x2', '--input', '0,0'], 3),              # short header
    (['--control', '0x2', '--input', '0,0,1', '--gpa-offset', '4'], 4),
    (['--control', '0x2', '--input', '0,0,1', '--gpa-offset', '4080'], 4),
    (['--control', '0x2', '--input', '0,0,0'], 5),            # empty set
    (['--control', '0x2', '--input', '0,0x10,1'], 5),         # rsvd flag
    (['--control', hex(LIST1), '--input', '0,4,1,0'], 5),     # NON_GLOBAL
    (['--control', '0x2', '--input', '0,8,1'], 5),            # ext on Space
    (['--control', '0x13', '--input', '0,0,2,0'], 5),         # bad format
    (['--control', hex(0x13 | 1 << 17), '--input', '0,0,0,1'], 3),  # vh
    (['--control', '0xb', '--input', '0xf,1'], 5),            # vector 15
]
for args, status in FAILS:
    tag = 'decode ' + ' '.join(args)
    d = ok_json('decode', *args, '--json')
    check(d.get('status') == status, '%s: status %r, want %d' %
          (tag, d.get('status'), status))
    check(set(d) == {'schema', 'hvtlb', 'status', 'status_name', 'result'},
          '%s: keys %r' % (tag, sorted(d)))
    check(isinstance(d.get('status_name'), str) and
          d['status_name'].startswith('HV_STATUS_'),
          '%s: status_name %r' % (tag, d.get('status_name')))
    rc, out, err = run('decode', *args)
    check(rc == 0 and out.startswith('status HV_STATUS_'),
          '%s: text exit %d out %r' % (tag, rc, out[:60]))

# The profiles disagree (docs/hosts.md, "Input by input"): variable header 1
# but an empty valid-banks mask on SpaceEx.
VH = ['--control', hex(0x13 | 1 << 17), '--input', '0,0,0,0,1']
for profile, status in [('strict', 3), ('kvm', 3), ('openvmm', 5)]:
    d = ok_json('decode', *VH, '--profile', profile, '--json')
    check(d.get('status') == status, 'profile %s: status %r, want %d' %
          (profile, d.get('status'), status))

# VPs at or beyond --vp-count are ignored, never an error.
d = ok_json('decode', '--control', '0x2', '--input', '0,0,0x8000000000000003',
            '--vp-count', '2', '--json')
check(d.get('status') == 0 and d.get('vps') == [0, 1],
      'vp-count 2: %r' % d)

# Exactly the words given: --input-file from stdin works too.
rc, out, err = run('decode', '--control', '0x2', '--input-file', '-',
                   '--json', stdin='0 0 1\n')
check(rc == 0 and json.loads(out).get('vps') == [0],
      'stdin input: %r %r' % (out, err))

# Host profiles pinned to versions: every name, the alias, the sources.
rc, out, err = run('decode', '--help')
for name in ['strict', 'kvm', 'xen', 'openvmm-tdx', 'openvmm-snp', 'openvmm']:
    check(('\n  %s ' % name) in out, 'decode --help lists profile %s' % name)
for src in ['Linux 6.12.117', 'Xen c447b7308b', 'OpenVMM 1488a37b7c']:
    check(src in out, 'decode --help names %s' % src)

# OpenVMM: a List failing in its handler reports reps = rep start
# (hv1_hypercall support.rs:594-602); the old name is the TDX profile.
for prof in ['openvmm', 'openvmm-tdx', 'openvmm-snp']:
    d = ok_json('decode', '--control', '0x0001000200000003', '--input',
                '0x1000,0x10,0x2,0x1000,0x2000', '--profile', prof, '--json')
    check(d.get('status') == 5 and d.get('result') == '0x0000000100000005',
          '%s: List failing at rep 1: %r' % (prof, d))

# Xen builds no VM of more than 128 VPs and drops VP indices >= 128.
XEN787 = ['--control', '0x60013', '--input',
          '0xc1fb853803000,0x4,0,0x1000,0x80000', '--profile', 'xen']
rc, out, err = run('decode', *XEN787, '--vp-count', '4096')
check(rc == 2 and 'HVM_MAX_VCPUS' in err, 'xen --vp-count 4096: %d %r' % (rc, err))
d = ok_json('decode', *XEN787, '--json')
check(d.get('status') == 0 and d.get('vps') == [], 'xen VP 787: %r' % d)
check(d.get('host_bug', {}).get('id') == 'XSA-475/CVE-2025-58147' and
      d['host_bug'].get('in_profile') is False and
      set(d['host_bug']) == {'id', 'source', 'effect', 'versions',
                             'in_profile'},
      'xen VP 787: host_bug %r' % d.get('host_bug'))
rc, out, err = run('decode', *XEN787)
check(rc == 0 and 'host bug       XSA-475' in out, 'xen VP 787 text: %r' % out)

# KVM's build limit is a host option; options belong to their profile.
rc, out, err = run('decode', '--control', '0x2', '--input', '0,1,0',
                   '--profile', 'kvm', '--kvm-max-vcpus', '1024',
                   '--vp-count', '2048')
check(rc == 2 and 'KVM_MAX_VCPUS' in err, 'kvm 1024 < 2048: %d %r' % (rc, err))
for bad in ['1023', '4097', 'x']:
    rc, out, err = run('decode', '--control', '0x2', '--input', '0,1,0',
                       '--profile', 'kvm', '--kvm-max-vcpus', bad)
    check(rc == 2 and '--kvm-max-vcpus' in err, 'kvm-max-vcpus %s: %r' % (bad, err))
for opt in [['--kvm-synic'], ['--kvm-max-vcpus', '2048'], ['--caller-vp', '1']]:
    rc, out, err = run('decode', '--control', '0x2', '--input', '0,1,0',
                       '--profile', 'xen', *opt)
    check(rc == 2 and 'for --profile' in err, '%s on xen: %r' % (opt, err))
# Each option is for the profiles that read it, named in the error.
rc, out, err = run('decode', '--control', '0x2', '--input', '0,1,0',
                   '--profile', 'kvm-5.10', '--kvm-max-vcpus', '2048')
check(rc == 2 and err.count('\n') == 1 and
      '--kvm-max-vcpus is for --profile kvm, not kvm-5.10' in err,
      'kvm-max-vcpus on kvm-5.10: %r' % err)
rc, out, err = run('decode', '--control', '0x2', '--input', '0,1,0',
                   '--profile', 'strict', '--kvm-synic')
check(rc == 2 and 'for --profile kvm or kvm-5.10, not strict' in err,
      'kvm-synic on strict: %r' % err)
# kvm-5.10 reads the SynIC: PostMessage goes to the VMM with it, fails
# with 3 without it (5.10 hyperv.c:1796).
for prof in ['kvm', 'kvm-5.10']:
    for synic, status in [([], 3), (['--kvm-synic'], 0)]:
        d = ok_json('decode', '--control', '0x5c', '--input', '0,0',
                    '--profile', prof, '--json', *synic)
        check(d.get('status') == status and
              (status or d.get('scope') == 'vmm'),
              '%s PostMessage %s: %r' % (prof, synic, d))

# Calls beyond the six: each host's dispatcher.
for prof, ctl, status, extra in [
        ('kvm', '0x8', 0, {'call': '0x0008'}),
        ('kvm', '0x100000008', 3, {}),
        ('kvm', '0x5c', 3, {}),
        ('kvm', '0x18001', 5, {}),
        ('kvm', '0x8001', 0, {'scope': 'vmm'}),
        ('xen', '0x100000008', 0, {'call': '0x0008'}),
        ('xen', '0x8001', 2, {}),
        ('openvmm-tdx', '0x8', 2, {}),
        ('openvmm-snp', '0x50', 3, {}),
        ('openvmm-snp', '0x100000050', 0, {'scope': 'dispatch'}),
        ('strict', '0x8', 2, {})]:
    d = ok_json('decode', '--control', ctl, '--input', '0,0', '--profile',
                prof, '--json')
    check(d.get('status') == status and
          all(d.get(k) == v for k, v in extra.items()),
          '%s %s: %r' % (prof, ctl, d))

print('%d checks, %d failed (%d random round trips)' % (checks, len(failures), random_ok))
sys.exit(1 if failures else 0)
