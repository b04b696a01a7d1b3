#!/usr/bin/env bash
# call C1 (two H200): 3b2f062 with c-timing-only.diff: closing stealing (ECMUL_X_PIECES: pieces a device of a closing
# batch, 0 = equal shares as before) and ECMUL_X_LASTFIN (kernels.FinishItemsLastChunk).
set -u -o pipefail
T0=$(date +%s); O=/tmp/c1; mkdir -p $O; save() { tar cJf $OUT/c1.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
D=.dev/xb
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
cat .dev/xa/part1 $D/part2 | xz -dc > $D/x && chmod +x $D/x
$D/x version > $O/version.txt 2>&1
run() { # tag round env
  env $3 timeout -k 5 60 $D/x bench --backend gpu --gpus 1,2 --curve p224 --op sign --batch 4194304 --reps 5 --peers=false \
    --json $O/$1-$2.json --trace $O/$1-$2.jsonl > $O/$1-$2.txt 2>&1; echo "$1-$2 rc $? t $(el)"
  gzip -f $O/$1-$2.jsonl
}
for r in 1 2 3 4 5 6; do
  run b $r ECMUL_X_PIECES=0; run p2 $r ECMUL_X_PIECES=2; run p3 $r ECMUL_X_PIECES=3; run l8 $r "ECMUL_X_PIECES=0 ECMUL_X_LASTFIN=8"
  save; [ $(el) -gt 400 ] && break
done
ECMUL_X_PIECES=2 timeout -k 5 90 $D/x verify --backend gpu --curve p224 --op sign --n 1048576 --chunk 1048576 > $O/verify-p2.txt 2>&1; echo "verify rc $? t $(el)"; tail -2 $O/verify-p2.txt
python3 $D/medians.py $O b p2 p3 l8 | tee $O/medians.txt
for v in b p2 p3 l8; do python3 $D/ends.py sign P-224 $O/$v-*.jsonl.gz | sed "s/^/$v /"; done | tee $O/ends.txt
save; echo "t $(el)"
