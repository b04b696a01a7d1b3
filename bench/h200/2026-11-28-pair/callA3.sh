#!/usr/bin/env bash
# call A3: the pair mapping with add_shl16 (ECM_PAIR_COMBINE=2): register caps 168-255 against block sizes 32-128
# (warps per SM), and cswap by selects; co-Z, 2^20 items.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wA3; mkdir -p $O/vec; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/c38
[ -x $B/kernelvec ] || { python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $B/kernelvec.xz && chmod +x $B/kernelvec; }
(make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
for r in 168 184 200 216 255; do
  (nvcc -O3 -std=c++17 -Xptxas -v -DECM_MAX_REGS=$r -DECM_PAIR_COMBINE=2 -I kernels --fatbin -gencode arch=compute_90,code=sm_90 -o /tmp/r$r.fatbin $B/pair.cu > $O/build-r$r.log 2>&1; echo "r$r build rc $?") &
done
(nvcc -O3 -std=c++17 -Xptxas -v -DECM_MAX_REGS=255 -DECM_PAIR_COMBINE=2 -DECM_CSWAP_SELECT -I kernels --fatbin -gencode arch=compute_90,code=sm_90 -o /tmp/sel.fatbin $B/pair.cu > $O/build-sel.log 2>&1; echo "sel build rc $?") &
for c in p224 p256; do $B/kernelvec -curve $c -schedule coz -channel-bits 30 -n 2048 -out $O/vec/${c}_coz_c30.bin > /dev/null; done
wait; echo "builds in $(( $(date +%s) - T0 )) s"
for f in $O/build-*.log; do grep -E "Function properties for ecm_ladder|spill|registers" $f | grep -A2 "ecm_ladder" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-170 | sed "s|^|$(basename $f .log) |"; done | grep -v secp | tee $O/ptxas.txt
save
run() { # fatbin curve tag threads
  kernels/harness/harness $1 ${2}_coz_c30 $O/vec/${2}_coz_c30.bin --batches 1048576 --threads $4 --only ecm_ladder_${2}_coz_shenoy_pair_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk -v tag="$3" '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%-6s %-40s %4d %9.3f M/s\n", tag, $1, $2, $5/1e6}' $O/h.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
}
for r in 168 184 200 216 255; do run /tmp/r$r.fatbin p256 r$r 32,64,96,128; done | tee $O/times.txt
for rep in 1 2; do run /tmp/r255.fatbin p256 r255 128; run /tmp/sel.fatbin p256 sel 128; done | tee -a $O/times.txt
save; echo "t $(( $(date +%s) - T0 ))"
for r in 200 216 255; do run /tmp/r$r.fatbin p224 r$r 32,64,96,128; done | tee -a $O/times.txt
echo "bit-exact $(grep -c bit-exact $O/harness-all.log) of $(grep -c '  verify' $O/harness-all.log)"
save; echo "t $(( $(date +%s) - T0 ))"
