#!/usr/bin/env bash
# call D12: the standing at dbf3b01 (the finish at 64 items a thread by chunk, ECDSA's steps marked as
# overlapped, its step buffers pooled): ecmul bench mul,base,ecdsa at 2^22 on every curve, twice;
# gECC pmul and fixed in the same call.
set -u -o pipefail
T0=$(date +%s); O=/tmp/d12; mkdir -p $O; save() { tar czf $OUT/d12.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/d12
python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $B/ecmul.xz && rm $B/ecmul.xz; chmod +x $B/ecmul
$B/ecmul version > $O/version.txt 2>&1; head -1 $O/version.txt
(bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?") &
for r in 1 2; do
  timeout 60 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa --batch 4194304 --reps 3 --peers=false \
    --json $O/bench-$r.json > $O/bench-$r.txt 2>&1; echo "bench $r rc $? t $(( $(date +%s) - T0 ))"
  python3 -c "
import json
for r in json.load(open('$O/bench-$r.json'))['results']:
  e=r.get('bytes_ops_per_s') if r['op']=='mul' else r['ops_per_s']
  print('$r', r['curve'], r['op'], round(e/1e6,3), 'kernel', round(r.get('kernel_ops_per_s',0)/1e6,3), round(r.get('ratio_to_mul',0),3))"
  save
done
wait
left=$(( 255 - ($(date +%s) - T0) )); echo "gecc gets $left s"
timeout $left bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
rm -rf $O/gecc-build $O/gecc; save; echo "t $(( $(date +%s) - T0 ))"
