#!/usr/bin/env python3
"""summary.py writes summary.json from the calls' own outputs: every timed
run of callE*-times.txt (M op/s by variant and curve), the registers and
spills of callE*-regs-sass.txt, and R1's comparison (callR1-compare.txt).

    python3 summary.py > summary.json
"""
import collections
import json
import re

CALLS = ['E1', 'E2', 'E3', 'E4']


def times(call):
    runs = collections.defaultdict(lambda: collections.defaultdict(list))
    for line in open(f'call{call}-times.txt'):
        p = line.split()
        if len(p) >= 5 and p[-1] == 'M/s':
            curve = p[1].split('_')[2]
            key = p[0] if p[2] == '128' else f'{p[0]}@{p[2]}threads'
            runs[key][curve].append(float(p[3]))
    return runs


def regs(call):
    out = {}
    for line in open(f'call{call}-regs-sass.txt'):
        if line.startswith(' '):
            m = re.match(r'\s+(p\d+) instructions (\d+)', line)
            if m:
                out.setdefault(cur, {})[f'{m.group(1)}_instructions_per_bit_warp'] = int(m.group(2))
            continue
        cur = line.split()[0]
        found = re.findall(r'(\d+) bytes spill stores Used (\d+) registers', line)
        out[cur] = {'spill_bytes_registers': [[int(a), int(b)] for a, b in found]}
    return out


def main():
    s = {
        'device': open('callE1-device.txt').read().strip() + ', nvcc 13.0',
        'date': '2026-11-30',
        'sources': 'fac1f81 with variants.patch (each variant a -D flag)',
        'harness': '2^20 items, 128 threads unless the key says, alternated rounds',
        'peers': 'none in these calls (gECC pmul 12.91 M op/s in the calls of 2026-11-28 and R5)',
        'calls': {c: {'script': f'call{c}.sh', 'Mops': times(c), 'build': regs(c)} for c in CALLS},
        'R1': open('callR1-compare.txt').read().strip().split('\n'),
    }
    print(json.dumps(s, indent=1))


if __name__ == '__main__':
    main()
