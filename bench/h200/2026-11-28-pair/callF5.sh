#!/usr/bin/env bash
# call F5: every entry point of the committed fatbin (5675335) against the CPU twin on 20,000 items per curve,
# schedule and channel width (gpu.test TestKernelMatchesCPUTwin).
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wF5; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/c43
python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $B/gpu.test.xz && chmod +x $B/gpu.test
ECMUL_GPU_ITEMS=20000 timeout 230 $B/gpu.test -test.run 'TestKernelMatchesCPUTwin' -test.v -test.timeout 225s > $O/twin.log 2>&1; echo "twin rc $?" | tee -a $O/twin.log
echo "passed $(grep -cE '^    --- PASS' $O/twin.log), failed $(grep -cE '^    --- FAIL' $O/twin.log)"; grep -E "^(--- |FAIL|ok|PASS)" $O/twin.log | tail -3
save; echo "t $(( $(date +%s) - T0 ))"
