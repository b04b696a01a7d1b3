#!/usr/bin/env bash
# call AA: end to end at 2^22 of the signed comb (340f3c1, old ECDSA pipeline) and of 7070c49 (ECDSA with two steps in flight);
# ecmul verify of ECDSA on the gpu backend; gECC pmul, fixed and verify.
set -u -o pipefail
O=/tmp/wAA; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
for f in .dev/c18/*/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x .dev/c18/*/*; N=.dev/c18/new/ecmul; D=.dev/c18/old/ecmul
$N version | head -1 | tee -a $O/device.txt; $D version | head -1 | tee -a $O/device.txt
timeout 100 $D bench --backend gpu --curve p256,p224,secp256k1 --op mul,ecdsa --batch 4194304 --reps 3 --peers=false \
  --json $O/old.json > $O/old.txt 2>&1; echo "old rc $?"; grep -E "^ +(P-|secp)" $O/old.txt
save
timeout 170 $N bench --backend gpu --curve p256,p224,secp256k1 --op mul,base,ecdsa --batch 4194304 --reps 3 \
  --json $O/new.json > $O/new.txt 2>&1; echo "new rc $?"; grep -E "^ +(P-|secp)" $O/new.txt
save
for c in p256 p224 secp256k1; do timeout 40 $N verify --backend gpu --curve $c --op ecdsa --n 200000 > $O/verify-$c.txt 2>&1; echo "verify ecdsa $c rc $?"; tail -1 $O/verify-$c.txt; done
save
timeout 280 bash .dev/peers/gecc.sh $O/gecc pmul fixed verify > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
save
