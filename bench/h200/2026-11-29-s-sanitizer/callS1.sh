#!/usr/bin/env bash
# call S1 (one H200): the binary of 0e8a653 (ecmul-a) and the same with
# bench/h200x2/2026-11-29-x-two-gpus/patch/x3-trace-knob.patch (ecmul-k, timing and traces only).
# A trace of P-224 verification and signing on one GPU; signing's steps and queue swept through
# ecmul-k's knobs against the library's, alternated; compute-sanitizer memcheck, racecheck and
# synccheck on ecmul verify --op ecdsa (combvt, the verify kernels) and --op sign (the sign unpack).
set -u -o pipefail
T0=$(date +%s); O=/tmp/s1; mkdir -p $O; save() { tar czf $OUT/s1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/s1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul-*; $B/ecmul-a version > $O/version.txt 2>&1; head -1 $O/version.txt
summ() { python3 -c "
import json; d=json.load(open('$1'))
print(' '.join('%s/%s %.2f'%(r['curve'][-4:], r['op'][:4], r['ops_per_s']/1e6) for r in d['results']))"; }
ECMUL_TRACE=1 timeout 40 $B/ecmul-k bench --backend gpu --curve p224 --op ecdsa,sign --gpus 1 --batch 4194304 --reps 1 --peers=false \
  --json $O/trace-p224.json > $O/trace-p224.txt 2> $O/trace-p224.err; echo "trace rc $? t $(el)"; gzip -f $O/trace-p224.err; save
for r in 1 2; do for v in a s17 s19 q5; do
  case $v in a) k="";; s17) k="ECMUL_SSTEP=131072";; s19) k="ECMUL_SSTEP=524288";; q5) k="ECMUL_SQUEUED=5";; esac
  ops=sign; [ $v = a ] && ops=base,sign
  env $k timeout 40 $B/ecmul-k bench --backend gpu --curve p224,p256 --op $ops --batch 4194304 --reps 3 --peers=false \
    --json $O/sign-$v-$r.json > $O/sign-$v-$r.txt 2>&1; echo "sign $v$r rc $? t $(el) $(summ $O/sign-$v-$r.json)"; done; done; save
san() { local tool=$1 c=$2 op=$3 lim=$4; left=$(( 560 - $(el) )); [ $left -lt 20 ] && { echo "skip $tool $c $op"; return; }
  timeout $(( left < lim ? left : lim )) compute-sanitizer --tool $tool --error-exitcode 3 --print-limit 20 $B/ecmul-a verify --backend gpu --curve $c --op $op --n 20000 --chunk 20000 \
    > $O/san-$tool-$c-$op.txt 2>&1; echo "$tool $c $op rc $? t $(el): $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^(PASS|FAIL)' $O/san-$tool-$c-$op.txt | tr '\n' ' ')"; save; }
for op in ecdsa sign; do san memcheck p256 $op 120; done
for op in ecdsa sign; do san racecheck p256 $op 120; done
for op in ecdsa sign; do san synccheck p256 $op 90; done
for c in p224 secp256k1; do for op in ecdsa sign; do san memcheck $c $op 90; done; done
save; echo "t $(el)"
