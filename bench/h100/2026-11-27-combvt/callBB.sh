#!/usr/bin/env bash
# call BB: the variable-time comb (combvt: 10-bit signed windows, the row read at its digit's address) for
# ECDSA's u1·G. Build the full fatbin; the comb and combvt entry points against the CPU twin (4,000 items);
# the harness at 2^20 on the comb and combvt mma entry points; end to end at 2^22 (mul, base, ecdsa) of the
# working tree (new) and of 7070c49 (old: ECDSA on the constant-time comb) for ecdsa; GPU tests of k·G;
# ecmul verify --op ecdsa on the gpu backend.
set -u -o pipefail
O=/tmp/wBB; mkdir -p $O/vec; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/c19
for f in $B/*.xz .dev/c18/new/*.xz; do
  if command -v xz >/dev/null; then xz -d -f $f
  else python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; fi
done
chmod +x $B/* .dev/c18/new/*
s=$(date +%s)
make -B kernels-fatbin > $O/fatbin.log 2>&1 & (make kernels-harness > $O/harness-build.log 2>&1; echo "harness rc $?") &
for c in p224 p256 secp256k1; do for sc in comb combvt; do
  $B/kernelvec -curve $c -schedule $sc -channel-bits 30 -n 2048 -out $O/vec/${c}_${sc}_c30.bin > /dev/null; done; done
wait; echo "builds in $(( $(date +%s) - s )) s"
cp kernels/ecmul.fatbin /tmp/B.fatbin; gzip -9 -c kernels/ecmul.fatbin > ${OUT:-/tmp}/ecmul.fatbin.gz
grep -E "Function properties for ecm_ladder_\w+_comb(vt)?_shenoy_mma_c30" -A2 $O/fatbin.log | grep -E "Function|spill|registers" | paste - - - | sed -E 's/ptxas info *: //g; s/Function properties for //' | cut -c1-150 | tee $O/ptxas-comb.txt
save
export ECMUL_FATBIN=/tmp/B.fatbin
ECMUL_GPU_ITEMS=4000 timeout 100 $B/gpu.test -test.run 'TestKernelMatchesCPUTwin/.*_comb' -test.v -test.timeout 95s > $O/twin.log 2>&1; echo "twin rc $?"; grep -cE "^    --- PASS" $O/twin.log; grep -E "^(--- |FAIL|ok|PASS)|--- FAIL" $O/twin.log | tail -4
save
for c in p224 p256 secp256k1; do for sc in comb combvt; do
  kernels/harness/harness /tmp/B.fatbin ${c}_${sc}_c30 $O/vec/${c}_${sc}_c30.bin --batches 1048576 --threads 128 --only ecm_ladder_${c}_${sc}_shenoy_mma_c30 > $O/h.log 2>&1
  cat $O/h.log >> $O/harness-all.log
  awk '/^ecm_ladder_[a-z0-9_]+ +[0-9]+ +1048576/ {printf "%-40s %8.3f M/s\n", $1, $5/1e6}' $O/h.log
  grep -E "MISMATCH|[1-9][0-9]* failed" $O/h.log | head -2
done; done | tee $O/times.txt
save
timeout 150 $B/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul,base,ecdsa --batch 4194304 --reps 3 --peers=false \
  --json $O/new.json > $O/new.txt 2>&1; echo "new rc $?"; grep -E "^ +(P-|secp)" $O/new.txt
save
unset ECMUL_FATBIN
timeout 90 .dev/c18/new/ecmul bench --backend gpu --curve p256,p224,secp256k1 --op mul,ecdsa --batch 4194304 --reps 3 --peers=false \
  --json $O/old.json > $O/old.txt 2>&1; echo "old rc $?"; grep -E "^ +(P-|secp)" $O/old.txt
save
export ECMUL_FATBIN=/tmp/B.fatbin
timeout 60 $B/ecmul.test -test.run 'TestScalarBaseMultBytes$/curve=/backend=gpu' -test.v -test.timeout 58s > $O/root.log 2>&1; echo "root tests rc $?"; grep -E "^(--- |FAIL|ok|PASS)" $O/root.log | tail -4
save
for c in p256 p224 secp256k1; do timeout 30 $B/ecmul verify --backend gpu --curve $c --op ecdsa --n 20000 > $O/verify-$c.txt 2>&1; echo "verify ecdsa $c rc $?"; tail -1 $O/verify-$c.txt; done
save
