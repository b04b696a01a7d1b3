#!/usr/bin/env bash
# call Z: the comb with signed digits (Booth's recoding, 5-bit windows, 16 rows). Build the full fatbin;
# every entry point against the CPU twin; the harness at 2^20 on the comb mma entry points, the committed
# fatbin with unsigned 5-bit vectors (A) against the new one with signed ones (B), alternated twice.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wZ; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c16
for f in $B/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/*
cp kernels/ecmul.fatbin /tmp/A.fatbin
s=$(date +%s)
make -B kernels-fatbin > $O/fatbin.log 2>&1 & (make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
mkdir -p $O/vecA $O/vecB; for c in p224 p256 secp256k1; do for sc in coz comb; do
  $B/kernelvec-w5u -curve $c -schedule $sc -channel-bits 30 -n 2048 -out $O/vecA/${c}_${sc}_c30.bin > /dev/null
  $B/kernelvec -curve $c -schedule $sc -channel-bits 30 -n 2048 -out $O/vecB/${c}_${sc}_c30.bin > /dev/null; done; done
wait; echo "builds in $(( $(date +%s) - s )) s"
cp kernels/ecmul.fatbin /tmp/B.fatbin; gzip -9 -c kernels/ecmul.fatbin > ${OUT:-/tmp}/ecmul.fatbin.gz
grep -E "Function properties for ecm_ladder_\w+_comb_shenoy_\w+_c30" -A2 $O/fatbin.log | grep -E "Function|spill|registers" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-150 | tee $O/ptxas-comb.txt | head -6
save
export ECMUL_FATBIN=/tmp/B.fatbin
ECMUL_GPU_ITEMS=4000 timeout 150 $B/gpu.test -test.run 'TestKernelMatchesCPUTwin' -test.v -test.timeout 145s > $O/twin.log 2>&1; echo "twin rc $?"; grep -cE "^    --- PASS" $O/twin.log; grep -E "^(--- |FAIL|ok|PASS)|--- FAIL" $O/twin.log | tail -4
save
for r in 1 2; do for c in p224 p256 secp256k1; do for sc in comb; do for v in A B; do
  [ $sc = coz ] && [ $r -gt 1 ] && continue
  kernels/harness/harness /tmp/$v.fatbin ${c}_${sc}_c30 $O/vec$v/${c}_${sc}_c30.bin --batches 1048576 --threads 128 --only ecm_ladder_${c}_${sc}_shenoy_mma_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk -v f=$v -v r=$r '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%s run %s %-40s %8.3f M/s\n", f, r, $1, $5/1e6}' $O/h.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
done; done; done; done | tee $O/times.txt
save
save
