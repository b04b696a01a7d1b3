#!/usr/bin/env bash
# call G2: the combs on the pair mapping (kernels of the working tree after c0ad8cf), built with make -B kernels-fatbin;
# the comb and combvt entry points (pair and mma) against the CPU twin (100,000 items), compute-sanitizer on the pair
# combs, the harness at 2^20 items: comb and combvt on pair against mma, and the co-Z pair ladder (3 alternated
# rounds), SASS loop counts, gECC pmul and fixed, then ecmul bench --op mul,base,ecdsa at 2^22 on the new fatbin.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wG2; mkdir -p $O/vec; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c42
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*
make -B kernels-fatbin > $O/fatbin.log 2>&1 & (make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
(bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $?") &
for c in p224 p256 secp256k1; do for s in coz comb combvt; do $B/kernelvec -curve $c -schedule $s -channel-bits 30 -n 2048 -out $O/vec/${c}_${s}_c30.bin > /dev/null; done; done
wait; echo "builds in $(( $(date +%s) - T0 )) s"
cp kernels/ecmul.fatbin /tmp/new.fatbin; gzip -9 -c kernels/ecmul.fatbin > ${OUT:-/tmp}/ecmul.fatbin.gz
grep -E "Function properties for ecm_ladder_\w+_c30" -A2 $O/fatbin.log | grep -E "Function|spill|registers" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-170 > $O/ptxas.txt
grep -E "comb(vt)?_shenoy_(pair|mma)_c30" $O/ptxas.txt; save
export ECMUL_FATBIN=/tmp/new.fatbin
(ECMUL_GPU_ITEMS=100000 timeout 240 $B/gpu.test -test.run 'TestKernelMatchesCPUTwin/.*_comb(vt)?_shenoy_(pair|mma)_c30' -test.v -test.timeout 235s > $O/twin-comb.log 2>&1; echo "twin comb rc $?" >> $O/twin-comb.log) &
for c in p256; do for s in comb combvt; do for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool kernels/harness/harness /tmp/new.fatbin ${c}_${s}_c30 $O/vec/${c}_${s}_c30.bin --quick 64 --batches 256 --only ecm_ladder_${c}_${s}_shenoy_pair_c30 > $O/sanitizer-$tool-$c-$s.log 2>&1
  echo "$tool $c $s pair rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $O/sanitizer-$tool-$c-$s.log | tr '\n' ' ')"
done; done; done | tee $O/sanitizer.txt
for c in p256:257 p224:225; do e=${c%%:*}; b=${c##*:}; for m in pair mma; do
  echo "comb $m $e $(cuobjdump -sass -arch sm_90 -fun ecm_ladder_${e}_comb_shenoy_${m}_c30 /tmp/new.fatbin | python3 kernels/harness/sass_loop.py 16 $b | head -2 | tr '\n' ' ' | cut -c1-300)"
done; done | tee $O/sass-loop.txt
wait; tail -n1 $O/twin-comb.log; grep -cE "^    --- PASS" $O/twin-comb.log; grep -E "^    --- FAIL|^(FAIL|ok)" $O/twin-comb.log | head -5
save; echo "t $(( $(date +%s) - T0 ))"
run() { # curve schedule mapping
  kernels/harness/harness /tmp/new.fatbin ${1}_${2}_c30 $O/vec/${1}_${2}_c30.bin --batches 1048576 --threads 128 --only ecm_ladder_${1}_${2}_shenoy_${3}_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%-44s %9.3f M/s\n", $1, $5/1e6}' $O/h.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
}
for rep in 1 2 3; do for c in p256 p224 secp256k1; do for s in comb combvt; do for m in mma pair; do run $c $s $m; done; done; run $c coz pair; done; done | tee $O/times.txt
echo "bit-exact $(grep -c bit-exact $O/harness-all.log) of $(grep -c '  verify' $O/harness-all.log)"
save; echo "t $(( $(date +%s) - T0 ))"
timeout 100 bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
save; left=$(( 575 - ($(date +%s) - T0) )); echo "bench gets $left s"
timeout $left $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul,base,ecdsa --batch 4194304 --reps 3 \
  --gpu-peers $O/gecc.txt --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $?"; grep -vE "^\s*$" $O/bench.txt | tail -14
save; echo "t $(( $(date +%s) - T0 ))"
