#!/usr/bin/env bash
# call C1 (one H200): 85c81d1's tests on the device: every comb and combvt entry point (all mappings
# and widths) against the CPU twin at 10,000 items; package ecdsa's GPU tests (Wycheproof through the
# gpu backend, the verify kernel's modes, signing against the references).
set -u -o pipefail
T0=$(date +%s); O=/tmp/c1; mkdir -p $O; save() { tar czf $OUT/c1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/c1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*.test
(cd ecdsa && timeout 90 ../$B/ecdsa.test -test.run 'GPU' -test.v -test.timeout 85s > $O/ecdsa-gpu.log 2>&1; echo "ecdsa rc $? t $(el)")
grep -E "^(--- |ok|PASS|FAIL)" $O/ecdsa-gpu.log | head -20; save
(cd internal/gpu && ECMUL_GPU_ITEMS=10000 timeout 120 ../../$B/gpu.test -test.run 'TestKernelMatchesCPUTwin/.*_comb' -test.v -test.timeout 115s > $O/twin-combs.log 2>&1; echo "twin rc $? t $(el)")
echo "pass $(grep -cE '^    --- PASS' $O/twin-combs.log) fail $(grep -cE '^    --- FAIL' $O/twin-combs.log) skip $(grep -cE '^    --- SKIP' $O/twin-combs.log)"; grep -E "^(--- |ok|PASS|FAIL)|--- FAIL" $O/twin-combs.log | head
save; echo "t $(el)"
