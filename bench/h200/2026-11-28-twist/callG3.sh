#!/usr/bin/env bash
# call G3: the binaries of main at ecb8738 merged with the constant-time cpu backend's branch (the fatbin of 89b24d1
# embedded): Wycheproof ECDH and ECDSA through the gpu backend and ecmul verify --backend gpu (k·P 300,000 items,
# ECDSA 20,000) on every curve, all at once; then alone on the GPU the device timing check of the ladder and the comb
# (TestGPUKernelsConstantTime, -test.short, then in full while time is left).
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wG3; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/c43
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*
(timeout 120 $B/root.test -test.run 'TestGPUWycheproof' -test.v > $O/wycheproof-ecdh.txt 2>&1; echo "ecdh wycheproof rc $?") &
(cd ecdsa && timeout 120 ../$B/ecdsa.test -test.run 'TestGPUWycheproof' -test.v > $O/wycheproof-ecdsa.txt 2>&1; echo "ecdsa wycheproof rc $?") &
(for c in p256 p224 secp256k1; do
  timeout 100 $B/ecmul verify --curve $c --backend gpu --n 300000 > $O/verify-$c-mul.txt 2>&1; echo "verify $c mul rc $? $(tail -n1 $O/verify-$c-mul.txt)"
  timeout 60 $B/ecmul verify --curve $c --backend gpu --op ecdsa --n 20000 > $O/verify-$c-ecdsa.txt 2>&1; echo "verify $c ecdsa rc $? $(tail -n1 $O/verify-$c-ecdsa.txt)"
done | tee $O/verify.txt) &
wait
grep -cE "^    --- PASS" $O/wycheproof-ecdh.txt $O/wycheproof-ecdsa.txt; grep -hE "^(--- |ok|PASS|FAIL)" $O/wycheproof-*.txt | tail -4
save; echo "t $(( $(date +%s) - T0 ))"
ECMUL_TIMING_JSON=$O/gpu-timing-short.jsonl timeout 100 $B/root.test -test.run 'TestGPUKernelsConstantTime' -test.short -test.v > $O/gpu-timing-short.txt 2>&1; echo "timing short rc $?"
grep -E "^(--- |ok|PASS|FAIL)|\|t\||control" $O/gpu-timing-short.txt | head -20
save; left=$(( 320 - ($(date +%s) - T0) )); echo "full timing gets $left s"
[ $left -gt 30 ] && { ECMUL_TIMING_JSON=$O/gpu-timing-full.jsonl timeout $left $B/root.test -test.run 'TestGPUKernelsConstantTime' -test.v > $O/gpu-timing-full.txt 2>&1; echo "timing full rc $?"; grep -E "^(--- |ok|PASS|FAIL)" $O/gpu-timing-full.txt | tail -5; }
save; echo "t $(( $(date +%s) - T0 ))"
