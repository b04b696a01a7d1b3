#!/usr/bin/env bash
# call W1: where signing's and verification's end to end time goes. One binary (dac0b23 with a trace
# patch, not committed: with ECMUL_TRACE set, every gpu.Pool.Run prints its chunks' device events on
# one clock, and each ECDSA pipeline step its host phases); runs without ECMUL_TRACE are main's.
# Also: the collector off (GOGC=off), the sign finish's items per thread (32, 64).
set -u -o pipefail
T0=$(date +%s); O=/tmp/w1; mkdir -p $O; save() { tar czf $OUT/w1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/w1
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$B/ecmul.xz'), open('$B/ecmul','wb'))" && chmod +x $B/ecmul
row() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('  '.join('%s %s %.2f' % (r['curve'], r['op'], r['ops_per_s']/1e6) for r in d['results']))" $1 2>/dev/null; }
b() { # tag curve op [flags...]; env from the caller
  local t=$1 c=$2 op=$3; shift 3
  timeout 90 $B/ecmul bench --backend gpu --curve $c --op $op --batch 4194304 --reps 3 --peers=false \
    --json $O/$t.json "$@" > $O/$t.out 2> $O/$t.err; echo "$t rc $? $(row $O/$t.json) t $(el)"; }
for r in 1 2; do
  b p224-sign-$r p224 sign
  GOGC=off b p224-sign-gcoff-$r p224 sign
  b p224-sign-f32-$r p224 sign --finish-items 32
  b p224-sign-f64-$r p224 sign --finish-items 64
done
save
ECMUL_TRACE=1 b p224-sign-trace p224 sign
ECMUL_TRACE=1 b p224-base-trace p224 base
GODEBUG=gctrace=1 b p224-sign-gctrace p224 sign
save
for r in 1 2; do
  b p256-sign-$r p256 sign
  b p256-sign-f32-$r p256 sign --finish-items 32
  GOGC=off b p256-sign-gcoff-$r p256 sign
done
ECMUL_TRACE=1 b p256-sign-trace p256 sign
ECMUL_TRACE=1 b secp256k1-sign-trace secp256k1 sign
save
b p224-ecdsa p224 ecdsa
GOGC=off b p224-ecdsa-gcoff p224 ecdsa
ECMUL_TRACE=1 b p224-ecdsa-trace p224 ecdsa
b p224-ecdsa-prof p224 ecdsa --cpuprofile $O/p224-ecdsa.prof
ECMUL_TRACE=1 b p224-mul-trace p224 mul
save
ECMUL_TRACE=1 b p256-ecdsa-trace p256 ecdsa
b p256-ecdsa p256 ecdsa
save; echo "t $(el)"
