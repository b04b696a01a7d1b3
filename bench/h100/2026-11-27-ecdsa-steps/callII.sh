#!/usr/bin/env bash
# call II (commit 70dc03a): issue 25's figures in one call. gECC k·P and fixed-base; ecmul bench at 2^22 on three curves
# (kernel, bytes API with its host CPU, *big.Int API, OpenSSL -multi 16); latency; the pipes; verify --n 300000;
# Wycheproof (ECDH and ECDSA) through the gpu backend.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wII; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c26
for f in $B/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/*; $B/ecmul version | head -1 | tee -a $O/device.txt
timeout 150 bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $?" | tee -a $O/gecc.txt; grep "op/s" $O/gecc.txt
save; echo "t $(( $(date +%s) - T0 ))"
timeout 150 $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul --batch 4194304 --reps 3 --gpu-peers $O/gecc.txt \
  --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $?"
python3 - $O/bench.json <<'PY' | tee $O/summary.txt
import json,sys
d=json.load(open(sys.argv[1]))
for r in d['results']:
  if r.get('backend')!='gpu': continue
  k=r.get('kernel_ops_per_s') or 0; b=r.get('bytes_ops_per_s') or 0; e=r.get('ops_per_s') or 0
  print(r['curve'], 'kernel %.3fM bytes %.3fM (%.1f%%) big %.3fM (%.1f%%) host %.1f ns.core' % (k/1e6, b/1e6, 100*b/max(k,1), e/1e6, 100*e/max(k,1), r.get('bytes_host_cpu_ns_per_item',0)))
for p in d.get('peers',[]): print('peer', p)
PY
save; echo "t $(( $(date +%s) - T0 ))"
timeout 60 $B/ecmul bench --backend gpu --curve p224,p256 --op mul --batch 1,1024,65536 --reps 20 --peers=false --json $O/latency.json > $O/latency.txt 2>&1
echo "latency rc $?"; grep -E "^ +(P-|secp)" $O/latency.txt | head -6
save; echo "t $(( $(date +%s) - T0 ))"
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
save; echo "t $(( $(date +%s) - T0 ))"
for c in p256 p224 secp256k1; do
  (timeout 200 $B/ecmul verify --curve $c --backend gpu --n 300000 > $O/verify-$c.txt 2>&1; echo "verify $c rc $?" >> $O/verify-$c.txt) &
done
wait
for c in p256 p224 secp256k1; do head -1 $O/verify-$c.txt; tail -2 $O/verify-$c.txt; done | tee $O/verify.txt
save; echo "t $(( $(date +%s) - T0 ))"
timeout 60 $B/ecmul.test -test.run 'TestGPUWycheproof' -test.v > $O/wycheproof-ecdh.txt 2>&1; echo "ecdh wycheproof rc $?"; grep -cE "^    --- PASS" $O/wycheproof-ecdh.txt; grep -E "^(--- |ok|PASS|FAIL)" $O/wycheproof-ecdh.txt | tail -2
timeout 60 $B/ecdsa.test -test.run 'TestGPUWycheproof' -test.v > $O/wycheproof-ecdsa.txt 2>&1; echo "ecdsa wycheproof rc $?"; grep -E "backend=gpu" $O/wycheproof-ecdsa.txt | sed 's/^ *//' | head -12; grep -E "^(--- |ok|PASS|FAIL)" $O/wycheproof-ecdsa.txt | tail -2
save; echo "t $(( $(date +%s) - T0 ))"
