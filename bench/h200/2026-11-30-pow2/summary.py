#!/usr/bin/env python3
"""summary.py writes summary.json from call P1's own outputs: every timed run
of times.txt (M op/s by variant and round) and the registers, spills and loop
instructions of regs-sass.txt.

    python3 summary.py > summary.json
"""
import json
import re


def main():
    runs = {}
    for line in open('times.txt'):
        p = line.split()
        if len(p) >= 5 and p[-1] == 'M/s':
            runs.setdefault(p[0], []).append(float(p[3]))
    build = {}
    for line in open('regs-sass.txt'):
        if not line.startswith(' '):
            cur = line.split()[0]
            m = re.search(r'(\d+) bytes spill stores Used (\d+) registers', line)
            build[cur] = {'spill_bytes': int(m.group(1)), 'registers': int(m.group(2))}
        else:
            m = re.search(r'instructions (\d+) imad (\d+) imad_wide (\d+)', line)
            build[cur].update({'instructions_per_bit_warp': int(m.group(1)), 'imad': int(m.group(2)), 'imad_wide': int(m.group(3))})
    print(json.dumps({'date': '2026-11-30', 'commit': 'df9ad9e with pow2.diff', 'device': open('device.txt').read().strip(),
                      'entry': 'ecm_ladder_p256_coz_shenoy_pair_c30', 'items': 1048576, 'threads': 128,
                      'timing_only': ['p2', 'p2a'], 'gpu_peers': 'none in this call (gECC k·P 12.913 M op/s in bench/h200/2026-11-28-d1-queued-launches/)',
                      'mops_by_round': runs, 'builds': build}, indent=1))


main()
