#!/usr/bin/env bash
# call Y (commit 57550a9): end to end at 2^22, the comb at 5-bit windows (new) against the commit before it
# (86d1da4, 4-bit windows; old): k·P, k·G and (new) ECDSA verification, OpenSSL -multi 16 with the new;
# the root package's GPU tests of k·G; gECC k·P and fixed-base k·G.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wY; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
for f in .dev/c15/*.xz .dev/c13/ecmul.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x .dev/c15/* .dev/c13/*; .dev/c15/ecmul version | head -1 | tee -a $O/device.txt; .dev/c13/ecmul version | head -1 | tee -a $O/device.txt
timeout 100 .dev/c13/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul,base --batch 4194304 --reps 3 --peers=false \
  --json $O/old.json > $O/old.txt 2>&1; echo "old rc $?"; grep -E "^ +(P-|secp)" $O/old.txt
save
timeout 150 .dev/c15/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul,base,ecdsa --batch 4194304 --reps 3 \
  --json $O/new.json > $O/new.txt 2>&1; echo "new rc $?"; grep -E "^ +(P-|secp)" $O/new.txt
save
timeout 60 .dev/c15/ecmul.test -test.run 'TestScalarBaseMult(Bytes)?$/curve=/backend=gpu|TestGPUWycheproof' -test.v -test.timeout 58s > $O/root.log 2>&1; echo "root tests rc $?"; grep -E "^(--- |FAIL|ok|PASS)" $O/root.log | tail -4
save
timeout 200 bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
save
