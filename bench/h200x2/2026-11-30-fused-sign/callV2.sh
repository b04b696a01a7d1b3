#!/usr/bin/env bash
# call V2 (two H200): A = 8acab53, C = bee3825 (FirstItems, h1 in the fill), D = HEAD (FirstItems, h1 in
# the checks, copied in the fill). Correctness of D (verify --op sign on every curve, both GPUs), then
# A and D alternated five times (C left out: the carry limit).
set -u -o pipefail
T0=$(date +%s); O=/tmp/v2; mkdir -p $O; save() { tar cJf $OUT/v2.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/v2
for v in a d; do
  python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/$v.xz'), open('$D/$v','wb'))" && chmod +x $D/$v
  $D/$v version > $O/version-$v.txt 2>&1; echo "$v: $(head -1 $O/version-$v.txt)"
done
for c in p224 p256 secp256k1; do
  timeout -k 5 45 $D/d verify --backend gpu --curve $c --op sign --n 60000 --chunk 60000 > $O/verify-$c-sign.txt 2>&1
  echo "verify $c sign rc $? $(tail -1 $O/verify-$c-sign.txt) $(grep -o 'items=[0-9]* mismatches=[0-9]* item_errors=[0-9]*' $O/verify-$c-sign.txt) t $(el)"
done
save
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
for r in 1 2 3 4 5; do for v in a d; do
  timeout -k 5 60 $D/$v bench --backend gpu --gpus 1,2 --curve p224,p256 --op sign --batch 4194304 --reps 5 --peers=false \
    --json $O/$v-$r.json --trace $O/$v-$r.jsonl > $O/$v-$r.txt 2>&1; echo "$v-$r rc $? t $(el): $(summ $O/$v-$r.json)"
  gzip -f $O/$v-$r.jsonl
done; done
head -1 /proc/stat | tee -a $O/device.txt; save
echo "t $(el)"
