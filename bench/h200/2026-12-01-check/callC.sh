#!/usr/bin/env bash
# call C (one H200): the committed kernel (HEAD's fatbin, whose sources are ae834fa's) checked for
# issue 43: every entry point against the CPU twin at 100,000 random items
# (TestKernelMatchesCPUTwin, the 30-bit entry points first, then the 16-bit ones as time allows);
# meanwhile compute-sanitizer memcheck, racecheck and synccheck on P-224's and P-256's co-Z pair,
# block and warp entry points through the harness (--quick 64 --batches 256; 128 threads, block
# 504 and 510); then, once the twin is done, ecmul verify --backend gpu --op base and sign on every curve as
# time allows.
set -u -o pipefail
T0=$(date +%s); O=/tmp/c; mkdir -p $O/vec
save() { tar cJf $OUT/c.txz -C $O --exclude=vec .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/w
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
sha256sum internal/kernels/ecmul.fatbin | tee $O/fatbin.sha256
for f in ecmul gpu.test kv; do xz -dc $B/$f.xz > $B/$f && chmod +x $B/$f; done
$B/ecmul version > $O/version.txt 2>&1; head -3 $O/version.txt
twin() { # tag pattern seconds
  ECMUL_GPU_ITEMS=100000 timeout $3 $B/gpu.test -test.run "TestKernelMatchesCPUTwin/$2" -test.v -test.timeout $(( $3 - 3 ))s > $O/twin-$1.log 2>&1
  echo "twin $1 rc $? passed $(grep -cE '^    --- PASS' $O/twin-$1.log) failed $(grep -cE '^    --- FAIL' $O/twin-$1.log) t $(el)"
}
( twin c30 '.*_c30$' 330; twin c16 '.*_c16$' $(( 560 - $(el) )) ) > $O/twin.txt 2>&1 &
TW=$!
make kernels-harness > $O/harness-build.log 2>&1 || echo "harness build failed"
for c in p224 p256; do $B/kv -curve $c -schedule coz -channel-bits 30 -n 1024 -out $O/vec/${c}_coz_c30.bin > /dev/null; done
echo "harness and vectors t $(el)"
for c in p256 p224; do for m in pair block warp; do for tool in memcheck racecheck synccheck; do
  [ $(el) -gt 450 ] && { echo "sanitizer stopped at $tool $c $m"; break 3; }
  th=128; [ $m = block ] && th=$([ $c = p256 ] && echo 510 || echo 504)
  timeout 90 compute-sanitizer --tool $tool internal/kernels/harness/harness internal/kernels/ecmul.fatbin ${c}_coz_c30 $O/vec/${c}_coz_c30.bin --quick 64 --batches 256 --threads $th --only ecm_ladder_${c}_coz_shenoy_${m}_c30 > $O/sanitizer-$tool-$c-$m.log 2>&1
  echo "$tool $c $m rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' $O/sanitizer-$tool-$c-$m.log | tr '\n' ' ') $(grep -cE 'bit-exact' $O/sanitizer-$tool-$c-$m.log) bit-exact t $(el)"
done; done; done | tee $O/sanitizer.txt
save
v() { # curve op n
  left=$(( 555 - $(el) )); [ $left -lt 25 ] && { echo "verify $1 $2 skipped"; return; }
  timeout $left $B/ecmul verify --backend gpu --curve $1 --op $2 --n $3 > $O/verify-$1-$2.txt 2>&1
  echo "verify $1 $2 $3 rc $? $(tail -1 $O/verify-$1-$2.txt | cut -c1-150) t $(el)"
}
wait $TW; cat $O/twin.txt
for op in base sign; do for c in p224 p256 secp256k1; do v $c $op $([ $op = base ] && echo 100000 || echo 40000); done; done | tee $O/verify.txt
for f in $O/twin-c30.log $O/twin-c16.log; do grep -E "^(--- |ok|FAIL|PASS)|^    --- FAIL" $f; done
save; echo "t $(el)"
