#!/usr/bin/env bash
# call W11 (two H200): M = 7e6b3c8, T = e374e9d (N = 18aec5b, a step FirstSign takes checked in the fill, with
# the steps' calls entering the device in order: par.Turns). verify --op sign with T on P-224, P-256 and secp256k1, then
# m and t alternated five times on signing, P-224 and P-256, one GPU and two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/w11; mkdir -p $O; save() { tar cJf $OUT/w11.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/w11
# built without an embedded fatbin: they load main's, whose kernel sources are unchanged
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
for v in m t; do python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/$v.xz'), open('$D/$v','wb'))" && chmod +x $D/$v; done
for c in p224 p256 secp256k1; do
  timeout -k 5 45 $D/t verify --backend gpu --curve $c --op sign --n 60000 --chunk 60000 > $O/verify-$c-sign.txt 2>&1
  echo "verify T $c sign rc $? $(tail -1 $O/verify-$c-sign.txt) $(grep -o 'items=[0-9]* mismatches=[0-9]* item_errors=[0-9]*' $O/verify-$c-sign.txt) t $(el)"
done; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
for r in 1 2 3 4 5; do for v in m t; do
  timeout -k 5 60 $D/$v bench --backend gpu --gpus 1,2 --curve p224,p256 --op sign --batch 4194304 --reps 5 --peers=false \
    --json $O/${v}s-$r.json --trace $O/${v}s-$r.jsonl > $O/${v}s-$r.txt 2>&1; echo "${v}s-$r rc $? t $(el): $(summ $O/${v}s-$r.json)"
  gzip -f $O/${v}s-$r.jsonl
done; save; done
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O ms ts | tee $O/medians.txt
save; echo "t $(el)"
