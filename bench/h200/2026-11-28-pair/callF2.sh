#!/usr/bin/env bash
# call F2: commit 5675335 (the pair mapping by default), end to end: Wycheproof ECDH and ECDSA through the gpu backend,
# ecmul verify --backend gpu --n 300000 (k·P) and --op ecdsa --n 20000 on every curve, gECC's k·P, then
# ecmul bench --op mul at 2^22 items on every curve with OpenSSL (speed -multi 16) and gECC as peers.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wF2; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c40
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*
$B/ecmul version | tee $O/version.txt
(bash .dev/peers/gecc.sh $O/gecc pmul > $O/gecc.txt 2>&1; echo "gecc rc $?") &
timeout 90 $B/root.test -test.run 'TestGPUWycheproof' -test.v > $O/wycheproof-ecdh.txt 2>&1; echo "ecdh wycheproof rc $?"; grep -cE "^    --- PASS" $O/wycheproof-ecdh.txt; grep -E "^(--- |ok|PASS|FAIL)" $O/wycheproof-ecdh.txt | tail -2
(cd ecdsa && timeout 90 ../$B/ecdsa.test -test.run 'TestGPUWycheproof' -test.v > $O/wycheproof-ecdsa.txt 2>&1; echo "ecdsa wycheproof rc $?"); grep -cE "^    --- PASS" $O/wycheproof-ecdsa.txt; grep -E "^(--- |ok|PASS|FAIL)" $O/wycheproof-ecdsa.txt | tail -2
save
for c in p256 p224 secp256k1; do
  timeout 100 $B/ecmul verify --curve $c --backend gpu --n 300000 > $O/verify-$c-mul.txt 2>&1; echo "verify $c mul rc $? $(tail -n1 $O/verify-$c-mul.txt)"
  timeout 60 $B/ecmul verify --curve $c --backend gpu --op ecdsa --n 20000 > $O/verify-$c-ecdsa.txt 2>&1; echo "verify $c ecdsa rc $? $(tail -n1 $O/verify-$c-ecdsa.txt)"
done | tee $O/verify.txt
wait; grep "op/s" $O/gecc.txt
save; echo "t $(( $(date +%s) - T0 ))"
left=$(( 540 - ($(date +%s) - T0) )); echo "bench gets $left s"
timeout $left $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul --batch 4194304 --reps 3 \
  --gpu-peers $O/gecc.txt --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $?"; grep -vE "^\s*$" $O/bench.txt | tail -30
save; echo "t $(( $(date +%s) - T0 ))"
