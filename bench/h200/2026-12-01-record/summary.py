#!/usr/bin/env python3
"""summary.py writes summary.json from the four calls' own outputs.

- a/ (ee7a93f, its committed fatbin): the record for issue 41, ecmul bench
  --op mul,base,ecdsa,sign at 2^22 with gECC's pmul, fixed, sign and verify
  and OpenSSL in the same call; the loop counts of the committed pair entry
  points (a/sass-loops.txt: sass_loop.py, run here on the SASS the call
  dumped, a/sass-*.txt.gz).
- n/: the variants of Channel<30> (base, neg, both): registers, loop
  instructions and the harness's runs at 2^20 items.
- f/ (ae834fa's fatbin, rebuilt in that call): the verification of every
  entry point against the CPU twin, the loop counts, and ecmul bench --op
  mul,base,ecdsa at 2^22 with gECC's pmul and fixed and OpenSSL.
- v/ (ae834fa's binaries and fatbin): Wycheproof and ecmul verify.

The binaries of a/ and f/ say "commit unknown" (built with the fatbin left
out); their kernel sources' hash is in */version.txt.

    python3 summary.py > summary.json
"""
import json
import re


def peers(*paths):
    out = []
    for p in paths:
        out += [{'name': m.group(1), 'batch': int(m.group(2)), 'ops_per_s': int(m.group(3))}
                for m in re.finditer(r'(\S+) batch=(\d+) op/s=(\d+)', open(p).read())]
    return out


def record(path, gpu_peers, commit):
    rec = json.load(open(path))
    keys = ('curve', 'op', 'batch', 'ops_per_s', 'bytes_ops_per_s', 'kernel_ops_per_s')
    return {'commit': commit, 'date': rec['date'], 'device': rec['device'], 'host_cores': rec['host_cores'],
            'gpu_peers': gpu_peers, 'cpu_peers': rec['peers'],
            'results': [{k: r.get(k) for k in keys} for r in rec['results']]}


def loops(path):
    out = {}
    for line in open(path):
        m = re.match(r'(?:(\w+) )?(\w+_c30) instructions (\d+) imad (\d+) imad_wide (\d+)', line)
        if m:
            key = ('%s %s' % (m.group(1), m.group(2))) if m.group(1) else m.group(2)
            out[key] = {'instructions_per_loop_pass_warp': int(m.group(3)), 'imad': int(m.group(4)),
                        'imad_wide': int(m.group(5))}
    return out


def runs(path):
    out = {}
    for line in open(path):
        p = line.split()
        if len(p) >= 8 and p[-1] == 'M/s':
            out.setdefault('%s %s' % (p[0], p[2]), []).append({'round': p[1], 'ms': float(p[-4]), 'mops': float(p[-2])})
    return out


def registers(path):
    out = {}
    for line in open(path):
        m = re.search(r'for (\S+)\s+(\d+) bytes spill stores\s+Used (\d+) registers', line)
        if m:
            out[m.group(1)] = {'spill_bytes': int(m.group(2)), 'registers': int(m.group(3))}
    return out


def ratios(rec, gecc):
    by = {(r['curve'], r['op']): r for r in rec['results']}
    g = {p['name']: p['ops_per_s'] for p in gecc if p['batch'] == 4325376}
    out = {}
    for c in ('P-224', 'P-256', 'secp256k1'):
        mul = by[(c, 'mul')]
        out[c] = {'kernel_mul_vs_gecc_pmul': mul['kernel_ops_per_s'] / g['gecc'],
                  'base_vs_mul': by[(c, 'base')]['ops_per_s'] / mul['bytes_ops_per_s'],
                  'ecdsa_vs_mul': by[(c, 'ecdsa')]['ops_per_s'] / mul['bytes_ops_per_s']}
        if (c, 'sign') in by:
            out[c]['sign_vs_base'] = by[(c, 'sign')]['ops_per_s'] / by[(c, 'base')]['ops_per_s']
    p256 = lambda op: by[('P-256', op)]['ops_per_s']
    out['P-256']['base_vs_gecc_fixed'] = p256('base') / g['gecc-fixed']
    if 'gecc-verify' in g:
        out['P-256']['ecdsa_vs_gecc_verify'] = p256('ecdsa') / g['gecc-verify']
    if 'gecc-sign' in g:
        out['P-256']['sign_vs_gecc_sign'] = p256('sign') / g['gecc-sign']
    return out


def main():
    ga = peers('a/gpu-peers.txt', 'a/gecc-sign.txt', 'a/gecc-verify.txt')
    gf = peers('f/gpu-peers.txt')
    a = record('a/record.json', ga, 'ee7a93f')
    f = record('f/record.json', gf, 'ae834fa')
    verify = open('f/verify.log').read()
    summary = {
        'date': '2026-12-01',
        'device': a['device'],
        'record_a': a, 'ratios_a': ratios(a, ga),
        'record_f': f, 'ratios_f': ratios(f, gf),
        'loops_a': loops('a/sass-loops.txt'),
        'variants_n': {'registers': {v: registers('n/regs-%s.txt' % v) for v in ('base', 'neg', 'both')},
                       'loops': loops('n/sass-loops.txt'), 'runs': runs('n/times.txt')},
        'loops_f': loops('f/sass-loops.txt'),
        'registers_f': registers('f/regs.txt'),
        'verify_f': {'bit_exact': verify.count('bit-exact'), 'mismatched': verify.count('MISMATCH')},
        'checks_v': open('v/wycheproof.txt').read().splitlines() + open('v/verify.txt').read().splitlines(),
    }
    json.dump(summary, __import__('sys').stdout, indent=1)


if __name__ == '__main__':
    main()
