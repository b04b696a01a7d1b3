#!/usr/bin/env bash
# call L1 (two H200): x = 02a1fdf with x-timing-only.diff (ECMUL_X_NOLOWS=1 signs secp256k1 without the
# low-s rule). verify sign and ecdsa on secp256k1 over both GPUs; execution traces and gctrace of
# two-GPU signing on secp256k1 and P-256; then x (low-s) and x with ECMUL_X_NOLOWS=1 alternated on
# secp256k1 signing, with P-256 signing beside; verification on every curve, one GPU and two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/l1; mkdir -p $O; save() { tar cJf $OUT/l1.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/l1
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/x.xz'), open('$D/x','wb'))" && chmod +x $D/x
$D/x version > $O/version.txt 2>&1
for op in sign ecdsa; do
  timeout -k 5 40 $D/x verify --backend gpu --curve secp256k1 --op $op --n 40000 > $O/verify-secp256k1-$op.txt 2>&1
  echo "verify secp256k1 $op rc $? $(tail -1 $O/verify-secp256k1-$op.txt | cut -c1-70) t $(el)"
done
for c in secp256k1 p256; do
  GODEBUG=gctrace=1 timeout -k 5 60 $D/x bench --backend gpu --gpus 2 --curve $c --op sign --batch 4194304 --reps 5 --peers=false \
    --json $O/xt-$c.json --trace $O/xt-$c.jsonl --exectrace $O/xt-$c.exectrace > $O/xt-$c.txt 2> $O/xt-$c.gc.txt; echo "exectrace $c rc $? t $(el)"
done
gzip -f $O/xt-*.jsonl $O/xt-*.exectrace; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
run() { # tag curves op round reps [env]
  env $6 timeout -k 5 90 $D/x bench --backend gpu --gpus 1,2 --curve $2 --op $3 --batch 4194304 --reps $5 --peers=false \
    --json $O/$1-$4.json --trace $O/$1-$4.jsonl > $O/$1-$4.txt 2>&1; echo "$1-$4 rc $? t $(el): $(summ $O/$1-$4.json)"
  gzip -f $O/$1-$4.jsonl
}
for r in 1 2 3; do
  run ls secp256k1,p256 sign $r 5 X=1
  run ns secp256k1 sign $r 5 ECMUL_X_NOLOWS=1
  save
done
run ve p224,p256,secp256k1 ecdsa 1 3 X=1; save
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O ls ns | tee $O/medians.txt
python3 $D/medians.py $O ve | tee -a $O/medians.txt
save; echo "t $(el)"
