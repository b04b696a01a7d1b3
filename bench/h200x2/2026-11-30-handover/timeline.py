#!/usr/bin/env python3
# The chunks of one run of a --trace file, in the order they started, with their stages' times (ms).
# usage: timeline.py FILE.jsonl.gz CURVE GPUS RUN [LAST] (RUN counts from 1 among that curve's runs
# on GPUS; LAST: only the last chunks)
import sys,json,gzip
f=sys.argv[1]; curve=sys.argv[2]; gpus=int(sys.argv[3]); which=int(sys.argv[4]); tail=int(sys.argv[5]) if len(sys.argv)>5 else 99
k=0
for l in gzip.open(f,'rt'):
    r=json.loads(l)
    if r['curve']!=curve or r['gpus']!=gpus: continue
    k+=1
    if k!=which: continue
    print(r['gpus'], r['wall_ms'])
    cs=sorted(r['chunks'],key=lambda c:c['start_ms'])
    for c in cs[-tail:] if tail<99 else cs:
        print('  d%d %7d start %6.2f in %6.2f prep %6.2f lad %6.2f ran %6.2f done %6.2f'%(c['device'],c['hi']-c['lo'],c['start_ms'],c['copied_in_ms'],c['prepared_ms'],c['laddered_ms'],c['ran_ms'],c['done_ms']))
