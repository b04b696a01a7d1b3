#!/usr/bin/env bash
# call O: the comb on the mma mapping: build the fatbin; with it (ECMUL_FATBIN), every comb entry point
# against the CPU twin, then k·P and k·G at 2^22 on the mma and warp mappings; gECC k·P and k·G.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wO; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c11
for f in $B/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/*
s=$(date +%s); make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? in $(( $(date +%s) - s )) s"
gzip -9 -c kernels/ecmul.fatbin > ${OUT:-/tmp}/ecmul.fatbin.gz
grep -E "Function properties for ecm_ladder_(p256|p224)_comb_shenoy_(mma|warp)_c30" -A2 $O/fatbin.log | grep -E "Function|spill|registers" | head -12
save
export ECMUL_FATBIN=$PWD/kernels/ecmul.fatbin
ECMUL_GPU_ITEMS=4000 timeout 100 $B/gpu.test -test.run 'TestKernelMatchesCPUTwin/.*comb' -test.v -test.timeout 95s > $O/twin.log 2>&1; echo "twin rc $?"; grep -cE "^    --- PASS" $O/twin.log; grep -E "^(--- |FAIL|ok|PASS)|--- FAIL" $O/twin.log | tail -4
save
timeout 200 bash .dev/peers/gecc.sh $O/gecc pmul fixed > $O/gecc.txt 2>&1; echo "gecc rc $?" | tee -a $O/gecc.txt; grep "op/s" $O/gecc.txt
save
timeout 150 $B/ecmul bench --backend gpu --curve p256,p224 --op mul,base --mapping mma,warp --batch 4194304 --reps 3 --peers=false \
  --json $O/ops.json > $O/ops.txt 2>&1; echo "ops rc $?"; grep -v "^\[" $O/ops.txt | tail -10
save
