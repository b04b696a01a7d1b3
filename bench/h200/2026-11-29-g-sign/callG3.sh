#!/usr/bin/env bash
# call G3 (branch gpu-sign2, commit d26de2d, G2's fatbin): gECC built, then ecmul bench mul,base,ecdsa,sign at
# 2^22 with OpenSSL; P-256 signing with FirstSign's steps of 2^16, 2^18 (the commit's) and 2^20 items; gECC's
# sign, pmul and fixed (and verify while time is left) in the same call.
set -u -o pipefail
T0=$(date +%s); O=/tmp/g3; mkdir -p $O; save() { tar czf $OUT/g3.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/g3
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul*
export GECC_BUILD=$PWD/.dev/gecc-build ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(el)"
timeout 150 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 \
  --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $? t $(el)"
grep -E "^\s+(P-|secp)" $O/bench.txt | awk '{print $1, $2, $11, $12, $13, $14, $NF}'
save
for v in step16 "" step20; do n=${v:-step18}; bin=$B/ecmul${v:+-$v}
  timeout 60 $bin bench --backend gpu --curve p256 --op sign --batch 4194304 --reps 3 --peers=false --json $O/sign-$n.json > $O/sign-$n.txt 2>&1
  echo "sign p256 $n rc $? $(grep -E '^\s+P-256' $O/sign-$n.txt | awk '{print $11, $13}') t $(el)"; done
save
left=$(( 440 - $(el) )); echo "gecc sign gets $left s"
timeout $left bash .dev/peers/gecc.sh $O/gecc sign > $O/gecc-sign.txt 2>&1; echo "gecc sign rc $? t $(el)"; grep "op/s" $O/gecc-sign.txt
left=$(( 560 - $(el) )); echo "gecc pmul fixed verify get $left s"
timeout $left bash .dev/peers/gecc.sh $O/gecc pmul fixed verify > $O/gecc.txt 2>&1; echo "gecc rc $? t $(el)"; grep "op/s" $O/gecc.txt
rm -rf $O/gecc-build; save; echo "t $(el)"
