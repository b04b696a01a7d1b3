#!/usr/bin/env bash
# call G: the item kernels at the greatest launch priority: gECC k·P; ecmul bench at 2^22 on three curves
# (kernel, bytes API with its timeline, *big.Int, host CPU, OpenSSL -multi 16); latency; k·G and ECDSA;
# verify 300k; the GPU tests of the item kernels and Wycheproof; the pipes with a CPU profile.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wG; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c5; gunzip -f $B/*.gz 2>/dev/null; chmod +x $B/*
timeout 200 bash .dev/peers/gecc.sh $O/gecc pmul > $O/gecc.txt 2>&1; echo "gecc rc $?" | tee -a $O/gecc.txt; tail -3 $O/gecc.txt
save
timeout 200 $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul --batch 4194304 --reps 3 --gpu-peers $O/gecc.txt \
  --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $?"; grep -v "^\[" $O/bench.txt | tail -14
save
timeout 60 $B/ecmul bench --backend gpu --curve p224,p256 --op mul --batch 1,1024,65536 --reps 20 --peers=false --json $O/latency.json > $O/latency.txt 2>&1
echo "latency rc $?"; grep -v "^\[" $O/latency.txt | tail -8
save
timeout 120 $B/ecmul bench --backend gpu --curve p256,p224 --op mul,base,ecdsa --batch 4194304 --reps 3 --peers=false --json $O/ops.json > $O/ops.txt 2>&1
echo "ops rc $?"; grep -v "^\[" $O/ops.txt | tail -8
save
for c in p256 p224 secp256k1; do timeout 100 $B/ecmul verify --curve $c --backend gpu --n 300000 > $O/verify-$c.txt 2>&1; echo "verify $c rc $?"; tail -2 $O/verify-$c.txt; done | tee $O/verify.txt
save
ECMUL_GPU_ITEMS=20000 timeout 100 $B/gpu.test -test.run 'TestFinishKernelMatchesCPUTwin' -test.v -test.timeout 95s > $O/twin.log 2>&1; echo "twin rc $?"; grep -c "^    --- PASS" $O/twin.log; grep -E "^(--- |FAIL|ok|PASS)" $O/twin.log | tail -3
timeout 100 $B/ecmul.test -test.run 'TestGPUWycheproof|TestGPUBytesOnItemKernels' -test.v -test.timeout 95s > $O/root.log 2>&1; echo "root tests rc $?"; grep -E "^(--- |FAIL|ok|PASS)" $O/root.log | tail -6
save
for f in raw hex; do
  $B/ecmul gen --curve p256 --n 4194304 --format $f --out /dev/shm/in-$f
  s=$(date +%s.%N); $B/ecmul mul --curve p256 --backend gpu --format $f --stats --cpuprofile $O/pipe-$f.pprof < /dev/shm/in-$f > /dev/shm/out 2> $O/pipe-$f.err; rc=$?; e=$(date +%s.%N)
  awk -v f=$f -v rc=$rc -v s=$s -v e=$e 'BEGIN{printf "pipe p256 %s rc %d whole %.3f s %.2f M/s\n", f, rc, e-s, 4194304/(e-s)/1e6}'; grep stats $O/pipe-$f.err
  rm -f /dev/shm/in-$f /dev/shm/out
done 2>&1 | tee $O/pipes.txt
save
