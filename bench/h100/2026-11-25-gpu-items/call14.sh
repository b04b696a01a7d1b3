#!/usr/bin/env bash
# call 14: the prepare and finish kernels built into the fatbin and checked on the GPU (against the
# CPU twins, Wycheproof, the references, ecmul verify, compute-sanitizer); the α-shuffle change timed
# against the committed fatbin (kernel only, mma, 2^20, 3 runs each, alternating).
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/w; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $O/device.txt
nproc | tee -a $O/device.txt
cp kernels/ecmul.fatbin $O/old.fatbin
t0=$(date +%s)
make -B kernels-fatbin > $O/build.log 2>&1 || { tail -30 $O/build.log; save; exit 1; }
echo "fatbin build $(( $(date +%s) - t0 )) s"; cp kernels/ecmul.fatbin ${OUT:-/tmp}/ecmul.fatbin
make kernels-harness > $O/hbuild.log 2>&1 || tail $O/hbuild.log
export ECMUL_FATBIN=$PWD/kernels/ecmul.fatbin
B=.dev/c14; gunzip -f $B/*.gz; chmod +x $B/*
save
H=kernels/harness/harness
for rep in 1 2 3; do for c in p224 p256 secp256k1; do for f in $O/old.fatbin kernels/ecmul.fatbin; do
  echo "$(basename $f) $($H $f ${c}_coz_c30 .dev/v30/${c}_coz_c30.bin --only ecm_ladder_${c}_coz_shenoy_mma_c30 --threads 128 --batches 1048576 2>&1 | grep -E 'c30 +[0-9]+ +1048576')"
done; done; done | tee $O/harness-ab.txt
save
ECMUL_GPU_ITEMS=100000 timeout 240 $B/gpu.test -test.run 'TestFinishKernelMatchesCPUTwin|TestKernelMatchesCPUTwin/.*mma' -test.v -test.timeout 235s > $O/twin.log 2>&1
echo "twin rc $? pass $(grep -c -- '--- PASS' $O/twin.log) fail $(grep -c -- '--- FAIL' $O/twin.log)"; grep -- "--- FAIL" $O/twin.log | head -5; grep -m3 "gpu 0x\|Error" $O/twin.log
save
timeout 150 $B/ecmul.test -test.run 'TestGPUWycheproof|TestGPUBytesOnItemKernels|TestGPUAgainstReference/.*mapping=mma' -test.v -test.timeout 145s > $O/root.log 2>&1
echo "root rc $? pass $(grep -c -- '--- PASS' $O/root.log) fail $(grep -c -- '--- FAIL' $O/root.log)"; grep -- "--- FAIL" $O/root.log | head -5
save
for c in p224 p256 secp256k1; do
  timeout 70 $B/ecmul verify --backend gpu --curve $c --n 300000 > $O/verify-$c.txt 2>&1; echo "verify $c rc $? $(tail -1 $O/verify-$c.txt)"
done
save
ECMUL_GPU_ITEMS=3000 timeout 60 compute-sanitizer --tool memcheck $B/gpu.test -test.run 'TestFinishKernelMatchesCPUTwin/p256_c30_coz' > $O/san-memcheck.log 2>&1
echo "memcheck rc $? $(grep -E 'ERROR SUMMARY' $O/san-memcheck.log | tr '\n' ' ')"
save
