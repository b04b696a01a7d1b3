#!/usr/bin/env bash
# call A1: the pair mapping (16 items a warp) against the mma mapping, co-Z, 2^20 items, harness, 128 threads.
# pair at register caps 200, 232 and 255; mma from this source and from the committed fatbin.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wA1; mkdir -p $O/vec; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/c38
python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $B/kernelvec.xz && chmod +x $B/kernelvec
cp kernels/ecmul.fatbin /tmp/committed.fatbin
(make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
for r in 200 232 255; do
  (nvcc -O3 -std=c++17 -Xptxas -v -DECM_MAX_REGS=$r -I kernels --fatbin -gencode arch=compute_90,code=sm_90 -o /tmp/pair$r.fatbin $B/pair.cu > $O/build-pair$r.log 2>&1; echo "pair$r build rc $?") &
done
(nvcc -O3 -std=c++17 -Xptxas -v -I kernels --fatbin -gencode arch=compute_90,code=sm_90 -o /tmp/mma.fatbin $B/mma.cu > $O/build-mma.log 2>&1; echo "mma build rc $?") &
for c in p224 p256 secp256k1; do $B/kernelvec -curve $c -schedule coz -channel-bits 30 -n 2048 -out $O/vec/${c}_coz_c30.bin > /dev/null; done
wait; echo "builds in $(( $(date +%s) - T0 )) s"
for f in $O/build-*.log; do grep -E "Function properties for|spill|registers" $f | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-170 | sed "s|^|$(basename $f .log) |"; done | tee $O/ptxas.txt
save
run() { # fatbin curve mapping tag
  kernels/harness/harness $1 ${2}_coz_c30 $O/vec/${2}_coz_c30.bin --batches 1048576 --threads 128 --only ecm_ladder_${2}_coz_shenoy_${3}_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk -v tag="$4" '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%-9s %-40s %9.3f M/s\n", tag, $1, $5/1e6}' $O/h.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
}
for rep in 1 2; do for c in p256 p224; do
  run /tmp/committed.fatbin $c mma committed
  run /tmp/mma.fatbin $c mma mma
  for r in 200 232 255; do run /tmp/pair$r.fatbin $c pair pair$r; done
done; done | tee $O/times.txt
run /tmp/pair232.fatbin secp256k1 pair pair232 | tee -a $O/times.txt
echo "bit-exact $(grep -c bit-exact $O/harness-all.log) of $(grep -c '  verify' $O/harness-all.log)"
save; echo "t $(( $(date +%s) - T0 ))"
for f in pair232 mma; do for c in p256:257 p224:225; do e=${c%%:*}; b=${c##*:}; m=${f%232}; ipw=16; [ $m = mma ] && ipw=8
  echo "$f $e $(cuobjdump -sass -arch sm_90 -fun ecm_ladder_${e}_coz_shenoy_${m}_c30 /tmp/$f.fatbin | python3 kernels/harness/sass_loop.py $ipw $b --hist | head -3 | tr '\n' ' ' | cut -c1-500)"
done; done | tee $O/sass-loop.txt
save; echo "t $(( $(date +%s) - T0 ))"
