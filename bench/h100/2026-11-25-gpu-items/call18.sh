#!/usr/bin/env bash
# call 18 (commit 2735614's ecmul and fatbin): k·P, k·G and ECDSA verification end to end at 2^22 items on
# P-256 and P-224, the prepare and finish kernels taking k·P's and k·G's items.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/w18; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $O/device.txt
B=.dev/c17; gunzip -f $B/*.gz; chmod +x $B/*
timeout 170 $B/ecmul bench --backend gpu --curve p256,p224 --op mul,base,ecdsa --batch 4194304 --reps 3 --peers=false \
  --json $O/bench-ops.json > $O/bench-ops.txt 2>&1; echo "bench rc $?"; grep -v "^\[" $O/bench-ops.txt | tail -8
save
