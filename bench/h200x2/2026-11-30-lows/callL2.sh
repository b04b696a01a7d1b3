#!/usr/bin/env bash
# call L2 (two H200): y = c8e5a6e with y-timing-only.diff (ECMUL_X_OLD=1 brings back 02a1fdf's verdicts on
# one goroutine, the verify wire's drain on the device's, and the pass over the verdicts before the
# first step). verify --op ecdsa with y on P-224 and P-256 over both GPUs; o (y with ECMUL_X_OLD=1) and
# n (y) alternated four rounds on verification, one GPU and two; an execution trace of n.
set -u -o pipefail
T0=$(date +%s); O=/tmp/l2; mkdir -p $O; save() { tar cJf $OUT/l2.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/l2
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/y.xz'), open('$D/y','wb'))" && chmod +x $D/y
$D/y version > $O/version.txt 2>&1
for c in p224 p256; do
  timeout -k 5 40 $D/y verify --backend gpu --curve $c --op ecdsa --n 40000 > $O/verify-$c-ecdsa.txt 2>&1
  echo "verify $c ecdsa rc $? $(tail -1 $O/verify-$c-ecdsa.txt | cut -c1-70) t $(el)"
done
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
run() { # tag round env
  env $3 timeout -k 5 90 $D/y bench --backend gpu --gpus 1,2 --curve p224,p256 --op ecdsa --batch 4194304 --reps 3 --peers=false \
    --json $O/$1-$2.json --trace $O/$1-$2.jsonl > $O/$1-$2.txt 2>&1; echo "$1-$2 rc $? t $(el): $(summ $O/$1-$2.json)"
  gzip -f $O/$1-$2.jsonl
}
for r in 1 2 3 4; do run o $r ECMUL_X_OLD=1; run n $r X=1; save; done
timeout -k 5 60 $D/y bench --backend gpu --gpus 2 --curve p224 --op ecdsa --batch 4194304 --reps 3 --peers=false \
  --json $O/xt.json --trace $O/xt.jsonl --exectrace $O/xt.exectrace > $O/xt.txt 2>&1; echo "exectrace rc $? t $(el)"
gzip -f $O/xt.jsonl $O/xt.exectrace
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O o n | tee $O/medians.txt
save; echo "t $(el)"
