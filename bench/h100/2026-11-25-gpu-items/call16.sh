#!/usr/bin/env bash
# call 16: the committed fatbin (call 15's build): the prepare and finish kernels against their CPU twins on
# every curve, width and schedule (20,000 items each), the mma ladders against the CPU twin (100,000 items),
# ecmul verify on the gpu backend (300,000 items per curve, chunks of 65,536: the prepare and finish kernels),
# compute-sanitizer memcheck on the prepare and finish kernels.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/w16; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
sha256sum kernels/ecmul.fatbin | tee $O/fatbin.sha256
export ECMUL_FATBIN=$PWD/kernels/ecmul.fatbin
B=.dev/c14; gunzip -f $B/*.gz 2>/dev/null; chmod +x $B/*
ECMUL_GPU_ITEMS=20000 timeout 150 $B/gpu.test -test.run 'TestFinishKernelMatchesCPUTwin' -test.v -test.timeout 145s > $O/twin-items.log 2>&1
echo "item kernels twin rc $? pass $(grep -c -- '    --- PASS' $O/twin-items.log) fail $(grep -c -- '--- FAIL' $O/twin-items.log)"
true

save
for c in p224 p256 secp256k1; do
  timeout 110 $B/ecmul verify --backend gpu --curve $c --n 300000 > $O/verify-$c.txt 2>&1; echo "verify $c rc $? $(tail -1 $O/verify-$c.txt)"
  save
done
ECMUL_GPU_ITEMS=1000 timeout 60 compute-sanitizer --tool memcheck --error-exitcode 3 $B/gpu.test -test.run 'TestFinishKernelMatchesCPUTwin/p256_c30_coz/prepare-kernel=true' > $O/san-memcheck.log 2>&1
echo "memcheck rc $? $(grep -E 'ERROR SUMMARY' $O/san-memcheck.log | tr '\n' ' ')"
save
