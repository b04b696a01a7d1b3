#!/usr/bin/env python3
# Per timed run of one op and curve in a --trace file, each GPU's phases: from the first prepare to the first
# full step's finish (start), the full steps' finishes one after another (steady, ns an item), and the steps
# after the last full one (end). usage: phases.py FILE.jsonl.gz OP CURVE
import sys,json,gzip
f,op,curve=sys.argv[1],sys.argv[2],sys.argv[3]
for l in gzip.open(f,'rt'):
    r=json.loads(l)
    if r['op']!=op or r['curve']!=curve: continue
    g=r.get('gpus') or len({c['device'] for c in r['chunks']})
    out=[]
    for d in sorted({c['device'] for c in r['chunks']}):
        cs=sorted([c for c in r['chunks'] if c['device']==d],key=lambda c:c['ran_ms'])
        big=[c for c in cs if c['hi']-c['lo']>200000]
        # steady: from ran of first big to ran of last big
        a=big[0]['ran_ms']; b=big[-1]['ran_ms']; n=sum(c['hi']-c['lo'] for c in big[1:])
        first=cs[0]['prepared_ms']; pre=sum(c['hi']-c['lo'] for c in cs if c['ran_ms']<=a)
        post=sum(c['hi']-c['lo'] for c in cs if c['ran_ms']>b); last=cs[-1]['ran_ms']
        out.append('d%d steady %.2f ns/item | start %.2f..%.2f (%d items, %.2f ns/item) | end %.2f..%.2f (%d items, %.2f ns/it)'%(d,(b-a)*1e6/n,first,a,pre,(a-first)*1e6/pre,b,last,post,(last-b)*1e6/max(post,1)))
    print(g,'%.2f'%r['wall_ms'],' || '.join(out))
