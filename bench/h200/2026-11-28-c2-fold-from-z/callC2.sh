#!/usr/bin/env bash
# call C2: the wide fold from z's register pair and −m kept (Channel<30>), the lazy marks past the first swap:
# make -B kernels-fatbin; every c30 entry point against the CPU twin (20,000 items; pair 100,000); compute-sanitizer
# on the pair entry points; the harness at 2^20 items A/B against the committed fatbin (3 alternated rounds, pair,
# co-Z, every curve); SASS loop counts; gECC pmul in the same call.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wC2; mkdir -p $O/vec; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c2
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*
git show HEAD:kernels/ecmul.fatbin > /tmp/old.fatbin
make -B kernels-fatbin > $O/fatbin.log 2>&1 & (make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
(bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?") &
for c in p224 p256 secp256k1; do $B/kernelvec -curve $c -schedule coz -channel-bits 30 -n 2048 -out $O/vec/${c}_coz_c30.bin > /dev/null; done
wait; echo "builds in $(( $(date +%s) - T0 )) s"
cp kernels/ecmul.fatbin /tmp/new.fatbin; gzip -9 -c kernels/ecmul.fatbin > ${OUT:-/tmp}/ecmul.fatbin.gz
grep -E "Function properties for ecm_ladder_\w+_c30" -A2 $O/fatbin.log | grep -E "Function|spill|registers" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-170 > $O/ptxas.txt
grep -E "coz_shenoy_pair_c30" $O/ptxas.txt | tail -n 6; save
export ECMUL_FATBIN=/tmp/new.fatbin
(ECMUL_GPU_ITEMS=100000 timeout 200 $B/gpu.test -test.run 'TestKernelMatchesCPUTwin/.*_pair_c30' -test.v -test.timeout 195s > $O/twin-pair.log 2>&1; echo "twin pair rc $?" >> $O/twin-pair.log
 ECMUL_GPU_ITEMS=20000 timeout 200 $B/gpu.test -test.run 'TestKernelMatchesCPUTwin/.*_c30' -test.v -test.timeout 195s > $O/twin-c30.log 2>&1; echo "twin c30 rc $?" >> $O/twin-c30.log) &
for c in p256 p224; do for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool kernels/harness/harness /tmp/new.fatbin ${c}_coz_c30 $O/vec/${c}_coz_c30.bin --quick 64 --batches 256 --only ecm_ladder_${c}_coz_shenoy_pair_c30 > $O/sanitizer-$tool-$c.log 2>&1
  echo "$tool $c pair rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $O/sanitizer-$tool-$c.log | tr '\n' ' ')"
done; done | tee $O/sanitizer.txt
for v in old new; do for c in p256:257 p224:225; do e=${c%%:*}; b=${c##*:}
  cuobjdump -sass -arch sm_90 -fun ecm_ladder_${e}_coz_shenoy_pair_c30 /tmp/$v.fatbin > $O/sass-$v-$e.txt
  echo "$v $e $(python3 kernels/harness/sass_loop.py 16 $b --hist < $O/sass-$v-$e.txt | head -3 | tr '\n' ' ' | cut -c1-500)"
done; done | tee $O/sass-loop.txt
gzip -9 $O/sass-*-p256.txt $O/sass-*-p224.txt
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
