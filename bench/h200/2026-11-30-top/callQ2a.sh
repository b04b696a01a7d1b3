#!/usr/bin/env bash
# call Q2a (one H200): b32e8fa (B̃ ending with 2^30) checked end to end: ecmul verify on every curve
# (mul 300,000, base and ecdsa 100,000, sign 40,000 items; mul on the paper's ladder, the block
# mapping, 100,000), the Wycheproof tests of the root and ecdsa packages on the gpu backend,
# compute-sanitizer memcheck, racecheck and synccheck on P-256 k·P (pair, 20,000 items) and P-224 on
# the paper's ladder (block); gECC built meanwhile for call Q2b. The binaries load the committed
# fatbin (ECMUL_FATBIN).
set -u -o pipefail
T0=$(date +%s); O=/tmp/q2a; mkdir -p $O; save() { tar cJf $OUT/q2a.txz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt; openssl version | tee -a $O/device.txt
B=.dev/q2
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
for f in ecmul root.test ecdsa.test; do xz -dc $B/$f.xz > $B/$f && chmod +x $B/$f; done
$B/ecmul version > $O/version.txt 2>&1; head -3 $O/version.txt
mkdir -p .dev/p && tar xJf $B/peers.txz -C .dev/p
export GECC_BUILD=$PWD/.dev/gecc-build
( timeout 250 bash .dev/p/peers/gecc.sh .dev/gecc-b build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(el)" > $O/gecc-build.rc ) &
GB=$!
v() { # tag curve op n [flags]
  local tag=$1 c=$2 op=$3 n=$4; shift 4
  timeout 90 $B/ecmul verify --backend gpu --curve $c --op $op --n $n --chunk 65536 "$@" > $O/verify-$c-$tag.txt 2>&1
  echo "verify $c $tag $n rc $? $(tail -2 $O/verify-$c-$tag.txt | tr '\n' ' ' | cut -c1-120) t $(el)"
}
for c in p224 p256 secp256k1; do v mul $c mul 300000; v base $c base 100000; v ecdsa $c ecdsa 100000; v sign $c sign 40000; v mul-paper $c mul 100000 --schedule paper; done | tee $O/verify.txt
save
for t in root ecdsa; do
  timeout 120 $B/$t.test -test.run 'Wycheproof' -test.v > $O/wycheproof-$t.txt 2>&1; echo "wycheproof $t rc $? $(grep -cE '^\s*--- PASS' $O/wycheproof-$t.txt) passed $(grep -cE '^\s*--- (FAIL|SKIP)' $O/wycheproof-$t.txt) failed or skipped t $(el)"
done | tee $O/wycheproof.txt
grep -E "gpu" $O/wycheproof-*.txt | grep -E "PASS|SKIP|FAIL" | head -20
save
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 --print-limit 20 $B/ecmul verify --backend gpu --curve p256 --op mul --n 20000 --chunk 20000 > $O/san-$tool-p256.txt 2>&1
  echo "sanitizer $tool p256 pair rc $? $(grep -E 'ERROR SUMMARY' $O/san-$tool-p256.txt) t $(el)"
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 --print-limit 20 $B/ecmul verify --backend gpu --curve p224 --op mul --schedule paper --n 20000 --chunk 20000 > $O/san-$tool-p224-paper.txt 2>&1
  echo "sanitizer $tool p224 paper rc $? $(grep -E 'ERROR SUMMARY' $O/san-$tool-p224-paper.txt) t $(el)"
  [ $(el) -gt 480 ] && break
done | tee $O/sanitizer.txt
wait $GB; cat $O/gecc-build.rc
save; echo "t $(el)"
