#!/usr/bin/env bash
# call 15: the fatbin rebuilt (kept, gzipped, for the commit); gECC k·P in the same call; ecmul bench at
# 2^22 items on the three curves: the prepare and finish kernels (default) against the host's conversions
# (--host-finish), with the kernel alone and OpenSSL speed -multi 16 in the same run.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/w15; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
(timeout 300 bash .dev/peers/gecc.sh $O/gecc pmul > $O/gecc.txt 2>&1; echo "gecc rc $?" >> $O/gecc.txt) &
gpid=$!
t0=$(date +%s)
make -B kernels-fatbin > $O/build.log 2>&1 || { tail -30 $O/build.log; save; exit 1; }
echo "fatbin build $(( $(date +%s) - t0 )) s"; gzip -9 -c kernels/ecmul.fatbin > ${OUT:-/tmp}/ecmul.fatbin.gz; sha256sum kernels/ecmul.fatbin | tee $O/fatbin.sha256
export ECMUL_FATBIN=$PWD/kernels/ecmul.fatbin
B=.dev/c14; gunzip -f $B/*.gz 2>/dev/null; chmod +x $B/*
wait $gpid; cat $O/gecc.txt | tail -6
save
timeout 330 $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul --batch 4194304 --reps 3 --gpu-peers $O/gecc.txt \
  --json $O/bench-gpu-items.json > $O/bench-gpu-items.txt 2>&1; echo "bench rc $?"; grep -v "^\[" $O/bench-gpu-items.txt | tail -14
save
timeout 150 $B/ecmul bench --backend gpu --curve p256,p224 --op mul --batch 4194304 --reps 3 --peers=false --host-finish \
  --json $O/bench-host.json > $O/bench-host.txt 2>&1; echo "bench host rc $?"; grep -v "^\[" $O/bench-host.txt | tail -8
save
