#!/usr/bin/env bash
# call E1a (branch gpu-verify): make -B kernels-fatbin with the verify kernel; the verify and finish
# kernels against their CPU twins, every entry point found; Wycheproof ECDSA through the gpu backend;
# ecmul verify --op ecdsa. Binaries built from the branch into .dev/e1 (ecmul, gpu.test, ecdsa.test, xz).
set -u -o pipefail
T0=$(date +%s); O=/tmp/e1a; mkdir -p $O; save() { tar czf $OUT/e1a.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/e1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*.test $B/ecmul
make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(( $(date +%s) - T0 ))"
cp internal/kernels/ecmul.fatbin $OUT/ecmul.fatbin
grep -E "Function properties for ecm_verify_\w+" -A2 $O/fatbin.log | grep -E "Function|spill|registers|stack" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-200 | sort -u > $O/ptxas-verify.txt; head -6 $O/ptxas-verify.txt
gzip -f $O/fatbin.log; save
export ECMUL_FATBIN=$OUT/ecmul.fatbin
ECMUL_GPU_ITEMS=20000 timeout 200 $B/gpu.test -test.run 'TestVerifyKernelMatchesCPUTwin|TestFatbinHasEntryPoints' -test.v > $O/twin-verify.log 2>&1; echo "twin verify rc $?"
grep -E "^    --- (PASS|FAIL)|entry points found|^(ok|FAIL|PASS)" $O/twin-verify.log | head -12
timeout 90 $B/ecdsa.test -test.run 'TestGPUWycheproof' -test.v > $O/wycheproof-ecdsa.txt 2>&1; echo "ecdsa wycheproof rc $?"
for c in p224 p256 secp256k1; do timeout 40 $B/ecmul verify --curve $c --backend gpu --op ecdsa --n 20000 > $O/verify-$c.txt 2>&1; echo "verify $c ecdsa rc $? $(tail -n1 $O/verify-$c.txt)"; done
save; echo "t $(( $(date +%s) - T0 ))"
