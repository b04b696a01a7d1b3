#!/usr/bin/env bash
# call T1 (two H200): h = b9f2981 (HEAD of the last session), c = d193bab (sortFirsts on one goroutine, allSigned).
# verify with c (sign P-224, P-256; ecdsa P-224); execution traces of h (P-224 signing one GPU and two,
# P-224 verification two); h and c alternated: signing four rounds, verification two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/t1; mkdir -p $O; save() { tar cJf $OUT/t1.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/t1
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
for v in h c; do python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/$v.xz'), open('$D/$v','wb'))" && chmod +x $D/$v; done
for c in p224 p256; do
  timeout -k 5 45 $D/c verify --backend gpu --curve $c --op sign --n 60000 --chunk 60000 > $O/verify-$c-sign.txt 2>&1
  echo "verify c $c sign rc $? $(tail -1 $O/verify-$c-sign.txt) t $(el)"
done
timeout -k 5 60 $D/c verify --backend gpu --curve p224 --op ecdsa --n 60000 --chunk 60000 > $O/verify-p224-ecdsa.txt 2>&1
echo "verify c p224 ecdsa rc $? $(tail -1 $O/verify-p224-ecdsa.txt) t $(el)"
for g in 1 2; do
  timeout -k 5 60 $D/h bench --backend gpu --gpus $g --curve p224 --op sign --batch 4194304 --reps 5 --peers=false \
    --json $O/xs-g$g.json --trace $O/xs-g$g.jsonl --exectrace $O/xs-g$g.exectrace > $O/xs-g$g.txt 2>&1; echo "exectrace sign g$g rc $? t $(el)"
done
timeout -k 5 90 $D/h bench --backend gpu --gpus 2 --curve p224 --op ecdsa --batch 4194304 --reps 3 --peers=false \
  --json $O/xe-g2.json --trace $O/xe-g2.jsonl --exectrace $O/xe-g2.exectrace > $O/xe-g2.txt 2>&1; echo "exectrace ecdsa g2 rc $? t $(el)"
gzip -f $O/x*.jsonl $O/x*.exectrace; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
run() { # variant op tag round reps
  timeout -k 5 90 $D/$1 bench --backend gpu --gpus 1,2 --curve p224,p256 --op $2 --batch 4194304 --reps $5 --peers=false \
    --json $O/$1$3-$4.json --trace $O/$1$3-$4.jsonl > $O/$1$3-$4.txt 2>&1; echo "$1$3-$4 rc $? t $(el): $(summ $O/$1$3-$4.json)"
  gzip -f $O/$1$3-$4.jsonl
}
for r in 1 2 3 4; do for v in h c; do run $v sign s $r 5; done; save; done
for r in 1 2; do for v in h c; do run $v ecdsa e $r 3; done; save; done
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O hs cs | tee $O/medians.txt
python3 $D/medians.py $O he ce | tee -a $O/medians.txt
save; echo "t $(el)"
