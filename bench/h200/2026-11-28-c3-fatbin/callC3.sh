#!/usr/bin/env bash
# call C3: the fatbin of the lazy marks past the first swap, built three ways: uncompressed (make -B kernels-fatbin),
# --compress-mode=balance and --compress-mode=size; the engine's open time with each (ecmul mul --stats, 10
# alternated rounds, against the committed fatbin); every entry point of the compressed build against the CPU twin;
# the harness's block size on the committed fatbin (P-256 pair co-Z, 2^20 items).
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wC3; mkdir -p $O/vec; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt; nvcc --version | tail -2 | tee -a $O/device.txt
B=.dev/c3
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*
git show HEAD:kernels/ecmul.fatbin > /tmp/old.fatbin
FLAGS="-std=c++17 -O3 --threads 0 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86 -gencode arch=compute_89,code=sm_89 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90"
make -B kernels-fatbin > $O/fatbin.log 2>&1 &
for m in balance size; do (nvcc $FLAGS --compress-mode=$m --fatbin -o /tmp/$m.fatbin kernels/ecmul.cu > $O/fatbin-$m.log 2>&1; echo "build $m rc $?") & done
(make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
$B/kernelvec -curve p256 -schedule coz -channel-bits 30 -n 2048 -out $O/vec/p256_coz_c30.bin > /dev/null
wait; echo "builds in $(( $(date +%s) - T0 )) s"
cp kernels/ecmul.fatbin /tmp/none.fatbin
ls -l /tmp/*.fatbin | tee $O/sizes.txt
for v in none balance size; do [ -s /tmp/$v.fatbin ] && gzip -9 -c /tmp/$v.fatbin > ${OUT:-/tmp}/$v.fatbin.gz; done
save
for r in 1 2 3 4 5 6 7 8 9 10; do for v in old none balance size; do [ -s /tmp/$v.fatbin ] || continue
  s=$(ECMUL_FATBIN=/tmp/$v.fatbin $B/ecmul mul --backend gpu --curve p256 --stats --in /dev/null 2>&1 | grep -o "open_seconds=[0-9.]*")
  echo "$v $s"; done; done > $O/open.txt
awk '{split($2,a,"="); s[$1]+=a[2]; n[$1]++; if (!($1 in lo) || a[2]<lo[$1]) lo[$1]=a[2]} END {for (v in s) printf "%-8s open mean %.4f s min %.4f s (%d runs)\n", v, s[v]/n[v], lo[v], n[v]}' $O/open.txt | tee $O/open-summary.txt
V=size; [ -s /tmp/size.fatbin ] || V=balance
echo "twin on $V"
ECMUL_FATBIN=/tmp/$V.fatbin ECMUL_GPU_ITEMS=2048 timeout 200 $B/gpu.test -test.run 'TestKernelMatchesCPUTwin' -test.v -test.timeout 195s > $O/twin-all-$V.log 2>&1; echo "twin all rc $?"
grep -cE "^    --- PASS" $O/twin-all-$V.log; grep -E "^    --- (FAIL|SKIP)|^(FAIL|ok)" $O/twin-all-$V.log | head -5
save; echo "t $(( $(date +%s) - T0 ))"
for rep in 1 2; do for th in 64 128 256; do
  kernels/harness/harness /tmp/old.fatbin p256_coz_c30 $O/vec/p256_coz_c30.bin --batches 1048576 --threads $th --only ecm_ladder_p256_coz_shenoy_pair_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk -v th=$th '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "threads %4d %-40s %9.3f M/s\n", th, $1, $5/1e6}' $O/h.log
done; done | tee $O/threads.txt
save; echo "t $(( $(date +%s) - T0 ))"
