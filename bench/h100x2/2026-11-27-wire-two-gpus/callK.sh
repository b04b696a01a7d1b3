#!/usr/bin/env bash
# call K (two GPUs, commit 51c5c99): gECC k·P on GPU 0; ecmul bench at 2^22 and 2^23 on 1 and 2 GPUs, three
# curves (kernel, bytes API and its host CPU, *big.Int API, OpenSSL -multi); verify 300k per curve on both
# GPUs; the GPU tests of the bytes path.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wK; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c8
for f in $B/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/*; $B/ecmul version | head -1 | tee -a $O/device.txt
CUDA_VISIBLE_DEVICES=0 timeout 200 bash .dev/peers/gecc.sh $O/gecc pmul > $O/gecc.txt 2>&1; echo "gecc rc $?" | tee -a $O/gecc.txt; tail -3 $O/gecc.txt
save
timeout 240 $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul --batch 4194304,8388608 --gpus 1,2 --reps 3 \
  --gpu-peers $O/gecc.txt --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $?"
python3 - $O/bench.json <<'PY' | tee $O/summary.txt
import json,sys
d=json.load(open(sys.argv[1]))
one={}
for r in d['results']:
  if r.get('backend')!='gpu': continue
  key=(r['curve'],r['batch'])
  if r['gpus']==1: one[key]=r['bytes_ops_per_s']
  x=r['bytes_ops_per_s']/one[key] if r['gpus']==2 and key in one else 1
  k=r['kernel_ops_per_s']
  print('%-9s gpus %d batch %8d kernel %6.2fM bytes %6.2fM (%5.1f%%) x%.2f host %4.0f ns.core big %5.2fM (%5.1f%%)' % (r['curve'], r['gpus'], r['batch'], k/1e6, r['bytes_ops_per_s']/1e6, 100*r['bytes_ops_per_s']/k, x, r['bytes_host_cpu_ns_per_item'], r['ops_per_s']/1e6, 100*r['ops_per_s']/k))
for p in d.get('peers',[]): print('peer', p)
PY
save
for c in p256 p224 secp256k1; do
  (timeout 240 $B/ecmul verify --curve $c --backend gpu --n 300000 > $O/verify-$c.txt 2>&1; echo "verify $c rc $?" >> $O/verify-$c.txt) &
done
timeout 250 $B/ecmul.test -test.run 'TestGPUBytesOnItemKernels|TestGPUDevices' -test.v -test.timeout 245s > $O/root.log 2>&1; echo "root tests rc $?"; grep -E "^(--- |FAIL|ok|PASS)" $O/root.log | tail -8
wait
for c in p256 p224 secp256k1; do head -1 $O/verify-$c.txt; tail -2 $O/verify-$c.txt; done | tee $O/verify.txt
save
