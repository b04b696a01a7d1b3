#!/usr/bin/env bash
# call SS (commit 0427eba): issue 23, Nsight Compute on the P-256 co-Z mma entry point (128 threads, 131,072
# items) of the committed fatbin: stall reasons, pipes, issue slots; the SASS with per-instruction samples.
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wSS; mkdir -p $O/vec; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O --exclude='*.ncu-rep' .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/c32
for f in $B/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/kernelvec
make kernels-harness > $O/harness-build.log 2>&1 || { tail $O/harness-build.log; exit 1; }
for c in p256 p224; do $B/kernelvec -curve $c -schedule coz -channel-bits 30 -n 2048 -out $O/vec/${c}_coz_c30.bin > /dev/null; done
echo "t $(( $(date +%s) - T0 ))"
timeout 300 kernels/harness/profile.sh kernels/ecmul.fatbin $O/vec $O/p256 ecm_ladder_p256_coz_shenoy_mma_c30 128 | tee $O/p256-summary.txt
save; echo "t $(( $(date +%s) - T0 ))"
grep -iE "pipe|Utilization|Throughput" $O/p256/*details.txt | head -60 > $O/p256-pipes.txt
cuobjdump -sass -arch sm_90 -fun ecm_ladder_p256_coz_shenoy_mma_c30 kernels/ecmul.fatbin | python3 kernels/harness/sass_loop.py 8 257 --hist > $O/p256-sass-loop.txt 2>&1 || true
cuobjdump -sass -arch sm_90 -fun ecm_ladder_p256_coz_shenoy_mma_c30 kernels/ecmul.fatbin > $O/p256-sass.txt 2>&1
save; echo "t $(( $(date +%s) - T0 ))"
