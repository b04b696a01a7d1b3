#!/usr/bin/env bash
# call RR (commit 0427eba): issue 23, the mma mapping's occupancy. The harness at 2^20 items on the committed
# fatbin's co-Z mma entry points at blocks of 32, 64, 96 and 128 threads; then fatbins of the P-224 and P-256
# co-Z mma entry points alone with register caps 152 (as committed), 128 and 112, timed at 32 and 128 threads.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wRR; mkdir -p $O/vec; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/c32
for f in $B/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/ecmul $B/kernelvec
(make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
for r in 152 128 112; do
  (nvcc -O3 -std=c++17 -Xptxas -v -DECM_MAX_REGS=$r -I kernels --fatbin -gencode arch=compute_90,code=sm_90 \
    -o /tmp/cap$r.fatbin $B/only_mma.cu > $O/build$r.log 2>&1; echo "cap $r build rc $?") &
done
for c in p224 p256 secp256k1; do $B/kernelvec -curve $c -schedule coz -channel-bits 30 -n 2048 -out $O/vec/${c}_coz_c30.bin > /dev/null; done
wait; echo "builds in $(( $(date +%s) - T0 )) s"
for r in 152 128 112; do grep -E "Function properties for ecm_ladder_\w+_mma_c30" -A2 $O/build$r.log | grep -E "spill|registers" | paste - - | sed -E 's/ptxas info *: //g' | cut -c1-160 | sed "s/^/cap $r: /"; done | tee $O/ptxas.txt
run() { # fatbin curve threads tag
  kernels/harness/harness $1 ${2}_coz_c30 $O/vec/${2}_coz_c30.bin --batches 1048576 --threads $3 --only ecm_ladder_${2}_coz_shenoy_mma_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk -v tag="$4" '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%-10s %-40s threads %4s %8.3f M/s\n", tag, $1, $2, $5/1e6}' $O/h.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
}
for c in p256 p224 secp256k1; do for t in 128 32 64 96; do run kernels/ecmul.fatbin $c $t committed; done; done | tee $O/times.txt
save; echo "t $(( $(date +%s) - T0 ))"
for rep in 1 2; do for r in 152 128 112; do for c in p256 p224; do for t in 128 32; do
  [ -f /tmp/cap$r.fatbin ] && run /tmp/cap$r.fatbin $c $t cap$r
done; done; done; done | tee -a $O/times.txt
save; echo "t $(( $(date +%s) - T0 ))"
