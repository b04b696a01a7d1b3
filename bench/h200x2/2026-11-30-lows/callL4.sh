#!/usr/bin/env bash
# call L4 (two H200): q = dd15624 with q-timing-only.diff (ECMUL_X_QUEUED=N: N steps queued behind the one the host finishes,
# in signing and verification; ECMUL_X_CLOSING=M: the last M steps closing, N + 1 without it). b (q), q (N = 4)
# and c (N = 4, M = 4) alternated three rounds on signing and verification, P-224 and P-256, one GPU and two.
set -u -o pipefail
T0=$(date +%s); O=/tmp/l4; mkdir -p $O; save() { tar cJf $OUT/l4.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/l4
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$D/q.xz'), open('$D/q','wb'))" && chmod +x $D/q
$D/q version > $O/version.txt 2>&1
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s/g%s=%.2f'%(r['curve'][-4:], r['op'][:4], r.get('gpus',''), (r.get('bytes_ops_per_s') or r['ops_per_s'])/1e6) for r in d['results']))" 2>&1; }
run() { # tag round env
  env $3 ${4:-X=2} timeout -k 5 90 $D/q bench --backend gpu --gpus 1,2 --curve p224,p256 --op sign,ecdsa --batch 4194304 --reps 5 --peers=false \
    --json $O/$1-$2.json --trace $O/$1-$2.jsonl > $O/$1-$2.txt 2>&1; echo "$1-$2 rc $? t $(el): $(summ $O/$1-$2.json)"
  gzip -f $O/$1-$2.jsonl
}
for r in 1 2 3; do run b $r X=1; run q $r ECMUL_X_QUEUED=4; run c $r ECMUL_X_QUEUED=4 ECMUL_X_CLOSING=4; save; done
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O b q c | tee $O/medians.txt
save; echo "t $(el)"
