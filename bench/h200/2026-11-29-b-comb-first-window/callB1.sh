#!/usr/bin/env bash
# call B1 (one H200): make -B kernels-fatbin of the working tree (the comb without window 0's addition);
# the CPU twin against the new comb and combvt pair entry points (100,000 items a curve); ecmul verify
# --op base, sign and ecdsa with it; compute-sanitizer on the comb entry points; the harness, old
# (committed fatbin) against new, 3 alternated rounds at 2^20 items.
set -u -o pipefail
T0=$(date +%s); O=/tmp/b1; V=/tmp/b1vec; mkdir -p $O $V; save() { tar czf $OUT/b1.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/b1
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul $B/kernelvec $B/gpu.test; $B/ecmul version > $O/version.txt 2>&1
cp internal/kernels/ecmul.fatbin /tmp/old.fatbin
( make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(el)" > $O/fatbin.rc; cp internal/kernels/ecmul.fatbin $OUT/ecmul.fatbin ) &
(make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?")
for c in p224 p256 secp256k1; do for s in comb combvt; do $B/kernelvec -curve $c -schedule $s -channel-bits 30 -n 2048 -out $V/${c}_${s}_c30.bin > /dev/null; done; done
wait; cat $O/fatbin.rc; cp internal/kernels/ecmul.fatbin /tmp/new.fatbin; sha256sum /tmp/new.fatbin /tmp/old.fatbin | tee $O/sha256.txt
grep -E "Function properties for ecm_ladder_\w+_comb(vt)?_shenoy_pair_c30" -A2 $O/fatbin.log | grep -E "Function|spill|registers" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-200 | sort -u > $O/ptxas.txt
grep sm_90 $O/ptxas.txt | cut -c1-200; gzip -f $O/fatbin.log; save
export ECMUL_FATBIN=/tmp/new.fatbin
( ECMUL_GPU_ITEMS=100000 timeout 200 $B/gpu.test -test.run 'TestKernelMatchesCPUTwin/.*_comb(vt)?_shenoy_pair_c30' -test.v -test.timeout 195s > $O/twin-comb.log 2>&1; echo "twin rc $?" >> $O/twin-comb.log ) &
for c in p256 p224 secp256k1; do for op in base sign ecdsa; do n=40000; [ $op = base ] && n=100000
  timeout 60 $B/ecmul verify --curve $c --backend gpu --op $op --n $n > $O/verify-$c-$op.txt 2>&1; echo "verify $c $op n=$n rc $? $(tail -n1 $O/verify-$c-$op.txt) t $(el)"; done; done
wait; tail -n1 $O/twin-comb.log; grep -cE "^    --- PASS" $O/twin-comb.log; grep -E "^    --- FAIL|^(FAIL|ok)" $O/twin-comb.log | head -5; gzip -f $O/twin-comb.log; save; echo "t $(el)"
for s in comb combvt; do for tool in memcheck racecheck synccheck; do
  timeout 40 compute-sanitizer --tool $tool internal/kernels/harness/harness /tmp/new.fatbin p256_${s}_c30 $V/p256_${s}_c30.bin --quick 64 --batches 256 --only ecm_ladder_p256_${s}_shenoy_pair_c30 > $O/san-$tool-$s.log 2>&1
  echo "$tool p256 $s rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $O/san-$tool-$s.log | tr '\n' ' ')"
done; done | tee $O/sanitizer.txt; save; echo "t $(el)"
run() { # fatbin curve schedule
  internal/kernels/harness/harness /tmp/$1.fatbin ${2}_${3}_c30 $V/${2}_${3}_c30.bin --batches 1048576 --threads 128 --only ecm_ladder_${2}_${3}_shenoy_pair_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk -v tag="$1" '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%-4s %-42s %9.3f M/s\n", tag, $1, $5/1e6}' $O/h.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
}
for rep in 1 2 3; do for c in p224 p256 secp256k1; do for s in combvt comb; do for v in old new; do [ $(el) -gt 560 ] && break; run $v $c $s; done; done; done; done | tee $O/times.txt
echo "bit-exact $(grep -c bit-exact $O/harness-all.log) of $(grep -c '  verify' $O/harness-all.log)"; gzip -f $O/harness-all.log; save; echo "t $(el)"
