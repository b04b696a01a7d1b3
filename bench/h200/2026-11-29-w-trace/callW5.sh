#!/usr/bin/env bash
# call W5: W4's binary (99ea5f8): gECC's verify and sign (W4's gECC run ran out of time after pmul and
# fixed), then ecmul bench mul,base,ecdsa,sign at 2^22 again with gECC's figures as --gpu-peers, and
# base,sign alone.
set -u -o pipefail
T0=$(date +%s); O=/tmp/w5; mkdir -p $O; save() { tar czf $OUT/w5.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/w5
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$B/ecmul.xz'), open('$B/ecmul','wb'))" && chmod +x $B/ecmul
export GECC_BUILD=$PWD/.dev/gecc-build
timeout 170 bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(el)"
timeout 220 bash .dev/peers/gecc.sh $O/gecc verify sign > $O/gecc.txt 2>&1; echo "gecc rc $? t $(el)"
grep "op/s" $O/gecc.txt | tee $O/gpu-peers.txt
save
timeout 120 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op mul,base,ecdsa,sign --batch 4194304 --reps 3 --peers=false \
  --gpu-peers $O/gpu-peers.txt --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $? t $(el)"
python3 -c "
import json; d=json.load(open('$O/bench.json'))
print('  '.join('%s %s %.2f' % (r['curve'], r['op'], r['ops_per_s']/1e6) for r in d['results']))"
save
timeout 40 $B/ecmul bench --backend gpu --curve p224,p256,secp256k1 --op base,sign --batch 4194304 --reps 3 --peers=false \
  --json $O/bench2.json > $O/bench2.txt 2>&1; echo "bench2 rc $? t $(el)"
python3 -c "
import json; d=json.load(open('$O/bench2.json'))
print('  '.join('%s %s %.2f' % (r['curve'], r['op'], r['ops_per_s']/1e6) for r in d['results']))"
rm -rf $O/gecc-build $O/gecc/build 2>/dev/null; save; echo "t $(el)"
