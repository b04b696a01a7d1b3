#!/usr/bin/env bash
# call A: host CPU of the bytes API, HEAD~ (spinning waits) against HEAD (blocking-sync events), with
# CPU profiles; chunk sizes; pipe with --stats and startup.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wA; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc >> $O/device.txt; grep -m1 "model name" /proc/cpuinfo >> $O/device.txt
B=.dev/c1; gunzip -f $B/*.gz; chmod +x $B/*
for v in old new old new; do
  E=$B/ecmul; [ $v = old ] && E=$B/ecmul-old
  timeout 90 $E bench --backend gpu --curve p256 --op mul --batch 4194304 --reps 3 --peers=false --json $O/bytes-$v.json --cpuprofile $O/prof-$v.pprof > $O/bytes-$v.txt 2>&1
  python3 - $O/bytes-$v.json $v <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
for r in d['results']:
  print(sys.argv[2], r['curve'], 'kernel %.2fM bytes %.2fM (%.1f%%) host %.0f ns.core big %.2fM' % (r['kernel_ops_per_s']/1e6, r['bytes_ops_per_s']/1e6, 100*r['bytes_ops_per_s']/r['kernel_ops_per_s'], r['bytes_host_cpu_ns_per_item'], r['ops_per_s']/1e6))
PY
done | tee $O/summary-waits.txt
save
for ch in 65536 262144 524288; do
  timeout 90 $B/ecmul bench --backend gpu --curve p256 --op mul --batch 4194304 --reps 3 --chunk $ch --peers=false --json $O/bytes-chunk$ch.json > $O/bytes-chunk$ch.txt 2>&1
  python3 - $O/bytes-chunk$ch.json $ch <<'PY'
import json,sys
d=json.load(open(sys.argv[1]))
for r in d['results']:
  print('chunk', sys.argv[2], r['curve'], 'kernel %.2fM bytes %.2fM (%.1f%%) host %.0f ns.core' % (r['kernel_ops_per_s']/1e6, r['bytes_ops_per_s']/1e6, 100*r['bytes_ops_per_s']/r['kernel_ops_per_s'], r['bytes_host_cpu_ns_per_item']))
PY
done | tee $O/summary-chunks.txt
save
for f in raw hex; do
  $B/ecmul gen --curve p256 --n 4194304 --format $f --out /dev/shm/in-$f
  head -c $((3*32)) /dev/shm/in-raw > /dev/shm/one-raw 2>/dev/null
  for rep in 1 2; do
    s=$(date +%s.%N); /usr/bin/time -f "%U user %S sys %M KiB" $B/ecmul mul --curve p256 --backend gpu --format $f --stats --cpuprofile $O/pipe-$f-$rep.pprof < /dev/shm/in-$f > /dev/shm/out 2> $O/pipe-$f-$rep.err; rc=$?; e=$(date +%s.%N)
    awk -v f=$f -v r=$rep -v rc=$rc -v s=$s -v e=$e 'BEGIN{printf "pipe p256 %s rep %d rc %d whole %.3f s %.2f M/s\n", f, r, rc, e-s, 4194304/(e-s)/1e6}'
    grep -h "stats\|user" $O/pipe-$f-$rep.err
  done
done 2>&1 | tee $O/pipes.txt
save
$B/ecmul gen --curve p256 --n 1 --format raw --out /dev/shm/one
for rep in 1 2 3; do s=$(date +%s.%N); $B/ecmul mul --curve p256 --backend gpu --format raw < /dev/shm/one > /dev/null; e=$(date +%s.%N); awk -v s=$s -v e=$e 'BEGIN{printf "startup+1 item %.3f s\n", e-s}'; done | tee $O/startup.txt
s=$(date +%s.%N); $B/ecmul mul --curve p256 --backend cpu --format raw < /dev/shm/one > /dev/null; e=$(date +%s.%N); awk -v s=$s -v e=$e 'BEGIN{printf "cpu backend startup+1 item %.3f s\n", e-s}' | tee -a $O/startup.txt
save
echo ===; cat $O/summary-waits.txt $O/summary-chunks.txt; grep -h "pipe\|stats" $O/pipes.txt; cat $O/startup.txt
