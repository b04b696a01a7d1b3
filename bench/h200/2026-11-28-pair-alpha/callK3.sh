#!/usr/bin/env bash
# call K3: the binaries of main at d1e2e31 (the fatbin of call K2 embedded): Wycheproof ECDH and ECDSA through the
# gpu backend and ecmul verify --backend gpu (k·P 300,000 items, ECDSA 20,000) on every curve, all at once; then
# alone on the GPU gECC's pmul, fixed and verify, then ecmul bench --backend gpu --op mul,base,ecdsa at 2^22.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wK3; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/k3
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul $B/root.test $B/ecdsa.test
(bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?") &
(timeout 120 $B/root.test -test.run 'TestGPUWycheproof' -test.v > $O/wycheproof-ecdh.txt 2>&1; echo "ecdh wycheproof rc $?") &
(cd ecdsa && timeout 120 ../$B/ecdsa.test -test.run 'TestGPUWycheproof' -test.v > $O/wycheproof-ecdsa.txt 2>&1; echo "ecdsa wycheproof rc $?") &
(for c in p256 p224 secp256k1; do
  timeout 100 $B/ecmul verify --curve $c --backend gpu --n 300000 > $O/verify-$c-mul.txt 2>&1; echo "verify $c mul rc $? $(tail -n1 $O/verify-$c-mul.txt)"
  timeout 60 $B/ecmul verify --curve $c --backend gpu --op ecdsa --n 20000 > $O/verify-$c-ecdsa.txt 2>&1; echo "verify $c ecdsa rc $? $(tail -n1 $O/verify-$c-ecdsa.txt)"
done | tee $O/verify.txt) &
wait
grep -cE "^    --- PASS" $O/wycheproof-ecdh.txt $O/wycheproof-ecdsa.txt; grep -hE "^(--- |ok|PASS|FAIL)" $O/wycheproof-*.txt | tail -4
save; echo "t $(( $(date +%s) - T0 ))"
timeout 170 bash .dev/peers/gecc.sh $O/gecc pmul fixed verify > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
save; left=$(( 575 - ($(date +%s) - T0) )); echo "bench gets $left s"
timeout $left $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul,base,ecdsa --batch 4194304 --reps 3 \
  --gpu-peers $O/gecc.txt --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $?"; grep -vE "^\s*$" $O/bench.txt | tail -40
save; echo "t $(( $(date +%s) - T0 ))"
