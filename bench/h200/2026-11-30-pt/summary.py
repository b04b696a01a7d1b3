#!/usr/bin/env python3
"""summary.py writes summary.json from the calls' own outputs: from v1/
every timed run of times.txt (M op/s by build, entry point and round), the
registers and spills of regs-old.txt and regs-new.txt, the loop
instructions of sass-loops.txt (sass_loop.py on each build's SASS), the
rebuilt fatbin's verification count and the sanitizer lines; from v2/ the
register caps' registers, spills and runs, and the verify, Wycheproof and
CPU-twin lines; from v4/ the runs of the variants of P̃'s way into A; from v5/ the runs
of the timing-only bounds; from v3/ the record's figures (record.json, whose binary
says "commit unknown": it was built from f02b03c with the fatbin left out,
and its kernel sources' hash in v3/version.txt is f02b03c's) against gECC's
k·P, fixed-base and verify in the same call.

    python3 summary.py > summary.json
"""
import json
import re


def timed(path):
    runs = {}
    for line in open(path):
        p = line.split()
        if len(p) >= 8 and p[-1] == 'M/s':
            key = ' '.join(x for x in p[:-6] if not re.fullmatch(r'r\d', x))
            rnd = next(x for x in p if re.fullmatch(r'r\d', x))
            runs.setdefault(key, []).append({'round': rnd, 'ms': float(p[-4]), 'mops': float(p[-2])})
    return runs


def peers(path):
    return [{'name': m.group(1), 'batch': int(m.group(2)), 'ops_per_s': int(m.group(3))}
            for m in re.finditer(r'(\S+) batch=(\d+) op/s=(\d+)', open(path).read())]


def main():
    regs = {}
    for v in ('old', 'new'):
        for line in open('v1/regs-%s.txt' % v):
            m = re.search(r'for (\S+)\s+(\d+) bytes spill stores\s+Used (\d+) registers', line)
            if m:
                regs['%s %s' % (v, m.group(1))] = {'spill_bytes': int(m.group(2)), 'registers': int(m.group(3))}
    for line in open('v2/regs.txt'):
        m = re.match(r'(r\d+) (\d+) bytes spill stores Used (\d+) registers', line)
        if m:
            regs['cap %s ecm_ladder_p256_coz_shenoy_pair_c30' % m.group(1)] = {'spill_bytes': int(m.group(2)), 'registers': int(m.group(3))}
    loops = {}
    for line in open('v1/sass-loops.txt'):
        m = re.match(r'(\w+) (\S+) instructions (\d+) imad (\d+) imad_wide (\d+)', line)
        loops['%s %s' % (m.group(1), m.group(2))] = {'instructions_per_loop_pass_warp': int(m.group(3)),
                                                     'imad': int(m.group(4)), 'imad_wide': int(m.group(5))}
    verify = open('v1/verify.log').read()
    rec = json.load(open('v3/record.json'))
    record = {'commit': 'f02b03c', 'kernel_sources_sha256': open('v3/version.txt').read().split()[-1],
              'device': rec['device'], 'date': rec['date'],
              'gpu_peers': peers('v3/gpu-peers.txt') + peers('v3/gecc-verify.txt'),
              'results': [{k: r.get(k) for k in ('curve', 'op', 'batch', 'ops_per_s', 'bytes_ops_per_s', 'kernel_ops_per_s')}
                          for r in rec['results']]}
    checks = {f: open('v2/' + f).read().splitlines() for f in ('verify.txt', 'wycheproof.txt')}
    checks['twin.txt'] = [l for l in open('v2/twin-pair.log').read().splitlines() if l.startswith('    --- ')]
    checks['sanitizer.txt'] = open('v1/sanitizer.txt').read().splitlines()
    print(json.dumps({'date': '2026-11-30', 'device': open('v1/device.txt').read().strip(),
                      'old': 'the kernel sources of 1633a85',
                      'new': 'the kernel sources of f02b03c (P̃_j·T_j on the tensor cores)',
                      'gpu_peers_v1_v2': 'none: those calls compare builds',
                      'verify_v1': {'bit_exact': verify.count('bit-exact'), 'mismatched': verify.count('MISMATCH')},
                      'runs_v1': timed('v1/times.txt'), 'runs_v2_caps': timed('v2/times.txt'), 'runs_v4_variants': timed('v4/times.txt'),
                      'runs_v5_bounds': timed('v5/times.txt'),
                      'registers': regs, 'loops': loops,
                      'record_v3': record, 'checks': checks}, indent=1, ensure_ascii=False))


main()
