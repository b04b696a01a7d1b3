#!/usr/bin/env bash
# call F2 (branch gpu-verify, F1's binaries and fatbin): compute-sanitizer memcheck on a verify batch
# as bytes while gECC builds; ecmul bench mul,base,ecdsa at 2^22 with OpenSSL; gECC verify, pmul,
# fixed and sign in the same call.
set -u -o pipefail
T0=$(date +%s); O=/tmp/f2; mkdir -p $O; save() { tar czf $OUT/f2.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/f1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*.test $B/ecmul
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
(bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(( $(date +%s) - T0 ))") &
timeout 100 compute-sanitizer --tool memcheck --print-limit 20 $B/ecmul verify --curve p256 --backend gpu --op ecdsa --n 16400 > $O/memcheck-verify-p256.txt 2>&1
echo "memcheck rc $? $(grep -E 'ERROR SUMMARY' $O/memcheck-verify-p256.txt | tail -1) $(grep -E 'PASS|FAIL' $O/memcheck-verify-p256.txt | tail -1)"
wait; save
timeout 150 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa --batch 4194304 --reps 3 \
  --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $? t $(( $(date +%s) - T0 ))"
grep -E "^\s+(P-|secp)" $O/bench.txt | awk '{print $1, $2, $11, $12, $13, $14, $NF}'
save
left=$(( 545 - ($(date +%s) - T0) )); echo "gecc gets $left s"
timeout $left bash .dev/peers/gecc.sh $O/gecc verify pmul fixed sign > $O/gecc.txt 2>&1; grep "op/s" $O/gecc.txt
rm -rf $O/gecc-build; save; echo "t $(( $(date +%s) - T0 ))"
