#!/usr/bin/env bash
# call K2: lazy additions on the pair mapping (sums below 2^32 read only by products left unreduced), the
# working tree after 03234ba; make -B kernels-fatbin; the CPU twin on the device (pair 100,000 items, every c30 entry
# 20,000); compute-sanitizer on the pair entry points; harness at 2^20 items, 3 alternated rounds, old
# (committed, call K1's) / new;
# SASS loop counts; gECC pmul.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wK2; mkdir -p $O/vec; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/k2
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/gpu.test $B/kernelvec
cp kernels/ecmul.fatbin /tmp/old.fatbin
make -B kernels-fatbin > $O/fatbin.log 2>&1 & (make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
(bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?") &
for c in p224 p256 secp256k1; do $B/kernelvec -curve $c -schedule coz -channel-bits 30 -n 2048 -out $O/vec/${c}_coz_c30.bin > /dev/null; done
wait; echo "builds in $(( $(date +%s) - T0 )) s"
cp kernels/ecmul.fatbin /tmp/new.fatbin; gzip -9 -c kernels/ecmul.fatbin > ${OUT:-/tmp}/ecmul.fatbin.gz
for l in fatbin; do
  grep -E "Function properties for ecm_ladder_\w+_pair_c30" -A2 $O/$l.log | grep -E "Function|spill|registers" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-170 | sed "s/^/$l /" | sort -u
done > $O/ptxas.txt; grep -E "coz_shenoy_pair" $O/ptxas.txt | cut -c1-200; save
export ECMUL_FATBIN=/tmp/new.fatbin
(ECMUL_GPU_ITEMS=100000 timeout 220 $B/gpu.test -test.run 'TestKernelMatchesCPUTwin/.*_pair_c30' -test.v -test.timeout 215s > $O/twin-pair.log 2>&1; echo "twin pair rc $?" >> $O/twin-pair.log
 ECMUL_GPU_ITEMS=20000 timeout 200 $B/gpu.test -test.run 'TestKernelMatchesCPUTwin/.*_c30' -test.v -test.timeout 195s > $O/twin-c30.log 2>&1; echo "twin c30 rc $?" >> $O/twin-c30.log) &
for c in p256 p224; do for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool kernels/harness/harness /tmp/new.fatbin ${c}_coz_c30 $O/vec/${c}_coz_c30.bin --quick 64 --batches 256 --only ecm_ladder_${c}_coz_shenoy_pair_c30 > $O/sanitizer-$tool-$c.log 2>&1
  echo "$tool $c pair rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $O/sanitizer-$tool-$c.log | tr '\n' ' ')"
done; done | tee $O/sanitizer.txt
for v in old new; do for c in p256:257 p224:225; do e=${c%%:*}; b=${c##*:}
  echo "$v $e $(cuobjdump -sass -arch sm_90 -fun ecm_ladder_${e}_coz_shenoy_pair_c30 /tmp/$v.fatbin | python3 kernels/harness/sass_loop.py 16 $b --hist | head -3 | tr '\n' ' ' | cut -c1-600)"
done; done | tee $O/sass-loop.txt
wait; for f in $O/twin-*.log; do tail -n1 $f; grep -cE "^    --- PASS" $f; grep -E "^    --- FAIL|^(FAIL|ok)" $f | head -5; done
save; echo "t $(( $(date +%s) - T0 ))"
run() { # fatbin curve
  kernels/harness/harness /tmp/$1.fatbin ${2}_coz_c30 $O/vec/${2}_coz_c30.bin --batches 1048576 --threads 128 --only ecm_ladder_${2}_coz_shenoy_pair_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk -v tag="$1" '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%-4s %-40s %9.3f M/s\n", tag, $1, $5/1e6}' $O/h.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
}
for rep in 1 2 3; do for c in p256 p224 secp256k1; do for v in old new; do run $v $c; done; done; done | tee $O/times.txt
echo "bit-exact $(grep -c bit-exact $O/harness-all.log) of $(grep -c '  verify' $O/harness-all.log)"
save; echo "t $(( $(date +%s) - T0 ))"
timeout 120 bash .dev/peers/gecc.sh $O/gecc pmul > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
save; echo "t $(( $(date +%s) - T0 ))"
