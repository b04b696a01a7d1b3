#!/usr/bin/env bash
# call CC (fatbin of f6…, HEAD): ECDSA end to end at 2^22 with the variable-time comb, three host pipelines:
# V1 steps of 2^20, two in flight, static parts on all cores (call BB's binary, the new fatbin by ECMUL_FATBIN);
# V2 steps of 2^18, three in flight, static parts; V3 (HEAD) steps of 2^18, three in flight, parts handed
# out to all cores but one. The ecdsa host benchmark; V3 with OpenSSL speed -multi 16; gECC verify.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wCC; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
for f in .dev/c20/*/*.xz .dev/c19/ecmul.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x .dev/c20/*/* .dev/c19/ecmul
.dev/c20/v3/ecmul version | head -3 | tee -a $O/device.txt
timeout 60 .dev/c20/v3/ecdsa.test -test.run XX -test.bench 'VerifyHost' -test.benchtime 20x > $O/hostbench.txt 2>&1; echo "hostbench rc $?"; grep Benchmark $O/hostbench.txt
save
ECMUL_FATBIN=kernels/ecmul.fatbin timeout 80 .dev/c19/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul,ecdsa --batch 4194304 --reps 3 --peers=false \
  --json $O/v1.json > $O/v1.txt 2>&1; echo "v1 rc $?"; grep -E "^ +(P-|secp)" $O/v1.txt
save
timeout 80 .dev/c20/v2/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul,ecdsa --batch 4194304 --reps 3 --peers=false \
  --json $O/v2.json > $O/v2.txt 2>&1; echo "v2 rc $?"; grep -E "^ +(P-|secp)" $O/v2.txt
save
timeout 170 .dev/c20/v3/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul,base,ecdsa --batch 4194304 --reps 3 \
  --json $O/v3.json > $O/v3.txt 2>&1; echo "v3 rc $?"; grep -E "^ +(P-|secp)" $O/v3.txt
save
left=$(( 585 - ($(date +%s) - T0) )); echo "gecc gets $left s"
timeout $left bash .dev/peers/gecc.sh $O/gecc verify > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt; tail -3 $O/gecc/gecc-verify.log 2>/dev/null
save
