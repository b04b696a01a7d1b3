#!/usr/bin/env bash
# call X1 (two H200): HEAD (df9ad9e: the fills of 4c29e3f and 686d0f3, the drains of 3b78eb8, none
# measured on GPUs before) on signing and verification, every curve, one GPU and two, four rounds of 5 runs.
set -u -o pipefail
T0=$(date +%s); O=/tmp/x1; mkdir -p $O; save() { tar cJf $OUT/x1.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
D=.dev/x1
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
cat .dev/x1a/part1 $D/part2 | xz -dc > $D/h && chmod +x $D/h
$D/h version > $O/version.txt 2>&1; head -2 $O/version.txt
run() { # tag round curves
  timeout -k 5 100 $D/h bench --backend gpu --gpus 1,2 --curve $3 --op sign,ecdsa --batch 4194304 --reps 5 --peers=false \
    --json $O/$1-$2.json --trace $O/$1-$2.jsonl > $O/$1-$2.txt 2>&1; echo "$1-$2 rc $? t $(el)"
  gzip -f $O/$1-$2.jsonl
}
for r in 1 2 3 4; do run h $r p224,secp256k1,p256; save; [ $(el) -gt 420 ] && break; done
head -1 /proc/stat | tee -a $O/device.txt
python3 $D/medians.py $O h | tee $O/medians.txt
save; echo "t $(el)"
