#!/usr/bin/env python3
"""summary.py writes summary.json from the calls' own outputs: from q1/
every timed run of times.txt (M op/s, or ms for the spread mapping's 1 and
1,024 items, by build, entry point and round), the registers and spills of
regs-old.txt and regs-new.txt, the loop instructions of sass-loops.txt
(sass_loop.py on each build's SASS) and the verification's count; from
q2a/ the verify, Wycheproof and sanitizer lines; from q2c/ the record's
figures (record.json, whose binary says "commit unknown": it was built
from b32e8fa with the fatbin left out, and its kernel sources' hash in
q2a/version.txt is b32e8fa's) against gECC's in the same call (its verify
figure from call Q2b, on the same machine just before).

    python3 summary.py > summary.json
"""
import json
import re


def main():
    runs = {}
    for line in open('q1/times.txt'):
        p = line.split()
        if len(p) >= 8 and p[-1] == 'M/s':
            key = '%s %s %s threads %s items' % (p[0], p[2], p[3], p[4].rstrip(':'))
            runs.setdefault(key, []).append({'round': p[1], 'ms': float(p[5]), 'mops': float(p[7])})
    regs = {}
    for v in ('old', 'new'):
        for line in open('q1/regs-%s.txt' % v):
            m = re.search(r'for (\S+)\s+(\d+) bytes spill stores\s+Used (\d+) registers', line)
            if m:
                regs['%s %s' % (v, m.group(1))] = {'spill_bytes': int(m.group(2)), 'registers': int(m.group(3))}
    loops = {}
    for line in open('q1/sass-loops.txt'):
        m = re.match(r'(\w+) (\S+) instructions (\d+) imad (\d+) imad_wide (\d+)', line)
        loops['%s %s' % (m.group(1), m.group(2))] = {'instructions_per_loop_pass_warp': int(m.group(3)),
                                                     'imad': int(m.group(4)), 'imad_wide': int(m.group(5))}
    verify = open('q1/verify.log').read()
    rec = json.load(open('q2c/record.json'))
    record = {'commit': 'b32e8fa', 'kernel_sources_sha256': open('q2a/version.txt').read().split()[-1],
              'device': rec['device'], 'date': rec['date'], 'gpu_peers': rec['gpu_peers'],
              'results': [{k: r.get(k) for k in ('curve', 'op', 'batch', 'ops_per_s', 'bytes_ops_per_s', 'kernel_ops_per_s')}
                          for r in rec['results']]}
    checks = {f: open('q2a/' + f).read().splitlines() for f in ('verify.txt', 'wycheproof.txt', 'sanitizer.txt')}
    print(json.dumps({'date': '2026-11-30', 'device': open('q1/device.txt').read().strip(),
                      'old': 'the kernel sources and kernelvec of 3b2f062 (B̃ of 2^30 − c only)',
                      'new': 'the working tree of the commit that adds this folder (B̃ ending with 2^30)',
                      'gpu_peers': 'none in this call: it compares two builds',
                      'verify': {'bit_exact': verify.count('bit-exact'), 'mismatched': verify.count('MISMATCH')},
                      'runs': runs, 'registers': regs, 'loops': loops,
                      'record_q2c': record, 'checks_q2a': checks}, indent=1, ensure_ascii=False))


main()
