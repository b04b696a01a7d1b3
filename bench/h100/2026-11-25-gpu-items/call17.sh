#!/usr/bin/env bash
# call 17 (commit 2735614's code and fatbin): latency of one item and of 1,024 (bytes API and *big.Int), and
# the CLI pipes at 4,194,304 items (ecmul gen into /dev/shm, then ecmul mul reading it, raw and hex), beside
# the bytes API of the same call.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/w17; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $O/device.txt
B=.dev/c17; gunzip -f $B/*.gz; chmod +x $B/*
timeout 60 $B/ecmul bench --backend gpu --curve p224,p256 --op mul --batch 1,1024 --reps 20 --peers=false --json $O/latency.json > $O/latency.txt 2>&1
echo "latency rc $?"; grep -v "^\[" $O/latency.txt | tail -5
save
timeout 60 $B/ecmul bench --backend gpu --curve p256,p224 --op mul --batch 4194304 --reps 3 --peers=false --json $O/bytes.json > $O/bytes.txt 2>&1
echo "bytes rc $?"; grep -v "^\[" $O/bytes.txt | tail -3
save
for c in p256 p224; do for f in raw hex; do
  $B/ecmul gen --curve $c --n 4194304 --format $f --out /dev/shm/in-$c-$f
  for rep in 1 2 3; do
    s=$(date +%s.%N); $B/ecmul mul --curve $c --backend gpu --format $f < /dev/shm/in-$c-$f > /dev/shm/out; rc=$?; e=$(date +%s.%N)
    awk -v c=$c -v f=$f -v r=$rep -v rc=$rc -v s=$s -v e=$e 'BEGIN{printf "pipe %s %s rep %d rc %d items 4194304 seconds %.3f op/s %.0f\n", c, f, r, rc, e-s, 4194304/(e-s)}'
  done
  rm -f /dev/shm/in-$c-$f
done; done | tee $O/pipes.txt
save
