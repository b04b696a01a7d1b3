#!/usr/bin/env bash
# call P (commit 7750388): gECC k·P, fixed-base k·G and ECDSA verification; ecmul k·P, k·G (the comb on the
# mma mapping) and ECDSA verification at 2^22 with OpenSSL -multi 16; the GPU tests of k·G and the bytes path.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wP; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c12
for f in $B/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/*; $B/ecmul version | head -1 | tee -a $O/device.txt
timeout 240 bash .dev/peers/gecc.sh $O/gecc pmul fixed verify > $O/gecc.txt 2>&1; echo "gecc rc $?" | tee -a $O/gecc.txt; grep "op/s" $O/gecc.txt
save
timeout 180 $B/ecmul bench --backend gpu --curve p256,p224 --op mul,base,ecdsa --batch 4194304 --reps 3 --gpu-peers $O/gecc.txt \
  --json $O/ops.json > $O/ops.txt 2>&1; echo "ops rc $?"; grep -v "^\[" $O/ops.txt | tail -14
save
timeout 100 $B/ecmul.test -test.run 'TestScalarBaseMult(Bytes)?$/curve=/backend=gpu' -test.v -test.timeout 95s > $O/base.log 2>&1; echo "base tests rc $?"; grep -E "^(--- |    --- |FAIL|ok|PASS)" $O/base.log | tail -8
timeout 120 $B/ecmul.test -test.run 'TestGPUBytesOnItemKernels|TestGPUWycheproof' -test.v -test.timeout 115s > $O/root.log 2>&1; echo "root tests rc $?"; grep -E "^(--- |FAIL|ok|PASS)" $O/root.log | tail -4
save
