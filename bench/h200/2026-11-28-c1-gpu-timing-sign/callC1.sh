#!/usr/bin/env bash
# call C1: the committed binaries (08eb6c2): SASS of the pair and comb entry points; the device timing check
# (TestGPUKernelsConstantTime, every curve, every class); ecmul verify --op sign on the gpu; gECC sign+fixed and
# ecmul bench --op base,sign at 2^22.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wC1; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul $B/root.test
(bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?") &
for e in p256_coz_shenoy_pair_c30 p224_coz_shenoy_pair_c30; do
  cuobjdump -sass -arch sm_90 -fun ecm_ladder_$e kernels/ecmul.fatbin > $O/sass-$e.txt 2>&1; done
cuobjdump -sass -arch sm_90 kernels/ecmul.fatbin | grep -E "Function :" > $O/functions.txt
(for e in p256 p224; do echo "$e $(python3 kernels/harness/sass_loop.py 16 257 --hist < $O/sass-${e}_coz_shenoy_pair_c30.txt | head -2 | tr '\n' ' ' | cut -c1-400)"; done) > $O/sass-loop.txt
cat $O/sass-loop.txt
ECMUL_TIMING_JSON=$O/gpu-timing.jsonl timeout 330 $B/root.test -test.run 'TestGPUKernelsConstantTime' -test.v -test.timeout 325s > $O/gpu-timing.log 2>&1
echo "timing rc $?"; grep -E "^(---|    ---|ok|FAIL|PASS)" $O/gpu-timing.log | head -8
save; echo "t $(( $(date +%s) - T0 ))"
wait
(for c in p256 p224 secp256k1; do
  timeout 60 $B/ecmul verify --curve $c --backend gpu --op sign --n 100000 > $O/verify-$c-sign.txt 2>&1; echo "verify $c sign rc $? $(tail -n1 $O/verify-$c-sign.txt)"
done) | tee $O/verify.txt
timeout 100 bash .dev/peers/gecc.sh $O/gecc sign fixed > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
save; left=$(( 575 - ($(date +%s) - T0) )); echo "bench gets $left s"
timeout $left $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op base,sign --batch 4194304 --reps 3 \
  --gpu-peers $O/gecc.txt --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $?"; grep -vE "^\s*$" $O/bench.txt | tail -30
save; echo "t $(( $(date +%s) - T0 ))"
