#!/usr/bin/env bash
# call L: the wire kernels, the *big.Int API validating as it fills (commit 9e0146f): gECC k·P; ecmul bench at 2^22 on three curves (kernel, bytes API
# with its host CPU and timeline, *big.Int API, OpenSSL -multi 16); latency; k·G and ECDSA at 2^22; the pipes.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wL; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c9
for f in $B/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/*; $B/ecmul version | head -1 | tee -a $O/device.txt
timeout 200 bash .dev/peers/gecc.sh $O/gecc pmul > $O/gecc.txt 2>&1; echo "gecc rc $?" | tee -a $O/gecc.txt; tail -3 $O/gecc.txt
save
timeout 200 $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul --batch 4194304 --reps 3 --gpu-peers $O/gecc.txt \
  --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $?"; grep -v "^\[" $O/bench.txt | tail -14
python3 - $O/bench.json <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
for r in d['results']:
  if r.get('backend')!='gpu': continue
  k=r.get('kernel_ops_per_s') or 0; b=r.get('bytes_ops_per_s') or 0; e=r.get('ops_per_s') or 0
  print(r['curve'], 'kernel %.3fM bytes %.3fM (%.1f%%) big %.3fM (%.1f%%) host %.1f ns.core' % (k/1e6, b/1e6, 100*b/max(k,1), e/1e6, 100*e/max(k,1), r.get('bytes_host_cpu_ns_per_item',0)))
PY
save
timeout 60 $B/ecmul bench --backend gpu --curve p224,p256 --op mul --batch 1,1024,65536 --reps 20 --peers=false --json $O/latency.json > $O/latency.txt 2>&1
echo "latency rc $?"; grep -v "^\[" $O/latency.txt | tail -8
save
timeout 150 $B/ecmul bench --backend gpu --curve p256,p224 --op mul,base,ecdsa --batch 4194304 --reps 3 --peers=false --json $O/ops.json > $O/ops.txt 2>&1
echo "ops rc $?"; grep -v "^\[" $O/ops.txt | tail -8
save
for f in raw hex; do
  $B/ecmul gen --curve p256 --n 4194304 --format $f --out /dev/shm/in-$f
  for rep in 1 2; do
    s=$(date +%s.%N); $B/ecmul mul --curve p256 --backend gpu --format $f --stats < /dev/shm/in-$f > /dev/shm/out 2> $O/pipe-$f-$rep.err; rc=$?; e=$(date +%s.%N)
    awk -v f=$f -v rc=$rc -v s=$s -v e=$e 'BEGIN{printf "pipe p256 %s rc %d whole %.3f s %.2f M/s\n", f, rc, e-s, 4194304/(e-s)/1e6}'; grep stats $O/pipe-$f-$rep.err
  done
  s=$(date +%s.%N); $B/ecmul gen --curve p256 --n 4194304 --format $f | $B/ecmul mul --curve p256 --backend gpu --format $f --stats > /dev/null 2> $O/pipe-gen-$f.err; rc=$?; e=$(date +%s.%N)
  awk -v f=$f -v rc=$rc -v s=$s -v e=$e 'BEGIN{printf "gen|mul p256 %s rc %d whole %.3f s %.2f M/s\n", f, rc, e-s, 4194304/(e-s)/1e6}'; grep stats $O/pipe-gen-$f.err
  rm -f /dev/shm/in-$f /dev/shm/out
done 2>&1 | tee $O/pipes.txt
s=$(date +%s.%N); echo "$($B/ecmul gen --curve p256 --n 1)" | $B/ecmul mul --curve p256 --backend gpu > /dev/null; e=$(date +%s.%N)
awk -v s=$s -v e=$e 'BEGIN{printf "one item, whole process: %.3f s\n", e-s}' | tee -a $O/pipes.txt
save
for c in p256 p224 secp256k1; do
  (timeout 200 $B/ecmul verify --curve $c --backend gpu --n 300000 > $O/verify-$c.txt 2>&1; echo "verify $c rc $?" >> $O/verify-$c.txt) &
done
wait
for c in p256 p224 secp256k1; do head -1 $O/verify-$c.txt; tail -2 $O/verify-$c.txt; done | tee $O/verify.txt
save
