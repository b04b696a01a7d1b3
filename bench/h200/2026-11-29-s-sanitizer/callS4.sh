#!/usr/bin/env bash
# call S4 (one H200): ecmul-a (0e8a653): CPU profiles of the measured runs of P-224 verification and
# signing at 2^22 on one GPU (ecmul bench --cpuprofile).
set -u -o pipefail
T0=$(date +%s); O=/tmp/s4; mkdir -p $O; save() { tar czf $OUT/s4.tgz -C $O .; }
el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt
B=.dev/s4
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul-*
for op in ecdsa sign; do
  timeout 60 $B/ecmul-a bench --backend gpu --curve p224 --op $op --batch 4194304 --reps 5 --peers=false --cpuprofile $O/cpu-$op.pprof \
    --json $O/$op.json > $O/$op.txt 2>&1; echo "$op rc $? t $(el) $(grep 'op/s end to end' $O/$op.txt | tail -1)"; save; done
echo "t $(el)"
