#!/usr/bin/env bash
# call F1 (one H200): ecmul-f = 4ec1269 (u1·G on the comb in the verify kernel's chunks), ecmul-o = 86f9bf4.
# ecmul verify --op ecdsa on every curve with ecmul-f while gECC builds; gECC pmul and fixed;
# ecmul bench mul,base,ecdsa,sign at 2^22 with ecmul-f (OpenSSL and gECC peers), then mul,ecdsa
# alternated f/o/f/o.
set -u -o pipefail
T0=$(date +%s); O=/tmp/f1; mkdir -p $O; save() { tar czf $OUT/f1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/f1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul-*; $B/ecmul-f version > $O/version-f.txt 2>&1; $B/ecmul-o version > $O/version-o.txt 2>&1; head -1 $O/version-*.txt
export GECC_BUILD=$PWD/.dev/gecc-build
( timeout 200 bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?" > $O/gecc-build.rc ) &
for c in p224 p256 secp256k1; do n=40000; [ $c = p256 ] && n=140000
  timeout 60 $B/ecmul-f verify --curve $c --backend gpu --op ecdsa --n $n > $O/verify-$c-ecdsa.txt 2>&1; echo "verify $c ecdsa n=$n rc $? $(tail -n1 $O/verify-$c-ecdsa.txt) t $(el)"; done
wait; cat $O/gecc-build.rc; echo "t $(el)"
timeout 130 bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $? t $(el)"
grep "op/s" $O/gecc.txt | tee $O/gpu-peers.txt
rm -rf $O/gecc-build $O/gecc/build 2>/dev/null; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], '%.2f'%(r['ops_per_s']/1e6), 'k%.2f'%(r['kernel_ops_per_s']/1e6) if r.get('kernel_ops_per_s') else '')"; }
timeout 150 $B/ecmul-f bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 \
  --gpu-peers $O/gpu-peers.txt --json $O/f0.json > $O/f0.txt 2>&1; echo "f0 rc $? t $(el)"; save
for r in 1 2; do for b in f o; do
  timeout 60 $B/ecmul-$b bench --backend gpu --curve p224,p256,secp256k1 --op mul,ecdsa --batch 4194304 --reps 3 --peers=false \
    --json $O/$b$r.json > $O/$b$r.txt 2>&1; echo "$b$r rc $? t $(el)"; save
done; done
for f in f0 f1 o1 f2 o2; do echo "== $f"; [ -f $O/$f.json ] && summ $O/$f.json | tr '\n' ';'; echo; done
save; echo "t $(el)"
