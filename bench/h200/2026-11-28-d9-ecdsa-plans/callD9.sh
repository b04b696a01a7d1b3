#!/usr/bin/env bash
# call D9: where ECDSA verification's time goes at 2^22 (BenchmarkVerifyGPU, P-224 and P-256): the
# engine's calls alone, Verify's pipeline without and with the host's work, by plan (steps, host
# workers, the steps' calls marked as overlapped); ecmul bench mul,base,ecdsa twice, gECC pmul.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/d9; mkdir -p $O; save() { tar czf $OUT/d9.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/d9
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*.test $B/ecmul
$B/ecmul version > $O/version.txt 2>&1; head -1 $O/version.txt
(bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?") &
for c in P-224 P-256; do
  timeout 200 $B/ecdsa.test -test.run XXX -test.bench "VerifyGPU/$c" -test.benchtime 3x > $O/verifygpu-$c.txt 2>&1; echo "verifygpu $c rc $? t $(( $(date +%s) - T0 ))"
  grep -E "items/s" $O/verifygpu-$c.txt | sed -E 's/BenchmarkVerifyGPU\///; s/-16 +[0-9]+ +[0-9]+ ns\/op//; s/ +[0-9.]+ (chunks|copy-ms|drain-ms|fill-ms|finish-ms|kernel-ms|prepare-ms|wait-ms|wall-ms)//g' | cut -c1-110
  save
done
for r in 1 2; do
  timeout 90 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa --batch 4194304 --reps 3 --peers=false \
    --json $O/bench-$r.json > $O/bench-$r.txt 2>&1; echo "bench $r rc $? t $(( $(date +%s) - T0 ))"
  grep -E "^\s+(P-|secp)" $O/bench-$r.txt | awk '{print $1, $2, $11, $12, $13, $NF}'
  save
done
wait
left=$(( 560 - ($(date +%s) - T0) )); echo "gecc gets $left s"
timeout $left bash .dev/peers/gecc.sh $O/gecc pmul > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
rm -rf $O/gecc-build; save
echo "t $(( $(date +%s) - T0 ))"
