#!/usr/bin/env python3
# Per op, curve and GPU count in --trace files: medians (min, max) over the runs of the wall time, the first
# chunk's copy start and prepare end (from its Run's origin), the time from the last Run's end to the return,
# and how far apart the devices' last chunks ended. usage: ends.py OP CURVE FILE.jsonl.gz...
import sys, json, gzip, statistics as st
op, curve, files = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = {}
for f in files:
    for l in gzip.open(f, 'rt'):
        r = json.loads(l)
        if r['op'] != op or r['curve'] != curve: continue
        cs = r['chunks']
        last = {d: max(c['done_ms'] for c in cs if c['device'] == d) for d in {c['device'] for c in cs}}
        rows.setdefault(r['gpus'], []).append({
            'wall': r['wall_ms'],
            'first copy': min(c['start_ms'] for c in cs),
            'first prepared': min(c['prepared_ms'] for c in cs),
            'after last Run': r['wall_ms'] - max(x['end_ms'] for x in r['runs']),
            'devices apart': max(last.values()) - min(last.values())})
for g in sorted(rows):
    print('%s %s, %d GPU(s), %d runs' % (curve, op, g, len(rows[g])))
    for k in rows[g][0]:
        xs = [x[k] for x in rows[g]]
        print('  %-15s %8.3f ms (%.3f to %.3f)' % (k, st.median(xs), min(xs), max(xs)))
