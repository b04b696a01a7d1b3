#!/usr/bin/env bash
# call XX: the full fatbin with frag_combine's byte moves on P-224 (kernels of the working tree over 14f831e).
# Build it; the mma entry points against the CPU twin (gpu.test, 20,000 items); compute-sanitizer on the P-224 mma
# entry points; the harness at 2^20 on every mma entry point; gECC k·P; ecmul bench at 2^22 (mul, base, ecdsa;
# binaries of 0427eba, whose Go code is this tree's, with ECMUL_FATBIN and gECC as --gpu-peers); verify.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wXX; mkdir -p $O/vec; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c37
for f in $B/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/*
make -B kernels-fatbin > $O/fatbin.log 2>&1 & (make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
(bash .dev/peers/gecc.sh $O/gecc-warm pmul > $O/gecc-warm.txt 2>&1; echo "gecc build rc $?") &
for c in p224 p256 secp256k1; do for s in coz comb combvt; do $B/kernelvec -curve $c -schedule $s -channel-bits 30 -n 2048 -out $O/vec/${c}_${s}_c30.bin > /dev/null; done; done
wait; echo "builds in $(( $(date +%s) - T0 )) s"
ls -la kernels/ecmul.fatbin; cp kernels/ecmul.fatbin /tmp/X.fatbin; gzip -9 -c kernels/ecmul.fatbin > ${OUT:-/tmp}/ecmul.fatbin.gz
grep -E "Function properties for ecm_ladder_\w+_mma_c30" -A2 $O/fatbin.log | grep -E "Function|spill|registers" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-170 > $O/ptxas-mma.txt
save
export ECMUL_FATBIN=/tmp/X.fatbin
ECMUL_GPU_ITEMS=20000 timeout 150 $B/gpu.test -test.run 'TestKernelMatchesCPUTwin/.*_mma_' -test.v -test.timeout 145s > $O/twin.log 2>&1; echo "twin rc $?"; grep -cE "^    --- PASS" $O/twin.log; grep -E "^(--- |FAIL|ok|PASS)|--- FAIL" $O/twin.log | tail -4
for s in coz combvt; do for tool in racecheck memcheck; do
  timeout 60 compute-sanitizer --tool $tool kernels/harness/harness /tmp/X.fatbin p224_${s}_c30 $O/vec/p224_${s}_c30.bin --quick 64 --batches 256 --only ecm_ladder_p224_${s}_shenoy_mma_c30 > $O/sanitizer-$tool-$s.log 2>&1
  echo "$tool p224 $s rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $O/sanitizer-$tool-$s.log | tr '\n' ' ')"
done; done | tee $O/sanitizer.txt
(timeout 60 $B/ecmul verify --curve p224 --backend gpu --n 100000 > $O/verify-p224-mul.txt 2>&1; echo "rc $?" >> $O/verify-p224-mul.txt) &
(timeout 60 $B/ecmul verify --curve p224 --backend gpu --op ecdsa --n 20000 > $O/verify-p224-ecdsa.txt 2>&1; echo "rc $?" >> $O/verify-p224-ecdsa.txt) &
wait; tail -n2 $O/verify-p224-*.txt
save; echo "t $(( $(date +%s) - T0 ))"
for c in p256 p224 secp256k1; do for s in coz comb combvt; do
  kernels/harness/harness /tmp/X.fatbin ${c}_${s}_c30 $O/vec/${c}_${s}_c30.bin --batches 1048576 --threads 128 --only ecm_ladder_${c}_${s}_shenoy_mma_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%-40s %9.3f M/s\n", $1, $5/1e6}' $O/h.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
done; done | tee $O/times.txt
echo "bit-exact $(grep -c bit-exact $O/harness-all.log) of $(grep -c '  verify' $O/harness-all.log)"
save; echo "t $(( $(date +%s) - T0 ))"
timeout 90 bash .dev/peers/gecc.sh $O/gecc pmul > $O/gecc.txt 2>&1; echo "gecc rc $?"; grep "op/s" $O/gecc.txt
save; echo "t $(( $(date +%s) - T0 ))"
left=$(( 560 - ($(date +%s) - T0) )); echo "bench gets $left s"
timeout $left $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul,base,ecdsa --batch 4194304 --reps 3 \
  --gpu-peers $O/gecc.txt --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $?"; grep -E "^ +(P-|secp)" $O/bench.txt
save; echo "t $(( $(date +%s) - T0 ))"
