#!/usr/bin/env bash
# call F1: the fatbin of the pair mapping (make -B kernels-fatbin), checked and timed: every co-Z pair and mma entry
# point against the CPU twin on 100,000 items per curve (gpu.test), compute-sanitizer on the pair entry points, the
# harness at 2^20 items (3 alternated rounds, pair and mma, every curve), gECC's k·P in the same call, SASS counts.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wF1; mkdir -p $O/vec; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c39
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*
make -B kernels-fatbin > $O/fatbin.log 2>&1 & (make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
(bash .dev/peers/gecc.sh $O/gecc-warm pmul > $O/gecc-warm.txt 2>&1; echo "gecc build rc $?") &
for c in p224 p256 secp256k1; do $B/kernelvec -curve $c -schedule coz -channel-bits 30 -n 2048 -out $O/vec/${c}_coz_c30.bin > /dev/null; done
wait; echo "builds in $(( $(date +%s) - T0 )) s"
ls -la kernels/ecmul.fatbin; cp kernels/ecmul.fatbin /tmp/X.fatbin; gzip -9 -c kernels/ecmul.fatbin > ${OUT:-/tmp}/ecmul.fatbin.gz
grep -E "Function properties for ecm_ladder_\w+_coz_shenoy_(pair|mma)_c30" -A2 $O/fatbin.log | grep -E "Function|spill|registers" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-170 > $O/ptxas.txt
tail -n 12 $O/ptxas.txt; save
export ECMUL_FATBIN=/tmp/X.fatbin
(ECMUL_GPU_ITEMS=100000 timeout 230 $B/gpu.test -test.run 'TestKernelMatchesCPUTwin/.*_coz_shenoy_(pair|mma)_c30' -test.v -test.timeout 225s > $O/twin.log 2>&1; echo "twin rc $?" >> $O/twin.log) &
for c in p256 p224; do for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool kernels/harness/harness /tmp/X.fatbin ${c}_coz_c30 $O/vec/${c}_coz_c30.bin --quick 64 --batches 256 --only ecm_ladder_${c}_coz_shenoy_pair_c30 > $O/sanitizer-$tool-$c.log 2>&1
  echo "$tool $c pair rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $O/sanitizer-$tool-$c.log | tr '\n' ' ')"
done; done | tee $O/sanitizer.txt
wait; tail -n1 $O/twin.log; grep -cE "^    --- PASS" $O/twin.log; grep -E "^    --- (PASS|FAIL)|^(FAIL|ok|PASS)" $O/twin.log | tail -8
save; echo "t $(( $(date +%s) - T0 ))"
run() { # curve mapping
  kernels/harness/harness /tmp/X.fatbin ${1}_coz_c30 $O/vec/${1}_coz_c30.bin --batches 1048576 --threads 128 --only ecm_ladder_${1}_coz_shenoy_${2}_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%-40s %9.3f M/s\n", $1, $5/1e6}' $O/h.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
}
for rep in 1 2 3; do for c in p256 p224 secp256k1; do for m in pair mma; do run $c $m; done; done; done | tee $O/times.txt
echo "bit-exact $(grep -c bit-exact $O/harness-all.log) of $(grep -c '  verify' $O/harness-all.log)"
save; echo "t $(( $(date +%s) - T0 ))"
timeout 100 bash .dev/peers/gecc.sh $O/gecc pmul > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
for c in p256:257 p224:225; do e=${c%%:*}; b=${c##*:}
  echo "pair $e $(cuobjdump -sass -arch sm_90 -fun ecm_ladder_${e}_coz_shenoy_pair_c30 /tmp/X.fatbin | python3 kernels/harness/sass_loop.py 16 $b --hist | head -3 | tr '\n' ' ' | cut -c1-500)"
done | tee $O/sass-loop.txt
save; echo "t $(( $(date +%s) - T0 ))"
