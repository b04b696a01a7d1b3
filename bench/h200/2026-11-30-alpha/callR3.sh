#!/usr/bin/env bash
# call R3: the 30-bit mappings' α from the ξ̃'s top bits (warp, block, spread: wide_alpha on every
# lane; mma: frag_alpha). The fatbin rebuilt (make -B kernels-fatbin) and every entry point of every
# curve, schedule and width checked against the CPU twin; meanwhile the co-Z c30 entry points of
# P-224 and P-256 (warp, block, spread, mma, pair) built for sm_90 from the old and the new sources
# and timed by the harness, alternated two rounds (2^20 items; spread at 1 and 1,024).
set -u -o pipefail
T0=$(date +%s); O=/tmp/wR3; mkdir -p $O/vec $O/fb
save() { tar czf ${OUT:-/tmp}/call.tgz -C $O --exclude=vec --exclude=fb .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
cp internal/kernels/ecmul.fatbin /tmp/old.fatbin
( make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(el)" > $O/fatbin.rc ) &
FB=$!
B=.dev/e1
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$B/kernelvec.xz'), open('$B/kernelvec','wb'))"; chmod +x $B/kernelvec
for v in old new; do rm -rf /tmp/src-$v && cp -r internal/kernels /tmp/src-$v; done
xz -dc .dev/r3/old-ecmul.cu.xz > /tmp/src-old/ecmul.cu
for v in old new; do python3 - /tmp/src-$v <<'PY'
import re, sys
d = sys.argv[1]
p = d + '/schedule_gen.cuh'; s = open(p).read()
a = s.index('#define ECM_ENTRIES(ENTRY)')
lines = s[a:].split('\n'); k = next(i for i, l in enumerate(lines) if not l.rstrip().endswith('\\'))
b = a + len('\n'.join(lines[:k + 1]))
keep = [l.rstrip(' \\') for l in lines[1:k + 1] if 'coz, Coz, shenoy, Shenoy,' in l and ', c30,' in l and ('p256' in l or 'p224' in l)]
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
  $B/kernelvec -curve $c -schedule $s -channel-bits $w -n 1024 -out $O/vec/${c}_${s}_c$w.bin > /dev/null &
done; done; done
while [ $(jobs -r | wc -l) -gt 1 ]; do sleep 2; done  # all but the full build
echo "timing builds and vectors done t $(el)"; ls $O/fb
for v in old new; do grep -A2 "Function properties for ecm_ladder" $O/build-$v.log | grep -oE "for ecm_ladder_[a-z0-9_]+|Used [0-9]+ registers|[0-9]+ bytes spill stores" | paste - - - > $O/regs-$v.txt; done
run() { # fatbin curve entry batches round
  internal/kernels/harness/harness $O/fb/$1.fatbin ${2}_coz_c30 $O/vec/${2}_coz_c30.bin --only ecm_ladder_${2}_coz_shenoy_${3}_c30 --batches $4 > $O/h.log 2>&1
  cat $O/h.log >> $O/timing-all.log
  awk -v tag="$1 r$5" '/^  time/ {printf "%-8s %-40s %4s %8s %9s ms %9s M/s\n", tag, $2, $4, $6, $7, $9}' $O/h.log
  grep -E "MISMATCH" $O/h.log | head -2
}
for r in 1 2; do for v in old new; do for c in p224 p256; do
  for e in warp block mma pair; do run $v $c $e 1048576 $r; done
  run $v $c spread 1,1024 $r
done; done; save; [ $(el) -gt 330 ] && break; done | tee $O/times.txt
wait $FB; cat $O/fatbin.rc
cp internal/kernels/ecmul.fatbin ${OUT:-/tmp}/ecmul.fatbin
: > $O/verify.log
for c in p224 p256 secp256k1; do for s in coz paper comb combvt; do for w in 16 30; do
  [ $(el) -gt 560 ] && { echo "verify stopped at $c $s $w"; break 3; }
  internal/kernels/harness/harness internal/kernels/ecmul.fatbin ${c}_${s}_c$w $O/vec/${c}_${s}_c$w.bin --quick 1024 >> $O/verify.log 2>&1 || echo "verify $c $s c$w rc $?"
done; done; done
echo "verify: $(grep -c bit-exact $O/verify.log) bit-exact, $(grep -c MISMATCH $O/verify.log) mismatched, entries $(grep -c '  verify' $O/verify.log)"
save; echo "t $(el)"
