#!/usr/bin/env bash
# call T3 (two H200): k = 1ca100e (one timing query an event) reading the items a thread of a closing
# batch's finish from ECMUL_X_CLOSEK (timing only, k-timing-only.diff; 16, kernels.FinishItemsLastChunk,
# without it). verify with K=2 (sign and ecdsa, P-224); K = 16, 8, 4, 2 alternated on signing (three
# rounds) and 16, 4, 2 on verification (one); then the full bench (mul,base,ecdsa,sign) on P-224 at K=16.
set -u -o pipefail
T0=$(date +%s); O=/tmp/t3; mkdir -p $O; save() { tar cJf $OUT/t3.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/t3
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/k.xz'), open('$D/k','wb'))" && chmod +x $D/k
for op in sign ecdsa; do
  ECMUL_X_CLOSEK=2 timeout -k 5 60 $D/k verify --backend gpu --curve p224 --op $op --n 60000 --chunk 60000 > $O/verify-p224-$op.txt 2>&1
  echo "verify K=2 p224 $op rc $? $(tail -1 $O/verify-p224-$op.txt) t $(el)"
done
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
run() { # K op tag round reps
  ECMUL_X_CLOSEK=$1 timeout -k 5 90 $D/k bench --backend gpu --gpus 1,2 --curve p224,p256 --op $2 --batch 4194304 --reps $5 --peers=false \
    --json $O/k$1$3-$4.json --trace $O/k$1$3-$4.jsonl > $O/k$1$3-$4.txt 2>&1; echo "k$1$3-$4 rc $? t $(el): $(summ $O/k$1$3-$4.json)"
  gzip -f $O/k$1$3-$4.jsonl
}
for r in 1 2 3; do for k in 16 8 4 2; do run $k sign s $r 5; done; save; done
for k in 16 4 2; do run $k ecdsa e 1 3; done; save
timeout -k 5 150 $D/k bench --backend gpu --gpus 1,2 --curve p224 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 --peers=false \
  --json $O/full-1.json --trace $O/full-1.jsonl > $O/full-1.txt 2>&1; echo "full rc $? t $(el): $(summ $O/full-1.json)"
gzip -f $O/full-1.jsonl
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O k16s k8s k4s k2s | tee $O/medians.txt
python3 $D/medians.py $O k16e k4e k2e | tee -a $O/medians.txt
python3 $D/medians.py $O full | tee -a $O/medians.txt
save; echo "t $(el)"
