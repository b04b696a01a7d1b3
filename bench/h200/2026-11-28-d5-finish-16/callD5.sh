#!/usr/bin/env bash
# call D5: the finish kernel at 16 items a thread (FinishItemsPerThread 8 → 16): make -B kernels-fatbin;
# the finish against its CPU twin, every entry point found; bench A/B (382baa8 with its fatbin, against
# this tree with the new one) on P-224 and P-256, mul,base,ecdsa at 2^22; Wycheproof and verify; gECC.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wD5; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt; nvcc --version | tail -1 | tee -a $O/device.txt
B=.dev/d5
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*
cp internal/kernels/ecmul.fatbin /tmp/old.fatbin
(bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?") &
make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(( $(date +%s) - T0 ))"
cp internal/kernels/ecmul.fatbin /tmp/new.fatbin; cp internal/kernels/ecmul.fatbin ${OUT:-/tmp}/ecmul.fatbin; ls -l /tmp/*.fatbin
grep -E "Function properties for ecm_finish_\w+" -A2 $O/fatbin.log | grep -E "Function|spill|registers" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-170 | sort -u > $O/ptxas-finish.txt; head -4 $O/ptxas-finish.txt
save
export ECMUL_FATBIN=/tmp/new.fatbin
ECMUL_GPU_ITEMS=5000 timeout 150 $B/gpu.test -test.run 'TestFinishKernelMatchesCPUTwin|TestFatbinHasEntryPoints' -test.v -test.timeout 145s > $O/twin-finish.log 2>&1; echo "twin finish rc $?"
grep -cE "^    --- PASS" $O/twin-finish.log; grep -E "^    --- FAIL|^(FAIL|ok|PASS)|entry points found" $O/twin-finish.log | head -5
save; echo "t $(( $(date +%s) - T0 ))"
wait
ab() { # tag binary
  timeout 100 $2 bench --backend gpu --curve p224,p256 --op mul,base,ecdsa --batch 4194304 --reps 3 --peers=false \
    --json $O/bench-$1.json > $O/bench-$1.txt 2>&1; echo "bench $1 rc $?"; grep -E "^\s+(P-|secp)" $O/bench-$1.txt
}
ECMUL_FATBIN=/tmp/old.fatbin ab old $B/ecmul-old
ab new $B/ecmul
save; echo "t $(( $(date +%s) - T0 ))"
timeout 60 $B/root.test -test.run 'TestGPUWycheproof' -test.v > $O/wycheproof-ecdh.txt 2>&1; echo "ecdh wycheproof rc $? $(grep -cE '^    --- PASS' $O/wycheproof-ecdh.txt) passed"
for c in p224 p256; do for op in mul ecdsa; do timeout 40 $B/ecmul verify --curve $c --backend gpu --op $op --n 20000 > $O/verify-$c-$op.txt 2>&1; echo "verify $c $op rc $? $(tail -n1 $O/verify-$c-$op.txt)"; done; done
save; left=$(( 540 - ($(date +%s) - T0) )); echo "gecc gets $left s"
timeout $left bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
save; echo "t $(( $(date +%s) - T0 ))"
