#!/usr/bin/env bash
# call W2: A/B, alternated: old = W1's binary (dac0b23 + trace patch; the bench's --chunk 131072 by
# default, and --chunk 262144: one chunk per signing step), new = the working tree (par.Pipeline: the
# host prepares the next steps while it finishes one, four steps' memory; the bench's --chunk 0, the
# library's; FirstSign's outcomes pooled) + the same trace patch. Then traces of the new one.
set -u -o pipefail
T0=$(date +%s); O=/tmp/w2; mkdir -p $O; save() { tar czf $OUT/w2.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/w2
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*
row() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('  '.join('%s %s %.2f' % (r['curve'], r['op'], r['ops_per_s']/1e6) for r in d['results']))" $1 2>/dev/null; }
b() { # tag binary curves ops [flags...]
  local t=$1 bin=$2 c=$3 op=$4; shift 4
  timeout 120 $B/$bin bench --backend gpu --curve $c --op $op --batch 4194304 --reps 3 --peers=false \
    --json $O/$t.json "$@" > $O/$t.out 2> $O/$t.err; echo "$t rc $? $(row $O/$t.json) t $(el)"; }
S=p224,p256,secp256k1
for r in 1 2; do
  b sign-old-$r old $S base,sign
  b sign-oldc-$r old $S base,sign --chunk 262144
  b sign-new-$r ecmul $S base,sign
  b sign-newf32-$r ecmul p256,secp256k1 sign --finish-items 32
done
save
for r in 1 2; do
  b ecdsa-old-$r old p224,p256 mul,ecdsa
  b ecdsa-new-$r ecmul p224,p256 mul,ecdsa
done
save
ECMUL_TRACE=1 b p224-sign-trace ecmul p224 sign
ECMUL_TRACE=1 b p256-sign-trace ecmul p256 sign
ECMUL_TRACE=1 b p224-ecdsa-trace ecmul p224 ecdsa
ECMUL_GOTRACE=$O/p224-sign.gotrace b p224-sign-gotrace ecmul p224 sign
xz -T4 $O/p224-sign.gotrace; ls -la $O/*.xz
save; echo "t $(el)"
