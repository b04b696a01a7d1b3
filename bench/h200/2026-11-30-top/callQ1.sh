#!/usr/bin/env bash
# call Q1: B̃ ends with 2^30 on 30-bit channels; every 30-bit mapping finds α from the ξ̃'s top bits
# (the warp and block mappings now too: M̃ is even); the pair mapping's channel 8 of B̃ in 32-bit
# words. The fatbin rebuilt (make -B kernels-fatbin) and every entry point of every curve, schedule
# and width checked against the CPU twin (new kernelvec); meanwhile the co-Z and comb c30 entry
# points of P-224 and P-256 built for sm_90 from the old sources (HEAD, with the old kernelvec's
# vectors: the old base) and the new, timed by the harness, alternated two rounds (2^20 items;
# spread at 1 and 1,024).
set -u -o pipefail
T0=$(date +%s); O=/tmp/q1; mkdir -p $O/vec-old $O/vec-new $O/fb
save() { tar czf ${OUT:-/tmp}/call.tgz -C $O --exclude=vec-old --exclude=vec-new --exclude=fb .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
( make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(el)" > $O/fatbin.rc ) &
FB=$!
B=.dev/q1
for v in old new; do xz -dc $B/kv-$v.xz > $B/kv-$v && chmod +x $B/kv-$v; done
for v in old new; do rm -rf /tmp/src-$v && cp -r internal/kernels /tmp/src-$v; done
xz -dc $B/old-ecmul.cu.xz > /tmp/src-old/ecmul.cu
for v in old new; do python3 - /tmp/src-$v <<'PY'
import re, sys
d = sys.argv[1]
p = d + '/schedule_gen.cuh'; s = open(p).read()
a = s.index('#define ECM_ENTRIES(ENTRY)')
lines = s[a:].split('\n'); k = next(i for i, l in enumerate(lines) if not l.rstrip().endswith('\\'))
b = a + len('\n'.join(lines[:k + 1]))
keep = [l.rstrip(' \\') for l in lines[1:k + 1] if ('coz, Coz, shenoy, Shenoy,' in l or 'comb, Comb, shenoy, Shenoy,' in l) and ', c30,' in l and ('p256' in l or 'p224' in l)]
s = s[:a] + '#define ECM_ENTRIES(ENTRY) \\\n' + ' \\\n'.join(keep) + s[b:]
open(p, 'w').write(s)
p = d + '/ecmul.cu'; s = open(p).read()
s = re.sub(r'#include "(prepare|finish|wire|verify|sign)\.cuh"\n', '', s); open(p, 'w').write(s)
PY
done
grep -c "ENTRY(p" /tmp/src-new/schedule_gen.cuh
for v in old new; do
  nvcc -std=c++17 -O3 --threads 0 -Xptxas -v --fatbin -gencode arch=compute_90,code=sm_90 -o $O/fb/$v.fatbin /tmp/src-$v/ecmul.cu > $O/build-$v.log 2>&1 || echo "build $v failed" &
done
make kernels-harness > $O/harness-build.log 2>&1 || echo "harness build failed"
for c in p224 p256 secp256k1; do for s in coz paper comb combvt; do for w in 16 30; do
  $B/kv-new -curve $c -schedule $s -channel-bits $w -n 1024 -out $O/vec-new/${c}_${s}_c$w.bin > /dev/null &
done; done; done
for c in p224 p256; do for s in coz comb; do
  $B/kv-old -curve $c -schedule $s -channel-bits 30 -n 1024 -out $O/vec-old/${c}_${s}_c30.bin > /dev/null &
done; done
while [ $(jobs -r | wc -l) -gt 1 ]; do sleep 2; done  # all but the full build
echo "timing builds and vectors done t $(el)"; ls $O/fb
for v in old new; do grep -A2 "Function properties for ecm_ladder" $O/build-$v.log | grep -oE "for ecm_ladder_[a-z0-9_]+|Used [0-9]+ registers|[0-9]+ bytes spill stores" | paste - - - > $O/regs-$v.txt; done
for e in p224_coz_shenoy_pair_c30 p256_coz_shenoy_pair_c30 p256_comb_shenoy_pair_c30 p256_coz_shenoy_block_c30 p256_coz_shenoy_warp_c30; do
  for v in old new; do cuobjdump -sass -fun ecm_ladder_$e $O/fb/$v.fatbin > $O/$v-$e.sass; done
done
run() { # version curve schedule mapping batches threads round
  internal/kernels/harness/harness $O/fb/$1.fatbin ${2}_${3}_c30 $O/vec-$1/${2}_${3}_c30.bin --only ecm_ladder_${2}_${3}_shenoy_${4}_c30 --batches $5 --threads $6 > $O/h.log 2>&1
  cat $O/h.log >> $O/timing-all.log
  awk -v tag="$1 r$7" '/^  time/ {printf "%-8s %-40s %4s %8s %9s ms %9s M/s\n", tag, $2, $4, $6, $7, $9}' $O/h.log
  grep -E "MISMATCH|rror" $O/h.log | head -2
}
for r in 1 2; do for v in old new; do
  for c in p224 p256; do for e in pair mma warp; do run $v $c coz $e 1048576 128 $r; done; done
  run $v p256 comb pair 1048576 128 $r; run $v p224 comb pair 1048576 128 $r
  run $v p224 coz block 1048576 504 $r; run $v p256 coz block 1048576 510 $r
  for c in p224 p256; do run $v $c coz spread 1,1024 64 $r; done
done; save; [ $(el) -gt 330 ] && break; done | tee $O/times.txt
wait $FB; cat $O/fatbin.rc
cp internal/kernels/ecmul.fatbin ${OUT:-/tmp}/ecmul.fatbin
: > $O/verify.log
for c in p224 p256 secp256k1; do for s in coz paper comb combvt; do for w in 16 30; do
  [ $(el) -gt 570 ] && { echo "verify stopped at $c $s $w"; break 3; }
  internal/kernels/harness/harness internal/kernels/ecmul.fatbin ${c}_${s}_c$w $O/vec-new/${c}_${s}_c$w.bin --quick 1024 >> $O/verify.log 2>&1 || echo "verify $c $s c$w rc $?"
done; done; done
echo "verify: $(grep -c bit-exact $O/verify.log) bit-exact, $(grep -c MISMATCH $O/verify.log) mismatched, entries $(grep -c '  verify' $O/verify.log)"
save; echo "t $(el)"
