#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every CMocka test of a program that meson runs one test at a time
(main() passes argv[1] to cmocka_set_test_filter) has its test() line.

Such a program's meson.build names each test in a list (`foreach sc :
['name', ...]` with `args: ['test_' + sc]`, or a prefix such as
'test_corun_' + sc); a test added to main() but not to the list never
runs under `meson test`. Usage: check-registered.py SOURCE-ROOT"""
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else '.'
bad = 0
files = 0
for p in sorted(glob.glob(os.path.join(root, 'tests', '**', '*.c'),
                          recursive=True) +
                glob.glob(os.path.join(root, 'tools', '**', 'tests', '*.c'),
                          recursive=True)):
    src = open(p).read()
    if 'cmocka_set_test_filter' not in src:
        continue
    m = open(os.path.join(os.path.dirname(p), 'meson.build')).read()
    files += 1
    for name in re.findall(r"cmocka_unit_test\w*\(\s*test_(\w+)", src):
        if "'%s'" % name in m or "'test_%s'" % name in m:
            continue
        if any("'test_%s' + sc" % name[:k] in m and "'%s'" % name[k:] in m
               for k in range(1, len(name))):
            continue
        print('%s: test_%s is in main() but has no test() in meson.build'
              % (os.path.relpath(p, root), name))
        bad += 1
print('%d programs checked, %d tests not registered' % (files, bad))
sys.exit(1 if bad else 0)
