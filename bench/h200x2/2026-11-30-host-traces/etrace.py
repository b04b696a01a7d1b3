#!/usr/bin/env python3
# Summarise `go tool trace -d=parsed FILE` output: per timed run (the bench's "run" regions), the
# running time of each goroutine label (the first ecmul frame of its creation stack) in bins, and the
# pipeline's prepare, compute and finish regions. usage: etrace.py DUMP BIN_MS RUN
import sys, re, collections
path, binms = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
want_run = int(sys.argv[3]) if len(sys.argv) > 3 else 2
ev_re = re.compile(r'^M=(-?\d+) P=(-?\d+) G=(-?\d+) (\w+) Time=(\d+)(.*)$')
skip = ('internal/par.', 'sync.', 'runtime', 'errgroup', 'engine.parallel', 'splitFor', 'par.Do', 'trace.')
events = []  # (time, kind, G, rest, stack-lines)
cur = None
with open(path) as f:
    for line in f:
        m = ev_re.match(line)
        if m:
            cur = [int(m.group(5)), m.group(4), int(m.group(3)), m.group(6), [], []]
            events.append(cur)
            which = None
            continue
        if cur is None: continue
        s = line.strip()
        if s.startswith('TransitionStack='): which = 4; continue
        if s.startswith('Stack='): which = 5; continue
        if which and s and not s.startswith('/'):
            cur[which].append(s.split(' @')[0])
label = {}
def lab(stack):
    for fr in stack:
        if 'rnsec/ecmul' in fr and not any(k in fr for k in skip):
            return fr.replace('github.com/rnsec/ecmul/', '')
    return stack[0] if stack else '?'
running = {}  # G -> start time
spans = []    # (G, t0, t1)
runs = []     # (t0,t1, msg)
regions = collections.defaultdict(list)
runstart = None
for t, kind, g, rest, tstack, stack in events:
    if kind == 'StateTransition':
        m = re.search(r'GoID=(\d+) (\w+)->(\w+)', rest)
        if not m: continue
        gid, a, b = int(m.group(1)), m.group(2), m.group(3)
        if a == 'NotExist':
            label[gid] = lab(stack)
        if b == 'Running': running[gid] = t
        elif a == 'Running' and gid in running:
            spans.append((gid, running.pop(gid), t))
    elif kind == 'RegionBegin' and 'Type="run"' in rest:
        runstart = t
    elif kind == 'RegionEnd' and 'Type="run"' in rest:
        runs.append((runstart, t))
    elif kind in ('RegionBegin', 'RegionEnd'):
        ty = re.search(r'Type="(\w+)"', rest).group(1)
        regions[(g, ty)].append((kind, t))
t0, t1 = runs[want_run]
print('run', want_run, 'of', len(runs), 'wall %.2f ms' % ((t1 - t0) / 1e6))
nb = int((t1 - t0) / 1e6 / binms) + 1
use = collections.defaultdict(lambda: [0.0] * nb)
for g, a, b in spans:
    a, b = max(a, t0), min(b, t1)
    if a >= b: continue
    L = label.get(g, 'main/other')
    x = a
    while x < b:
        bn = int(binms * 1e6)
        i = (x - t0) // bn
        edge = t0 + (i + 1) * bn
        y = min(b, edge)
        use[L][i] += (y - x) / 1e6
        x = y
tot = {L: sum(v) for L, v in use.items()}
top = sorted(tot, key=lambda L: -tot[L])[:12]
print('label totals (core-ms):')
for i, L in enumerate(top): print(' %2d %8.2f %s' % (i, tot[L], L))
print('bin_ms ' + ' '.join('%5d' % i for i in range(len(top))) + '  all')
for i in range(nb):
    print('%6.1f ' % (i * binms) + ' '.join('%5.1f' % (use[L][i] / binms) for L in top) + '  %5.1f' % (sum(use[L][i] for L in use) / binms))
# pipeline regions in this run
print('regions:')
for (g, ty), lst in sorted(regions.items()):
    st = None
    for kind, t in lst:
        if kind == 'RegionBegin': st = t
        elif st is not None:
            if t0 <= st <= t1: print('  %-8s G%-6d %7.2f -> %7.2f' % (ty, g, (st - t0) / 1e6, (t - t0) / 1e6))
            st = None
