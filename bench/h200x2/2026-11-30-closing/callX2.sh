#!/usr/bin/env bash
# call X2 (two H200): B = 1623812, T = 4f9be8b (0184d3b, and a pipeline's last steps finish in short chains),
# TQ = T with four slots a device, TL = T with signing's last step one chunk a device (timing only, *-timing-only.diff).
# verify --op sign (P-224, P-256) and --op ecdsa (P-224) with T; then b, t, tq, tl alternated on signing five rounds,
# b, t, tq on verification three, P-224 and P-256, one GPU and two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/x2; mkdir -p $O; save() { tar cJf $OUT/x2.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/x2
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
for v in b t tq tl; do python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/$v.xz'), open('$D/$v','wb'))" && chmod +x $D/$v; done
for c in p224 p256; do
  timeout -k 5 45 $D/t verify --backend gpu --curve $c --op sign --n 60000 --chunk 60000 > $O/verify-$c-sign.txt 2>&1
  echo "verify T $c sign rc $? $(tail -1 $O/verify-$c-sign.txt) t $(el)"
done
timeout -k 5 60 $D/t verify --backend gpu --curve p224 --op ecdsa --n 60000 --chunk 60000 > $O/verify-p224-ecdsa.txt 2>&1
echo "verify T p224 ecdsa rc $? $(tail -1 $O/verify-p224-ecdsa.txt) t $(el)"; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
run() { # variant op tag round reps
  timeout -k 5 90 $D/$1 bench --backend gpu --gpus 1,2 --curve p224,p256 --op $2 --batch 4194304 --reps $5 --peers=false \
    --json $O/$1$3-$4.json --trace $O/$1$3-$4.jsonl > $O/$1$3-$4.txt 2>&1; echo "$1$3-$4 rc $? t $(el): $(summ $O/$1$3-$4.json)"
  gzip -f $O/$1$3-$4.jsonl
}
for r in 1 2 3 4 5; do for v in b t tq tl; do run $v sign s $r 5; done; save; done
for r in 1 2 3; do for v in b t tq; do run $v ecdsa e $r 3; done; save; done
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O bs ts tqs tls | tee $O/medians.txt
python3 $D/medians.py $O be te tqe | tee -a $O/medians.txt
save; echo "t $(el)"
