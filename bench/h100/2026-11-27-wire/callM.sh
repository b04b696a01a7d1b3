#!/usr/bin/env bash
# call M (commit 6894bde): the *big.Int API without the batch's item slice: gECC k·P; ecmul bench at 2^22 on
# three curves, five repetitions (kernel, bytes API, *big.Int API, host CPU, OpenSSL -multi 16).
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wM; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c10
for f in $B/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/*; $B/ecmul version | head -1 | tee -a $O/device.txt
timeout 200 bash .dev/peers/gecc.sh $O/gecc pmul > $O/gecc.txt 2>&1; echo "gecc rc $?" | tee -a $O/gecc.txt; tail -3 $O/gecc.txt
save
timeout 240 $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul --batch 4194304 --reps 5 --gpu-peers $O/gecc.txt \
  --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $?"; grep -v "^\[" $O/bench.txt | tail -8
python3 - $O/bench.json <<'PY' | tee $O/summary.txt
import json,sys
d=json.load(open(sys.argv[1]))
for r in d['results']:
  if r.get('backend')!='gpu': continue
  k=r.get('kernel_ops_per_s') or 0; b=r.get('bytes_ops_per_s') or 0; e=r.get('ops_per_s') or 0
  print(r['curve'], 'kernel %.3fM bytes %.3fM (%.1f%%) big %.3fM (%.1f%%) host %.1f ns.core' % (k/1e6, b/1e6, 100*b/max(k,1), e/1e6, 100*e/max(k,1), r.get('bytes_host_cpu_ns_per_item',0)))
PY
save
