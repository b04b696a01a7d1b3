#!/usr/bin/env bash
# call V5 (one H200): what is left to take out of the P-256 pair loop at 6cdfacb (the kernel of f02b03c),
# bounded by timing-only builds that give wrong results by design: nomov (P̃'s words into A as the
# IMAD.WIDE pairs hold them, {lo(g), hi(g), lo(g + 8), hi(g + 8)}: no moves), nosel (slot 4 takes row
# g's sums on every lane), noalpha (pair_alpha returns at once: no lane sums, shuffles or byte moves),
# all three; base as committed. sm_90 builds of the P-256 co-Z pair entry point, the harness at 2^20
# items, two alternated rounds; SASS counted.
set -u -o pipefail
T0=$(date +%s); O=/tmp/v5; mkdir -p $O/vec $O/fb; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O --exclude=vec --exclude=fb --exclude='*.sass' .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/v5
xz -dc $B/kv.xz > $B/kv && chmod +x $B/kv
V="base nomov nosel noalpha all"
for v in $V; do
  rm -rf /tmp/src-$v && cp -r internal/kernels /tmp/src-$v && cp $B/ecmul-$v.cu /tmp/src-$v/ecmul.cu
  python3 - /tmp/src-$v <<'PY'
import re, sys
d = sys.argv[1]
p = d + '/schedule_gen.cuh'; s = open(p).read()
a = s.index('#define ECM_ENTRIES(ENTRY)')
lines = s[a:].split('\n'); k = next(i for i, l in enumerate(lines) if not l.rstrip().endswith('\\'))
b = a + len('\n'.join(lines[:k + 1]))
keep = [l.rstrip(' \\') for l in lines[1:k + 1] if 'p256, P256, coz, Coz, shenoy, Shenoy, pair' in l]
s = s[:a] + '#define ECM_ENTRIES(ENTRY) \\\n' + ' \\\n'.join(keep) + s[b:]
open(p, 'w').write(s)
p = d + '/ecmul.cu'; s = open(p).read()
s = re.sub(r'#include "(prepare|finish|wire|verify|sign)\.cuh"\n', '', s); open(p, 'w').write(s)
PY
  nvcc -std=c++17 -O3 -Xptxas -v --fatbin -gencode arch=compute_90,code=sm_90 -o $O/fb/$v.fatbin /tmp/src-$v/ecmul.cu > $O/build-$v.log 2>&1 || echo "build $v failed" &
done
make kernels-harness > $O/harness-build.log 2>&1 || echo "harness build failed"
$B/kv -curve p256 -schedule coz -channel-bits 30 -n 1024 -out $O/vec/p256_coz_c30.bin > /dev/null
wait; echo "builds t $(el)"
for v in $V; do
  echo "$v $(grep -A2 'Function properties for ecm_ladder' $O/build-$v.log | grep -oE 'Used [0-9]+ registers|[0-9]+ bytes spill stores' | tr '\n' ' ')"
  cuobjdump -sass -fun ecm_ladder_p256_coz_shenoy_pair_c30 $O/fb/$v.fatbin > $O/$v.sass
  echo "$v $(python3 internal/kernels/harness/sass_loop.py 16 257 --hist < $O/$v.sass | head -3 | tr '\n' ' ' | cut -c1-300)"
done | tee $O/sass-loops.txt
run() {
  internal/kernels/harness/harness $O/fb/$1.fatbin p256_coz_c30 $O/vec/p256_coz_c30.bin --only ecm_ladder_p256_coz_shenoy_pair_c30 --batches 1048576 --threads 128 > $O/h.log 2>&1
  cat $O/h.log >> $O/timing-all.log
  awk -v tag="$1 r$2" '/^  time/ {printf "%-10s %-40s %4s %8s %9s ms %9s M/s\n", tag, $2, $4, $6, $7, $9}' $O/h.log
}
for r in 1 2; do for v in $V; do run $v $r; done; done | tee $O/times.txt
echo "bit-exact $(grep -c bit-exact $O/timing-all.log), mismatched $(grep -c MISMATCH $O/timing-all.log) (only base is meant to be bit-exact)"
save; echo "t $(el)"
