import json,sys
ev=[]
def which(d):  # W2 on: the step's index; W1: its first item and items
    return 'step %-3d' % d['step'] if 'step' in d else 'lo %-8d n %-6d' % (d['lo'], d['n'])
for line in open(sys.argv[1]):
    if not line.startswith('TRACE '): continue
    _,k,j=line.split(' ',2); d=json.loads(j)
    if k=='run':
        for c in d['chunks']:
            ev.append((c['Start'],'R %-6d %s st %.2f in %.2f prep %.2f comb %.2f fin %.2f done %.2f | host %.2f-%.2f fill %.2f drain %.2f wait %.2f'%(d['count'],d['entry'][10:30],c['Start'],c['CopiedIn'],c['Prepared'],c['Laddered'],c['Ran'],c['Done'],d['host_start'],d['host_end'],d['fill'],d['drain'],d['wait'])))
    elif k=='prepare':
        ev.append((d['t0'],'P %s %.2f-%.2f (%.2f)'%(which(d),d['t0'],d['t1'],d['t1']-d['t0'])))
    else:
        ev.append((d['t0'],'F %s wait %.2f-%.2f (%.2f) finish -%.2f (%.2f)'%(which(d),d['t0'],d['t1'],d['t1']-d['t0'],d['t2'],d['t2']-d['t1'])))
lo,hi=float(sys.argv[2]),float(sys.argv[3])
for t,s in sorted(ev):
    if lo<=t<=hi: print('%9.2f %s'%(t,s))
