#!/usr/bin/env bash
# call H9 (branch sign-shares, commit in bench.json; H2's fatbin): gECC built; TestGPUSign and ecmul verify
# --op sign on every curve; ecmul bench mul,base,ecdsa,sign at 2^22 with OpenSSL; signing again with
# GOMAXPROCS=24 (is the host a bound?); gECC's sign, pmul and fixed in the same call.
set -u -o pipefail
T0=$(date +%s); O=/tmp/h9; mkdir -p $O; save() { tar czf $OUT/h9.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/h9
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul $B/ecdsa.test
export GECC_BUILD=$PWD/.dev/gecc-build
timeout 170 bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(el)"
timeout 60 $B/ecdsa.test -test.run 'TestGPUSign$' -test.v > $O/ecdsa-gpu.txt 2>&1; echo "TestGPUSign rc $? $(grep -cE '^    --- PASS' $O/ecdsa-gpu.txt) curves passed t $(el)"
for c in p224 p256 secp256k1; do
  timeout 40 $B/ecmul verify --curve $c --backend gpu --op sign --n 40000 > $O/verify-sign-$c.txt 2>&1; echo "verify $c sign rc $? $(tail -n1 $O/verify-sign-$c.txt)"; done
timeout 150 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 \
  --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $? t $(el)"
grep -E "^\s+(P-|secp)" $O/bench.txt | awk '{print $1, $2, $11, $12, $13, $14, $NF}'
save
GOMAXPROCS=24 timeout 40 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op sign --batch 4194304 --reps 3 --peers=false \
  --json $O/sign-g24.json > $O/sign-g24.txt 2>&1; echo "sign GOMAXPROCS=24 rc $? $(grep -E '^\s+(P-|secp)' $O/sign-g24.txt | awk '{print $1, $12}' | tr '\n' ' ') t $(el)"
save
left=$(( 400 - $(el) )); echo "gecc sign gets $left s"
timeout $left bash .dev/peers/gecc.sh $O/gecc sign > $O/gecc-sign.txt 2>&1; echo "gecc sign rc $? t $(el)"; grep "op/s" $O/gecc-sign.txt
save
left=$(( 540 - $(el) )); echo "gecc pmul fixed get $left s"
timeout $left bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $? t $(el)"; grep "op/s" $O/gecc.txt
rm -rf $O/gecc-build $O/gecc/build 2>/dev/null; save; echo "t $(el)"
