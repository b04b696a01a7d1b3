#!/usr/bin/env bash
# call V3: make -B kernels-fatbin with FeField::pow in 4-bit windows (the finish's and the sign pack's
# inversions); the finish kernel against the CPU twin, TestGPUSign, TestGPUVerifyKernel, Wycheproof;
# ecmul verify (mul 40,000, base, sign, ecdsa) on every curve; then A/B, the embedded fatbin (972d489)
# against the new one, alternated: sign, base and mul at 2^22; a host profile of P-224 signing.
set -u -o pipefail
T0=$(date +%s); O=/tmp/v3; mkdir -p $O; save() { tar czf $OUT/v3.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/v3
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*
make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(el)"
cp internal/kernels/ecmul.fatbin $OUT/ecmul.fatbin; cp internal/kernels/ecmul.fatbin /tmp/new.fatbin
grep -E "Function properties for ecm_(finish|signpack)_\w+" -A2 $O/fatbin.log | grep -E "Function|spill|registers|stack" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-200 | sort -u > $O/ptxas-finish.txt; grep -E "p256_c30" $O/ptxas-finish.txt | head -3
gzip -f $O/fatbin.log; save
export ECMUL_FATBIN=/tmp/new.fatbin
timeout 120 $B/gpu.test -test.run 'TestFinishKernelMatchesCPUTwin|TestFatbinHasEntryPoints' -test.v > $O/gpu-finish.txt 2>&1; echo "gpu finish rc $? $(grep -cE '^\s+--- PASS' $O/gpu-finish.txt) pass $(grep -cE -- '--- FAIL' $O/gpu-finish.txt) fail t $(el)"
timeout 150 $B/ecdsa.test -test.run 'TestGPUSign|TestGPUVerifyKernel|TestGPUWycheproof|TestSignGPU' -test.v > $O/ecdsa-gpu.txt 2>&1; echo "ecdsa gpu rc $? t $(el)"
grep -E "^(--- |    --- )(PASS|FAIL|SKIP)" $O/ecdsa-gpu.txt | grep -v "    --- PASS: TestGPUWycheproof" | head -12
for c in p224 p256 secp256k1; do
  for op in "mul --n 40000" "base --n 20000" "sign --n 20000" "ecdsa --n 10000"; do t=${op%% *}
    timeout 60 $B/ecmul verify --curve $c --backend gpu --op $op > $O/verify-$c-$t.txt 2>&1; echo "verify $c $t rc $? $(tail -n1 $O/verify-$c-$t.txt)"; done; done
echo "t $(el)"; save
row() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('  '.join('%s %s %.2f' % (r['curve'], r['op'], r['ops_per_s']/1e6) for r in d['results']))" $1 2>/dev/null; }
ab() { # fatbin tag
  if [ $1 = new ]; then export ECMUL_FATBIN=/tmp/new.fatbin; else unset ECMUL_FATBIN; fi
  timeout 60 $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op base,sign --batch 4194304 --reps 3 --peers=false \
    --json $O/bs-$1-$2.json > $O/bs-$1-$2.txt 2>&1; echo "$1 rc $? $(row $O/bs-$1-$2.json) t $(el)"; }
for t in a b; do ab old $t; ab new $t; done
save
for v in old new; do if [ $v = new ]; then export ECMUL_FATBIN=/tmp/new.fatbin; else unset ECMUL_FATBIN; fi
  timeout 60 $B/ecmul bench --backend gpu --curve p256,p224 --op mul --batch 4194304 --reps 3 --peers=false \
    --json $O/mul-$v.json > $O/mul-$v.txt 2>&1; echo "mul $v rc $? $(row $O/mul-$v.json) t $(el)"; done
export ECMUL_FATBIN=/tmp/new.fatbin
timeout 60 $B/ecmul bench --backend gpu --curve p224 --op sign --batch 4194304 --reps 5 --peers=false \
  --json $O/prof-p224.json --cpuprofile $O/sign-p224.prof > $O/prof-p224.txt 2>&1; echo "prof rc $? $(row $O/prof-p224.json) t $(el)"
save; echo "t $(el)"
