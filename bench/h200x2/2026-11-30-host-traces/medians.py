#!/usr/bin/env python3
# Median and best wall ms of each configuration in the --trace files DIR/VARIANT-*.jsonl.gz, and two
# GPUs against one by medians. usage: medians.py DIR VARIANT... [--rounds 1,2] (files VARIANT-*N.jsonl.gz)
import sys, json, gzip, glob, statistics, collections
args = sys.argv[1:]
rounds = None
if '--rounds' in args:
    i = args.index('--rounds'); rounds = args[i + 1].split(','); del args[i:i + 2]
d = args[0]; vs = args[1:]
res = collections.defaultdict(list)
for v in vs:
    for f in sorted(glob.glob(f'{d}/{v}-*.jsonl.gz')):
        if rounds and not any(f.endswith(r + '.jsonl.gz') for r in rounds): continue
        for l in gzip.open(f, 'rt'):
            r = json.loads(l)
            res[(r['curve'], r['op'], r.get('gpus') or len({c['device'] for c in r['chunks']}), v)].append(r['wall_ms'])
keys = sorted({k[:3] for k in res})
print('%-10s %-6s %-4s ' % ('curve', 'op', 'gpus') + ' '.join('%24s' % v for v in vs))
for k in keys:
    row = []
    for v in vs:
        w = res.get(k + (v,), [])
        if not w: row.append('%24s' % '-'); continue
        row.append('%7.2f (%6.2f) n=%2d' % (statistics.median(w), min(w), len(w)) + '  ')
    print('%-10s %-6s %-4s ' % k + ' '.join(row))
# ratios 2 GPUs / 1
for v in vs:
    for c, op in sorted({(k[0], k[1]) for k in keys}):
        a, b = res.get((c, op, 1, v)), res.get((c, op, 2, v))
        if a and b: print(v, c, op, 'two GPUs / one (medians): %.3f' % (statistics.median(a) / statistics.median(b)))
