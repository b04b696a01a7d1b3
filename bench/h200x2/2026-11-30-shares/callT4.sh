#!/usr/bin/env bash
# call T4 (two H200): l = 1ca100e reading the items a thread of the finish of a pipeline's last step
# (a closing batch not overlapped) from ECMUL_X_LASTK (timing only, l-timing-only.diff; without it,
# kernels.FinishItemsLastChunk scaled to the chunk, as at 1ca100e). verify with L=1 (sign and ecdsa,
# P-224); L = none, 1, 2 alternated on signing (four rounds) and verification (one).
set -u -o pipefail
T0=$(date +%s); O=/tmp/t4; mkdir -p $O; save() { tar cJf $OUT/t4.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/t4
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/l.xz'), open('$D/l','wb'))" && chmod +x $D/l
for op in sign ecdsa; do
  ECMUL_X_LASTK=1 timeout -k 5 60 $D/l verify --backend gpu --curve p224 --op $op --n 60000 --chunk 60000 > $O/verify-p224-$op.txt 2>&1
  echo "verify L=1 p224 $op rc $? $(tail -1 $O/verify-p224-$op.txt) t $(el)"
done
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
run() { # L op tag round reps (L 0: none)
  ECMUL_X_LASTK=$1 timeout -k 5 90 $D/l bench --backend gpu --gpus 1,2 --curve p224,p256 --op $2 --batch 4194304 --reps $5 --peers=false \
    --json $O/l$1$3-$4.json --trace $O/l$1$3-$4.jsonl > $O/l$1$3-$4.txt 2>&1; echo "l$1$3-$4 rc $? t $(el): $(summ $O/l$1$3-$4.json)"
  gzip -f $O/l$1$3-$4.jsonl
}
for r in 1 2 3 4; do for l in 0 1 2; do run $l sign s $r 5; done; save; done
for l in 0 1 2; do run $l ecdsa e 1 3; done; save
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O l0s l1s l2s | tee $O/medians.txt
python3 $D/medians.py $O l0e l1e l2e | tee -a $O/medians.txt
save; echo "t $(el)"
