#!/usr/bin/env bash
# call D: the SM clock while the bytes API runs 2^22 items, and the prepare, ladder and finish kernels timed alone by ncu.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wD; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/c2; gunzip -f $B/*.gz 2>/dev/null; chmod +x $B/*
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,utilization.gpu --format=csv,noheader -lms 50 > $O/clocks.csv &
sp=$!
timeout 120 $B/ecmul bench --backend gpu --curve p256 --op mul --batch 4194304 --reps 5 --peers=false --json $O/bytes.json > $O/bytes.txt 2>&1; echo "bench rc $?"
kill $sp
python3 - $O/bytes.json <<'PY' | tee $O/summary.txt
import json,sys
d=json.load(open(sys.argv[1]))
for r in d['results']:
  print('%-6s batch %8d kernel %6.2fM bytes %6.2fM (%5.1f%%) host %4.0f ns.core big %5.2fM' % (r['curve'], r['batch'], r['kernel_ops_per_s']/1e6, r['bytes_ops_per_s']/1e6, 100*r['bytes_ops_per_s']/r['kernel_ops_per_s'], r.get('bytes_host_cpu_ns_per_item',0), r['ops_per_s']/1e6))
PY
awk -F', ' '{split($2,a," "); c[a[1]]++} END {for (k in c) print "clock", k, "MHz samples", c[k]}' $O/clocks.csv | sort -k2 -n | tail -8 | tee -a $O/summary.txt
save
timeout 240 ncu --kernel-name regex:"ecm_(prepare|finish|ladder)_p256" --launch-skip 0 --launch-count 12 --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active \
  $B/ecmul bench --backend gpu --curve p256 --op mul --batch 262144 --reps 1 --peers=false > $O/ncu.txt 2>&1; echo "ncu rc $?"
grep -E "ecm_|gpu__time_duration|launch__grid_size|warps_active" $O/ncu.txt | sed 's/  */ /g' | head -60 | tee $O/ncu-summary.txt
save
