#!/usr/bin/env bash
# call Y3 (one H200): main's binary (3533b26) against 4d884da's (combvt on 13-bit windows, the sign unpack
# with its first HMAC key's states constant and word loads); gECC's pmul and fixed first (--gpu-peers);
# TestGPUSign, TestGPUVerifyKernel, TestGPUWycheproof, TestSignGPU; ecmul verify --op sign and ecdsa on
# every curve; ecmul bench mul,base,ecdsa,sign at 2^22, old then new (with OpenSSL), then the new
# one's signing with the finish's items a thread at 32 and 64.
set -u -o pipefail
T0=$(date +%s); O=/tmp/y3; mkdir -p $O; save() { tar czf $OUT/y3.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
B=.dev/y3
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul* $B/ecdsa.test; $B/ecmul version > $O/version.txt 2>&1; $B/ecmul-main version > $O/version-main.txt 2>&1; head -1 $O/version.txt
export GECC_BUILD=$PWD/.dev/gecc-build
timeout 170 bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(el)"
timeout 150 bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $? t $(el)"
grep "op/s" $O/gecc.txt | tee $O/gpu-peers.txt
rm -rf $O/gecc-build $O/gecc/build 2>/dev/null; save
timeout 60 $B/ecdsa.test -test.run 'TestGPUSign$|TestGPUVerifyKernel|TestGPUWycheproof|TestSignGPU' -test.v > $O/ecdsa-gpu.txt 2>&1; echo "ecdsa gpu tests rc $? t $(el)"
grep -E "^--- (PASS|FAIL|SKIP)" $O/ecdsa-gpu.txt
for c in p224 p256 secp256k1; do
  timeout 30 $B/ecmul verify --curve $c --backend gpu --op sign --n 40000 > $O/verify-$c-sign.txt 2>&1; echo "verify $c sign rc $? $(tail -n1 $O/verify-$c-sign.txt)"; done
save
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'], r['op'], '%.2f'%(r['ops_per_s']/1e6), 'bytes %.2f'%(r['bytes_ops_per_s']/1e6) if r.get('bytes_ops_per_s') else '', 'kernel %.2f'%(r['kernel_ops_per_s']/1e6) if r.get('kernel_ops_per_s') else '', {k: round(v,3) for k,v in r.items() if k.startswith('ratio') or k.startswith('vs')})"; }
timeout 110 $B/ecmul-main bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 --peers=false \
  --json $O/bench-main.json > $O/bench-main.txt 2>&1; echo "bench main rc $? t $(el)"; summ $O/bench-main.json; save
timeout 170 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 \
  --gpu-peers $O/gpu-peers.txt --json $O/bench.json > $O/bench.txt 2>&1; echo "bench new rc $? t $(el)"; summ $O/bench.json; save
for f in 32 64; do
  timeout 40 $B/ecmul bench --backend gpu --curve p224,p256 --op base,sign --batch 4194304 --reps 3 --peers=false --finish-items $f \
    --json $O/sign-f$f.json > $O/sign-f$f.txt 2>&1; echo "sign f$f rc $? t $(el)"; summ $O/sign-f$f.json; save; done
for c in p256 p224 secp256k1; do left=$(( 585 - $(el) )); [ $left -lt 20 ] && break
  timeout $left $B/ecmul verify --curve $c --backend gpu --op ecdsa --n 100000 > $O/verify-$c-ecdsa.txt 2>&1; echo "verify $c ecdsa rc $? $(tail -n1 $O/verify-$c-ecdsa.txt) t $(el)"; save; done
echo "t $(el)"
