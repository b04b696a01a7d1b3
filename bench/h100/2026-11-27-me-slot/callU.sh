#!/usr/bin/env bash
# call U (commit 86d1da4): ecmul bench at 2^22 — k·P, k·G, ECDSA verification on P-256, P-224, secp256k1 —
# with OpenSSL -multi 16 and gECC (k·P, fixed-base k·G, ECDSA verification) in the same call; the GPU tests
# of the root package (Wycheproof, bytes path, k·G).
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wU; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c13
for f in $B/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/*; $B/ecmul version | head -1 | tee -a $O/device.txt
timeout 200 bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $?" | tee -a $O/gecc.txt; grep "op/s" $O/gecc.txt
save
timeout 150 $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul,base,ecdsa --batch 4194304 --reps 3 --gpu-peers $O/gecc.txt \
  --json $O/ops.json > $O/ops.txt 2>&1; echo "ops rc $?"; grep -v "^\[" $O/ops.txt | tail -16
save
timeout 60 $B/ecmul.test -test.run 'TestGPUWycheproof|TestScalarBaseMult(Bytes)?$/curve=/backend=gpu' -test.v -test.timeout 58s > $O/root.log 2>&1; echo "root tests rc $?"; grep -E "^(--- |FAIL|ok|PASS)" $O/root.log | tail -4
save
timeout 170 bash .dev/peers/gecc.sh $O/gecc verify > $O/gecc-verify.txt 2>&1; echo "gecc verify rc $?" | tee -a $O/gecc-verify.txt; grep "op/s" $O/gecc-verify.txt
save
