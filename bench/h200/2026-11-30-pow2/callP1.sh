#!/usr/bin/env bash
# call P1: timing-only bound of a power-of-two B̃ channel 8 on the pair mapping (P-256 co-Z):
# POW2 (slot 4's B̃ product mod 2^32, its first-extension finish masked), POW2A (and its additions masked).
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wP1; mkdir -p $O/vec $O/fb; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O --exclude=vec --exclude=fb .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/e1
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$B/kernelvec.xz'), open('$B/kernelvec','wb'))"; chmod +x $B/kernelvec
rm -rf /tmp/src && cp -r internal/kernels /tmp/src && patch -d /tmp/src -p1 < bench/h200/2026-11-30-pow2/pow2.diff  # in the call: cp of the patched copy .dev/p2/ecmul.cu
python3 - <<'PY'
import re
p='/tmp/src/schedule_gen.cuh'; s=open(p).read()
a=s.index('#define ECM_ENTRIES(ENTRY)')
lines=s[a:].split('\n'); k=next(i for i,l in enumerate(lines) if not l.rstrip().endswith('\\'))
b=a+len('\n'.join(lines[:k+1]))
keep=[l.rstrip(' \\') for l in lines[1:k+1] if 'coz, Coz, shenoy, Shenoy, pair' in l and ('p256' in l or 'p224' in l)]
s=s[:a]+'#define ECM_ENTRIES(ENTRY) \\\n'+' \\\n'.join(keep)+s[b:]
open(p,'w').write(s)
p='/tmp/src/ecmul.cu'; s=open(p).read()
s=re.sub(r'#include "(prepare|finish|wire|verify|sign)\.cuh"\n','',s); open(p,'w').write(s)
PY
grep -c "ENTRY(p" /tmp/src/schedule_gen.cuh
make kernels-harness > $O/harness-build.log 2>&1 || echo "harness build failed"
declare -A V=( [base]="" [p2]="-DECM_EXP_POW2" [p2a]="-DECM_EXP_POW2 -DECM_EXP_POW2A" )
for v in "${!V[@]}"; do
  nvcc -std=c++17 -O3 --threads 0 -Xptxas -v --fatbin -gencode arch=compute_90,code=sm_90 ${V[$v]} -o $O/fb/$v.fatbin /tmp/src/ecmul.cu > $O/build-$v.log 2>&1 || echo "build $v failed" &
done
$B/kernelvec -curve p256 -schedule coz -channel-bits 30 -n 2048 -out $O/vec/p256_coz_c30.bin > /dev/null
wait; echo "builds in $(( $(date +%s) - T0 )) s"
for v in base p2 p2a; do
  echo "$v $(grep -A2 'Function properties for ecm_ladder_p256' $O/build-$v.log | grep -oE '[0-9]+ bytes spill stores|Used [0-9]+ registers' | tr '\n' ' ')"
  echo "  p256 $(cuobjdump -sass -fun ecm_ladder_p256_coz_shenoy_pair_c30 $O/fb/$v.fatbin | python3 internal/kernels/harness/sass_loop.py 16 257 --hist | head -3 | tr '\n' ' ' | cut -c1-420)"
done | tee $O/regs-sass.txt
save
run() { # variant curve threads
  internal/kernels/harness/harness $O/fb/$1.fatbin ${2}_coz_c30 $O/vec/${2}_coz_c30.bin --batches 1048576 --threads $3 --only ecm_ladder_${2}_coz_shenoy_pair_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk -v tag="$1" '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%-8s %-38s %4s %9.3f M/s\n", tag, $1, $2, $5/1e6}' $O/h.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
}
for rep in 1 2 3; do for v in base p2 p2a; do run $v p256 128; done; done | tee $O/times.txt
echo "bit-exact $(grep -c bit-exact $O/harness-all.log) of $(grep -c '  verify' $O/harness-all.log)"
save; echo "t $(( $(date +%s) - T0 ))"
