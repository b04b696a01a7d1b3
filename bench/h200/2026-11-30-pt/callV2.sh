#!/usr/bin/env bash
# call V2 (one H200): f02b03c (P̃_j·T_j on the tensor cores) checked end to end: ecmul verify on every
# curve (mul 300,000, base and ecdsa 100,000, sign 40,000 items: every op that runs the pair mapping),
# the Wycheproof tests of the root and ecdsa packages on the gpu backend, the pair entry points
# against the CPU twin at 100,000 items (TestKernelMatchesCPUTwin) as far as time allows; first, the
# P-256 co-Z pair entry point at register caps of 255 (as committed: 211 used), 184 and 168 (three
# warps a scheduler), sm_90 builds of f02b03c's sources, timed by the harness at 2^20 items (128 and
# 64 threads), three alternated rounds. The binaries load the committed fatbin (ECMUL_FATBIN).
set -u -o pipefail
T0=$(date +%s); O=/tmp/v2; mkdir -p $O/vec $O/fb; save() { tar cJf $OUT/v2.txz -C $O --exclude=vec --exclude=fb .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/v2
export ECMUL_FATBIN=$PWD/internal/kernels/ecmul.fatbin
for f in ecmul root.test ecdsa.test gpu.test kv; do xz -dc $B/$f.xz > $B/$f && chmod +x $B/$f; done
$B/ecmul version > $O/version.txt 2>&1; head -3 $O/version.txt
rm -rf /tmp/src && cp -r internal/kernels /tmp/src
python3 - /tmp/src <<'PY'
import re, sys
d = sys.argv[1]
p = d + '/schedule_gen.cuh'; s = open(p).read()
a = s.index('#define ECM_ENTRIES(ENTRY)')
lines = s[a:].split('\n'); k = next(i for i, l in enumerate(lines) if not l.rstrip().endswith('\\'))
b = a + len('\n'.join(lines[:k + 1]))
keep = [l.rstrip(' \\') for l in lines[1:k + 1] if 'p256, P256, coz, Coz, shenoy, Shenoy, pair' in l and ', c30,' in l]
s = s[:a] + '#define ECM_ENTRIES(ENTRY) \\\n' + ' \\\n'.join(keep) + s[b:]
open(p, 'w').write(s)
p = d + '/ecmul.cu'; s = open(p).read()
s = re.sub(r'#include "(prepare|finish|wire|verify|sign)\.cuh"\n', '', s); open(p, 'w').write(s)
PY
grep "ENTRY(p" /tmp/src/schedule_gen.cuh
for cap in 255 184 168; do
  rm -rf /tmp/src-$cap && cp -r /tmp/src /tmp/src-$cap && sed -i "s/pair, Pair, c30, 2, 3, 255, 0/pair, Pair, c30, 2, 3, $cap, 0/" /tmp/src-$cap/schedule_gen.cuh
  grep -c "3, $cap, 0" /tmp/src-$cap/schedule_gen.cuh
  nvcc -std=c++17 -O3 -Xptxas -v --fatbin -gencode arch=compute_90,code=sm_90 -o $O/fb/r$cap.fatbin /tmp/src-$cap/ecmul.cu > $O/build-r$cap.log 2>&1 || echo "build $cap failed" &
done
make kernels-harness > $O/harness-build.log 2>&1 || echo "harness build failed"
$B/kv -curve p256 -schedule coz -channel-bits 30 -n 1024 -out $O/vec/p256_coz_c30.bin > /dev/null
for t in root ecdsa; do
  timeout 120 $B/$t.test -test.run 'Wycheproof' -test.v > $O/wycheproof-$t.txt 2>&1; echo "wycheproof $t rc $? $(grep -cE '^\s*--- PASS' $O/wycheproof-$t.txt) passed $(grep -cE '^\s*--- (FAIL|SKIP)' $O/wycheproof-$t.txt) failed or skipped t $(el)"
done | tee $O/wycheproof.txt
wait; echo "builds t $(el)"
for cap in 255 184 168; do grep -A2 "Function properties for ecm_ladder" $O/build-r$cap.log | grep -oE "Used [0-9]+ registers|[0-9]+ bytes spill stores" | tr '\n' ' ' | sed "s/^/r$cap /"; echo; done | tee $O/regs.txt
run() { # cap threads round
  internal/kernels/harness/harness $O/fb/r$1.fatbin p256_coz_c30 $O/vec/p256_coz_c30.bin --only ecm_ladder_p256_coz_shenoy_pair_c30 --batches 1048576 --threads $2 > $O/h.log 2>&1
  cat $O/h.log >> $O/timing-all.log
  awk -v tag="r$1 t$2 r$3" '/^  time/ {printf "%-14s %-40s %4s %8s %9s ms %9s M/s\n", tag, $2, $4, $6, $7, $9}' $O/h.log
  grep -E "MISMATCH|rror" $O/h.log | head -2
}
for r in 1 2 3; do for cap in 255 184 168; do for th in 128 64; do run $cap $th $r; done; done; done | tee $O/times.txt
echo "timing bit-exact $(grep -c bit-exact $O/timing-all.log), mismatched $(grep -c MISMATCH $O/timing-all.log)"
save
v() { # tag curve op n
  timeout 100 $B/ecmul verify --backend gpu --curve $2 --op $3 --n $4 --chunk 65536 > $O/verify-$2-$1.txt 2>&1
  echo "verify $2 $1 $4 rc $? $(tail -2 $O/verify-$2-$1.txt | tr '\n' ' ' | cut -c1-150) t $(el)"
}
for c in p224 p256 secp256k1; do v mul $c mul 300000; v base $c base 100000; v ecdsa $c ecdsa 100000; v sign $c sign 40000; done | tee $O/verify.txt
save
left=$(( 585 - $(el) ))
[ $left -gt 30 ] && { ECMUL_GPU_ITEMS=100000 timeout $left $B/gpu.test -test.run 'TestKernelMatchesCPUTwin/.*_pair_c30' -test.v -test.timeout $(( left - 3 ))s > $O/twin-pair.log 2>&1; echo "twin pair rc $? passed $(grep -cE '^    --- PASS' $O/twin-pair.log) failed $(grep -cE '^    --- FAIL' $O/twin-pair.log) t $(el)"; grep -E "^    --- " $O/twin-pair.log | head -12; }
save; echo "t $(el)"
