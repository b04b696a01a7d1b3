#!/usr/bin/env bash
# call C4: the binaries of main with the compressed fatbin embedded: its entry points through the driver,
# Wycheproof through the gpu backend, ecmul verify (k·P 20,000 items, ECDSA 20,000, signing 20,000) on every
# curve; gECC pmul and sign, then ecmul bench --op mul,sign at 2^22 in the same call.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wC4; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c4
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*
(bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?") &
timeout 60 $B/gpu.test -test.run 'TestFatbinHasEntryPoints' -test.v > $O/entries.txt 2>&1; echo "entries rc $?"; grep -E "entry points found|^(--- |ok|FAIL)" $O/entries.txt
(timeout 100 $B/root.test -test.run 'TestGPUWycheproof' -test.v > $O/wycheproof-ecdh.txt 2>&1; echo "ecdh wycheproof rc $?") &
(cd ecdsa && timeout 100 ../$B/ecdsa.test -test.run 'TestGPUWycheproof' -test.v > $O/wycheproof-ecdsa.txt 2>&1; echo "ecdsa wycheproof rc $?") &
for c in p256 p224 secp256k1; do (
  timeout 100 $B/ecmul verify --curve $c --backend gpu --n 20000 > $O/verify-$c-mul.txt 2>&1; echo "verify $c mul rc $? $(tail -n1 $O/verify-$c-mul.txt)"
  timeout 100 $B/ecmul verify --curve $c --backend gpu --op ecdsa --n 20000 > $O/verify-$c-ecdsa.txt 2>&1; echo "verify $c ecdsa rc $? $(tail -n1 $O/verify-$c-ecdsa.txt)"
  timeout 100 $B/ecmul verify --curve $c --backend gpu --op sign --n 20000 > $O/verify-$c-sign.txt 2>&1; echo "verify $c sign rc $? $(tail -n1 $O/verify-$c-sign.txt)"
) & done
wait
grep -cE "^    --- PASS" $O/wycheproof-ecdh.txt $O/wycheproof-ecdsa.txt; grep -hE "^(--- |ok|PASS|FAIL)" $O/wycheproof-*.txt | tail -4
save; echo "t $(( $(date +%s) - T0 ))"
timeout 130 bash .dev/peers/gecc.sh $O/gecc pmul sign > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
save; left=$(( 390 - ($(date +%s) - T0) )); echo "bench gets $left s"
timeout $left $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul,sign --batch 4194304 --reps 3 \
  --gpu-peers $O/gecc.txt --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $?"; grep -vE "^\s*$" $O/bench.txt | tail -22
save; echo "t $(( $(date +%s) - T0 ))"
