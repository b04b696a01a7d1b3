#!/usr/bin/env bash
# call V2: a batch marked overlapped (a pipeline's step) as one chunk per GPU where --chunk holds it
# (ecmul-ov*: gpu.Pool.batchChunk), signing's and verification's steps of 2^18 (ov18), 2^17 (ov17),
# four steps queued (ov18q4), against V1's s18 (ramped steps, the chunks of main); 2^22 items, alternated.
set -u -o pipefail
T0=$(date +%s); O=/tmp/v2; mkdir -p $O; save() { tar czf $OUT/v2.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/v2
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul*
row() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('  '.join('%s %.2f' % (r['curve'], r['ops_per_s']/1e6) for r in d['results']))" $1 2>/dev/null; }
run() { # op curves binary chunk tag
  timeout 90 $B/ecmul-$3 bench --backend gpu --curve $2 --op $1 --batch 4194304 --reps 3 --peers=false \
    --chunk $4 --json $O/$1-$3-c$4-$5.json > $O/$1-$3-c$4-$5.txt 2>&1
  echo "$1 $3 chunk $4 rc $? $(row $O/$1-$3-c$4-$5.json) t $(el)"; }
for t in a b c; do
  run sign p256,p224,secp256k1 s18 131072 $t
  run sign p256,p224,secp256k1 ov18 262144 $t
  run sign p256,p224,secp256k1 ov18 131072 $t
  run sign p256,p224,secp256k1 ov17 131072 $t
  run sign p256,p224,secp256k1 ov18q4 262144 $t
done
save
for t in a b; do
  run ecdsa p224,p256 s18 131072 $t
  run ecdsa p224,p256 ov18 262144 $t
  run ecdsa p224,p256 ov18 131072 $t
  run ecdsa p224,p256 ov18q4 262144 $t
done
run base p256,p224 ov18 131072 a
save; echo "t $(el)"
