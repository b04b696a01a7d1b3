#!/usr/bin/env bash
# call Z1 (two H200s of one host): the binary of 0e8a653 (ecmul-a) and the same with
# bench/h200x2/2026-11-29-x-two-gpus/patch/x3-trace-knob.patch (ecmul-k, timing and traces only).
# ecmul verify --op ecdsa and sign on both GPUs (gECC builds meanwhile); gECC pmul and fixed; ecmul bench
# mul,base,ecdsa,sign at 2^22 on one GPU and two, every curve, three rounds alternated with ecmul-k's
# step knobs on two GPUs; a trace of P-224 on two GPUs.
set -u -o pipefail
T0=$(date +%s); O=/tmp/z1; mkdir -p $O; save() { tar czf $OUT/z1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/z1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul-*; $B/ecmul-a version > $O/version.txt 2>&1; head -1 $O/version.txt
export GECC_BUILD=$PWD/.dev/gecc-build
( timeout 200 bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?" > $O/gecc-build.rc ) &
for c in p224 p256 secp256k1; do for op in ecdsa sign; do
  timeout 30 $B/ecmul-a verify --curve $c --backend gpu --op $op --n 100000 > $O/verify-$c-$op.txt 2>&1; echo "verify $c $op rc $? $(tail -n1 $O/verify-$c-$op.txt)"; done; done
wait; cat $O/gecc-build.rc; echo "t $(el)"
timeout 130 bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $? t $(el)"
grep "op/s" $O/gecc.txt | tee $O/gpu-peers.txt
rm -rf $O/gecc-build $O/gecc/build 2>/dev/null; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], 'g%s'%r.get('gpus'), '%.2f'%(r['ops_per_s']/1e6), 'kernel %.2f'%(r['kernel_ops_per_s']/1e6) if r.get('kernel_ops_per_s') else '')"; }
for r in 1 2 3; do
  timeout 120 $B/ecmul-a bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --gpus 1,2 --reps 3 \
    --gpu-peers $O/gpu-peers.txt --json $O/a$r.json > $O/a$r.txt 2>&1; echo "a$r rc $? t $(el)"; save
  [ $r = 3 ] && break
  if [ $r = 1 ]; then k="ECMUL_VSUB=131072 ECMUL_SSTEP=524288"; else k="ECMUL_VINFLIGHT=5 ECMUL_SQUEUED=5"; fi
  env $k timeout 60 $B/ecmul-k bench --backend gpu --curve p224,p256,secp256k1 --op ecdsa,sign --batch 4194304 --gpus 2 --reps 3 --peers=false \
    --json $O/k$r.json > $O/k$r.txt 2>&1; echo "k$r ($k) rc $? t $(el)"; save
done
ECMUL_TRACE=1 timeout 40 $B/ecmul-k bench --backend gpu --curve p224 --op ecdsa,sign --gpus 2 --batch 4194304 --reps 1 --peers=false \
  --json $O/trace-p224.json > $O/trace-p224.txt 2> $O/trace-p224.err; echo "trace rc $? t $(el)"; gzip -f $O/trace-p224.err; save
for f in a1 a2 a3 k1 k2; do echo "== $f"; [ -f $O/$f.json ] && summ $O/$f.json | tr '\n' ';'; echo; done
save; echo "t $(el)"
