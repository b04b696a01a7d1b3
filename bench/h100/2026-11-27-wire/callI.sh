#!/usr/bin/env bash
# call I: the wire kernels: build the fatbin; with it (ECMUL_FATBIN), the GPU tests of the bytes path and
# Wycheproof, the twin test of the item kernels, verify 300k per curve, memcheck on a wire batch, and a
# first look at the bytes API at 2^22 (P-256) with its host CPU.
set -u -o pipefail
cd "$(dirname "$0")/.."
O=/tmp/wI; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c6
for f in $B/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/*; ls -la $B
s=$(date +%s); make -B kernels-fatbin > $O/fatbin.log 2>&1; echo "fatbin rc $? in $(( $(date +%s) - s )) s"
gzip -9 -c kernels/ecmul.fatbin > ${OUT:-/tmp}/ecmul.fatbin.gz; ls -la ${OUT:-/tmp}/ecmul.fatbin.gz; grep -E "ecm_(unpack|pack)_p256_c30" -A2 $O/fatbin.log | grep -E "registers|spill" | head -4
save
export ECMUL_FATBIN=$PWD/kernels/ecmul.fatbin
timeout 150 $B/ecmul.test -test.run 'TestGPUWycheproof|TestGPUBytesOnItemKernels|TestGPUAgainstReference' -test.v -test.timeout 145s > $O/root.log 2>&1; echo "root tests rc $?"; grep -E "^(--- |FAIL|ok|PASS)" $O/root.log | tail -6
save
for c in p256 p224 secp256k1; do timeout 60 $B/ecmul verify --curve $c --backend gpu --n 300000 > $O/verify-$c.txt 2>&1; echo "verify $c rc $?"; tail -1 $O/verify-$c.txt; done | tee $O/verify.txt
save
timeout 60 $B/ecmul bench --backend gpu --curve p256 --op mul --batch 4194304 --reps 3 --peers=false --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $?"; grep -v "^\[" $O/bench.txt | tail -4
grep -o '"bytes_ops_per_sec":[0-9.e+]*\|"bytes_host_cpu_ns_per_item":[0-9.e+]*\|"kernel_ops_per_sec":[0-9.e+]*' $O/bench.json | head -6
save
ECMUL_GPU_ITEMS=4000 timeout 90 $B/gpu.test -test.run 'TestFinishKernelMatchesCPUTwin' -test.v -test.timeout 85s > $O/twin.log 2>&1; echo "twin rc $?"; grep -c "^    --- PASS" $O/twin.log; grep -E "^(--- |FAIL|ok|PASS)" $O/twin.log | tail -3
save
timeout 120 compute-sanitizer --tool memcheck --print-limit 10 $B/ecmul.test -test.run 'TestGPUBytesOnItemKernels/P-256/compressed=false' -test.timeout 115s > $O/memcheck.log 2>&1; echo "memcheck rc $?"; tail -3 $O/memcheck.log
save
