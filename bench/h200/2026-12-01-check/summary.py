#!/usr/bin/env python3
"""summary.py writes summary.json from call C's own outputs (c/).

Call C ran the binaries of 505f881 (built with the fatbin left out, so they
say "commit unknown") on the fatbin that 505f881 commits, through
ECMUL_FATBIN. Its kernel sources are ae834fa's (hash in c/version.txt); the
fatbin's sha256 is in c/fatbin.sha256.

    python3 summary.py > summary.json
"""
import glob
import json
import re


def read(p):
    return open(p).read()


def twin(path):
    text = read(path)
    return {'items': 100000,
            'passed': re.findall(r'^    --- PASS: TestKernelMatchesCPUTwin/(\S+)', text, re.M),
            'failed': re.findall(r'^    --- FAIL: TestKernelMatchesCPUTwin/(\S+)', text, re.M),
            'seconds': float(re.search(r'^--- \w+: TestKernelMatchesCPUTwin \(([\d.]+)s\)', text, re.M).group(1))}


def sanitizer():
    out = []
    for p in sorted(glob.glob('c/sanitizer-*.log')):
        tool, curve, mapping = re.match(r'c/sanitizer-(\w+)-(\w+)-(\w+)\.log', p).groups()
        text = read(p)
        summary = re.search(r'(ERROR SUMMARY|RACECHECK SUMMARY): (.*)', text)
        out.append({'tool': tool, 'entry': f'ecm_ladder_{curve}_coz_shenoy_{mapping}_c30',
                    'summary': summary.group(2).strip(), 'bit_exact': 'bit-exact' in text})
    return out


def verify():
    out = []
    for p in sorted(glob.glob('c/verify-*.txt')):
        text = read(p)
        head = dict(re.findall(r'(\w[\w-]*)=(\S+)', text.splitlines()[0]))
        tail = dict(re.findall(r'(\w+)=(\S+)', text.splitlines()[1]))
        out.append({'curve': head['curve'], 'op': head['op'], 'n': int(head['n']),
                    'references': head['references'], 'mismatches': int(tail['mismatches']),
                    'item_errors': int(tail['item_errors']), 'result': text.split()[-1]})
    return out


device = read('c/device.txt').splitlines()
print(json.dumps({
    'call': 'C', 'date': '2026-12-01', 'device': device[0], 'host_cores': int(device[1]),
    'commit': '505f881', 'kernel_sources_commit': 'ae834fa',
    'kernel_sources_sha256': read('c/version.txt').split()[-1],
    'fatbin_sha256': read('c/fatbin.sha256').split()[0],
    'twin': {'c30': twin('c/twin-c30.log'), 'c16': twin('c/twin-c16.log')},
    'sanitizer': sanitizer(), 'verify': verify(),
}, indent=1))
