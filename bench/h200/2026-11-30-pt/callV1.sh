#!/usr/bin/env bash
# call V1: the pair mapping's first extension adds P̃_j·T_j on the tensor cores (an m16n8k32 whose A
# holds P̃'s eight bytes and whose B is diagonal) and reduces its sum from pair_split's words with
# one fold, as the second extension does. The fatbin rebuilt (make -B kernels-fatbin) and every
# entry point checked against the CPU twin (--quick 1024); meanwhile the co-Z and comb c30 entry
# points of P-224 and P-256 built for sm_90 from the old sources (HEAD) and the new, timed by the
# harness at 2^20 items, alternated three rounds; registers, spills and the loops' SASS counted;
# compute-sanitizer (memcheck, racecheck, synccheck) on the new pair, block and warp entry points.
set -u -o pipefail
T0=$(date +%s); O=/tmp/v1; mkdir -p $O/vec $O/fb
save() { tar czf ${OUT:-/tmp}/call.tgz -C $O --exclude=vec --exclude=fb .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
( make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(el)" > $O/fatbin.rc ) &
FB=$!
B=.dev/v1
xz -dc $B/kv.xz > $B/kv && chmod +x $B/kv
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
  $B/kv -curve $c -schedule $s -channel-bits $w -n 1024 -out $O/vec/${c}_${s}_c$w.bin > /dev/null &
done; done; done
while [ $(jobs -r | wc -l) -gt 1 ]; do sleep 2; done  # all but the full build
echo "timing builds and vectors done t $(el)"; ls $O/fb
for v in old new; do grep -A2 "Function properties for ecm_ladder" $O/build-$v.log | grep -oE "for ecm_ladder_[a-z0-9_]+|Used [0-9]+ registers|[0-9]+ bytes spill stores" | paste - - - > $O/regs-$v.txt; done
grep pair $O/regs-old.txt $O/regs-new.txt
for e in p224_coz_shenoy_pair_c30:225 p256_coz_shenoy_pair_c30:257 p224_comb_shenoy_pair_c30:45 p256_comb_shenoy_pair_c30:52; do
  for v in old new; do
    cuobjdump -sass -fun ecm_ladder_${e%%:*} $O/fb/$v.fatbin > $O/$v-${e%%:*}.sass
    echo "$v ${e%%:*} $(python3 internal/kernels/harness/sass_loop.py 16 ${e##*:} --hist < $O/$v-${e%%:*}.sass | head -3 | tr '\n' ' ' | cut -c1-400)"
  done
done | tee $O/sass-loops.txt
run() { # version curve schedule mapping batches threads round
  internal/kernels/harness/harness $O/fb/$1.fatbin ${2}_${3}_c30 $O/vec/${2}_${3}_c30.bin --only ecm_ladder_${2}_${3}_shenoy_${4}_c30 --batches $5 --threads $6 > $O/h.log 2>&1
  cat $O/h.log >> $O/timing-all.log
  awk -v tag="$1 r$7" '/^  time/ {printf "%-8s %-40s %4s %8s %9s ms %9s M/s\n", tag, $2, $4, $6, $7, $9}' $O/h.log
  grep -E "MISMATCH|rror" $O/h.log | head -2
}
for r in 1 2 3; do for v in old new; do
  for c in p224 p256; do run $v $c coz pair 1048576 128 $r; run $v $c comb pair 1048576 128 $r; done
done; save; [ $(el) -gt 300 ] && break; done | tee $O/times.txt
echo "timing bit-exact $(grep -c bit-exact $O/timing-all.log), mismatched $(grep -c MISMATCH $O/timing-all.log)"
for c in p256 p224; do for m in pair block warp; do for tool in memcheck racecheck synccheck; do
  [ $(el) -gt 420 ] && break 3
  th=128; [ $m = block ] && th=$([ $c = p256 ] && echo 510 || echo 504)
  timeout 60 compute-sanitizer --tool $tool internal/kernels/harness/harness $O/fb/new.fatbin ${c}_coz_c30 $O/vec/${c}_coz_c30.bin --quick 64 --batches 256 --threads $th --only ecm_ladder_${c}_coz_shenoy_${m}_c30 > $O/sanitizer-$tool-$c-$m.log 2>&1
  echo "$tool $c $m rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $O/sanitizer-$tool-$c-$m.log | tr '\n' ' ')"
done; done; done | tee $O/sanitizer.txt
save
wait $FB; cat $O/fatbin.rc
cp internal/kernels/ecmul.fatbin ${OUT:-/tmp}/ecmul.fatbin
: > $O/verify.log
for c in p224 p256 secp256k1; do for s in coz paper comb combvt; do for w in 16 30; do
  [ $(el) -gt 575 ] && { echo "verify stopped at $c $s $w"; break 3; }
  internal/kernels/harness/harness internal/kernels/ecmul.fatbin ${c}_${s}_c$w $O/vec/${c}_${s}_c$w.bin --quick 1024 >> $O/verify.log 2>&1 || echo "verify $c $s c$w rc $?"
done; done; done
echo "verify: $(grep -c bit-exact $O/verify.log) bit-exact, $(grep -c MISMATCH $O/verify.log) mismatched, entries $(grep -c '  verify' $O/verify.log)"
save; echo "t $(el)"
