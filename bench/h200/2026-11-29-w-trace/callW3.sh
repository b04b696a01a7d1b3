#!/usr/bin/env bash
# call W3: A/B, alternated: mid = W2's new binary; new = aa039dc + the trace patch (the steps wiped
# only where they held secrets, Sign's item errors converted on every core). Then new with
# --finish-items 32, and traces of new.
set -u -o pipefail
T0=$(date +%s); O=/tmp/w3; mkdir -p $O; save() { tar czf $OUT/w3.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/w3
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*
row() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('  '.join('%s %s %.2f' % (r['curve'], r['op'], r['ops_per_s']/1e6) for r in d['results']))" $1 2>/dev/null; }
b() { # tag binary curves ops [flags...]
  local t=$1 bin=$2 c=$3 op=$4; shift 4
  timeout 120 $B/$bin bench --backend gpu --curve $c --op $op --batch 4194304 --reps 3 --peers=false \
    --json $O/$t.json "$@" > $O/$t.out 2> $O/$t.err; echo "$t rc $? $(row $O/$t.json) t $(el)"; }
S=p224,p256,secp256k1
for r in 1 2; do
  b sign-mid-$r mid $S base,sign
  b sign-new-$r ecmul $S base,sign
  b sign-f32-$r ecmul $S sign --finish-items 32
done
save
ECMUL_TRACE=1 b p224-sign-trace ecmul p224 sign
ECMUL_TRACE=1 b p256-sign-trace ecmul p256 sign
save; echo "t $(el)"
