import json,sys
runs=[]
for line in open(sys.argv[1]):
    if not line.startswith('TRACE run'): continue
    d=json.loads(line.split(' ',2)[2])
    for c in d['chunks']:
        runs.append((d['entry'],c))
lo,hi=float(sys.argv[2]),float(sys.argv[3])
def union(iv):
    iv=sorted((max(a,lo),min(b,hi)) for a,b in iv if b>lo and a<hi)
    tot=0;cur=None
    for a,b in iv:
        if cur is None or a>cur[1]:
            if cur: tot+=cur[1]-cur[0]
            cur=[a,b]
        else: cur[1]=max(cur[1],b)
    if cur: tot+=cur[1]-cur[0]
    return tot
kinds={}
for e,c in runs:
    k=e.split('_')[3]
    kinds.setdefault(k,[]).append((c['Prepared'],c['Laddered']))
    kinds.setdefault('fin',[]).append((c['Laddered'],c['Ran']))
    kinds.setdefault('unpack',[]).append((c['CopiedIn'],c['Prepared']))
allk=[iv for k,v in kinds.items() for iv in v]
print('window %.1f ms'%(hi-lo))
for k,v in kinds.items(): print('%-8s busy %.1f ms'%(k,union(v)))
print('any kernel busy %.1f'%union(allk))
main=[iv for k,v in kinds.items() if k not in ('fin','unpack') for iv in v]
print('main kernels busy %.1f'%union(main))
