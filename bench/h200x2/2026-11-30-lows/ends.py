#!/usr/bin/env python3
# Per timed run of --trace files: wall ms, the first chunk's fill and prepare, the last copy back (done_ms),
# the tail after it (wall − last done), each device's last done and items. usage: ends.py FILE.jsonl.gz...
import sys,json,gzip
for f in sys.argv[1:]:
  for l in gzip.open(f,'rt'):
    r=json.loads(l)
    g=r.get('gpus') or len({c['device'] for c in r['chunks']})
    cs=r['chunks']
    first=min(c['prepared_ms'] for c in cs); fs=min(c['start_ms'] for c in cs)
    last=max(c['done_ms'] for c in cs)
    per={}
    for c in cs: per[c['device']]=max(per.get(c['device'],0),c['done_ms'])
    items={}
    for c in cs: items[c['device']]=items.get(c['device'],0)+c['hi']-c['lo']
    print(r['curve'][:6],r['op'][:4],g,'wall %.2f firststart %.2f firstprep %.2f lastdone %.2f tail %.2f devdone %s items %s'%(r['wall_ms'],fs,first,last,r['wall_ms']-last,' '.join('%.2f'%per[d] for d in sorted(per)),items))
