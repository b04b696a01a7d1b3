#!/usr/bin/env python3
"""summary.py writes summary.json from calls R3 and R4's own outputs: every
timed run of r3/times.txt and r4/times.txt (ms and M op/s by build, entry
point, block size, batch and round), the registers and spills of each build,
and the device checks of the rebuilt fatbin.

    python3 summary.py > summary.json
"""
import gzip
import json
import re

RUN = re.compile(r'(old|new) r(\d)\s+ecm_ladder_(\w+)\s+(\d+)\s+(\d+):\s+([\d.]+) ms\s+([\d.]+) M/s')


def times(path):
    out = []
    for line in open(path):
        m = RUN.match(line)
        if m:
            build, rnd, entry, threads, batch, ms, ops = m.groups()
            out.append({'build': build, 'round': int(rnd), 'entry': 'ecm_ladder_' + entry, 'threads': int(threads),
                        'batch': int(batch), 'ms': float(ms), 'mops': float(ops)})
    return out


def regs(path):
    out = {}
    for line in open(path):
        p = line.split('\t')
        if len(p) == 3:
            out[p[0].replace('for ', '')] = {'spill_bytes': int(p[1].split()[0]), 'registers': int(p[2].split()[1])}
    return out


def verify(path):
    text = gzip.open(path, 'rt').read()
    return {'bit_exact': text.count('bit-exact'), 'mismatched': text.count('MISMATCH')}


def main():
    calls = {}
    for call in ['r3', 'r4']:
        calls[call.upper()] = {
            'device': open(f'{call}/device.txt').read().strip(),
            'times': times(f'{call}/times.txt'),
            'registers_old': regs(f'{call}/regs-old.txt'),
            'registers_new': regs(f'{call}/regs-new.txt'),
            'fatbin_rebuilt_verify': verify(f'{call}/verify.log.gz'),
        }
    print(json.dumps({'date': '2026-11-30', 'old_commit': 'df9ad9e', 'new': {'R3': 'r3.diff', 'R4': 'r4.diff (d3e0515)'},
                      'gpu_peers': 'none: the calls compare two builds of ecmul', 'calls': calls}, indent=1))


main()
