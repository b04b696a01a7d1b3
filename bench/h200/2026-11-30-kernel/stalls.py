#!/usr/bin/env python3
"""stalls.py sums an ncu source page's warp-state samples by opcode.

    ncu --import REP.ncu-rep --page source --print-source sass --csv | stalls.py [TOP]

Prints the total samples of each stall reason, then the TOP opcodes (default
16) by all their samples: how many instructions of the function carry the
opcode, and the samples of each reason at them.
"""
import collections
import csv
import re
import sys

REASONS = ['stall_selected', 'stall_dispatch', 'stall_wait', 'stall_math', 'stall_not_selected',
           'stall_no_inst', 'stall_long_sb', 'stall_short_sb', 'stall_branch_resolving']


def main():
    top = int(sys.argv[1]) if len(sys.argv) > 1 else 16
    rows = csv.reader(sys.stdin)
    next(rows)  # the kernel's name
    header = next(rows)
    at = {k: i for i, k in enumerate(header)}
    by, total = collections.defaultdict(collections.Counter), collections.Counter()
    for row in rows:
        op = re.sub(r'^@!?U?P\w+\s+', '', row[at['Source']].strip()).split(' ')[0]
        by[op]['n'] += 1
        for r in REASONS:
            v = int(row[at[r]] or 0)
            by[op][r] += v
            total[r] += v
    print('total', ' '.join(f'{r[6:]}={total[r]}' for r in REASONS if total[r]))
    for op, c in sorted(by.items(), key=lambda kv: -sum(kv[1][r] for r in REASONS))[:top]:
        print(f'{op:18s} n={c["n"]:5d}', ' '.join(f'{r[6:]}={c[r]}' for r in REASONS if c[r]))


if __name__ == '__main__':
    main()
