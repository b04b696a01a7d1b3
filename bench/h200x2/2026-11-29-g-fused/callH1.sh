#!/usr/bin/env bash
# call H1 (two H200s of one host): ecmul-p = 9c18f63 (u1·G in the verify kernel's chunks, and a small step's
# prepare on every core); ecmul-k = the same with h1-knob.patch (timing only: ECMUL_VPART sets the prepare's
# part, 4096 as before 9c18f63; ECMUL_TRACE traces chunks).
set -u -o pipefail
T0=$(date +%s); O=/tmp/h1; mkdir -p $O; save() { tar czf $OUT/h1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/h1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul-*; $B/ecmul-p version > $O/version.txt 2>&1; head -1 $O/version.txt
export GECC_BUILD=$PWD/.dev/gecc-build
( timeout 200 bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?" > $O/gecc-build.rc ) &
for c in p224 p256 secp256k1; do
  timeout 45 $B/ecmul-p verify --curve $c --backend gpu --op ecdsa --n 40000 > $O/verify-$c-ecdsa.txt 2>&1; echo "verify $c ecdsa rc $? $(tail -n1 $O/verify-$c-ecdsa.txt) t $(el)"; done
wait; cat $O/gecc-build.rc; echo "t $(el)"
timeout 130 bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $? t $(el)"
grep "op/s" $O/gecc.txt | tee $O/gpu-peers.txt
rm -rf $O/gecc-build $O/gecc/build 2>/dev/null; save
summ() { python3 -c "
import json; d=json.load(open('$1'))
for r in d['results']: print(r['curve'][-4:], r['op'][:4], 'g%s'%r.get('gpus'), '%.2f'%(r['ops_per_s']/1e6), 'k%.2f'%(r['kernel_ops_per_s']/1e6) if r.get('kernel_ops_per_s') else '')"; }
timeout 110 $B/ecmul-p bench --backend gpu --curve p224,p256,secp256k1 --op mul,ecdsa,sign --batch 4194304 --gpus 1,2 --reps 3 \
  --gpu-peers $O/gpu-peers.txt --json $O/p1.json > $O/p1.txt 2>&1; echo "p1 rc $? t $(el)"; save
ECMUL_VPART=4096 timeout 40 $B/ecmul-k bench --backend gpu --curve p224,p256 --op ecdsa --batch 4194304 --gpus 1,2 --reps 3 --peers=false \
  --json $O/v1.json > $O/v1.txt 2>&1; echo "v1 rc $? t $(el)"; save
timeout 40 $B/ecmul-p bench --backend gpu --curve p224,p256 --op ecdsa --batch 4194304 --gpus 1,2 --reps 3 --peers=false \
  --json $O/p2.json > $O/p2.txt 2>&1; echo "p2 rc $? t $(el)"; save
ECMUL_TRACE=1 timeout 30 $B/ecmul-k bench --backend gpu --curve p224 --op ecdsa --gpus 2 --batch 4194304 --reps 1 --peers=false \
  --json $O/trace-v.json > $O/trace-v.txt 2> $O/trace-v.err; echo "trace v rc $? t $(el)"; gzip -f $O/trace-v.err; save
ECMUL_TRACE=1 timeout 30 $B/ecmul-k bench --backend gpu --curve p256 --op sign --gpus 2 --batch 4194304 --reps 4 --peers=false \
  --json $O/trace-s.json > $O/trace-s.txt 2> $O/trace-s.err; echo "trace s rc $? t $(el)"; gzip -f $O/trace-s.err; save
for f in p1 v1 p2 trace-s; do echo "== $f"; [ -f $O/$f.json ] && summ $O/$f.json | tr '\n' ';'; echo; done
save; echo "t $(el)"
