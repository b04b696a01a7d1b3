#!/usr/bin/env bash
# call F: the device timeline with the item kernels at the greatest priority at 2^22 items (P-256, P-224).
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wF; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/c4; gunzip -f $B/*.gz 2>/dev/null; chmod +x $B/*
timeout 200 $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul --batch 4194304 --reps 3 --peers=false --json $O/timeline.json > $O/timeline.txt 2>&1; echo "bench rc $?"
python3 - $O/timeline.json <<'PY' | tee $O/summary.txt
import json,sys
d=json.load(open(sys.argv[1]))
for r in d['results']:
  tl=r['bytes_timeline']; k=r['kernel_ms']/r['kernel_batch']
  print('%s kernel %.2fM bytes %.2fM (%.1f%%) chunks %d' % (r['curve'], r['kernel_ops_per_s']/1e6, r['bytes_ops_per_s']/1e6, 100*r['bytes_ops_per_s']/r['kernel_ops_per_s'], len(tl)))
  tl.sort(key=lambda c: c['lo'])
  for c in tl[:4]+tl[-4:]:
    n=c['hi']-c['lo']
    print('  lo %8d n %6d start %7.2f in %7.2f prep %7.2f ladder %7.2f fin %7.2f done %7.2f | ladder span %6.2f ms (alone %.2f) finish %.2f' % (c['lo'], n, c['start_ms'], c['copied_in_ms'], c['prepared_ms'], c['laddered_ms'], c['ran_ms'], c['done_ms'], c['laddered_ms']-c['prepared_ms'], n*k, c['ran_ms']-c['laddered_ms']))
  ends=[c['laddered_ms'] for c in tl]
  gaps=[b-a for a,b in zip(ends,ends[1:])]
  print('  ladder ends: first %.2f last %.2f mean step %.3f ms (alone per chunk %.3f); last done %.2f' % (ends[0], ends[-1], sum(gaps)/len(gaps), tl[1]['hi']-tl[1]['lo'] and (tl[1]['hi']-tl[1]['lo'])*k, max(c['done_ms'] for c in tl)))
PY
save
