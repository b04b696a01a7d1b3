#!/usr/bin/env bash
# call E1b (branch gpu-verify, E1a's fatbin in the tree): BenchmarkVerifyGPU (the verify kernel against
# the host's sums), ecmul bench mul,base,ecdsa at 2^22 on every curve, gECC pmul and fixed.
set -u -o pipefail
T0=$(date +%s); O=/tmp/e1b; mkdir -p $O; save() { tar czf $OUT/e1b.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/e1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*.test $B/ecmul
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
(bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?") &
for c in P-224 P-256; do
  timeout 150 $B/ecdsa.test -test.run XXX -test.bench "VerifyGPU/$c/(engine|verify)" -test.benchtime 3x > $O/verifygpu-$c.txt 2>&1; echo "verifygpu $c rc $?"
  grep -E "items/s" $O/verifygpu-$c.txt | sed -E 's/BenchmarkVerifyGPU\///; s/-16 +[0-9]+ +[0-9]+ ns\/op//' | cut -c1-100
done
save
ECMUL_GPU_ITEMS=2000 timeout 90 $B/gpu.test -test.run "TestVerifyKernelMatchesCPUTwin/(p256|secp)" -test.v > $O/twin-verify.log 2>&1; echo "twin verify rc $?"; grep -E "outcomes match|FAIL" $O/twin-verify.log | cut -c1-120
for r in 1 2; do
  timeout 60 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa --batch 4194304 --reps 3 --peers=false \
    --json $O/bench-$r.json > $O/bench-$r.txt 2>&1; echo "bench $r rc $?"
  grep -E "^\s+(P-|secp)" $O/bench-$r.txt | awk '{print $1, $2, $11, $12, $13, $NF}'
  save
done
wait
left=$(( 560 - ($(date +%s) - T0) )); echo "gecc gets $left s"
timeout $left bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; grep "op/s" $O/gecc.txt
rm -rf $O/gecc-build $O/gecc; save; echo "t $(( $(date +%s) - T0 ))"
