#!/usr/bin/env bash
# call D4: where the issues stand, in one call: gECC's pmul, fixed and verify, then
# ecmul bench --op mul,base,ecdsa at 2^22 items on every curve (kernel figures from queued launches).
set -u -o pipefail
T0=$(date +%s)
O=/tmp/wD4; mkdir -p $O; save() { tar czf ${OUT:-/tmp}/call.tgz -C $O .; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $O/device.txt
nproc | tee -a $O/device.txt; grep -m1 "model name" /proc/cpuinfo | tee -a $O/device.txt
B=.dev/d4
for f in $B/*.xz; do python3 -c "import lzma,sys,shutil; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3],'wb'))" $f && rm $f; done
chmod +x $B/ecmul
bash .dev/peers/gecc.sh $O/gecc-build build > $O/gecc-build.txt 2>&1; echo "gecc build rc $? t $(( $(date +%s) - T0 ))"
declare -A lim=([pmul]=60 [fixed]=120 [verify]=160)
for op in pmul fixed verify; do
  timeout ${lim[$op]} bash .dev/peers/gecc.sh $O/gecc-$op $op > $O/gecc-$op.txt 2>&1; echo "gecc $op rc $? $(grep 'op/s' $O/gecc-$op.txt | tr '\n' ' ') t $(( $(date +%s) - T0 ))"
done
cat $O/gecc-*.txt | grep "op/s" > $O/gecc.txt
save; left=$(( 585 - ($(date +%s) - T0) )); echo "bench gets $left s"
timeout $left $B/ecmul bench --backend gpu --curve p256,secp256k1,p224 --op mul,base,ecdsa --batch 4194304 --reps 3 \
  --gpu-peers $O/gecc.txt --json $O/bench.json > $O/bench.txt 2>&1; echo "bench rc $?"; grep -vE "^\s*$" $O/bench.txt | tail -24
save; echo "t $(( $(date +%s) - T0 ))"
