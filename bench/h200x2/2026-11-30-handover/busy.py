#!/usr/bin/env python3
# Per run of the --trace files: each device's first chunk, last chunk done, busy time (the union of
# its chunks' [copied in, done] intervals) and its idle gaps over 0.1 ms, as START+LENGTH ms.
# usage: busy.py CURVE FILE.jsonl.gz... (signing runs)
import sys,json,gzip,statistics
# per device: union of [copied_in, done] intervals; report first start, last done, busy, idle gaps>0.2ms
for f in sys.argv[2:]:
  for l in gzip.open(f,'rt'):
    r=json.loads(l)
    if r["curve"]!=sys.argv[1] or r["op"]!="sign": continue
    out=['%s g%d wall %.2f'%(f.split('/')[-1][:5],r['gpus'],r['wall_ms'])]
    for d in sorted({c['device'] for c in r['chunks']}):
        iv=sorted((c['copied_in_ms'],c['done_ms']) for c in r['chunks'] if c['device']==d)
        busy=0; cur=None; gaps=[]
        for a,b in iv:
            if cur is None: cur=[a,b]; continue
            if a>cur[1]:
                busy+=cur[1]-cur[0]; gaps.append((cur[1],a-cur[1])); cur=[a,b]
            else: cur[1]=max(cur[1],b)
        busy+=cur[1]-cur[0]
        out.append('d%d first %.2f last %.2f busy %.2f gaps %s'%(d,iv[0][0],cur[1],busy,' '.join('%.1f+%.2f'%g for g in gaps if g[1]>0.1)))
    print(' | '.join(out))
