#!/usr/bin/env bash
# call V3 (two H200): verification before the ramp for each GPU (A0 = 823c064) and at HEAD (D),
# alternated three times: ecdsa on P-224 and P-256, one GPU and two, 2^22, no CPU peers.
set -u -o pipefail
T0=$(date +%s); O=/tmp/v3; mkdir -p $O; save() { tar cJf $OUT/v3.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/v3
for v in a0 d; do
  python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/$v.xz'), open('$D/$v','wb'))" && chmod +x $D/$v
  $D/$v version > $O/version-$v.txt 2>&1; echo "$v: $(head -1 $O/version-$v.txt)"
done
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
for r in 1 2 3; do for v in a0 d; do
  timeout -k 5 60 $D/$v bench --backend gpu --gpus 1,2 --curve p224,p256 --op ecdsa --batch 4194304 --reps 5 --peers=false \
    --json $O/$v-$r.json --trace $O/$v-$r.jsonl > $O/$v-$r.txt 2>&1; echo "$v-$r rc $? t $(el): $(summ $O/$v-$r.json)"
  gzip -f $O/$v-$r.jsonl
done; done
head -1 /proc/stat | tee -a $O/device.txt; save
echo "t $(el)"
