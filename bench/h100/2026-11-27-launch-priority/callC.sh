#!/usr/bin/env bash
# call C: the bytes API against the batch size on P-256 and P-224, with the prepare and finish kernels' device time.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wC; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/c2; gunzip -f $B/*.gz; chmod +x $B/*
timeout 300 $B/ecmul bench --backend gpu --curve p256,p224 --op mul --batch 65536,131072,262144,524288,1048576,4194304 --reps 5 --peers=false --json $O/batches.json > $O/batches.txt 2>&1; echo "bench rc $?"
python3 - $O/batches.json <<'PY' | tee $O/summary.txt
import json,sys
d=json.load(open(sys.argv[1]))
for r in d['results']:
  print('%-6s batch %8d kernel %6.2fM bytes %6.2fM (%5.1f%%) host %4.0f ns.core big %5.2fM  chunks-kernels %7.1f ms prepare %6.2f finish %6.2f wall %7.1f' % (r['curve'], r['batch'], r['kernel_ops_per_s']/1e6, r['bytes_ops_per_s']/1e6, 100*r['bytes_ops_per_s']/r['kernel_ops_per_s'], r.get('bytes_host_cpu_ns_per_item',0), r['ops_per_s']/1e6, r.get('device_kernels_ms',0), r.get('prepare_ms',0), r.get('finish_ms',0), r.get('gpu_pipeline_ms',0)))
PY
save
