#!/usr/bin/env bash
# call E1: timing variants of the pair mapping's co-Z entry points (P-256, P-224), each built for sm_90 alone
# from a copy of the sources trimmed to those entry points: base (the working tree), late (P̃ formed in the
# first extension, bit-exact), register caps on late, and two timing-only bounds (no min in the second
# extension's fold; no slot 4). Harness at 2^20 items, 2 alternated rounds; SASS loop counts; ncu of base.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wE1; mkdir -p $O/vec $O/fb; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O --exclude=vec --exclude=fb .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/e1
python3 -c "import lzma,shutil; shutil.copyfileobj(lzma.open('$B/kernelvec.xz'), open('$B/kernelvec','wb'))"; chmod +x $B/kernelvec
rm -rf /tmp/src && cp -r internal/kernels /tmp/src
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
declare -A V=( [base]="" [late]="-DECM_EXP_LATE" [late200]="-DECM_EXP_LATE -DECM_MAX_REGS=200" [late184]="-DECM_EXP_LATE -DECM_MAX_REGS=184"
  [late168]="-DECM_EXP_LATE -DECM_MAX_REGS=168" [nomin]="-DECM_EXP_LATE -DECM_EXP_NOMIN" [noslot4]="-DECM_EXP_LATE -DECM_EXP_NOSLOT4" )
for v in "${!V[@]}"; do
  nvcc -std=c++17 -O3 --threads 0 -Xptxas -v --fatbin -gencode arch=compute_90,code=sm_90 ${V[$v]} -o $O/fb/$v.fatbin /tmp/src/ecmul.cu > $O/build-$v.log 2>&1 || echo "build $v failed" &
done
for c in p224 p256; do $B/kernelvec -curve $c -schedule coz -channel-bits 30 -n 2048 -out $O/vec/${c}_coz_c30.bin > /dev/null; done
wait; echo "builds in $(( $(date +%s) - T0 )) s"
for v in base late late200 late184 late168 nomin noslot4; do
  echo "$v $(grep -A2 'Function properties for ecm_ladder_p256' $O/build-$v.log | grep -oE '[0-9]+ bytes spill stores|Used [0-9]+ registers' | tr '\n' ' ')"
  cuobjdump -sass $O/fb/$v.fatbin > $O/sass-$v.txt 2>/dev/null
  for c in p256:257 p224:225; do e=${c%%:*}; b=${c##*:}
    echo "  $e $(cuobjdump -sass -fun ecm_ladder_${e}_coz_shenoy_pair_c30 $O/fb/$v.fatbin | python3 internal/kernels/harness/sass_loop.py 16 $b --hist | head -3 | tr '\n' ' ' | cut -c1-420)"
  done
done | tee $O/regs-sass.txt
gzip -9 $O/sass-*.txt; save
run() { # variant curve threads
  internal/kernels/harness/harness $O/fb/$1.fatbin ${2}_coz_c30 $O/vec/${2}_coz_c30.bin --batches 1048576 --threads $3 --only ecm_ladder_${2}_coz_shenoy_pair_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk -v tag="$1" '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%-8s %-38s %4s %9.3f M/s\n", tag, $1, $2, $5/1e6}' $O/h.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
}
for rep in 1 2; do
  for v in base late nomin noslot4; do run $v p256 128; done
  for v in late200 late184 late168; do run $v p256 128,64,32; done
  for v in base late; do run $v p224 128; done
done | tee $O/times.txt
echo "bit-exact $(grep -c bit-exact $O/harness-all.log) of $(grep -c '  verify' $O/harness-all.log)"
save; echo "t $(( $(date +%s) - T0 ))"
timeout 150 bash internal/kernels/harness/profile.sh $O/fb/base.fatbin $O/vec $O/ncu ecm_ladder_p256_coz_shenoy_pair_c30 128 131072 > $O/ncu-base.txt 2>&1
rm -f $O/ncu/*.ncu-rep; gzip -9 $O/ncu/*; tail -30 $O/ncu-base.txt
save; echo "t $(( $(date +%s) - T0 ))"
