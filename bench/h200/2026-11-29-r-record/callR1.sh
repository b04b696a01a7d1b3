#!/usr/bin/env bash
# call R1 (one H200), the binary of 37e94ed: gECC built and measured first (pmul, fixed) and handed to
# the bench as --gpu-peers; TestGPUSign, TestGPUVerifyKernel, TestGPUWycheproof, TestSignGPU; ecmul
# verify --op sign and ecdsa on every curve; ecmul bench mul,base,ecdsa,sign at 2^22 with OpenSSL;
# gECC's verify last, in the time left.
set -u -o pipefail
T0=$(date +%s); O=/tmp/r1; mkdir -p $O; save() { tar czf $OUT/r1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
B=.dev/r1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul $B/ecdsa.test; $B/ecmul version > $O/version.txt 2>&1; head -1 $O/version.txt
export GECC_BUILD=$PWD/.dev/gecc-build
timeout 170 bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(el)"
timeout 150 bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $? t $(el)"
grep "op/s" $O/gecc.txt | tee $O/gpu-peers.txt
save
timeout 60 $B/ecdsa.test -test.run 'TestGPUSign$|TestGPUVerifyKernel|TestGPUWycheproof|TestSignGPU' -test.v > $O/ecdsa-gpu.txt 2>&1; echo "ecdsa gpu tests rc $? t $(el)"
grep -E "^--- (PASS|FAIL|SKIP)" $O/ecdsa-gpu.txt
for c in p224 p256 secp256k1; do for op in "sign --n 40000" "ecdsa --n 20000"; do t=${op%% *}
  timeout 40 $B/ecmul verify --curve $c --backend gpu --op $op > $O/verify-$c-$t.txt 2>&1; echo "verify $c $t rc $? $(tail -n1 $O/verify-$c-$t.txt)"; done; done
save
timeout 170 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 \
  --gpu-peers $O/gpu-peers.txt --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $? t $(el)"
python3 -c "
import json; d=json.load(open('$O/bench.json'))
for r in d['results']: print(r['curve'], r['op'], '%.2f'%(r['ops_per_s']/1e6), 'bytes %.2f'%(r['bytes_ops_per_s']/1e6) if 'bytes_ops_per_s' in r else '', 'kernel %.2f'%(r['kernel_ops_per_s']/1e6) if r.get('kernel_ops_per_s') else '', {k: round(v,3) for k,v in r.items() if k.startswith('ratio') or k.startswith('vs')})"
save
left=$(( 565 - $(el) ))
[ $left -gt 40 ] && timeout $left bash .dev/peers/gecc.sh $O/gecc verify > $O/gecc-verify.txt 2>&1; echo "gecc verify rc $? t $(el)"; cat $O/gecc-verify.txt | grep "op/s"
rm -rf $O/gecc-build $O/gecc/build 2>/dev/null; save; echo "t $(el)"
