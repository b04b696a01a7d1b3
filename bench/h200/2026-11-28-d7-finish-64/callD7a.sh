#!/usr/bin/env bash
# call D7a: the finish kernel's arrays at kernels.FinishItemsMax (64), the grid choosing the items per
# thread (kernels.FinishGrid): make -B kernels-fatbin; the finish against its CPU twin at 16 and at 64
# items a thread, every entry point found.
set -u -o pipefail
T0=$(date +%s)
O=$OUT/d7a; mkdir -p $O
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt; nvcc --version | tail -1 | tee -a $O/device.txt
B=.dev/d7
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/*.test $B/ecmul 2>/dev/null
make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? t $(( $(date +%s) - T0 ))"
cp internal/kernels/ecmul.fatbin $OUT/ecmul.fatbin; ls -l $OUT/ecmul.fatbin
grep -E "Function properties for ecm_finish_\w+" -A2 $O/fatbin.log | grep -E "Function|spill|registers|stack" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-200 | sort -u > $O/ptxas-finish.txt; head -4 $O/ptxas-finish.txt
gzip -f $O/fatbin.log
export ECMUL_FATBIN=$OUT/ecmul.fatbin
ECMUL_GPU_ITEMS=5000 timeout 240 $B/gpu.test -test.run 'TestFinishKernelMatchesCPUTwin|TestFatbinHasEntryPoints' -test.v -test.timeout 235s > $O/twin-finish.log 2>&1; echo "twin finish rc $?"
grep -cE "^    --- PASS" $O/twin-finish.log; grep -E "^    --- FAIL|^(FAIL|ok|PASS)|entry points found" $O/twin-finish.log | head -5
echo "t $(( $(date +%s) - T0 ))"
