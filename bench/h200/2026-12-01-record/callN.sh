#!/usr/bin/env bash
# call N (one H200): Channel<30> holding −m for its folds. ptxas negated each fold's quotient (an
# IMAD.MOV -R before the IMAD by m: 97 a pass of P-256's co-Z pair loop at ee7a93f). Variants of
# rns.cuh: base (ee7a93f), neg (−m opaque, m as its negation: the working tree), both (m as loaded
# and −m opaque). The fatbin rebuilt from the working tree (make -B kernels-fatbin) and checked
# against the CPU twin (--quick 1024, every vector set) while the co-Z and comb c30 pair entry points
# of P-224 and P-256 are built for sm_90 from each variant, their loops' SASS counted and timed by
# the harness at 2^20 items, alternated rounds.
set -u -o pipefail
T0=$(date +%s); O=/tmp/n; mkdir -p $O/vec $O/fb
save() { tar czf ${OUT:-/tmp}/call.tgz -C $O --exclude=vec --exclude=fb --exclude='*.sass' .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
( make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(el)" > $O/fatbin.rc ) &
FB=$!
B=.dev/n
xz -dc $B/kv.xz > $B/kv && chmod +x $B/kv
V="base neg both"
for v in $V; do rm -rf /tmp/src-$v && cp -r internal/kernels /tmp/src-$v && cp $B/rns-$v.cuh /tmp/src-$v/rns.cuh; python3 - /tmp/src-$v <<'PY'
import re, sys
d = sys.argv[1]
p = d + '/schedule_gen.cuh'; s = open(p).read()
a = s.index('#define ECM_ENTRIES(ENTRY)')
lines = s[a:].split('\n'); k = next(i for i, l in enumerate(lines) if not l.rstrip().endswith('\\'))
b = a + len('\n'.join(lines[:k + 1]))
keep = [l.rstrip(' \\') for l in lines[1:k + 1] if ('coz, Coz, shenoy, Shenoy, pair' in l or 'comb, Comb, shenoy, Shenoy, pair' in l) and ('p256' in l or 'p224' in l)]
s = s[:a] + '#define ECM_ENTRIES(ENTRY) \\\n' + ' \\\n'.join(keep) + s[b:]
open(p, 'w').write(s)
p = d + '/ecmul.cu'; s = open(p).read()
s = re.sub(r'#include "(prepare|finish|wire|verify|sign)\.cuh"\n', '', s); open(p, 'w').write(s)
PY
done
grep -c "ENTRY(p" /tmp/src-neg/schedule_gen.cuh
for v in $V; do
  nvcc -std=c++17 -O3 --threads 0 -Xptxas -v --fatbin -gencode arch=compute_90,code=sm_90 -o $O/fb/$v.fatbin /tmp/src-$v/ecmul.cu > $O/build-$v.log 2>&1 || echo "build $v failed" &
done
make kernels-harness > $O/harness-build.log 2>&1 || echo "harness build failed"
for c in p224 p256 secp256k1; do for s in coz paper comb combvt; do for w in 16 30; do
  $B/kv -curve $c -schedule $s -channel-bits $w -n 1024 -out $O/vec/${c}_${s}_c$w.bin > /dev/null &
done; done; done
while [ $(jobs -r | wc -l) -gt 1 ]; do sleep 2; done  # all but the full build
echo "timing builds and vectors done t $(el)"; ls $O/fb
for v in $V; do grep -A2 "Function properties for ecm_ladder" $O/build-$v.log | grep -oE "for ecm_ladder_[a-z0-9_]+|Used [0-9]+ registers|[0-9]+ bytes spill stores" | paste - - - > $O/regs-$v.txt; done
grep pair $O/regs-*.txt
for e in p256_coz_shenoy_pair_c30:257 p224_coz_shenoy_pair_c30:225 p256_comb_shenoy_pair_c30:52 p224_comb_shenoy_pair_c30:45; do
  for v in $V; do
    cuobjdump -sass -fun ecm_ladder_${e%%:*} $O/fb/$v.fatbin > $O/$v-${e%%:*}.sass
    echo "$v ${e%%:*} $(python3 internal/kernels/harness/sass_loop.py 16 ${e##*:} --hist < $O/$v-${e%%:*}.sass | head -3 | tr '\n' ' ' | cut -c1-300)"
  done
done | tee $O/sass-loops.txt
run() { # version curve schedule round
  internal/kernels/harness/harness $O/fb/$1.fatbin ${2}_${3}_c30 $O/vec/${2}_${3}_c30.bin --only ecm_ladder_${2}_${3}_shenoy_pair_c30 --batches 1048576 --threads 128 > $O/h.log 2>&1
  cat $O/h.log >> $O/timing-all.log
  awk -v tag="$1 r$4" '/^  time/ {printf "%-6s %-40s %4s %8s %9s ms %9s M/s\n", tag, $2, $4, $6, $7, $9}' $O/h.log
  grep -E "MISMATCH|rror" $O/h.log | head -2
}
for r in 1 2 3; do for v in $V; do
  run $v p256 coz $r; run $v p224 coz $r; run $v p256 comb $r; run $v p224 comb $r
done; save; [ $(el) -gt 330 ] && break; done | tee $O/times.txt
echo "timing bit-exact $(grep -c bit-exact $O/timing-all.log), mismatched $(grep -c MISMATCH $O/timing-all.log)"
save
wait $FB; cat $O/fatbin.rc
cp internal/kernels/ecmul.fatbin ${OUT:-/tmp}/ecmul.fatbin
: > $O/verify.log
for c in p224 p256 secp256k1; do for s in coz paper comb combvt; do for w in 16 30; do
  [ $(el) -gt 578 ] && { echo "verify stopped at $c $s $w"; break 3; }
  internal/kernels/harness/harness internal/kernels/ecmul.fatbin ${c}_${s}_c$w $O/vec/${c}_${s}_c$w.bin --quick 1024 >> $O/verify.log 2>&1 || echo "verify $c $s c$w rc $?"
done; done; done
echo "verify: $(grep -c bit-exact $O/verify.log) bit-exact, $(grep -c MISMATCH $O/verify.log) mismatched, entries $(grep -c '  verify' $O/verify.log)"
save; echo "t $(el)"
