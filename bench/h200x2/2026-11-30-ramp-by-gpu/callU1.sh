#!/usr/bin/env bash
# call U1 (two H200): A = before, B = finish items per thread by chunk size + ramp per GPU.
# Correctness of B (verify sign/ecdsa with a ramped batch on both GPUs), then A/B alternated twice
# (base, ecdsa, sign on P-224 and P-256, one GPU and two, 2^22, no CPU peers), then B's exec trace.
set -u -o pipefail
T0=$(date +%s); O=/tmp/u1; mkdir -p $O; save() { tar cJf $OUT/u1.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
D=.dev/u1
for v in a b; do
  python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/$v.xz'), open('$D/$v','wb'))" && chmod +x $D/$v
  $D/$v version > $O/version-$v.txt 2>&1; echo "$v: $(head -1 $O/version-$v.txt)"
done
for c in p224 p256 secp256k1; do for op in sign ecdsa; do
  timeout 60 $D/b verify --backend gpu --curve $c --op $op --n 300000 --chunk 300000 > $O/verify-$c-$op.txt 2>&1
  echo "verify $c $op rc $? $(tail -1 $O/verify-$c-$op.txt) $(grep -o 'engine_op/s=[0-9.e+]*' $O/verify-$c-$op.txt) t $(el)"
done; done
save
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
for r in 1 2; do for v in a b; do
  timeout 150 $D/$v bench --backend gpu --gpus 1,2 --curve p224,p256 --op base,ecdsa,sign --batch 4194304 --reps 3 --peers=false \
    --json $O/$v-$r.json --trace $O/$v-$r.jsonl > $O/$v-$r.txt 2>&1; echo "$v-$r rc $? t $(el): $(summ $O/$v-$r.json)"
  gzip -f $O/$v-$r.jsonl; save
done; done
timeout 100 $D/b bench --backend gpu --gpus 2 --curve p224 --op ecdsa,sign --batch 4194304 --reps 3 --peers=false \
  --json $O/exec.json --trace $O/exec.jsonl --exectrace $O/exec.trace > $O/exec.txt 2>&1; echo "exec rc $? t $(el): $(summ $O/exec.json)"
xz -f $O/exec.trace; gzip -f $O/exec.jsonl; save
echo "t $(el)"
