#!/usr/bin/env bash
# call H (two GPUs): the bytes API on 1 and 2 GPUs at 2^22 and 2^23 with the item kernels at the greatest
# launch priority; the item-kernel twin cases that call G's time limit left out.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wH; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c5; gunzip -f $B/*.gz 2>/dev/null; chmod +x $B/*
timeout 150 $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul --batch 4194304,8388608 --gpus 1,2 --reps 3 \
  --json $O/bench-2gpu.json > $O/bench-2gpu.txt 2>&1; echo "bench rc $?"
python3 - $O/bench-2gpu.json <<'PY' | tee $O/summary-2gpu.txt
import json,sys
d=json.load(open(sys.argv[1]))
one={}
for r in d['results']:
  if r.get('backend')!='gpu': continue
  key=(r['curve'],r['batch'])
  if r['gpus']==1: one[key]=r['bytes_ops_per_s']
  x=r['bytes_ops_per_s']/one[key] if r['gpus']==2 and key in one else 1
  print('%-9s gpus %d batch %8d kernel %6.2fM bytes %6.2fM (%5.1f%%) x%.2f host %4.0f ns.core big %5.2fM' % (r['curve'], r['gpus'], r['batch'], r['kernel_ops_per_s']/1e6, r['bytes_ops_per_s']/1e6, 100*r['bytes_ops_per_s']/r['kernel_ops_per_s'], x, r['bytes_host_cpu_ns_per_item'], r['ops_per_s']/1e6))
for p in d.get('peers',[]): print('peer', p.get('name'), p.get('curve'), p.get('ops_per_s'))
PY
save
ECMUL_GPU_ITEMS=20000 CUDA_VISIBLE_DEVICES=0 timeout 60 $B/gpu.test -test.run 'TestFinishKernelMatchesCPUTwin/(p256_c30_comb|secp)' -test.v -test.timeout 55s > $O/twin-rest.log 2>&1; echo "twin rc $?"; grep -c "match the CPU twin" $O/twin-rest.log; grep -E "^(--- |FAIL|ok|PASS)" $O/twin-rest.log | tail -3
save
