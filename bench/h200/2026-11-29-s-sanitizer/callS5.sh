#!/usr/bin/env bash
# call S5 (one H200): ecmul and ecdsa.test of the comb table kept as the kernel's words (3cf5438 and
# its tidy-ups): ecmul verify --backend gpu --n 300000 for base, ecdsa and sign on every curve; the
# ECDSA GPU tests.
set -u -o pipefail
T0=$(date +%s); O=/tmp/s5; mkdir -p $O; save() { tar czf $OUT/s5.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
B=.dev/s5
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul $B/ecdsa.test; $B/ecmul version > $O/version.txt 2>&1; head -1 $O/version.txt
for c in p224 p256 secp256k1; do for op in base ecdsa sign; do
  timeout 40 $B/ecmul verify --curve $c --backend gpu --op $op --n 300000 > $O/verify-$c-$op.txt 2>&1; echo "verify $c $op rc $? $(tail -n1 $O/verify-$c-$op.txt) t $(el)"; done; done; save
timeout 60 $B/ecdsa.test -test.run 'TestGPUVerifyKernel|TestGPUSign$|TestGPUWycheproof' -test.v > $O/ecdsa-gpu.txt 2>&1; echo "ecdsa gpu tests rc $? t $(el)"
grep -E "^--- (PASS|FAIL|SKIP)" $O/ecdsa-gpu.txt; save
echo "t $(el)"
