#!/usr/bin/env bash
# call L3 (two H200): z = c8e5a6e with z-timing-only.diff (ECMUL_X_RAMPTOTAL=1: the pipelines' first and
# last steps 2^15 items in all, not 2^15 a GPU, for verification and signing). b (z) and t (z with
# ECMUL_X_RAMPTOTAL=1) alternated four rounds on signing and verification, P-224 and P-256, one GPU and two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/l3; mkdir -p $O; save() { tar cJf $OUT/l3.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/l3
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/z.xz'), open('$D/z','wb'))" && chmod +x $D/z
$D/z version > $O/version.txt 2>&1
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
run() { # tag round env
  env $3 timeout -k 5 90 $D/z bench --backend gpu --gpus 1,2 --curve p224,p256 --op sign,ecdsa --batch 4194304 --reps 5 --peers=false \
    --json $O/$1-$2.json --trace $O/$1-$2.jsonl > $O/$1-$2.txt 2>&1; echo "$1-$2 rc $? t $(el): $(summ $O/$1-$2.json)"
  gzip -f $O/$1-$2.jsonl
}
for r in 1 2 3 4; do run b $r X=1; run t $r ECMUL_X_RAMPTOTAL=1; save; done
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O b t | tee $O/medians.txt
save; echo "t $(el)"
