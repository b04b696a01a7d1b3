#!/usr/bin/env bash
# call DD (commit 1fd7e51): the comb and combvt entry points against the CPU twin and the reference (the test
# now takes G as combvt's base too); ECDSA end to end at 2^22 with x(R) compared in projective form on the host.
set -u -o pipefail
O=/tmp/wDD; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
for f in .dev/c21/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x .dev/c21/*; .dev/c21/ecmul version | head -1 | tee -a $O/device.txt
ECMUL_GPU_ITEMS=4000 timeout 40 .dev/c21/gpu.test -test.run 'TestKernelMatchesCPUTwin/.*_mma_c30' -test.v -test.timeout 38s > $O/twin.log 2>&1; echo "twin rc $?"; grep -cE "^    --- PASS" $O/twin.log; grep -E "^(--- |FAIL|ok|PASS)|--- FAIL" $O/twin.log | tail -3
save
timeout 100 .dev/c21/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul,ecdsa --batch 4194304 --reps 3 --peers=false \
  --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $?"; grep -E "^ +(P-|secp)" $O/bench.txt
save
