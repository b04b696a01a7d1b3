#!/usr/bin/env bash
# call F1 (branch gpu-verify, 9b6bace+): make -B kernels-fatbin with the verify batch's wire kernels;
# the entry points found, TestGPUVerifyKernel (40,000 signatures a curve as bytes on the verify kernel
# and by the host's sums), Wycheproof ECDSA, ecmul verify --op ecdsa; BenchmarkVerifyGPU with the verify
# kernel on and off; ecmul bench mul,base,ecdsa at 2^22. Returns $OUT/ecmul.fatbin and f1.tgz.
set -u -o pipefail
T0=$(date +%s); O=/tmp/f1; mkdir -p $O; save() { tar czf $OUT/f1.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/f1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*.test $B/ecmul
make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(( $(date +%s) - T0 ))"
cp internal/kernels/ecmul.fatbin $OUT/ecmul.fatbin
grep -E "Function properties for ecm_verify(unpack|pack)?_\w+" -A2 $O/fatbin.log | grep -E "Function|spill|registers|stack" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-200 | sort -u > $O/ptxas-verify.txt; grep -c "" $O/ptxas-verify.txt; grep -v " 0 bytes spill stores" $O/ptxas-verify.txt | head -3
gzip -f $O/fatbin.log; save
export ECMUL_FATBIN=$OUT/ecmul.fatbin
timeout 30 $B/gpu.test -test.run 'TestFatbinHasEntryPoints' -test.v > $O/entries.log 2>&1; echo "entries rc $? $(grep -o '[0-9]* entry points found' $O/entries.log)"
timeout 150 $B/ecdsa.test -test.run 'TestGPUVerifyKernel|TestGPUWycheproof' -test.v > $O/ecdsa-gpu.txt 2>&1; echo "ecdsa gpu rc $?"
grep -E "^(--- |    --- )(PASS|FAIL|SKIP)" $O/ecdsa-gpu.txt | grep -v "    --- PASS: TestGPUWycheproof" | head -12
for c in p224 p256 secp256k1; do timeout 40 $B/ecmul verify --curve $c --backend gpu --op ecdsa --n 40000 > $O/verify-$c.txt 2>&1; echo "verify $c ecdsa rc $? $(tail -n1 $O/verify-$c.txt)"; done
save; echo "t $(( $(date +%s) - T0 ))"
for c in P-224 P-256; do
  timeout 120 $B/ecdsa.test -test.run XXX -test.bench "VerifyGPU/$c/(engine|verify)/step=(262144|524288),ramp=32768,workers=15,overlap=true" -test.benchtime 3x > $O/verifygpu-$c.txt 2>&1; echo "verifygpu $c rc $?"
  grep -E "items/s" $O/verifygpu-$c.txt | awk '{print $1, $5}' | sed -E 's/BenchmarkVerifyGPU\///; s/,ramp=32768,workers=15,overlap=true//'
done
save
timeout 60 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa --batch 4194304 --reps 3 --peers=false \
  --json $O/bench-1.json > $O/bench-1.txt 2>&1; echo "bench rc $?"
grep -E "^\s+(P-|secp)" $O/bench-1.txt | awk '{print $1, $2, $11, $12, $13, $14, $NF}'
save; echo "t $(( $(date +%s) - T0 ))"
