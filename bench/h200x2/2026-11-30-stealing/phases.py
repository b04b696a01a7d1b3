#!/usr/bin/env python3
# Medians over the runs of a --trace variant (DIR/VARIANT-*.jsonl.gz, signing): wall, first prepare,
# steady ns an item (full steps), the ramps' excess over it (upx, downx), the last chunk's finish (fin),
# how far apart the devices end, wall after the last chunk is done. usage: phases.py DIR VARIANT
import json,gzip,glob,statistics as st,sys
d=sys.argv[1]; v=sys.argv[2]
rows={}
for f in sorted(glob.glob(f'{d}/{v}-*.jsonl.gz')):
  for l in gzip.open(f,'rt'):
    r=json.loads(l)
    if r['op']!='sign': continue
    g=r['gpus']; cs=r['chunks']
    per=[]
    for dv in sorted({c['device'] for c in cs}):
      m=sorted([c for c in cs if c['device']==dv],key=lambda c:c['laddered_ms'])
      sizes=[c['hi']-c['lo'] for c in m]
      big=max(sizes)
      full=[i for i,s in enumerate(sizes) if s>=big-2]
      i0,i1=full[0]-1,full[-1]
      steady=(m[i1]['laddered_ms']-m[i0]['laddered_ms'])/sum(sizes[i0+1:i1+1])*1e6
      per.append(dict(first=m[0]['prepared_ms'], up=m[i0]['laddered_ms']-m[0]['prepared_ms'], upn=sum(sizes[:i0+1]),
        steady=steady, down=m[-1]['laddered_ms']-m[i1]['laddered_ms'], downn=sum(sizes[i1+1:]), lastlad=m[-1]['laddered_ms'],
        ran=m[-1]['ran_ms'], done=max(c['done_ms'] for c in m), items=sum(sizes)))
    endlad=max(p['lastlad'] for p in per); done=max(p['done'] for p in per)
    x=dict(wall=r['wall_ms'], first=min(p['first'] for p in per), steady=st.mean(p['steady'] for p in per),
       upx=st.mean(p['up']-p['upn']*p['steady']/1e6 for p in per), downx=st.mean(p['down']-p['downn']*p['steady']/1e6 for p in per),
       fin=st.mean(p['ran']-p['lastlad'] for p in per), apart=max(p['done'] for p in per)-min(p['done'] for p in per),
       afterdone=r['wall_ms']-done, steadyms=st.mean(p['items']*p['steady']/1e6 for p in per))
    rows.setdefault(g,[]).append(x)
for g in sorted(rows):
  print(v,g,'GPU', len(rows[g]),'runs:', ' '.join('%s %.3f'%(k, st.median([x[k] for x in rows[g]])) for k in rows[g][0]))
