#!/usr/bin/env bash
# call A5: pair_combine as add_shl16 (2) against 32-bit halves (4): lo + 2^16·hi and (hi + lo/2^16)/2^16; cap 255; co-Z, 2^20 items.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wA5; mkdir -p $O/vec; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/c38
[ -x $B/kernelvec ] || { python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $B/kernelvec.xz && chmod +x $B/kernelvec; }
(make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
for v in 2 4; do
  (nvcc -O3 -std=c++17 -Xptxas -v -DECM_MAX_REGS=255 -DECM_PAIR_COMBINE=$v -I kernels --fatbin -gencode arch=compute_90,code=sm_90 -o /tmp/v$v.fatbin $B/pair.cu > $O/build-v$v.log 2>&1; echo "v$v build rc $?") &
done
for c in p224 p256; do $B/kernelvec -curve $c -schedule coz -channel-bits 30 -n 2048 -out $O/vec/${c}_coz_c30.bin > /dev/null; done
wait; echo "builds in $(( $(date +%s) - T0 )) s"
for f in $O/build-*.log; do grep -E "Function properties for ecm_ladder|spill|registers" $f | grep -A2 "ecm_ladder" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-170 | sed "s|^|$(basename $f .log) |"; done | grep -v secp | tee $O/ptxas.txt
run() { # fatbin curve tag threads
  kernels/harness/harness $1 ${2}_coz_c30 $O/vec/${2}_coz_c30.bin --batches 1048576 --threads $4 --only ecm_ladder_${2}_coz_shenoy_pair_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk -v tag="$3" '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%-6s %-40s %4d %9.3f M/s\n", tag, $1, $2, $5/1e6}' $O/h.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
}
for rep in 1 2 3; do for c in p256 p224; do for v in 2 4; do run /tmp/v$v.fatbin $c v$v 128; done; done; done | tee $O/times.txt
echo "bit-exact $(grep -c bit-exact $O/harness-all.log) of $(grep -c '  verify' $O/harness-all.log)"
for v in 2 4; do for c in p256:257 p224:225; do e=${c%%:*}; b=${c##*:}
  echo "v$v $e $(cuobjdump -sass -arch sm_90 -fun ecm_ladder_${e}_coz_shenoy_pair_c30 /tmp/v$v.fatbin | python3 kernels/harness/sass_loop.py 16 $b --hist | head -3 | tr '\n' ' ' | cut -c1-420)"
done; done | tee $O/sass-loop.txt
save; echo "t $(( $(date +%s) - T0 ))"
