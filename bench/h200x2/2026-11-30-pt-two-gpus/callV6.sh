#!/usr/bin/env bash
# call V6 (two H200): where two-GPU ECDSA stands with f02b03c's kernels (the pair mapping's k·P 6.8 to
# 7.9% and its combs 3.8 to 6.0% faster than before): ecmul bench --gpus 1,2 --op ecdsa,sign on
# P-224 and P-256 at 2^22 items, five runs each, rounds as time allows (medians.py from
# ../2026-11-30-host-traces/). The binary loads the committed fatbin (ECMUL_FATBIN).
set -u -o pipefail
T0=$(date +%s); O=/tmp/v6; mkdir -p $O; save() { tar cJf $OUT/v6.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; head -1 /proc/stat | tee -a $O/device.txt
B=.dev/v6
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
xz -dc $B/ecmul.xz > $B/ecmul && chmod +x $B/ecmul
$B/ecmul version > $O/version.txt 2>&1
for r in 1 2 3; do
  timeout -k 5 80 $B/ecmul bench --backend gpu --gpus 1,2 --curve p224,p256 --op sign,ecdsa --batch 4194304 --reps 5 --peers=false \
    --json $O/b-$r.json --trace $O/b-$r.jsonl > $O/b-$r.txt 2>&1; echo "round $r rc $? t $(el)"
  gzip -f $O/b-$r.jsonl; save
  [ $(el) -gt 110 ] && break
done
head -1 /proc/stat | tee -a $O/device.txt
python3 $B/medians.py $O b | tee $O/medians.txt
save; echo "t $(el)"
