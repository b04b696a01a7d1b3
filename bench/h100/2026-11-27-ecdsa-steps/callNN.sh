#!/usr/bin/env bash
# call NN: the *big.Int API, P-224 at 2^22: old (70dc03a, c26), A (wire buffers, one allocation per result, c29), B (staging, slabs, c30)
# against 70dc03a (old, c26), alternated, P-224 and P-256 at 2^22.
set -u -o pipefail
O=/tmp/wNN; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
for B in .dev/c26 .dev/c29 .dev/c30; do
  for f in $B/ecmul.xz; do
    if command -v xz >/dev/null; then xz -d -f $f
    else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
  done
  chmod +x $B/ecmul
done
for round in 1 2; do
  for v in old:c26 A:c29 B:c30; do
    n=${v%%:*}; B=.dev/${v#*:}
    timeout 120 $B/ecmul bench --backend gpu --curve p224 --op mul --batch 4194304 --reps 3 --peers=false \
      --json $O/$n-$round.json > $O/$n-$round.txt 2>&1; echo "$n $round rc $?"
    python3 - $O/$n-$round.json $n <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
for r in d['results']:
  k=r.get('kernel_ops_per_s') or 0; b=r.get('bytes_ops_per_s') or 0; e=r.get('ops_per_s') or 0
  print(sys.argv[2], r['curve'], 'kernel %.3fM bytes %.3fM (%.1f%%) big %.3fM (%.1f%%)' % (k/1e6, b/1e6, 100*b/max(k,1), e/1e6, 100*e/max(k,1)))
PY
    save
  done
done
