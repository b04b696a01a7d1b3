#!/usr/bin/env bash
# call G1 (branch gpu-sign): make -B kernels-fatbin with the signing batch's wire kernels; entry points
# found (129), TestGPUSignNonces (40,000 SHA-256 digests a curve, GPU nonces byte for byte the host's),
# TestGPUVerifyKernel, Wycheproof ECDSA, ecmul verify --op sign and ecdsa; ecmul bench mul,base,ecdsa,sign
# at 2^22 with OpenSSL. Build here first: CGO_ENABLED=0 go build -buildvcs=true -ldflags='-s -w' -o .dev/g1/ecmul
# ./cmd/ecmul; go test -c -o .dev/g1/gpu.test ./internal/gpu; go test -c -o .dev/g1/ecdsa.test ./ecdsa; xz them.
set -u -o pipefail
T0=$(date +%s); O=/tmp/g1; mkdir -p $O; save() { tar czf $OUT/g1.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/g1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*.test $B/ecmul
make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(( $(date +%s) - T0 ))"
cp internal/kernels/ecmul.fatbin $OUT/ecmul.fatbin
grep -E "Function properties for ecm_sign(unpack|pack)_\w+" -A2 $O/fatbin.log | grep -E "Function|spill|registers|stack" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-200 | sort -u > $O/ptxas-sign.txt; grep -v " 0 bytes spill stores" $O/ptxas-sign.txt | head -3
gzip -f $O/fatbin.log; save
export ECMUL_FATBIN=$OUT/ecmul.fatbin
timeout 30 $B/gpu.test -test.run 'TestFatbinHasEntryPoints' -test.v > $O/entries.log 2>&1; echo "entries rc $? $(grep -o '[0-9]* entry points found' $O/entries.log)"
timeout 150 $B/ecdsa.test -test.run 'TestGPUSignNonces|TestGPUVerifyKernel|TestGPUWycheproof' -test.v > $O/ecdsa-gpu.txt 2>&1; echo "ecdsa gpu rc $?"
grep -E "^(--- |    --- )(PASS|FAIL|SKIP)" $O/ecdsa-gpu.txt | grep -v "    --- PASS: TestGPUWycheproof" | head -12
for c in p224 p256 secp256k1; do for op in sign ecdsa; do timeout 40 $B/ecmul verify --curve $c --backend gpu --op $op --n 40000 > $O/verify-$op-$c.txt 2>&1; echo "verify $c $op rc $? $(tail -n1 $O/verify-$op-$c.txt)"; done; done
save; echo "t $(( $(date +%s) - T0 ))"
timeout 150 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 \
  --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $? t $(( $(date +%s) - T0 ))"
grep -E "^\s+(P-|secp)" $O/bench.txt | awk '{print $1, $2, $11, $12, $13, $14, $NF}'
save; echo "t $(( $(date +%s) - T0 ))"
left=$(( 560 - ($(date +%s) - T0) )); echo "memcheck gets $left s"
[ $left -gt 30 ] && { timeout $left compute-sanitizer --tool memcheck --print-limit 20 $B/ecmul verify --curve p256 --backend gpu --op sign --n 16400 > $O/memcheck-sign-p256.txt 2>&1
echo "memcheck rc $? $(grep -E 'ERROR SUMMARY' $O/memcheck-sign-p256.txt | tail -1) $(tail -n1 $O/memcheck-sign-p256.txt)"; }
save; echo "t $(( $(date +%s) - T0 ))"
