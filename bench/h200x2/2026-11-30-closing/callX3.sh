#!/usr/bin/env bash
# call X3 (two H200): B = 1623812, C = 9fcfe04 (0184d3b's slot handed over before the drain, a pipeline's last steps
# closing: short finish chains and one chunk a device, four slots a device). verify --op sign on the three curves and
# --op ecdsa on P-224 and P-256 with C; b and c alternated: signing five rounds, verification three, k·P (bytes API)
# three, P-224 and P-256, one GPU and two; an execution trace of c's two-GPU P-224 signing.
set -u -o pipefail
T0=$(date +%s); O=/tmp/x3; mkdir -p $O; save() { tar cJf $OUT/x3.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/x3
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
for v in b c; do python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/$v.xz'), open('$D/$v','wb'))" && chmod +x $D/$v; done
for c in p224 p256 secp256k1; do
  timeout -k 5 45 $D/c verify --backend gpu --curve $c --op sign --n 60000 --chunk 60000 > $O/verify-$c-sign.txt 2>&1
  echo "verify C $c sign rc $? $(tail -1 $O/verify-$c-sign.txt) t $(el)"
done
for c in p224 p256; do
  timeout -k 5 60 $D/c verify --backend gpu --curve $c --op ecdsa --n 60000 --chunk 60000 > $O/verify-$c-ecdsa.txt 2>&1
  echo "verify C $c ecdsa rc $? $(tail -1 $O/verify-$c-ecdsa.txt) t $(el)"
done; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
run() { # variant op tag round reps
  timeout -k 5 90 $D/$1 bench --backend gpu --gpus 1,2 --curve p224,p256 --op $2 --batch 4194304 --reps $5 --peers=false \
    --json $O/$1$3-$4.json --trace $O/$1$3-$4.jsonl > $O/$1$3-$4.txt 2>&1; echo "$1$3-$4 rc $? t $(el): $(summ $O/$1$3-$4.json)"
  gzip -f $O/$1$3-$4.jsonl
}
for r in 1 2 3 4 5; do for v in b c; do run $v sign s $r 5; done; save; done
for r in 1 2 3; do for v in b c; do run $v ecdsa e $r 3; done; save; done
for r in 1 2 3; do for v in b c; do run $v mul m $r 5; done; save; done
timeout -k 5 60 $D/c bench --backend gpu --gpus 2 --curve p224 --op sign --batch 4194304 --reps 3 --peers=false \
  --json $O/trace-c.json --trace $O/trace-c.jsonl --exectrace $O/trace-c.exectrace > $O/trace-c.txt 2>&1
echo "trace rc $? t $(el)"; gzip -f $O/trace-c.jsonl $O/trace-c.exectrace
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O bs cs | tee $O/medians.txt
python3 $D/medians.py $O be ce | tee -a $O/medians.txt
python3 $D/medians.py $O bm cm | tee -a $O/medians.txt
save; echo "t $(el)"
