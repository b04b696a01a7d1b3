#!/usr/bin/env bash
# call F3: the combs on the refactored mma code (commit 5675335's fatbin): the comb and combvt mma entry points
# against the CPU twin on 100,000 items per curve, and timed at 2^20 items against the fatbin of 5a86896
# (two alternated rounds), P-256 and P-224.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wF3; mkdir -p $O/vec; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/c41
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/kernelvec $B/gpu.test
(make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
for c in p224 p256; do for s in comb combvt; do $B/kernelvec -curve $c -schedule $s -channel-bits 30 -n 2048 -out $O/vec/${c}_${s}_c30.bin > /dev/null; done; done
(ECMUL_GPU_ITEMS=100000 timeout 200 $B/gpu.test -test.run 'TestKernelMatchesCPUTwin/.*_comb(vt)?_shenoy_mma_c30' -test.v -test.timeout 195s > $O/twin.log 2>&1; echo "twin rc $?" >> $O/twin.log) &
wait; echo "t $(( $(date +%s) - T0 ))"; tail -n1 $O/twin.log; grep -E "^    --- (PASS|FAIL)|^(FAIL|ok|PASS)" $O/twin.log
save
run() { # fatbin curve schedule tag
  kernels/harness/harness $1 ${2}_${3}_c30 $O/vec/${2}_${3}_c30.bin --batches 1048576 --threads 128 --only ecm_ladder_${2}_${3}_shenoy_mma_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk -v tag="$4" '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%-4s %-42s %9.3f M/s\n", tag, $1, $5/1e6}' $O/h.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
}
for rep in 1 2; do for c in p256 p224; do for s in comb combvt; do
  run $B/old.fatbin $c $s old; run kernels/ecmul.fatbin $c $s new
done; done; done | tee $O/times.txt
echo "bit-exact $(grep -c bit-exact $O/harness-all.log) of $(grep -c '  verify' $O/harness-all.log)"
save; echo "t $(( $(date +%s) - T0 ))"
