#!/usr/bin/env bash
# call S1 (two H200): s = df9ad9e with s-timing-only.diff (ECMUL_X_STEP: signing's step, items a GPU;
# ECMUL_X_SPLITFIRST=1: the first step in two halves). P-224 signing, one GPU and two, variants
# b (default, 2^18), s17 (2^17), s19 (2^19), f (first step split) alternated four rounds of 5 runs.
set -u -o pipefail
T0=$(date +%s); O=/tmp/s1; mkdir -p $O; save() { tar cJf $OUT/s1.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/s1
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
cat .dev/s1a/part1 $D/part2 | xz -dc > $D/s && chmod +x $D/s
$D/s version > $O/version.txt 2>&1
run() { # tag round env
  env $3 timeout -k 5 60 $D/s bench --backend gpu --gpus 1,2 --curve p224 --op sign --batch 4194304 --reps 5 --peers=false \
    --json $O/$1-$2.json --trace $O/$1-$2.jsonl > $O/$1-$2.txt 2>&1; echo "$1-$2 rc $? t $(el)"
  gzip -f $O/$1-$2.jsonl
}
for r in 1 2 3 4 5; do run b $r X=1; run s17 $r ECMUL_X_STEP=131072; run s19 $r ECMUL_X_STEP=524288; run f $r ECMUL_X_SPLITFIRST=1; save; [ $(el) -gt 300 ] && break; done
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O b s17 s19 f | tee $O/medians.txt
save; echo "t $(el)"
