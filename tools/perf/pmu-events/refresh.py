#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""refresh.py - write gen.sh's JSON into patch 0008 (and its diffstat).

    tools/perf/pmu-events/refresh.py

After an event table, a metric or gen-pmu-events.c changed: regenerates the
JSON (gen.sh) and replaces the new-file diffs under
tools/perf/pmu-events/arch/common/socpmu/ in tools/perf/patches/0008-*.patch
with them, keeping the patch's other diffs and its message. The diffstat
is rewritten by `git apply --stat --summary`. check.sh then agrees.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PREFIX = 'tools/perf/pmu-events/arch/common/socpmu/'


def new_file_diff(path, text):
    blob = subprocess.run(['git', 'hash-object', '--stdin'], input=text.encode(),
                          capture_output=True, check=True).stdout.decode().strip()
    lines = text.splitlines()
    out = [f'diff --git a/{path} b/{path}', 'new file mode 100644',
           f'index 0000000..{blob[:7]}', '--- /dev/null', f'+++ b/{path}',
           f'@@ -0,0 +1,{len(lines)} @@' if len(lines) != 1 else '@@ -0,0 +1 @@']
    out += ['+' + l for l in lines]
    if not text.endswith('\n'):
        out.append('\\ No newline at end of file')
    return '\n'.join(out) + '\n'


def main():
    patch = glob.glob(os.path.join(HERE, '../patches/0008-*.patch'))[0]
    src = open(patch).read()
    head, sep, rest = src.partition('\ndiff --git ')
    body, trailer_sep, trailer = ('diff --git ' + rest).rpartition('\n-- \n')
    diffs = re.split(r'(?m)^(?=diff --git )', body + '\n')
    diffs = [d for d in diffs if d.strip()]
    keep = [d for d in diffs if not d.startswith(f'diff --git a/{PREFIX}')]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([os.path.join(HERE, 'gen.sh'), tmp], check=True)
        for root, _, files in os.walk(tmp):
            for f in files:
                full = os.path.join(root, f)
                rel = PREFIX + os.path.relpath(full, tmp)
                keep.append(new_file_diff(rel, open(full).read()))
    keep.sort(key=lambda d: d.split('\n', 1)[0].split(' ')[2][2:])
    body = ''.join(keep)
    stat = subprocess.run(['git', 'apply', '--stat', '--summary', '-'], input=body.encode(),
                          capture_output=True, check=True).stdout.decode()
    # The message ends at the "---" line; the stat follows it
    msg, _, _ = head.partition('\n---\n')
    out = msg + '\n---\n' + stat + '\n' + body.rstrip('\n') + '\n-- \n' + trailer
    open(patch, 'w').write(out)
    print(f'refreshed {os.path.relpath(patch)}')


if __name__ == '__main__':
    sys.exit(main())
