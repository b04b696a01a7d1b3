#!/usr/bin/env bash
# call WW: issue 23, a + 2^16·mid in frag_combine three ways. A/B/C at 2^20 items (harness, 128 threads, three
# alternated rounds) of the co-Z and combvt mma entry points of P-224 and P-256: base = 14f831e (mad_wide by 2^16),
# wide = PTX shl/shr and a carried add (ptxas makes one IMAD.WIDE of it), prmt = the shifts as PRMT byte moves.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wWW; mkdir -p $O/vec; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/c36
for f in $B/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/kernelvec
(make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
for v in base wide prmt; do
  (nvcc -O3 -std=c++17 -Xptxas -v -I $B/$v --fatbin -gencode arch=compute_90,code=sm_90 -o /tmp/$v.fatbin $B/four.cu > $O/build-$v.log 2>&1; echo "$v build rc $?") &
done
for c in p224 p256; do for s in coz combvt; do $B/kernelvec -curve $c -schedule $s -channel-bits 30 -n 2048 -out $O/vec/${c}_${s}_c30.bin > /dev/null; done; done
wait; echo "builds in $(( $(date +%s) - T0 )) s"
run() { # fatbin curve schedule tag
  kernels/harness/harness $1 ${2}_${3}_c30 $O/vec/${2}_${3}_c30.bin --batches 1048576 --threads 128 --only ecm_ladder_${2}_${3}_shenoy_mma_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk -v tag="$4" '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%-5s %-40s %9.3f M/s\n", tag, $1, $5/1e6}' $O/h.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
}
for rep in 1 2 3; do for c in p256 p224; do for s in coz combvt; do for v in base wide prmt; do
  run /tmp/$v.fatbin $c $s $v
done; done; done; done | tee $O/times.txt
echo "bit-exact $(grep -c bit-exact $O/harness-all.log) of $(grep -c '  verify' $O/harness-all.log)"
for v in base wide prmt; do for e in ecm_ladder_p256_coz_shenoy_mma_c30 ecm_ladder_p224_coz_shenoy_mma_c30; do
  echo "$v $e $(cuobjdump -sass -arch sm_90 -fun $e /tmp/$v.fatbin | python3 kernels/harness/sass_loop.py 8 257 --hist | head -2 | tr '\n' ' ' | cut -c1-400)"
done; done | tee $O/sass-loop.txt
save; echo "t $(( $(date +%s) - T0 ))"
