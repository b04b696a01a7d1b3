#!/usr/bin/env bash
# call B (two H100s): gECC k·P; ecmul bench at 2^22 and 2^23 on 1 and 2 GPUs (kernel, bytes API, *big.Int,
# OpenSSL -multi 16); verify 300k on both GPUs; pipes on one GPU with chunk and inflight variants.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wB; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c1; gunzip -f $B/*.gz; chmod +x $B/*
timeout 240 bash .dev/peers/gecc.sh $O/gecc pmul > $O/gecc.txt 2>&1; echo "gecc rc $?" | tee -a $O/gecc.txt; tail -4 $O/gecc.txt
save
timeout 300 $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul --batch 4194304,8388608 --gpus 1,2 --reps 3 \
  --gpu-peers $O/gecc.txt --json $O/bench-2gpu.json > $O/bench-2gpu.txt 2>&1; echo "bench rc $?"
python3 - $O/bench-2gpu.json <<'PY' | tee $O/summary-2gpu.txt
import json,sys
d=json.load(open(sys.argv[1]))
for r in d['results']:
  if r.get('backend')!='gpu': continue
  print('%-9s gpus %d batch %8d kernel %6.2fM bytes %6.2fM (%5.1f%%) host %4.0f ns.core big %5.2fM' % (r['curve'], r['gpus'], r['batch'], r['kernel_ops_per_s']/1e6, r['bytes_ops_per_s']/1e6, 100*r['bytes_ops_per_s']/r['kernel_ops_per_s'], r['bytes_host_cpu_ns_per_item'], r['ops_per_s']/1e6))
for p in d.get('peers',[]): print('peer', p.get('name'), p.get('curve'), p.get('ops_per_s'))
PY
save
for c in p256 p224 secp256k1; do timeout 200 $B/ecmul verify --curve $c --backend gpu --n 300000 > $O/verify-$c.txt 2>&1; echo "verify $c rc $?"; tail -2 $O/verify-$c.txt; done | tee $O/verify.txt
save
$B/ecmul gen --curve p256 --n 4194304 --format raw --out /dev/shm/in-raw
$B/ecmul gen --curve p256 --n 4194304 --format hex --out /dev/shm/in-hex
for v in "raw 65536 0" "raw 262144 2" "raw 262144 3" "raw 524288 3" "hex 65536 0" "hex 262144 3"; do
  set -- $v
  for rep in 1 2; do
    s=$(date +%s.%N); $B/ecmul mul --curve p256 --backend gpu --devices 0 --format $1 --chunk $2 --inflight $3 --stats < /dev/shm/in-$1 > /dev/shm/out 2> $O/pipe.err; rc=$?; e=$(date +%s.%N)
    st=$(grep -o "seconds=[0-9.]* op/s=[0-9]*" $O/pipe.err)
    awk -v v="$v" -v r=$rep -v rc=$rc -v s=$s -v e=$e -v st="$st" 'BEGIN{printf "pipe p256 1gpu %s rep %d rc %d whole %.3f s %.2f M/s; stream %s\n", v, r, rc, e-s, 4194304/(e-s)/1e6, st}'
  done
done 2>&1 | tee $O/pipes.txt
save
echo ===; cat $O/summary-2gpu.txt $O/verify.txt $O/pipes.txt
