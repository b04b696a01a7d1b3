#!/usr/bin/env bash
# call Y4 (one H200): the record at d7c4335 (signing's finish at 64 items a thread) with gECC's pmul and
# fixed and OpenSSL; TestGPUSign, TestSignGPU and ecmul verify --op sign on every curve; signing at 64
# items a thread against --finish-items 16, alternated; P-224 verification with Verify's steps of 2^17
# (ecmul-v17, a timing-only build) and with the comb's finish at 16 items a thread, alternated.
set -u -o pipefail
T0=$(date +%s); O=/tmp/y4; mkdir -p $O; save() { tar czf $OUT/y4.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
B=.dev/y4
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul* $B/ecdsa.test; $B/ecmul version > $O/version.txt 2>&1; head -1 $O/version.txt
export GECC_BUILD=$PWD/.dev/gecc-build
timeout 170 bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(el)"
timeout 130 bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $? t $(el)"
grep "op/s" $O/gecc.txt | tee $O/gpu-peers.txt
rm -rf $O/gecc-build $O/gecc/build 2>/dev/null; save
timeout 40 $B/ecdsa.test -test.run 'TestGPUSign$|TestSignGPU' -test.v > $O/ecdsa-gpu.txt 2>&1; echo "ecdsa gpu tests rc $? t $(el)"
grep -E "^--- (PASS|FAIL|SKIP)" $O/ecdsa-gpu.txt
for c in p224 p256 secp256k1; do
  timeout 30 $B/ecmul verify --curve $c --backend gpu --op sign --n 40000 > $O/verify-$c-sign.txt 2>&1; echo "verify $c sign rc $? $(tail -n1 $O/verify-$c-sign.txt)"; done
save
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'], r['op'], '%.2f'%(r['ops_per_s']/1e6), 'bytes %.2f'%(r['bytes_ops_per_s']/1e6) if r.get('bytes_ops_per_s') else '', 'kernel %.2f'%(r['kernel_ops_per_s']/1e6) if r.get('kernel_ops_per_s') else '', {k: round(v,3) for k,v in r.items() if k.startswith('ratio')})"; }
timeout 150 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 \
  --gpu-peers $O/gpu-peers.txt --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $? t $(el)"; summ $O/bench.json; save
for r in 1 2; do for v in f64 f16; do a=""; [ $v = f16 ] && a="--finish-items 16"
  timeout 40 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op base,sign --batch 4194304 --reps 3 --peers=false $a \
    --json $O/sign-$v-$r.json > $O/sign-$v-$r.txt 2>&1; echo "sign $v round $r rc $? t $(el)"; summ $O/sign-$v-$r.json; save; done; done
for r in 1 2 3; do for v in main v17 f16; do bin=$B/ecmul; a=""; [ $v = v17 ] && bin=$B/ecmul-v17; [ $v = f16 ] && a="--finish-items 16"
  left=$(( 470 - $(el) )); [ $left -lt 15 ] && break 2
  timeout $left $bin bench --backend gpu --curve p224 --op mul,ecdsa --batch 4194304 --reps 3 --peers=false $a \
    --json $O/ecdsa-$v-$r.json > $O/ecdsa-$v-$r.txt 2>&1; echo "ecdsa $v round $r rc $? t $(el)"; summ $O/ecdsa-$v-$r.json; save; done; done
echo "t $(el)"
