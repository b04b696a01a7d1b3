#!/usr/bin/env bash
# call T5 (two H200): q = 1ca100e (the record R4's binary), s = 427edcd (an overlapped batch's chunks an
# equal share to each device). verify with s (ecdsa and sign, P-256, both GPUs); q and s alternated
# twice on verification and signing, P-224 and P-256, one GPU and two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/t5; mkdir -p $O; save() { tar cJf $OUT/t5.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/t5
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
for v in q s; do python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/$v.xz'), open('$D/$v','wb'))" && chmod +x $D/$v; done
for op in ecdsa sign; do
  timeout -k 5 40 $D/s verify --backend gpu --curve p256 --op $op --n 40000 > $O/verify-p256-$op.txt 2>&1
  echo "verify s p256 $op rc $? $(tail -1 $O/verify-p256-$op.txt) t $(el)"
done
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
run() { # variant op tag round reps
  timeout -k 5 90 $D/$1 bench --backend gpu --gpus 1,2 --curve p224,p256 --op $2 --batch 4194304 --reps $5 --peers=false \
    --json $O/$1$3-$4.json --trace $O/$1$3-$4.jsonl > $O/$1$3-$4.txt 2>&1; echo "$1$3-$4 rc $? t $(el): $(summ $O/$1$3-$4.json)"
  gzip -f $O/$1$3-$4.jsonl
}
for r in 1 2; do for v in q s; do run $v ecdsa e $r 3; run $v sign s $r 5; done; save; done
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O qe se | tee $O/medians.txt
python3 $D/medians.py $O qs ss | tee -a $O/medians.txt
save; echo "t $(el)"
