#!/usr/bin/env bash
# call J1 (one H200): ecmul-p and ecdsa.test of f29285f (HEAD; u1·G in the verify kernel's chunks).
# The ECDSA GPU tests; compute-sanitizer memcheck on ecmul verify --op ecdsa (the comb in the verify
# chunks, the 2-D copy) on every curve, racecheck and synccheck on P-256; ecmul bench mul,ecdsa on one GPU.
set -u -o pipefail
T0=$(date +%s); O=/tmp/j1; mkdir -p $O; save() { tar czf $OUT/j1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=$PWD/.dev/j1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul-p $B/ecdsa.test; $B/ecmul-p version > $O/version.txt 2>&1; head -1 $O/version.txt
(cd ecdsa && timeout 120 $B/ecdsa.test -test.run 'TestGPUVerifyKernel|TestGPUSign' -test.v > $O/ecdsa-gpu-tests.txt 2>&1; echo "ecdsa gpu tests rc $? t $(el)"; grep -E "^(--- |ok|PASS|FAIL)|--- (PASS|FAIL|SKIP)" $O/ecdsa-gpu-tests.txt | head -12); save
san() { local tool=$1 c=$2 lim=$3; left=$(( 320 - $(el) )); [ $left -lt 20 ] && { echo "skip $tool $c"; return; }
  timeout $(( left < lim ? left : lim )) compute-sanitizer --tool $tool --error-exitcode 3 --print-limit 20 $B/ecmul-p verify --backend gpu --curve $c --op ecdsa --n 20000 --chunk 20000 \
    > $O/san-$tool-$c-ecdsa.txt 2>&1; echo "$tool $c rc $? t $(el): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^(PASS|FAIL)' $O/san-$tool-$c-ecdsa.txt | tr '\n' ' ')"; save; }
san memcheck p256 90; san memcheck p224 70; san memcheck secp256k1 70; san racecheck p256 90; san synccheck p256 60
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s %.2f k%.2f'%(r['curve'][-4:], r['op'][:4], r['ops_per_s']/1e6, r.get('kernel_ops_per_s',0)/1e6) for r in d['results']))"; }
for r in 1 2; do left=$(( 420 - $(el) )); [ $left -lt 30 ] && break
  timeout $left $B/ecmul-p bench --backend gpu --curve p224,p256 --op mul,ecdsa --batch 4194304 --reps 3 --peers=false \
    --json $O/b$r.json > $O/b$r.txt 2>&1; echo "b$r rc $? t $(el) $(summ $O/b$r.json)"; save; done
save; echo "t $(el)"
