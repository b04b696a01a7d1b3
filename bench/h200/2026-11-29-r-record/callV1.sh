#!/usr/bin/env bash
# call V1 (one H200): the root package's GPU tests of concurrent and chunked batches (test binary of
# cbbf43c) and ecmul verify --backend gpu --n 300000 for k·P and k·G on every curve (R1's binary, 37e94ed).
set -u -o pipefail
T0=$(date +%s); O=/tmp/v1; mkdir -p $O; save() { tar czf $OUT/v1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/v1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul $B/root.test
timeout 100 $B/root.test -test.run 'TestGPUConcurrent|TestGPURealChunking|TestGPURealCancel|TestGPUBytesOnItemKernels|TestGPUWycheproof' -test.v > $O/root-gpu.txt 2>&1; echo "root gpu tests rc $? t $(el)"
grep -E "^--- (PASS|FAIL|SKIP)" $O/root-gpu.txt
save
for c in p224 p256 secp256k1; do for op in mul base; do
  timeout 40 $B/ecmul verify --curve $c --backend gpu --op $op --n 300000 > $O/verify-$c-$op.txt 2>&1; echo "verify $c $op rc $? $(tail -n1 $O/verify-$c-$op.txt) t $(el)"; done; done
save; echo "t $(el)"
