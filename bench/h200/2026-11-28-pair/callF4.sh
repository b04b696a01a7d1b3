#!/usr/bin/env bash
# call F4: Nsight Compute on the P-256 co-Z pair entry point of the committed fatbin (131,072 items, 128 threads).
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wF4; mkdir -p $O/vec; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
B=.dev/c42
python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $B/kernelvec.xz && chmod +x $B/kernelvec
(make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
$B/kernelvec -curve p256 -schedule coz -channel-bits 30 -n 2048 -out $O/vec/p256_coz_c30.bin > /dev/null
wait
timeout 200 kernels/harness/profile.sh kernels/ecmul.fatbin $O/vec $O/ncu ecm_ladder_p256_coz_shenoy_pair_c30 128 2>&1 | tee $O/profile.txt
rm -f $O/ncu/*.ncu-rep $O/ncu/*-raw.txt
save; echo "t $(( $(date +%s) - T0 ))"
