#!/usr/bin/env bash
# call G1 (two H200s of one host): ecmul-f = 4ec1269 (u1·G on the comb in the verify kernel's chunks);
# ecmul-k = the same with the knob patch (g1-knob.patch: ECMUL_VBASE=0 takes u1·G from its own calls as
# before 4ec1269, ECMUL_VSUB sets the step, ECMUL_TRACE traces chunks; timing only).
# ecmul verify --op ecdsa on every curve while gECC builds; gECC pmul and fixed; ecmul bench mul,ecdsa,sign
# at 2^22 on one GPU and two, two rounds, alternated with ecmul-k's ECMUL_VBASE=0 (ecdsa); traces of P-224.
set -u -o pipefail
T0=$(date +%s); O=/tmp/g1; mkdir -p $O; save() { tar czf $OUT/g1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/g1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul-*; $B/ecmul-f version > $O/version.txt 2>&1; head -1 $O/version.txt
export GECC_BUILD=$PWD/.dev/gecc-build
( timeout 200 bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?" > $O/gecc-build.rc ) &
for c in p224 p256 secp256k1; do
  timeout 45 $B/ecmul-f verify --curve $c --backend gpu --op ecdsa --n 40000 > $O/verify-$c-ecdsa.txt 2>&1; echo "verify $c ecdsa rc $? $(tail -n1 $O/verify-$c-ecdsa.txt) t $(el)"; done
wait; cat $O/gecc-build.rc; echo "t $(el)"
timeout 130 bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $? t $(el)"
grep "op/s" $O/gecc.txt | tee $O/gpu-peers.txt
rm -rf $O/gecc-build $O/gecc/build 2>/dev/null; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], 'g%s'%r.get('gpus'), '%.2f'%(r['ops_per_s']/1e6), 'k%.2f'%(r['kernel_ops_per_s']/1e6) if r.get('kernel_ops_per_s') else '')"; }
timeout 110 $B/ecmul-f bench --backend gpu --curve p224,p256,secp256k1 --op mul,ecdsa,sign --batch 4194304 --gpus 1,2 --reps 3 \
  --gpu-peers $O/gpu-peers.txt --json $O/f1.json > $O/f1.txt 2>&1; echo "f1 rc $? t $(el)"; save
ECMUL_VBASE=0 timeout 50 $B/ecmul-k bench --backend gpu --curve p224,p256,secp256k1 --op ecdsa --batch 4194304 --gpus 1,2 --reps 3 --peers=false \
  --json $O/h1.json > $O/h1.txt 2>&1; echo "h1 rc $? t $(el)"; save
timeout 90 $B/ecmul-f bench --backend gpu --curve p224,p256,secp256k1 --op mul,ecdsa --batch 4194304 --gpus 1,2 --reps 3 --peers=false \
  --json $O/f2.json > $O/f2.txt 2>&1; echo "f2 rc $? t $(el)"; save
ECMUL_VBASE=0 timeout 50 $B/ecmul-k bench --backend gpu --curve p224,p256,secp256k1 --op ecdsa --batch 4194304 --gpus 1,2 --reps 3 --peers=false \
  --json $O/h2.json > $O/h2.txt 2>&1; echo "h2 rc $? t $(el)"; save
ECMUL_VSUB=524288 timeout 40 $B/ecmul-k bench --backend gpu --curve p224,p256 --op ecdsa --batch 4194304 --gpus 1,2 --reps 3 --peers=false \
  --json $O/s19.json > $O/s19.txt 2>&1; echo "s19 rc $? t $(el)"; save
for g in 1 2; do
ECMUL_TRACE=1 timeout 30 $B/ecmul-k bench --backend gpu --curve p224 --op ecdsa --gpus $g --batch 4194304 --reps 1 --peers=false \
  --json $O/trace-p224-g$g.json > $O/trace-p224-g$g.txt 2> $O/trace-p224-g$g.err; echo "trace g$g rc $? t $(el)"; gzip -f $O/trace-p224-g$g.err; save
done
for f in f1 h1 f2 h2 s19; do echo "== $f"; [ -f $O/$f.json ] && summ $O/$f.json | tr '\n' ';'; echo; done
save; echo "t $(el)"
