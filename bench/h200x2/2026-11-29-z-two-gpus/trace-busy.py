#!/usr/bin/env python3
"""trace-busy.py TRACE.err.gz [v]: for each batch of a trace (ECMUL_TRACE=1, patch/x3-trace-knob.patch),
its length, each device's kernel time (the union of its chunks' [copied in, ran] intervals) and its
idle gaps over 0.3 ms; with v, every step's prepare (P) and finish (F) and every Run's chunks (R),
in ms from the batch's first prepare."""
import collections, gzip, json, sys


def batches(path):
    out, cur = [], None
    for line in gzip.open(path, 'rt'):
        if not line.startswith('TRACE '):
            continue
        _, kind, body = line.split(' ', 2)
        v = json.loads(body)
        if kind == 'prepare' and v['step'] == 0:
            cur = []
            out.append(cur)
        if cur is not None:
            cur.append((kind, v))
    return out


def device_busy(runs, dev, t0):
    spans = sorted((c['CopiedIn'], c['Ran']) for r in runs for c in r['chunks'] if c['Device'] == dev)
    busy, end, gaps = 0.0, None, []
    for a, z in spans:
        if end is None or a > end:
            if end is not None:
                gaps.append((end - t0, a - end))
            busy += z - a
            end = z
        elif z > end:
            busy += z - end
            end = z
    return spans[0][0] - t0, end - t0, busy, [(round(s, 1), round(g, 2)) for s, g in gaps if g > 0.3]


def main():
    verbose = len(sys.argv) > 2
    for i, b in enumerate(batches(sys.argv[1])):
        preps = [v for k, v in b if k == 'prepare']
        fins = [v for k, v in b if k == 'finish']
        runs = [v for k, v in b if k == 'run']
        t0, t1 = min(v['t0'] for v in preps), max(v['t2'] for v in fins)
        print("batch %d: %.1f ms, %d steps, runs %s" % (i, t1 - t0, len(preps), dict(collections.Counter(r['entry'] for r in runs))))
        for dev in sorted({c['Device'] for r in runs for c in r['chunks']}):
            first, last, busy, gaps = device_busy(runs, dev, t0)
            print("  device %d: kernels %.1f to %.1f ms, busy %.1f ms; idle gaps over 0.3 ms (at, ms): %s" % (dev, first, last, busy, gaps[:20]))
        if not verbose:
            continue
        for v in preps:
            print("   P step %d %.2f-%.2f (%.2f)" % (v['step'], v['t0'] - t0, v['t1'] - t0, v['t1'] - v['t0']))
        for v in fins:
            print("   F step %d wait %.2f-%.2f finish to %.2f (%.2f)" % (v['step'], v['t0'] - t0, v['t1'] - t0, v['t2'] - t0, v['t2'] - v['t1']))
        for r in runs:
            chunks = " ".join("d%d[%.2f %.2f]" % (c['Device'], c['CopiedIn'] - t0, c['Ran'] - t0) for c in r['chunks'])
            print("   R %s n=%d host %.2f-%.2f %s" % (r['entry'], r['count'], r['host_start'] - t0, r['host_end'] - t0, chunks))


if __name__ == '__main__':
    main()
