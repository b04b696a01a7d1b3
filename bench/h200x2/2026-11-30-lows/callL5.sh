#!/usr/bin/env bash
# call L5 (two H200): m = dd15624 with m-timing-only.diff (ECMUL_X_MERGE=k: signing's last k + 1 steps
# merged into one, the down ramp cut short). b (m), m1 (k = 1: 65,536 + 32,768 items a GPU) and m2
# (k = 2: 131,072 + 65,536 + 32,768) alternated four rounds on signing, P-224 and P-256, one GPU and two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/l5; mkdir -p $O; save() { tar cJf $OUT/l5.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/l5
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/m.xz'), open('$D/m','wb'))" && chmod +x $D/m
$D/m version > $O/version.txt 2>&1
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
run() { # tag round env
  env $3 ${4:-X=2} timeout -k 5 90 $D/m bench --backend gpu --gpus 1,2 --curve p224,p256 --op sign --batch 4194304 --reps 5 --peers=false \
    --json $O/$1-$2.json --trace $O/$1-$2.jsonl > $O/$1-$2.txt 2>&1; echo "$1-$2 rc $? t $(el): $(summ $O/$1-$2.json)"
  gzip -f $O/$1-$2.jsonl
}
for r in 1 2 3 4; do run b $r X=1; run m1 $r ECMUL_X_MERGE=1; run m2 $r ECMUL_X_MERGE=2; save; done
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O b m1 m2 | tee $O/medians.txt
save; echo "t $(el)"
